//! Tail tests: the 64 KiB cut, saving tails from real terminals (whole,
//! appended, compacted, unchanged, removed, pruned), reading them back after
//! a torn append, and a property: whatever a pane printed and whenever the
//! saves ran, reading the file gives the tail its ring had at the last save.
//! Then a small cap (`[history] tail_bytes`), and a cap changed between runs.

use super::super::tails::{self, DEFAULT_TAIL_BYTES, TailReport, compact_at, tail_path};
use super::super::*;
use super::{listing, mode, pid, save_plain, snapshot};
use signaltty_model::term::{RING_LINES, TailSlot, Terminal};
use signaltty_protocol::PaneId;
use std::fs;
use std::path::Path;

/// The default cap, which every test before the small-cap section runs with.
const MAX_TAIL_BYTES: usize = DEFAULT_TAIL_BYTES;
const COMPACT_AT: usize = compact_at(DEFAULT_TAIL_BYTES);

/// [`tails::tail_of`] at the default cap.
fn tail_of<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> String {
    tails::tail_of(lines, DEFAULT_TAIL_BYTES)
}

/// [`tails::read_tail`] at the default cap.
fn read_tail(dir: &Path, pane: &PaneId) -> Option<String> {
    super::super::read_tail(dir, pane, DEFAULT_TAIL_BYTES)
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

// ---- saving -------------------------------------------------------------------

#[test]
fn a_saved_snapshot_loads_back_equal_with_its_tails() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (Screen::printed("one\ntwo"), Screen::new(24, 80));
    let snap = snapshot(7, &["pane_a", "pane_b"]);
    let slots = [
        (pid("pane_a"), a.slot.clone()),
        (pid("pane_b"), b.slot.clone()),
    ];
    let report = save(
        dir.path(),
        &snap,
        &mut TailFiles::default(),
        &slots,
        TailBudget::Everything,
    )
    .unwrap()
    .tails;

    assert_eq!(load(dir.path()).unwrap(), Loaded::Snapshot(snap));
    assert_eq!(
        read_tail(dir.path(), &pid("pane_a")).as_deref(),
        Some("one\ntwo")
    );
    // A pane that printed nothing has no file.
    assert_eq!(read_tail(dir.path(), &pid("pane_b")), None);
    assert!(!tail_path(dir.path(), &pid("pane_b")).exists());
    assert_eq!((report.whole, report.appended), (1, 0));
    assert!(!dir.path().join("snapshot.tmp").exists());
}

#[test]
fn save_creates_the_state_dir_and_history_with_mode_0700_and_files_0600() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("state");
    let mut a = Screen::printed("x");
    let mut saves = Saves::new();
    saves.save(&dir, 1, &[("pane_a", &a)]);
    a.print("\ny");
    let appended = saves.save(&dir, 2, &[("pane_a", &a)]);

    assert_eq!(appended.appended, 1);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("history")), 0o700);
    assert_eq!(mode(&dir.join("snapshot.json")), 0o600);
    assert_eq!(mode(&dir.join("snapshot.json.1")), 0o600);
    assert_eq!(mode(&tail_path(&dir, &pid("pane_a"))), 0o600);
}

#[test]
fn an_unchanged_tail_is_not_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let a = Screen::printed(&numbered(0, 100));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    let before = listing(&dir.path().join("history"));
    let again = saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!((again.changed(), again.removed, again.bytes), (0, 0, 0));
    assert_eq!(listing(&dir.path().join("history")), before);
}

#[test]
fn new_lines_are_appended_and_read_back_as_the_rings_tail() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 3000));
    let mut saves = Saves::new();
    let first = saves.save(dir.path(), 1, &[("pane_a", &a)]);
    assert_eq!(first.whole, 1);
    let after_whole = file_len(dir.path(), "pane_a");
    assert_eq!(read(dir.path(), "pane_a"), a.expected());

    a.print(&numbered(3000, 20));
    let second = saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!((second.whole, second.appended), (0, 1));
    let grown = file_len(dir.path(), "pane_a") - after_whole;
    // Twenty new lines and a screen of 23 rows, not another 64 KiB.
    assert!(grown < 2_000, "{grown} bytes appended");
    assert_eq!(second.bytes, grown);
    assert_eq!(read(dir.path(), "pane_a"), a.expected());
    assert!(a.expected().len() <= MAX_TAIL_BYTES);
    assert!(
        a.expected()
            .ends_with("00003019 0123456789abcdefghijklmnopqrstu")
    );
}

#[test]
fn a_file_is_rewritten_whole_before_it_outgrows_two_tails() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 2000));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    let (mut appends, mut wholes) = (0, 0);
    for round in 0..60u64 {
        a.print(&numbered(2000 + 50 * round as usize, 50));
        let report = saves.save(dir.path(), 2 + round, &[("pane_a", &a)]);
        appends += report.appended;
        wholes += report.whole;
        assert!(file_len(dir.path(), "pane_a") <= COMPACT_AT as u64);
        assert_eq!(read(dir.path(), "pane_a"), a.expected(), "round {round}");
    }
    assert!(
        appends > 40 && wholes >= 2,
        "{appends} appends, {wholes} rewrites"
    );
}

#[test]
fn more_than_a_tails_worth_of_new_lines_is_rewritten_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed("start");
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    a.print(&numbered(0, 4000));
    let report = saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!((report.whole, report.appended), (1, 0));
    assert_eq!(read(dir.path(), "pane_a"), a.expected());
}

#[test]
fn a_cleared_pane_is_rewritten_and_an_empty_tail_removes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 200));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    a.term.feed(b"\x1b[H\x1b[2J\x1b[3J");
    a.term.clear_history();
    saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert!(!tail_path(dir.path(), &pid("pane_a")).exists());
    assert_eq!(read_tail(dir.path(), &pid("pane_a")), None);

    a.print("after the clear");
    let report = saves.save(dir.path(), 3, &[("pane_a", &a)]);
    assert_eq!(report.whole, 1);
    assert_eq!(read(dir.path(), "pane_a"), "after the clear");
}

#[test]
fn a_file_changed_behind_the_servers_back_is_rewritten_not_appended_to() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 100));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    fs::write(tail_path(dir.path(), &pid("pane_a")), "someone else's").unwrap();
    a.print("more");
    let report = saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!((report.whole, report.appended), (1, 0));
    assert_eq!(read(dir.path(), "pane_a"), a.expected());
    assert_eq!(mode(&tail_path(dir.path(), &pid("pane_a"))), 0o600);
}

#[test]
fn a_restored_panes_tail_is_kept_until_its_screen_changes() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("history")).unwrap();
    let path = tail_path(dir.path(), &pid("pane_a"));
    // Version 1: the tail text itself, as an older server wrote it.
    fs::write(&path, "old\ntail").unwrap();
    assert_eq!(read(dir.path(), "pane_a"), "old\ntail");

    // The tombstone's terminal shows it (and a restore marker) when its
    // slot is filled.
    let mut a = Screen::restored("old\ntail\n-- restored --");
    let mut saves = Saves {
        files: TailFiles::restored([pid("pane_a")]),
        budget: TailBudget::Everything,
    };
    let report = saves.save(dir.path(), 1, &[("pane_a", &a)]);
    assert_eq!((report.changed(), report.removed), (0, 0));
    assert_eq!(fs::read_to_string(&path).unwrap(), "old\ntail");

    a.print("\nresumed");
    assert_eq!(saves.save(dir.path(), 2, &[("pane_a", &a)]).whole, 1);
    assert_eq!(
        read(dir.path(), "pane_a"),
        "old\ntail\n-- restored --\nresumed"
    );
}

#[test]
fn a_pane_not_built_yet_keeps_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = Screen::printed("kept");
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    let empty = TailSlot::default();
    let slots = [(pid("pane_a"), empty)];
    save(
        dir.path(),
        &snapshot(2, &["pane_a"]),
        &mut saves.files,
        &slots,
        TailBudget::Everything,
    )
    .unwrap();
    assert_eq!(read(dir.path(), "pane_a"), "kept");
}

#[test]
fn past_its_budget_a_save_leaves_whole_files_to_the_next_and_never_an_append() {
    let dir = tempfile::tempdir().unwrap();
    let full = numbered(0, 2000); // 74 kB: a full tail each
    let (a, b, c) = (
        Screen::printed(&full),
        Screen::printed(&full),
        Screen::printed(&full),
    );
    let mut saves = Saves::new();
    // Room for about one and a half tails: two are written, one waits.
    saves.budget = TailBudget::Within {
        bytes: 100_000,
        time: std::time::Duration::from_secs(60),
    };
    let panes = [("pane_a", &a), ("pane_b", &b), ("pane_c", &c)];
    let first = saves.save(dir.path(), 1, &panes);
    assert_eq!((first.whole, first.deferred), (2, 1), "{first:?}");
    assert_eq!(read(dir.path(), "pane_a"), a.expected());
    assert_eq!(read(dir.path(), "pane_b"), b.expected());
    assert_eq!(read(dir.path(), "pane_c"), "", "not written yet");
    // The next save writes the deferred one; new lines of the others are
    // appended, whatever the budget.
    let (mut a, mut b) = (a, b);
    a.print("one more line\n");
    b.print("and another\n");
    let panes = [("pane_a", &a), ("pane_b", &b), ("pane_c", &c)];
    let second = saves.save(dir.path(), 2, &panes);
    assert_eq!(
        (second.whole, second.appended, second.deferred),
        (1, 2, 0),
        "{second:?}"
    );
    for (pane, screen) in panes {
        assert_eq!(read(dir.path(), pane), screen.expected(), "{pane}");
    }
}

#[test]
fn past_its_time_a_save_writes_appends_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = Screen::printed("first\n");
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &old)]);
    old.print("second\n");
    let new = Screen::printed("fresh\n");
    saves.budget = TailBudget::Within {
        bytes: u64::MAX,
        time: std::time::Duration::ZERO,
    };
    let report = saves.save(dir.path(), 2, &[("pane_a", &old), ("pane_b", &new)]);
    assert_eq!(
        (report.whole, report.appended, report.deferred),
        (0, 1, 1),
        "{report:?}"
    );
    assert_eq!(read(dir.path(), "pane_a"), old.expected());
    saves.budget = TailBudget::Everything;
    saves.save(dir.path(), 3, &[("pane_a", &old), ("pane_b", &new)]);
    assert_eq!(read(dir.path(), "pane_b"), new.expected());
}

#[test]
fn under_a_budget_a_pane_with_no_file_goes_before_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = Screen::printed(&numbered(0, 2000));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &old)]);
    // The old pane floods past its file's room: it needs a rewrite, as does
    // the new pane; the budget allows one, and the new pane gets it.
    old.print(&numbered(2000, 1800));
    let new = Screen::printed(&numbered(0, 2000));
    saves.budget = TailBudget::Within {
        bytes: 1,
        time: std::time::Duration::from_secs(60),
    };
    let report = saves.save(dir.path(), 2, &[("pane_a", &old), ("pane_b", &new)]);
    assert_eq!((report.whole, report.deferred), (1, 1), "{report:?}");
    assert_eq!(read(dir.path(), "pane_b"), new.expected());
}

#[test]
fn tails_of_panes_that_no_longer_exist_are_pruned_and_other_files_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (mut a, b, c) = (
        Screen::printed("a"),
        Screen::printed("b"),
        Screen::printed("c"),
    );
    let mut saves = Saves::new();
    saves.save(
        dir.path(),
        1,
        &[("pane_a", &a), ("pane_b", &b), ("pane_c", &c)],
    );
    let history = dir.path().join("history");
    fs::write(history.join("notes.txt"), "not ours").unwrap();
    fs::write(history.join("pane_d.tail.tmp"), "left by a crash").unwrap();

    // pane_a has a new tail, pane_b is in the snapshot without a registered
    // pane (it keeps its file), pane_c is gone.
    a.print("2");
    let slots = [(pid("pane_a"), a.slot.clone())];
    let report = save(
        dir.path(),
        &snapshot(2, &["pane_a", "pane_b"]),
        &mut saves.files,
        &slots,
        TailBudget::Everything,
    )
    .unwrap();

    let names: Vec<String> = listing(&history).into_keys().collect();
    assert_eq!(names, ["notes.txt", "pane_a.tail", "pane_b.tail"]);
    assert_eq!(report.tails.removed, 2);
    assert_eq!(read(dir.path(), "pane_a"), "a2");
    assert_eq!(read(dir.path(), "pane_b"), "b");
}

#[test]
fn save_recreates_a_missing_history_dir() {
    let dir = tempfile::tempdir().unwrap();
    save_plain(dir.path(), &snapshot(1, &[])).unwrap();
    fs::remove_dir(dir.path().join("history")).unwrap();
    let a = Screen::printed("a");
    Saves::new().save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!(read(dir.path(), "pane_a"), "a");
}

// ---- a crash in an append -------------------------------------------------------

#[test]
fn an_append_cut_anywhere_or_zeroed_reads_as_the_tail_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 1000));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    a.print(&numbered(1000, 10));
    saves.save(dir.path(), 2, &[("pane_a", &a)]);
    let before = read(dir.path(), "pane_a");
    let good = file_len(dir.path(), "pane_a") as usize;
    a.print(&numbered(1010, 30));
    assert_eq!(saves.save(dir.path(), 3, &[("pane_a", &a)]).appended, 1);
    let path = tail_path(dir.path(), &pid("pane_a"));
    let full = fs::read(&path).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), a.expected());

    for cut in good..full.len() {
        fs::write(&path, &full[..cut]).unwrap();
        assert_eq!(read(dir.path(), "pane_a"), before, "cut at {cut}");
    }
    // A power loss can leave the appended blocks zeroed, or any of them.
    let mut zeroed = full.clone();
    zeroed[good..].fill(0);
    fs::write(&path, &zeroed).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), before);
    let mut middle = full.clone();
    middle[good + 40..good + 80].fill(0);
    fs::write(&path, &middle).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), before);
    let mut flipped = full;
    let last = flipped.len() - 5;
    flipped[last] ^= 1;
    fs::write(&path, &flipped).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), before);
}

#[test]
fn after_a_torn_append_the_next_save_rewrites_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 100));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    let path = tail_path(dir.path(), &pid("pane_a"));
    // Half a record, as a write that failed half way leaves it.
    let mut torn = fs::read(&path).unwrap();
    torn.extend_from_slice(b"@120 0123456789abcdef\nhhalf a li");
    fs::write(&path, &torn).unwrap();
    a.print("next");
    let report = saves.save(dir.path(), 2, &[("pane_a", &a)]);
    assert_eq!((report.whole, report.appended), (1, 0));
    assert_eq!(read(dir.path(), "pane_a"), a.expected());
}

// ---- whatever was printed -------------------------------------------------------

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// Output of many kinds: lines short and long (wrapping many rows), blank
/// lines, redraws in place, screen clears, the alternate screen.
fn chunk(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(40) {
        match rng.below(12) {
            0 => out.extend_from_slice(b"\r\n"),
            1 => out.extend_from_slice(b"\x1b[2J"),
            2 => out.extend_from_slice(b"\x1b[?1049h"),
            3 => out.extend_from_slice(b"\x1b[?1049l"),
            4 => out.extend_from_slice(b"\x1b[H\x1b[Kredrawn top"),
            5 => out.extend(std::iter::repeat_n(b'w', 3_000)),
            6 => out.extend_from_slice("é ünïcødé\r\n".as_bytes()),
            _ => {
                let n = rng.below(120) as usize;
                out.extend((0..n).map(|i| b'a' + (i % 26) as u8));
                out.extend_from_slice(b"\r\n");
            },
        }
    }
    out
}

#[test]
fn whatever_a_pane_printed_the_file_reads_as_its_tail_at_the_last_save() {
    let (mut appended, mut whole) = (0, 0);
    for seed in 1..=16u64 {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let rows = 2 + rng.below(40) as u16;
        let cols = 10 + rng.below(200) as u16;
        let mut a = Screen::new(rows, cols);
        let mut saves = Saves::new();
        for round in 0..30u64 {
            for _ in 0..rng.below(6) {
                a.term.feed(&chunk(&mut rng));
            }
            match rng.below(20) {
                0 => a.term.clear_history(),
                1 => a
                    .term
                    .resize(2 + rng.below(40) as u16, 10 + rng.below(200) as u16),
                _ => {},
            }
            let report = saves.save(dir.path(), round + 1, &[("pane_a", &a)]);
            (appended, whole) = (appended + report.appended, whole + report.whole);
            let path = tail_path(dir.path(), &pid("pane_a"));
            if path.exists() {
                assert!(fs::metadata(&path).unwrap().len() <= COMPACT_AT as u64);
            }
            assert_eq!(
                read(dir.path(), "pane_a"),
                a.expected(),
                "seed {seed} round {round} ({rows}x{cols})"
            );
        }
    }
    // Both ways of writing were exercised.
    assert!(
        appended > 50 && whole > 50,
        "{appended} appends, {whole} rewrites"
    );
}

// ---- another cap ([history] tail_bytes) ------------------------------------------

/// A small cap, as `[history] tail_bytes = 4096` sets it.
const SMALL: usize = 4096;

fn read_within(dir: &Path, pane: &str, cap: usize) -> String {
    super::super::read_tail(dir, &pid(pane), cap).unwrap_or_default()
}

/// The bytes of history lines a tail file holds (each with its newline).
fn history_bytes(dir: &Path, pane: &str) -> usize {
    let bytes = fs::read(tail_path(dir, &pid(pane))).unwrap();
    let decoded = tail_format::decode(&bytes).unwrap();
    decoded.history.iter().map(|line| line.len() + 1).sum()
}

#[test]
fn a_small_cap_cuts_the_tail_and_what_a_rewrite_keeps() {
    assert_eq!(compact_at(SMALL), 2 * SMALL);
    let newest = "n".repeat(SMALL - 2);
    let tail = tails::tail_of(["dropped", "", newest.as_str()].into_iter(), SMALL);
    assert_eq!(tail, format!("\n{newest}"));
    let long = format!("start{}end", "a".repeat(SMALL));
    let tail = tails::tail_of([long.as_str()].into_iter(), SMALL);
    assert_eq!(tail.len(), SMALL - 1);
    assert!(tail.ends_with("aend"));

    // 500 lines of 37 bytes (18.5 kB): the file written whole holds only
    // the newest 4 KiB of history, and reads back as the ring's 4 KiB tail.
    let dir = tempfile::tempdir().unwrap();
    let a = Screen::printed(&numbered(0, 500));
    let mut saves = Saves::with_cap(SMALL);
    assert_eq!(saves.files.cap(), SMALL);
    assert_eq!(saves.save(dir.path(), 1, &[("pane_a", &a)]).whole, 1);
    assert!(history_bytes(dir.path(), "pane_a") <= SMALL);
    let read = read_within(dir.path(), "pane_a", SMALL);
    assert_eq!(read, a.expected_within(SMALL));
    assert!(read.len() <= SMALL, "{} bytes", read.len());
    assert!(read.ends_with("00000499 0123456789abcdefghijklmnopqrstu"));
    assert!(!read.contains("00000300 "), "older lines are cut");
}

#[test]
fn under_a_small_cap_a_file_is_compacted_past_two_tails() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Screen::printed(&numbered(0, 500));
    let mut saves = Saves::with_cap(SMALL);
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    let (mut appends, mut compactions, mut longest) = (0, 0, 0);
    let mut before = file_len(dir.path(), "pane_a");
    for round in 0..60u64 {
        // Three lines a save: far less than a tail, so a whole rewrite is
        // only ever a compaction.
        a.print(&numbered(500 + 3 * round as usize, 3));
        let report = saves.save(dir.path(), 2 + round, &[("pane_a", &a)]);
        let len = file_len(dir.path(), "pane_a");
        match (report.appended, report.whole) {
            (1, 0) => appends += 1,
            (0, 1) => {
                compactions += 1;
                // Rewritten because the append would have passed 2 × cap.
                assert!(
                    before > SMALL as u64,
                    "round {round}: {before} bytes before"
                );
                assert!(len < before, "round {round}");
                assert!(history_bytes(dir.path(), "pane_a") <= SMALL);
            },
            other => panic!("round {round}: {other:?}"),
        }
        assert!(
            len <= compact_at(SMALL) as u64,
            "round {round}: {len} bytes"
        );
        longest = longest.max(len);
        before = len;
        let read = read_within(dir.path(), "pane_a", SMALL);
        assert_eq!(read, a.expected_within(SMALL), "round {round}");
        assert!(read.len() <= SMALL);
    }
    assert!(
        appends > 20 && compactions >= 3,
        "{appends} appends, {compactions} compactions"
    );
    assert!(
        longest > SMALL as u64 * 3 / 2,
        "the file grew to {longest} bytes only"
    );

    // More than a small tail's worth of new lines at once is rewritten,
    // though the default cap would append it.
    a.print(&numbered(2000, 150));
    let report = saves.save(dir.path(), 100, &[("pane_a", &a)]);
    assert_eq!((report.whole, report.appended), (1, 0));
    assert_eq!(
        read_within(dir.path(), "pane_a", SMALL),
        a.expected_within(SMALL)
    );
}

#[test]
fn a_file_written_under_a_bigger_cap_is_read_trimmed_to_a_smaller_one() {
    let dir = tempfile::tempdir().unwrap();
    // A run at the default cap: a 64 KiB tail, then appends on top.
    let mut a = Screen::printed(&numbered(0, 3000));
    let mut saves = Saves::new();
    saves.save(dir.path(), 1, &[("pane_a", &a)]);
    a.print(&numbered(3000, 20));
    assert_eq!(saves.save(dir.path(), 2, &[("pane_a", &a)]).appended, 1);
    assert!(file_len(dir.path(), "pane_a") > 2 * SMALL as u64);
    assert_eq!(read(dir.path(), "pane_a"), a.expected());

    // The next run reads it with a 4 KiB cap: the newest 4 KiB only.
    let small = read_within(dir.path(), "pane_a", SMALL);
    assert_eq!(small, a.expected_within(SMALL));
    assert!(small.len() <= SMALL && small.len() > SMALL - 100);
    assert!(small.ends_with("00003019 0123456789abcdefghijklmnopqrstu"));
    assert!(a.expected().ends_with(&small));

    // Its restored pane keeps the old file until its screen changes, then
    // writes it anew under the small cap.
    let mut restored = Screen::restored(&small);
    let mut saves = Saves {
        files: TailFiles::restored([pid("pane_a")]).with_cap(SMALL),
        budget: TailBudget::Everything,
    };
    assert_eq!(
        saves
            .save(dir.path(), 3, &[("pane_a", &restored)])
            .changed(),
        0
    );
    assert_eq!(read_within(dir.path(), "pane_a", SMALL), small);
    restored.print("\nresumed");
    assert_eq!(saves.save(dir.path(), 4, &[("pane_a", &restored)]).whole, 1);
    assert!(file_len(dir.path(), "pane_a") <= compact_at(SMALL) as u64);
    let after = read_within(dir.path(), "pane_a", SMALL);
    assert_eq!(after, restored.expected_within(SMALL));
    assert!(after.ends_with("\nresumed"));

    // A cap raised again reads the small file whole.
    assert_eq!(read_within(dir.path(), "pane_a", DEFAULT_TAIL_BYTES), after);
}

#[test]
fn a_version_1_tail_is_trimmed_to_the_cap_too() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("history")).unwrap();
    let text = numbered(0, 1000);
    let text = text.trim_end_matches('\n');
    fs::write(tail_path(dir.path(), &pid("pane_a")), text).unwrap();
    assert_eq!(read(dir.path(), "pane_a"), text);
    let small = read_within(dir.path(), "pane_a", SMALL);
    assert_eq!(small, tails::tail_of(text.split('\n'), SMALL));
    assert!(small.len() <= SMALL && text.ends_with(&small));
}
