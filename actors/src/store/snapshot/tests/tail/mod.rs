//! Tail tests: the screens and saves the tail tests run, and the 64 KiB cut
//! of a terminal's history. Saving, reading back and other caps have files of
//! their own.

mod cap;
mod reading;
mod saving;

use super::{pid, snapshot};
use crate::store::snapshot::tails::{self, DEFAULT_TAIL_BYTES, TailReport, compact_at, tail_path};
use crate::store::snapshot::*;
use signaltty_model::term::{RING_LINES, TailSlot, Terminal};
use signaltty_protocol::PaneId;
use std::fs;
use std::path::Path;

/// The default cap, which every tail test outside `cap.rs` runs with.
const MAX_TAIL_BYTES: usize = DEFAULT_TAIL_BYTES;
const COMPACT_AT: usize = compact_at(DEFAULT_TAIL_BYTES);

/// [`tails::tail_of`] at the default cap.
fn tail_of<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> String {
    tails::tail_of(lines, DEFAULT_TAIL_BYTES)
}

/// [`tails::read_tail`] at the default cap.
fn read_tail(dir: &Path, pane: &PaneId) -> Option<String> {
    crate::store::snapshot::read_tail(dir, pane, DEFAULT_TAIL_BYTES)
}

/// A pane's terminal and the slot the saves read it through.
struct Screen {
    term: Terminal,
    slot: TailSlot,
}

impl Screen {
    fn new(rows: u16, cols: u16) -> Screen {
        let term = Terminal::new(rows, cols);
        let slot = TailSlot::default();
        slot.fill(term.tail_source());
        Screen { term, slot }
    }

    /// A restored pane's screen: `text` was fed before its slot was filled,
    /// as a tombstone's terminal is.
    fn restored(text: &str) -> Screen {
        let mut term = Terminal::new(24, 80);
        term.feed(text.replace('\n', "\r\n").as_bytes());
        let slot = TailSlot::default();
        slot.fill(term.tail_source());
        Screen { term, slot }
    }

    /// A 24 × 80 screen that printed `text` (lines separated by `\n`).
    fn printed(text: &str) -> Screen {
        let mut screen = Screen::new(24, 80);
        screen.print(text);
        screen
    }

    fn print(&mut self, text: &str) {
        self.term.feed(text.replace('\n', "\r\n").as_bytes());
    }

    /// The tail a save of this ring must leave on disk.
    fn expected(&self) -> String {
        tail_of(self.term.tail(RING_LINES).text.split('\n'))
    }

    /// The same under a cap of `cap` bytes.
    fn expected_within(&self, cap: usize) -> String {
        tails::tail_of(self.term.tail(RING_LINES).text.split('\n'), cap)
    }
}

/// A run's saves: what is known of the files, and the panes.
struct Saves {
    files: TailFiles,
    budget: TailBudget,
}

impl Saves {
    fn new() -> Saves {
        Saves {
            files: TailFiles::default(),
            budget: TailBudget::Everything,
        }
    }

    /// A run whose tails are cut to `cap` bytes.
    fn with_cap(cap: usize) -> Saves {
        Saves {
            files: TailFiles::default().with_cap(cap),
            budget: TailBudget::Everything,
        }
    }

    fn save(&mut self, dir: &Path, seq: u64, panes: &[(&str, &Screen)]) -> TailReport {
        let ids: Vec<&str> = panes.iter().map(|(id, _)| *id).collect();
        let slots: Vec<(PaneId, TailSlot)> = panes
            .iter()
            .map(|(id, screen)| (pid(id), screen.slot.clone()))
            .collect();
        save(
            dir,
            &snapshot(seq, &ids),
            &mut self.files,
            &slots,
            self.budget,
        )
        .unwrap()
        .tails
    }
}

fn read(dir: &Path, pane: &str) -> String {
    read_tail(dir, &pid(pane)).unwrap_or_default()
}

fn file_len(dir: &Path, pane: &str) -> u64 {
    fs::metadata(tail_path(dir, &pid(pane))).unwrap().len()
}

/// `n` numbered lines of 37 bytes, as the benchmark prints them.
fn numbered(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("{i:08} 0123456789abcdefghijklmnopqrstu"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

// ---- the cut ----------------------------------------------------------------

#[test]
fn a_tail_keeps_lines_oldest_first_joined_by_newlines() {
    assert_eq!(tail_of(["a", "b", "", "c"].into_iter()), "a\nb\n\nc");
    assert_eq!(tail_of(std::iter::empty()), "");
}

#[test]
fn a_tail_fills_exactly_64_kib_counting_a_newline_per_line() {
    let newest = "n".repeat(MAX_TAIL_BYTES - 2);
    // "" costs 1 and `newest` costs MAX - 1: exactly the cap, both kept.
    let tail = tail_of(["dropped", "", newest.as_str()].into_iter());
    assert_eq!(tail, format!("\n{newest}"));
    // "x" costs 2: one byte over, so only the newest line is kept.
    let tail = tail_of(["x", newest.as_str()].into_iter());
    assert_eq!(tail, newest);
    // One line of MAX - 1 bytes costs exactly the cap.
    let whole = "w".repeat(MAX_TAIL_BYTES - 1);
    assert_eq!(tail_of([whole.as_str()].into_iter()), whole);
}

#[test]
fn a_tail_stops_at_the_first_older_line_that_does_not_fit() {
    let big = "b".repeat(MAX_TAIL_BYTES);
    let tail = tail_of(["small", big.as_str(), "new1", "new2"].into_iter());
    assert_eq!(tail, "new1\nnew2");
}

#[test]
fn a_single_line_over_the_cap_keeps_its_last_bytes_on_a_char_boundary() {
    // 1 + 2 * 40_000 bytes: the last MAX - 1 (odd) bytes would start inside
    // an `é`, so one byte fewer is kept.
    let line = format!("b{}", "é".repeat(40_000));
    let tail = tail_of(["older", line.as_str()].into_iter());
    assert_eq!(tail, "é".repeat((MAX_TAIL_BYTES - 2) / 2));

    let ascii = format!("start{}end", "a".repeat(MAX_TAIL_BYTES));
    let tail = tail_of([ascii.as_str()].into_iter());
    assert_eq!(tail.len(), MAX_TAIL_BYTES - 1);
    assert!(tail.ends_with("aend"));
}

#[test]
fn a_tail_path_cannot_leave_the_history_dir() {
    let dir = Path::new("/state");
    assert_eq!(
        tail_path(dir, &pid("../../etc/pane_x")),
        Path::new("/state/history/etcpane_x.tail")
    );
}
