//! The recorded conformance suite (docs/terminal.md#the-conformance-recordings):
//! the raw output of vttest, dialog, vim, less, htop and mc, recorded in a PTY at a
//! fixed size (`integration-tests/fixtures/conformance/record.py`), replayed
//! through the terminal; the screen must be the one tmux showed for the same
//! bytes.

use super::*;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../integration-tests/fixtures/conformance")
}

/// Lines with their trailing blanks trimmed, and no blank lines at the end.
fn lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn every_recording_gives_the_screen_tmux_gave() {
    let index = std::fs::read_to_string(dir().join("cases.json")).expect("cases.json");
    let cases: serde_json::Value = serde_json::from_str(&index).expect("cases.json is JSON");
    let cases = cases.as_object().expect("cases.json is an object");
    assert!(cases.len() >= 10, "{} recordings", cases.len());
    let mut failures = Vec::new();
    for (name, case) in cases {
        let size = |k: &str| {
            case[k]
                .as_u64()
                .and_then(|v| u16::try_from(v).ok())
                .expect(k)
        };
        let bytes = std::fs::read(dir().join(format!("{name}.bin"))).expect("the recording");
        let want =
            std::fs::read_to_string(dir().join(format!("{name}.screen"))).expect("its screen");
        // Whole, and in chunks that split sequences anywhere.
        for chunk in [bytes.len().max(1), 7] {
            let mut term = Terminal::new(size("rows"), size("cols"));
            for piece in bytes.chunks(chunk) {
                term.feed(piece);
            }
            let (got, want) = (lines(&term.screen_text()), lines(&want));
            if got != want {
                let at = got
                    .iter()
                    .zip(&want)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(want.len()));
                failures.push(format!(
                    "{name} (chunks of {chunk}): first differs at line {at}\n  tmux:      {:?}\n  signaltty: {:?}",
                    want.get(at),
                    got.get(at)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
