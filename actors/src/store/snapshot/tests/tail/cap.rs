//! Tails under a cap other than the default (`[history] tail_bytes`): the cut
//! and compaction under a small cap, and files written under one cap read under
//! another.

use super::*;

/// A small cap, as `[history] tail_bytes = 4096` sets it.
const SMALL: usize = 4096;

fn read_within(dir: &Path, pane: &str, cap: usize) -> String {
    crate::store::snapshot::read_tail(dir, &pid(pane), cap).unwrap_or_default()
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
