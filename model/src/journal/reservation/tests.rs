//! Sequence reservations: where numbering starts, growth by whole blocks, and a
//! corrupt file told apart from a missing one.

use super::*;

#[test]
fn numbering_starts_at_the_ceiling_or_the_journal_max() {
    assert_eq!(starting_point(None, 0).unwrap(), 0);
    assert_eq!(starting_point(None, 57).unwrap(), 57);
    assert_eq!(starting_point(Some(4096), 57).unwrap(), 4096);
    assert_eq!(starting_point(Some(57), 57).unwrap(), 57);
    assert!(matches!(
        starting_point(Some(10), 57),
        Err(ReservationError::Behind { .. })
    ));
}

#[test]
fn reservations_grow_by_whole_blocks() {
    assert_eq!(ceiling_for(4096, 4096), Some(4096));
    assert_eq!(ceiling_for(4096, 4097), Some(8192));
    assert_eq!(ceiling_for(4096, 8192), Some(8192));
    assert_eq!(ceiling_for(4096, 8193 + BLOCK), Some(4096 + 3 * BLOCK));
    assert_eq!(ceiling_for(u64::MAX - 10, u64::MAX), None);
}

#[test]
fn a_corrupt_or_missing_file_is_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("event-sequence.json");
    assert!(read(&path).unwrap().is_none());
    std::fs::write(&path, "broken").unwrap();
    let e = read(&path).unwrap_err();
    assert!(matches!(e, ReservationError::Corrupt(_)));
    assert!(e.to_string().contains("corrupt"));
    std::fs::write(&path, "").unwrap();
    assert!(matches!(read(&path), Err(ReservationError::Corrupt(_))));
    write(&path, 8192).unwrap();
    assert_eq!(read(&path).unwrap(), Some(8192));
}
