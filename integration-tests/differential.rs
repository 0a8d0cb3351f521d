//! Differential test against tmux (docs/terminal.md#testing): the same byte
//! streams played into a tmux pane and a signaltty pane of the same size must give
//! the same screen text (`capture-pane -p` against `pane.read mode=screen`).
//! Skipped, saying why, where tmux is not installed (`.ci/run` installs it).

use crate::support::{TestServer, ok, poll_until};
use serde_json::json;
use std::process::Command;
use std::time::Duration;

/// Streams that exercise what the rendered grid has to get right.
fn streams() -> Vec<(&'static str, Vec<u8>)> {
    let mut long = Vec::new();
    for i in 0..40 {
        long.extend_from_slice(
            format!(
                "\x1b[3{}mline {i:03}\x1b[0m {}\r\n",
                i % 8,
                "x".repeat(i * 3)
            )
            .as_bytes(),
        );
    }
    vec![
        ("scrolling colour and wrapped lines", long),
        ("carriage returns and erase", b"Status: Starting\rStatus: Ready   \r\nprogress 10%\rprogress 100%\r\nabc\x1b[2Kxyz\r\n".to_vec()),
        (
            "cursor movement and clears",
            b"top\r\nmiddle\r\nbottom\r\n\x1b[2A\x1b[2Kreplaced\r\n\x1b[10;5Hplaced at 10,5\x1b[1;1H\x1b[K\xc3\xa9t\xc3\xa9 first\r\n".to_vec(),
        ),
        ("alternate screen comes back to the main one", b"main text\r\n\x1b[?1049h\x1b[Halt screen\x1b[?1049lafter\r\n".to_vec()),
        ("tabs and wide characters", "a\tb\tc\r\n\u{8868}\u{8868} wide\r\n".as_bytes().to_vec()),
        (
            "scroll region, index and reverse index",
            b"r1\r\nr2\r\nr3\r\nr4\r\nr5\r\nr6\r\n\x1b[2;4r\x1b[4;1Hin1\r\nin2\r\nin3\x1bD\x1bEnel\x1b[2;1H\x1bMri\x1b[1;1H\x1bMtop\x1b[r\x1b[8;1Hafter region\r\n"
                .to_vec(),
        ),
        (
            "origin mode, VPA and a wrap below the region",
            b"\x1b[3;5r\x1b[?6h\x1b[1;1Horigin home\x1b[9;3Hclamped\x1b[2dvpa\x1b[?6l\x1b[r\x1b[10;1H".iter()
                .copied()
                .chain(std::iter::repeat_n(b'w', 45))
                .chain(b"\x1b[20;1Hlast\r\n".iter().copied())
                .collect(),
        ),
        (
            "insert, delete and erase characters and lines",
            b"0123456789\x1b[1;3H\x1b[2@\x1b[1;8H\x1b[3P\r\nabcdefghij\x1b[2;2H\x1b[4X\r\nl3\r\nl4\r\nl5\x1b[3;1H\x1b[L\x1b[5;1H\x1b[2M\r\n"
                .to_vec(),
        ),
        (
            "autowrap off, insert mode and a pending wrap",
            b"\x1b[?7l".iter()
                .copied()
                .chain(std::iter::repeat_n(b'n', 50))
                .chain(b"END\x1b[?7h\r\n\x1b[4hins\rIN \x1b[4l\r\n".iter().copied())
                .chain(std::iter::repeat_n(b'p', 40))
                .chain(b"\x1b[2P\x1b[Kq\r\n".iter().copied())
                .collect(),
        ),
        (
            "tab stops set and cleared",
            b"\x1b[3g\x1b[1;5H\x1bH\x1b[1;13H\x1bH\ra\tb\tc\r\n\x1b[1;5H\x1b[0g\r\nx\ty\r\n".to_vec(),
        ),
        // Not 1048 (save the cursor, as xterm does): tmux 3.3a ignores it; a unit
        // test covers it.
        (
            "1047 switches screens and keeps the cursor",
            b"main\r\n\x1b[?1047h\x1b[5;5Halt\x1b[?1047lback\r\n".to_vec(),
        ),
        (
            "DEC special graphics through G0, and G1 with SO and SI",
            b"a\x1b(0lqqk\x1b(B b\r\n\x1b)0c\x0etqnqu\x0fd\r\nx\x1b(0x\x1b(Bx `afg~\r\n".to_vec(),
        ),
        // Where tmux differs (docs/terminal.md#where-we-differ-and-why): it
        // keeps one `ESC 7` slot for both screens, and DECCOLM leaves its
        // margins; unit tests cover what signaltty does there.
        (
            "the alternate screen's saved cursor survives leaving it",
            b"main\x1b[?1049h\x1b[4;10H\x1b7\x1b[?1049l\x1b[?1049h\x1b[H\x1b8X".to_vec(),
        ),
        (
            "DECCOLM clears the screen and homes the cursor",
            b"text\r\nmore\x1b[5;5H\x1b[?3hX\x1b[?3lY".to_vec(),
        ),
    ]
}

/// The text of `capture-pane -p -e`: its escape sequences dropped, and the
/// cells tmux drew from the DEC special graphics set (between SO and SI, the
/// letters it keeps) as the line drawing a person sees.
fn tmux_text(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars();
    let mut graphics = false;
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                if chars.next() == Some('[') {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            },
            '\x0e' => graphics = true,
            '\x0f' => graphics = false,
            c if graphics => out.push(drawn(c)),
            c => out.push(c),
        }
    }
    out
}

/// The DEC special graphics set, as the VT100 draws it.
fn drawn(c: char) -> char {
    const FROM: &str = "_`abcdefghijklmnopqrstuvwxyz{|}~";
    const TO: &str = " ◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·";
    FROM.chars()
        .position(|f| f == c)
        .and_then(|i| TO.chars().nth(i))
        .unwrap_or(c)
}

fn normalise(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn the_same_bytes_give_the_same_screen_in_tmux_and_signaltty() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed (.ci/run installs it)");
        return;
    }
    let server = TestServer::start();
    let mut c = server.client();
    ok(c.call("workspace.create", json!({"name": "diff"})));
    let socket_name = format!("signaltty-diff-{}", std::process::id());
    let dir = server.env().root().to_path_buf();
    let mut failures = Vec::new();
    for (i, (what, bytes)) in streams().into_iter().enumerate() {
        let file = dir.join(format!("stream-{i}.bin"));
        if let Err(e) = std::fs::write(&file, &bytes) {
            panic!("cannot write {}: {e}", file.display());
        }
        // `stty raw` keeps both terminals from translating what `cat` writes.
        let script = format!("stty raw -echo; cat '{}'; sleep 60", file.display());
        let tab = ok(c.call("tab.create", json!({"workspace_id": "diff"})))["tab"]["id"].clone();
        let pane = ok(c.call("pane.spawn", json!({"workspace_id": "diff", "tab_id": tab, "argv": ["sh", "-c", script], "cols": 80, "rows": 24})))["pane"]["id"].clone();
        let session = format!("s{i}");
        let started = Command::new("tmux")
            .args([
                "-L",
                &socket_name,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "80",
                "-y",
                "24",
                "-s",
                &session,
            ])
            .arg(format!("sh -c \"{}\"", script.replace('"', "\\\"")))
            .status();
        assert!(
            started.is_ok_and(|s| s.success()),
            "tmux new-session failed"
        );
        let capture = || {
            Command::new("tmux")
                .args([
                    "-L",
                    &socket_name,
                    "capture-pane",
                    "-p",
                    "-e",
                    "-t",
                    &session,
                ])
                .output()
                .map(|o| normalise(&tmux_text(&String::from_utf8_lossy(&o.stdout))))
                .unwrap_or_default()
        };
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let same = poll_until(Duration::from_secs(10), || {
            ours = normalise(
                ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})))["text"]
                    .as_str()
                    .unwrap_or_default(),
            );
            theirs = capture();
            !ours.is_empty() && ours == theirs
        });
        if !same {
            failures.push(format!(
                "{what}:\n  tmux:      {theirs:?}\n  signaltty: {ours:?}"
            ));
        }
    }
    let _ = Command::new("tmux")
        .args(["-L", &socket_name, "kill-server"])
        .status();
    assert!(
        failures.is_empty(),
        "screens differ:\n{}",
        failures.join("\n")
    );
}
