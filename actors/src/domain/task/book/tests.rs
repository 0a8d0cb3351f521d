//! Tests of the task book: the cap's reservations and the idempotency keys held
//! by starts under way.

use super::*;

#[test]
fn reservations_count_against_the_cap_until_released() {
    let mut b: TaskBook<()> = TaskBook::default();
    assert_eq!(b.reserve(3, 4), Ok(()));
    assert_eq!(
        b.reserve(3, 4),
        Err(CapReached(4, 4)),
        "the reservation counts"
    );
    b.release();
    assert_eq!(b.reserve(3, 4), Ok(()));
    assert_eq!(b.reserve(0, 0), Err(CapReached(1, 0)));
    let mut b: TaskBook<()> = TaskBook::default();
    assert_eq!(
        b.reserve(0, 0),
        Err(CapReached(0, 0)),
        "0 refuses every start"
    );
}

#[test]
fn a_key_is_held_by_one_start_at_a_time() {
    let mut b: TaskBook<()> = TaskBook::default();
    assert!(b.claim_key("k"));
    assert!(!b.claim_key("k"));
    b.free_key("k");
    assert!(b.claim_key("k"));
}
