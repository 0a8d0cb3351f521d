//! Saving tails at the default cap: a snapshot and its tails loading back
//! equal, the files' modes, appends and whole rewrites, files left as they are,
//! a save's budget of time and bytes, and pruning.

use super::*;
use crate::store::snapshot::tests::{listing, mode, save_plain};

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
