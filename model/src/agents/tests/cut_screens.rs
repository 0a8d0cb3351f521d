//! The captured real screens cut by narrower panes and with their status
//! line overdrawn: the bundled rules must read them as they read the whole
//! screens (docs/screen-rules.md#phrases).

use super::real_screens::{Fixture, fixtures};
use super::*;
use unicode_width::UnicodeWidthChar;

/// The widths a person's panes commonly have.
const WIDTHS: [usize; 4] = [60, 80, 100, 120];

/// Screens whose state only their title tells (from the screen alone they
/// read as another state), each with why.
const TITLE_ONLY: &[(&str, &str, &str)] = &[(
    "gemini-0.61.0",
    "blocked-tool-silent-30s",
    "after 30 s of a silent shell tool Gemini's title says Action Required; its screen is the running tool's",
)];

/// `line` cut to `width` columns, as a pane that narrow shows a line its
/// program does not wrap.
fn cut(line: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

/// Every line of `screen` cut to `width` columns.
fn cut_screen(screen: &str, width: usize) -> String {
    let lines: Vec<String> = screen.split('\n').map(|l| cut(l, width)).collect();
    lines.join("\n")
}

/// `screen` with each line containing `marker` replaced by `line`.
fn with_line(screen: &str, marker: &str, line: &str) -> String {
    let lines: Vec<&str> = screen
        .split('\n')
        .map(|l| if l.contains(marker) { line } else { l })
        .collect();
    lines.join("\n")
}

/// `screen` with its first line containing `marker` overdrawn by `over`
/// from column 0 (`over` replaces as many columns as it has).
fn overdraw(screen: &str, marker: &str, over: &str) -> String {
    let mut done = false;
    let lines: Vec<String> = screen
        .split('\n')
        .map(|line| {
            if done || !line.contains(marker) {
                return line.to_owned();
            }
            done = true;
            let mut skip = 0;
            let rest: String = line
                .chars()
                .skip_while(|c| {
                    skip += c.width().unwrap_or(0);
                    skip <= over.chars().count()
                })
                .collect();
            format!("{over}{rest}")
        })
        .collect();
    assert!(done, "no line holds {marker:?}");
    lines.join("\n")
}

fn read(fixture: &Fixture, screen: &str, title: &str, width: usize) -> Option<ScreenState> {
    let set = bundled();
    let (_, rules) = set.rules_for(fixture.kind, &fixture.agent);
    classify(&rules, &View::with_width(screen, title, width)).map(|i| rules[i].state)
}

/// Every captured screen, cut at each width, with and without its title.
#[test]
fn the_real_screens_read_the_same_cut_at_60_80_100_and_120_columns() {
    let mut wrong = Vec::new();
    let all = fixtures();
    for fixture in &all {
        let title_only = TITLE_ONLY
            .iter()
            .any(|(d, f, _)| *d == fixture.dir && *f == fixture.stem);
        for width in WIDTHS {
            let screen = cut_screen(&fixture.screen, width);
            let titles: &[&str] = if title_only {
                &[&fixture.title]
            } else {
                &[&fixture.title, ""]
            };
            for title in titles {
                let got = read(fixture, &screen, title, width);
                if got != Some(fixture.expected) {
                    wrong.push(format!(
                        "{}/{} at {width} columns, title {title:?}: {got:?}, not {:?}",
                        fixture.dir, fixture.stem, fixture.expected
                    ));
                }
            }
        }
    }
    assert!(all.len() >= 40, "only {} screens", all.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each agent's status line, its start overdrawn by another string (the way
/// Gemini CLI's "? for shortcuts" hint lands on its status line in a narrow
/// pane), still reads working, with the title and without.
#[test]
fn a_status_line_overdrawn_at_its_start_still_reads_working() {
    // (fixture directory, file, a text of the status line, what overdraws it)
    let cases = [
        (
            "gemini-0.61.0",
            "working-model",
            "Thinking...",
            "? for shortcuts",
        ),
        (
            "gemini-0.61.0",
            "working-hook-slow",
            "Executing Hook",
            "? for shortcuts",
        ),
        (
            "qwen-0.24.4",
            "working",
            "Aligning the stars",
            "? for shortcuts",
        ),
        ("codex-0.171.0", "working", "Working (", "? for shortcuts "),
        ("grok-0.0.34", "working", "Bootstrapping", "? for shortcuts"),
        (
            "opencode-1.18.33",
            "working",
            "esc interrupt",
            "ctrl+x 123456",
        ),
        ("kilo-7.7.7", "working", "esc interrupt", "ctrl+x 123456"),
        (
            "claude-2.1.332",
            "working",
            "esc to interrupt",
            "? for shortcuts   ",
        ),
    ];
    let mut wrong = Vec::new();
    for (dir, stem, marker, over) in cases {
        let fixture = &fixture(dir, stem);
        let screen = overdraw(&fixture.screen, marker, over);
        for width in WIDTHS {
            let narrow = cut_screen(&screen, width);
            for title in [fixture.title.as_str(), ""] {
                let got = read(fixture, &narrow, title, width);
                if got != Some(ScreenState::Working) {
                    wrong.push(format!("{dir}/{stem} at {width}, title {title:?}: {got:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The screen the fidelity check found: Gemini's hooks status line cut at
/// the right edge in the middle of "(esc to cancel" and its spinner overdrawn
/// by the "? for shortcuts" hint. It reads working while the hooks run, and
/// the same line without the cancel hint (what stays after the turn) does not.
#[test]
fn geminis_hooks_line_cut_and_overdrawn_reads_working() {
    let fixture = &fixture("gemini-0.61.0", "working-hooks");
    for width in WIDTHS {
        // The hook's command fills the line up to the last 11 columns.
        let lead = " ⠋ Running hooks: ~/.gemini/hooks/";
        let command = format!("{lead:x<0$}.sh ", width - 11 - 4);
        let line = cut(&format!("{command}(esc to cancel, 3s)"), width);
        assert!(line.ends_with(" (esc to can"), "{line:?}");
        let line = format!(
            "? for shortcuts{}",
            line.chars().skip(15).collect::<String>()
        );
        let screen = with_line(&fixture.screen, "Executing Hooks", &line);
        assert_eq!(
            read(fixture, &screen, "", width),
            Some(ScreenState::Working),
            "at {width}: {line:?}"
        );
        // Without the hint's start (the command fills the line) it is not a
        // sign: the end of a turn draws the hint over such a line.
        let stale = format!(
            "? for shortcutsks: '/usr/bin/notify' --event Notification {}",
            "x".repeat(width)
        );
        let stale = cut(&stale, width);
        let screen = with_line(&fixture.screen, "Executing Hooks", &stale);
        assert_eq!(
            read(fixture, &screen, "", width),
            Some(ScreenState::Idle),
            "at {width}"
        );
    }
}

/// A phrase cut by the edge counts only at the edge: the same words ending a
/// shorter line are not state.
#[test]
fn a_cut_phrase_counts_only_at_the_right_edge() {
    let fixture = &fixture("gemini-0.61.0", "idle");
    let width = 100;
    let mut lines: Vec<&str> = fixture.screen.split('\n').collect();
    let at = lines
        .iter()
        .position(|l| l.contains("? for shortcuts"))
        .expect("hint");
    lines[at] = "? for shortcuts  the docs say press (esc to can";
    let screen = lines.join("\n");
    assert_eq!(read(fixture, &screen, "", width), Some(ScreenState::Idle));
    let edge = format!("{:<width$}", "? for shortcuts  x");
    let edge = format!("{}(esc to can", &edge[..width - 11]);
    lines[at] = &edge;
    assert_eq!(
        read(fixture, &lines.join("\n"), "", width),
        Some(ScreenState::Working)
    );
}

/// The captured screen `<dir>/<stem>.txt`.
fn fixture(dir: &str, stem: &str) -> Fixture {
    fixtures()
        .into_iter()
        .find(|f| f.dir == dir && f.stem == stem)
        .unwrap_or_else(|| panic!("no fixture {dir}/{stem}"))
}
