//! Disk journal tests: rotation, lost and legacy history, reservations
//! (docs/persistence.md#the-journal,
//! docs/persistence.md#state-events-and-sequence-numbers), torn tails, interrupted
//! rotations and reservation arithmetic, on real files.

use super::*;
use serde_json::json;
use signaltty_model::journal::history::StoredRecord;

fn record(seq: u64) -> JournalRecord {
    JournalRecord {
        seq: Seq(seq),
        event: "workspace.closed",
        payload: bytes::Bytes::from(json!({"workspace_id": format!("ws_{seq}")}).to_string()),
        at: Timestamp::from_unix_millis(0),
    }
}

fn open(dir: &Path, rotate: u64) -> (FileStore, Arc<DiskHistory>) {
    let (store, shared, _report) = FileStore::open(dir, rotate).unwrap();
    (store, shared)
}

/// Appends `seqs` one batch each, numbering above the store's head.
fn append_n(store: &mut FileStore, n: u64) -> Vec<u64> {
    let start = store.head().0;
    (start + 1..=start + n)
        .inspect(|s| store.append(&[record(*s)]).unwrap())
        .collect()
}

fn seqs(records: &[StoredRecord]) -> Vec<u64> {
    records.iter().map(|r| r.seq).collect()
}

fn disk_size(dir: &Path) -> u64 {
    ["audit.jsonl", "audit.jsonl.1"]
        .iter()
        .filter_map(|f| fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

#[test]
fn a_fresh_directory_is_complete_from_zero_and_numbers_from_one() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(store.head(), Seq(0));
    assert_eq!(shared.coverage(), Some(Seq(0)));
    append_n(&mut store, 3);
    assert_eq!(seqs(&shared.read(Seq(0), Seq(3)).unwrap()), vec![1, 2, 3]);
    assert_eq!(
        fs::read_to_string(dir.path().join("event-sequence.json")).unwrap(),
        format!("{:<20}\n", 4096),
        "a fixed width, so a full disk can rewrite it in place"
    );
    let line = fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(first["seq"], 1);
    assert_eq!(first["event"], "workspace.closed");
    assert_eq!(first["payload"]["workspace_id"], "ws_1");
    assert!(first["at"].is_string());
}

#[test]
fn rotation_keeps_one_predecessor_and_bounded_disk_and_survives_reopen() {
    // docs/persistence.md#rotation.
    let dir = tempfile::tempdir().unwrap();
    let cap = 256;
    let (mut store, shared) = open(dir.path(), cap);
    append_n(&mut store, 20);
    assert!(
        disk_size(dir.path()) < 3 * cap,
        "disk use {}",
        disk_size(dir.path())
    );
    assert!(dir.path().join("audit.jsonl.1").exists());
    let retained = shared.coverage().expect("still complete after rotations");
    assert!(retained.0 > 0, "rotated history is accounted as discarded");
    let kept = seqs(&shared.read(retained, Seq(20)).unwrap());
    assert_eq!(*kept.last().unwrap(), 20);
    assert!(
        kept.windows(2).all(|w| w[1] == w[0] + 1),
        "ordered without gaps: {kept:?}"
    );
    assert_eq!(
        kept.first().copied(),
        Some(retained.0 + 1),
        "everything after retained_after is kept"
    );
    store.idle().unwrap();
    drop(store);
    let (store, shared) = open(dir.path(), cap);
    assert_eq!(shared.coverage(), Some(retained));
    assert!(
        store.head().0 >= 4096,
        "numbering continues above the old ceiling"
    );
}

#[test]
fn deleting_every_history_file_is_loss_that_survives_appends_and_reopens() {
    // docs/persistence.md#opening-the-journal.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 3);
    store.idle().unwrap();
    drop(store);
    for f in ["audit.jsonl", "audit.jsonl.1", "audit-retention.json"] {
        let _ = fs::remove_file(dir.path().join(f));
    }
    let (mut store, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(shared.coverage(), None);
    append_n(&mut store, 1);
    store.idle().unwrap();
    drop(store);
    let (_, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(shared.coverage(), None);
}

#[test]
fn deleting_the_predecessor_after_rotation_is_loss_before_and_after_restart() {
    // docs/persistence.md#opening-the-journal: a missing predecessor.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, shared) = open(dir.path(), 256);
    append_n(&mut store, 10);
    assert!(shared.coverage().is_some());
    fs::remove_file(dir.path().join("audit.jsonl.1")).unwrap();
    assert_eq!(shared.coverage(), None, "noticed at once");
    append_n(&mut store, 1);
    store.idle().unwrap();
    drop(store);
    let (_, shared) = open(dir.path(), 256);
    assert_eq!(
        shared.coverage(),
        None,
        "rotation must not erase loss evidence"
    );
}

#[test]
fn truncating_the_current_file_to_a_valid_prefix_is_loss_persistently() {
    // docs/persistence.md#opening-the-journal: a current file shorter than recorded.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 5);
    store.idle().unwrap();
    drop(store);
    let path = dir.path().join("audit.jsonl");
    let text = fs::read_to_string(&path).unwrap();
    let prefix: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    fs::write(&path, prefix).unwrap();
    let (mut store, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(shared.coverage(), None);
    append_n(&mut store, 1);
    store.idle().unwrap();
    drop(store);
    let (_, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(shared.coverage(), None);
}

#[test]
fn a_legacy_journal_without_retention_seeds_numbering_and_stays_unprovable() {
    // docs/persistence.md#opening-the-journal: a journal without a retention record.
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (1..=7)
        .map(|s| {
            format!(
                "{{\"seq\":{s},\"event\":\"workspace.closed\",\"payload\":{{}},\"at\":\"x\"}}\n"
            )
        })
        .collect();
    fs::write(dir.path().join("audit.jsonl"), lines).unwrap();
    let (mut store, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(store.head(), Seq(7));
    assert_eq!(shared.coverage(), None);
    append_n(&mut store, 1);
    store.idle().unwrap();
    drop(store);
    let (_, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(shared.coverage(), None);
}

#[test]
fn numbers_after_a_restart_without_events_are_above_every_number_issued() {
    // docs/persistence.md#state-events-and-sequence-numbers.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    let issued = append_n(&mut store, 2);
    drop(store);
    let (store, _) = open(dir.path(), ROTATE_BYTES);
    drop(store);
    let (store, _) = open(dir.path(), ROTATE_BYTES);
    assert!(store.head().0 >= *issued.last().unwrap());
    assert_eq!(
        store.head(),
        Seq(2 * BLOCK),
        "each start skips the unused rest of a block"
    );
}

#[test]
fn a_corrupt_reservation_refuses_to_open_with_a_clear_message() {
    // docs/persistence.md#state-events-and-sequence-numbers: an unreadable
    // reservation.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("event-sequence.json"), "broken").unwrap();
    let err = FileStore::open(dir.path(), ROTATE_BYTES).err().unwrap();
    assert!(err.contains("corrupt"), "{err}");
}

#[test]
fn a_reservation_behind_the_journal_refuses_to_open() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 3);
    drop(store);
    fs::write(dir.path().join("event-sequence.json"), "1").unwrap();
    let err = FileStore::open(dir.path(), ROTATE_BYTES).err().unwrap();
    assert!(err.contains("behind"), "{err}");
}

#[test]
fn a_failed_reservation_write_issues_nothing() {
    // docs/persistence.md#state-events-and-sequence-numbers: the reservation file
    // replaced by a directory.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, shared) = open(dir.path(), ROTATE_BYTES);
    let reservation = dir.path().join("event-sequence.json");
    fs::remove_file(&reservation).unwrap();
    fs::create_dir(&reservation).unwrap();
    fs::write(reservation.join("keep"), "x").unwrap();
    assert!(
        store.append(&[record(BLOCK)]).is_ok(),
        "inside the reserved block"
    );
    assert!(
        store.append(&[record(BLOCK + 1)]).is_err(),
        "the next block cannot be reserved"
    );
    let written = seqs(&shared.read(Seq(0), Seq(u64::MAX)).unwrap());
    assert_eq!(
        written,
        vec![BLOCK],
        "nothing past the reservation reached the journal"
    );
}

#[test]
fn a_torn_tail_is_cut_off_into_a_backup_and_history_stays_provable() {
    // docs/persistence.md#opening-the-journal, with its repair: the torn record
    // never counted, everything synced stays.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 2);
    store.idle().unwrap();
    drop(store);
    let path = dir.path().join("audit.jsonl");
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"{torn").unwrap();
    drop(f);
    let (mut store, shared, report) = FileStore::open(dir.path(), ROTATE_BYTES).unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("torn")),
        "{:?}",
        report.notes
    );
    assert!(fs::read(&path).unwrap().ends_with(b"\n"));
    let backups: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("audit.jsonl.corrupt-")
        })
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(fs::read(backups[0].path()).unwrap(), b"{torn");
    assert_eq!(shared.coverage(), Some(Seq(0)));
    let next = store.head().0 + 1;
    store.append(&[record(next)]).unwrap();
    assert_eq!(
        seqs(&shared.read(Seq(0), Seq(next)).unwrap()),
        vec![1, 2, next]
    );
}

#[test]
fn zero_fill_after_a_crash_is_cut_like_a_torn_line() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 1);
    drop(store);
    let mut f = OpenOptions::new()
        .append(true)
        .open(dir.path().join("audit.jsonl"))
        .unwrap();
    f.write_all(&[0u8; 4096]).unwrap();
    drop(f);
    let (_, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(seqs(&shared.read(Seq(0), Seq(10)).unwrap()), vec![1]);
    assert!(shared.coverage().is_some());
}

#[test]
fn a_corrupt_middle_line_marks_history_unprovable_but_the_journal_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 3);
    drop(store);
    let path = dir.path().join("audit.jsonl");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "{\"garbage\":true}";
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (store, shared, report) = FileStore::open(dir.path(), ROTATE_BYTES).unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("invalid")),
        "{:?}",
        report.notes
    );
    assert_eq!(shared.coverage(), None);
    assert!(store.head().0 >= 3);
}

/// Rebuilds the state a crash leaves after step `step` of a rotation of a journal
/// holding seqs 1..=4 in `audit.jsonl` (and none in a predecessor).
fn crash_during_rotation(step: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 4);
    store.idle().unwrap();
    let len = store.len;
    drop(store);
    let p = Paths::new(dir.path());
    let mut r = Retention::parse(&fs::read(&p.retention).unwrap()).unwrap();
    if step >= 1 {
        r.predecessor = true;
        r.predecessor_bytes = len;
        r.current_bytes = 0;
        durable::replace(&p.retention, &r.to_bytes()).unwrap();
    }
    if step >= 2 {
        fs::rename(&p.current, &p.predecessor).unwrap();
    }
    if step >= 3 {
        open_append(&p.current).unwrap();
    }
    dir
}

#[test]
fn a_rotation_interrupted_at_any_step_is_finished_and_history_stays_provable() {
    for step in 0..=3 {
        let dir = crash_during_rotation(step);
        let (mut store, shared, report) = FileStore::open(dir.path(), ROTATE_BYTES).unwrap();
        assert_eq!(
            shared.coverage(),
            Some(Seq(0)),
            "after step {step}: {:?}",
            report.notes
        );
        let next = store.head().0 + 1;
        store.append(&[record(next)]).unwrap();
        assert_eq!(
            seqs(&shared.read(Seq(0), Seq(next)).unwrap()),
            vec![1, 2, 3, 4, next],
            "after step {step}"
        );
    }
}

#[test]
fn an_unreadable_retention_record_makes_history_unprovable() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 1);
    drop(store);
    fs::write(dir.path().join("audit-retention.json"), "{nope").unwrap();
    let (_, shared) = open(dir.path(), ROTATE_BYTES);
    assert_eq!(shared.coverage(), None);
}

#[test]
fn a_replaced_current_file_stops_appends() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 1);
    let path = dir.path().join("audit.jsonl");
    fs::remove_file(&path).unwrap();
    assert!(
        store.append(&[record(2)]).is_err(),
        "an unlinked journal is not a journal"
    );
}

#[test]
fn a_crash_at_any_byte_of_an_unsynced_batch_recovers_every_synced_record() {
    // By exhaustion: the synced journal plus every prefix of
    // the next batch's bytes (what a crash mid-write can leave) must reopen to the
    // synced records, plus only whole records of the unsynced batch.
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(dir.path(), ROTATE_BYTES);
    append_n(&mut store, 3);
    drop(store);
    let synced = fs::read(dir.path().join("audit.jsonl")).unwrap();
    let unsynced: String = (4..=5)
        .map(|s| {
            format!(
                "{{\"seq\":{s},\"event\":\"workspace.closed\",\"payload\":{{}},\"at\":\"x\"}}\n"
            )
        })
        .collect();
    let state = fs::read(dir.path().join("audit-retention.json")).unwrap();
    let reservation = fs::read(dir.path().join("event-sequence.json")).unwrap();
    for cut in 0..=unsynced.len() {
        let case = tempfile::tempdir().unwrap();
        let mut bytes = synced.clone();
        bytes.extend_from_slice(&unsynced.as_bytes()[..cut]);
        fs::write(case.path().join("audit.jsonl"), &bytes).unwrap();
        fs::write(case.path().join("audit-retention.json"), &state).unwrap();
        fs::write(case.path().join("event-sequence.json"), &reservation).unwrap();
        let (store, shared, _) = FileStore::open(case.path(), ROTATE_BYTES).unwrap();
        let got = seqs(&shared.read(Seq(0), Seq(100)).unwrap());
        let whole = unsynced.as_bytes()[..cut]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64;
        let expected: Vec<u64> = (1..=3 + whole).collect();
        assert_eq!(got, expected, "cut at byte {cut}");
        assert!(
            shared.coverage().is_some(),
            "cut at byte {cut}: history stays provable"
        );
        assert!(store.head().0 >= 3 + whole);
    }
}

#[test]
fn arbitrary_bytes_in_the_journal_never_panic_the_opener() {
    // With a seeded generator: any content either opens (with
    // history marked unprovable when it is not a journal) or fails with a message.
    let mut seed: u64 = 0x005e_ed0f_5167_7779;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..200 {
        let dir = tempfile::tempdir().unwrap();
        let len = (next() % 600) as usize;
        let alphabet = b"{}\":,seqvntpayload0123456789\n \x00\xff";
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        fs::write(dir.path().join("audit.jsonl"), &bytes).unwrap();
        if round % 3 == 0 {
            fs::write(
                dir.path().join("audit-retention.json"),
                &bytes[..len.min(40)],
            )
            .unwrap();
        }
        if let Ok((_, shared, _)) = FileStore::open(dir.path(), ROTATE_BYTES) {
            let _ = shared.coverage();
            let _ = shared.read(Seq(0), Seq(u64::MAX));
        }
    }
}

#[test]
fn a_gated_rotation_waits_for_a_snapshot_covering_what_it_discards() {
    let dir = tempfile::tempdir().unwrap();
    // Each record is about 110 bytes: 256-byte files rotate every few records.
    let (mut store, shared) = open(dir.path(), 256);
    shared.gate_rotation();
    let first = append_n(&mut store, 6);
    // The first rotation discards nothing (no predecessor yet) and may go.
    assert!(dir.path().join("audit.jsonl.1").exists());
    let retained = shared.coverage().expect("complete");
    assert_eq!(retained, Seq(0), "nothing discarded yet");
    // The next one would discard events no snapshot covers: it waits, and the
    // current file grows past its cap instead.
    let more: Vec<u64> = (first.len() as u64 + 1..=first.len() as u64 + 2)
        .inspect(|s| store.append(&[record(*s)]).unwrap())
        .collect();
    assert!(shared.rotation_waiting());
    assert_eq!(shared.coverage(), Some(Seq(0)));
    // A snapshot at the last event covers the predecessor: the next append rotates.
    let head_before = Seq(*more.last().unwrap());
    shared.snapshot_saved(head_before);
    let next = head_before.0 + 1;
    store.append(&[record(next)]).unwrap();
    let appended = vec![next];
    assert!(!shared.rotation_waiting());
    let retained = shared.coverage().expect("complete");
    assert!(
        retained.0 > 0 && retained.0 <= head_before.0,
        "{retained:?}"
    );
    // Every event after the snapshot is still there to replay.
    let after = shared.read(head_before, Seq(u64::MAX)).unwrap();
    assert_eq!(seqs(&after), appended);
}

#[test]
fn a_gated_rotation_goes_ahead_past_four_times_the_cap_to_keep_the_disk_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, shared) = open(dir.path(), 256);
    shared.gate_rotation();
    for seq in 1..=40 {
        store.append(&[record(seq)]).unwrap();
    }
    // No snapshot ever: rotations were forced, and what they discarded is said.
    assert!(shared.coverage().expect("complete").0 > 0);
    assert!(
        disk_size(dir.path()) < 256 * (ROTATION_HARD_FACTOR + 1) * 2,
        "disk {}",
        disk_size(dir.path())
    );
}
