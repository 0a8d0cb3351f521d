//! Recorded fixtures: raw output of real programs (captured with `script`), and
//! the screen and ring text they must produce. Each case is
//! `term/fixtures/<name>/{input.bin, screen.txt, ring.txt}`; the input is fed in
//! 4 KiB chunks like a PTY read, and once byte by byte.
//!
//! To record a new case, capture the bytes (`script -q -c CMD /dev/null >
//! input.bin`), add it to `term_fixtures!` and write the expected files with
//! `SIGNALTTY_BLESS=1 cargo test -p signaltty-model term::tests::fixtures`;
//! read them before committing.

use super::*;
use std::path::PathBuf;

fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/term/fixtures")
        .join(name)
}

/// Compares `got` with the file `expected`, or writes it when blessing. A
/// mismatch prints the differing rows.
fn compare(name: &str, file: &str, got: &str) {
    let path = fixture_dir(name).join(file);
    if std::env::var_os("SIGNALTTY_BLESS").is_some() {
        std::fs::write(&path, format!("{got}\n")).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with SIGNALTTY_BLESS=1 cargo test -p signaltty-model \
             term::tests::fixtures",
            path.display()
        )
    });
    let expected = expected.strip_suffix('\n').unwrap_or(&expected);
    if expected == got {
        return;
    }
    let mut diff = String::new();
    let (want, have): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), got.lines().collect());
    for row in 0..want.len().max(have.len()) {
        let (w, h) = (want.get(row), have.get(row));
        if w != h {
            diff.push_str(&format!("row {row}:\n  want {w:?}\n  have {h:?}\n"));
        }
    }
    panic!(
        "{name}/{file} differs (SIGNALTTY_BLESS=1 rewrites it after a deliberate change):\n{diff}"
    );
}

fn run_fixture(name: &str, rows: u16, cols: u16) {
    let input = std::fs::read(fixture_dir(name).join("input.bin")).unwrap();
    let mut term = Terminal::new(rows, cols);
    for chunk in input.chunks(4096) {
        term.feed(chunk);
    }
    compare(name, "screen.txt", &term.screen_text());
    compare(name, "ring.txt", &term.tail(RING_LINES).text);

    let mut bytewise = Terminal::new(rows, cols);
    bytewise.checks.verify = false;
    for byte in input.chunks(1) {
        bytewise.feed(byte);
    }
    assert_eq!(
        bytewise.screen_text(),
        term.screen_text(),
        "{name}: byte by byte"
    );
}

macro_rules! term_fixtures {
    ($($name:ident: $rows:literal x $cols:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_fixture(stringify!($name), $rows, $cols);
            }
        )*
    };
}

term_fixtures! {
    ls_color_scrolls_into_history: 24 x 80,
    progress_bar_redraws_in_place: 24 x 80,
    full_screen_program_leaves_history_alone: 24 x 80,
}
