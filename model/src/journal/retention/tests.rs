//! The retention record: its round trip in its documented shape
//! (docs/persistence.md#the-retention-record), and lengths that match only when
//! no generation shrank or vanished.

use super::*;

#[test]
fn the_record_round_trips_in_the_documented_shape() {
    let r = Retention {
        retained_after: 7,
        predecessor: true,
        current_bytes: 10,
        predecessor_bytes: 20,
        known_complete: false,
    };
    let text = String::from_utf8(r.to_bytes()).unwrap();
    for key in [
        "retained_after",
        "predecessor",
        "current_bytes",
        "predecessor_bytes",
        "known_complete",
    ] {
        assert!(text.contains(key), "{text}");
    }
    assert_eq!(Retention::parse(text.as_bytes()), Some(r));
    assert_eq!(Retention::parse(b"{broken"), None);
}

#[test]
fn lengths_match_only_when_no_generation_shrank_or_vanished() {
    let r = Retention {
        retained_after: 0,
        predecessor: true,
        current_bytes: 100,
        predecessor_bytes: 50,
        known_complete: true,
    };
    assert!(r.lengths_match(Some(100), Some(50)));
    assert!(
        r.lengths_match(Some(180), Some(50)),
        "appends grow the current file"
    );
    assert!(
        !r.lengths_match(Some(99), Some(50)),
        "truncated current file"
    );
    assert!(!r.lengths_match(Some(100), Some(49)), "changed predecessor");
    assert!(!r.lengths_match(Some(100), None), "deleted predecessor");
    assert!(!r.lengths_match(None, Some(50)), "deleted current file");
    let fresh = Retention::default();
    assert!(fresh.lengths_match(Some(0), None));
    assert!(
        !fresh.lengths_match(Some(0), Some(3)),
        "an unexpected predecessor"
    );
}
