//! `signaltty agents record AGENT` through the real binary
//! (docs/agents.md#recording-a-new-versions-screens): a pane replaying real
//! Claude screens is recorded while the test drives it, each frame named
//! after what the rules read on it and written in the fixture format; a
//! recorder that starts its own agent ends when the agent exits, and never
//! replaces a frame already recorded.

use crate::support::agents::{fake, type_line, wait_state, workspace};
use crate::support::{TestServer, ok, str_field, wait_until};
use serde_json::json;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(30);

/// The screen part of a fixture file, its lines' trailing blanks and the
/// trailing empty lines dropped.
fn screen_of(text: &str) -> (String, String) {
    let (first, screen) = text.split_once('\n').unwrap_or((text, ""));
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    (first.to_owned(), lines[..end].join("\n"))
}

/// The rows of `frames.tsv` after its header.
fn rows(dir: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(dir.join("frames.tsv"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

#[test]
fn agents_record_writes_each_screen_named_after_what_the_rules_read() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "record");
    let screens = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("integration-tests/fixtures/real-screens/claude-2.1.332");
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "agent_hint": "claude", "cols": 120, "rows": 40,
               "argv": ["python3", fake("screen-player"), screens.to_string_lossy()]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    type_line(&mut c, &pane, "idle");
    wait_state(&mut c, &pane, "idle");

    let out = server.env().root().join("recorded");
    let mut recorder = server
        .env()
        .command(&[
            "agents",
            "record",
            "claude",
            "--pane",
            &pane,
            "--out",
            &out.to_string_lossy(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the recorder: {e}"));
    // No version is known for a stand-in: the directory says so, once the
    // recorder has waited for one.
    let dir = out.join("claude-unknown");
    let mut seen = 0;
    for (screen, reading) in [
        ("idle", "idle"),
        ("working", "working"),
        ("blocked-subagent", "blocked"),
        ("working-background-agent", "working"),
        ("done", "idle"),
    ] {
        if screen != "idle" {
            type_line(&mut c, &pane, screen);
        }
        let expected = std::fs::read_to_string(screens.join(format!("{screen}.txt")))
            .unwrap_or_else(|e| panic!("{e}"));
        let expected = screen_of(&expected);
        // The frame showing it: a screen drawn in several reads can be
        // recorded half-way too, so the last frame is looked for.
        let row = wait_until(&format!("a recorded frame of {screen}"), DEADLINE, || {
            let all = rows(&dir);
            let last = all.get(seen..)?.iter().rev().find(|row| {
                let file = dir.join(format!("{}-{}.txt", row[2], row[0]));
                std::fs::read_to_string(file).is_ok_and(|t| screen_of(&t) == expected)
            })?;
            Some((all.len(), last.clone()))
        });
        seen = row.0;
        let row = row.1;
        assert_eq!(row[2], reading, "{screen}: {row:?}");
        assert_eq!(row[6], "120", "{row:?}");
    }
    let rows = rows(&dir);
    // The rule that read each frame is named; the blocked one is Claude's
    // permission dialog.
    assert!(
        rows.iter()
            .any(|r| r[2] == "blocked" && r[3] == "bash_permission_prompt"),
        "{rows:?}"
    );
    // Ctrl-C ends it with a summary.
    let pid = nix::unistd::Pid::from_raw(recorder.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap_or_else(|e| panic!("{e}"));
    let status = wait_until("the recorder to stop", DEADLINE, || {
        recorder.try_wait().ok().flatten()
    });
    let output = recorder
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(&format!("stopped: {} screens in", rows.len())),
        "{stdout}"
    );
    assert!(stdout.contains("blocked 1"), "{stdout}");
    // The pane it recorded still runs.
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["live"]["state"], "live", "{}", p["pane"]);
}

#[test]
fn agents_record_starts_its_agent_ends_when_it_exits_and_never_replaces_a_frame() {
    let server = TestServer::start();
    let out = server.env().root().join("recorded");
    let dir = out.join("sh-unknown");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let kept = "# title: earlier\nan earlier recording\n";
    std::fs::write(dir.join("unmatched-000.txt"), kept).unwrap_or_else(|e| panic!("{e}"));

    let script = "printf '\\033]0;drawn\\007hello from the agent'; sleep 2";
    let output = server.cli(&[
        "agents",
        "record",
        "sh",
        "--out",
        &out.to_string_lossy(),
        "--",
        "sh",
        "-c",
        script,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("signaltty attach"), "{stdout}");
    assert!(stdout.contains("the pane's process exited"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.join("unmatched-000.txt")).unwrap_or_default(),
        kept
    );
    // Numbered after what was there.
    let drawn = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?)))
        .find(|(_, t)| t.contains("hello from the agent"))
        .unwrap_or_else(|| panic!("no frame of the agent's screen in {}", dir.display()));
    assert!(
        drawn.0.to_string_lossy().ends_with("-001.txt"),
        "{}",
        drawn.0.display()
    );
    assert!(drawn.1.starts_with("# title: drawn\n"), "{}", drawn.1);

    // A name that cannot be a fixture directory is refused before anything
    // starts.
    let bad = server.cli(&["agents", "record", "../x"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("BAD_PARAMS"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
