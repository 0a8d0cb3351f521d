//! Timestamps: parsing inverts formatting, known instants, and text order as
//! time order.

use super::*;

#[test]
fn parsing_inverts_formatting() {
    for ms in [
        0,
        1,
        999,
        86_400_000,
        1_796_000_123_456,
        951_782_400_000,
        -1,
    ] {
        let t = Timestamp::from_unix_millis(ms);
        if ms >= 0 {
            assert_eq!(t.unix_millis(), Some(ms), "{t}");
        }
    }
    let a = Timestamp::from_unix_millis(10_000);
    let b = Timestamp::from_unix_millis(72_500);
    assert_eq!(b.seconds_since(&a), Some(62));
    assert_eq!(Timestamp("yesterday".into()).unix_millis(), None);
}

#[test]
fn formats_known_instants() {
    assert_eq!(
        Timestamp::from_unix_millis(0).as_str(),
        "1970-01-01T00:00:00.000Z"
    );
    assert_eq!(
        Timestamp::from_unix_millis(951_782_400_000).as_str(),
        "2000-02-29T00:00:00.000Z"
    );
    assert_eq!(
        Timestamp::from_unix_millis(1_796_026_502_125).as_str(),
        "2026-11-30T08:15:02.125Z"
    );
}

#[test]
fn timestamps_sort_as_text_in_time_order() {
    let a = Timestamp::from_unix_millis(1_000);
    let b = Timestamp::from_unix_millis(86_400_000);
    assert!(a < b);
}
