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

#[test]
fn a_queued_start_holds_a_slot_and_is_known_until_it_ends() {
    let mut b: TaskBook<()> = TaskBook::default();
    let id = signaltty_protocol::TaskId("task_q".into());
    b.launch(id.clone());
    assert!(b.is_launching(&id));
    assert_eq!(b.starting(), 1);
    assert_eq!(b.reserve(3, 4), Err(CapReached(4, 4)), "its slot counts");
    b.launched(&id);
    b.release();
    assert!(!b.is_launching(&id));
    assert_eq!(b.starting(), 0);
}

#[test]
fn queue_stamps_always_move_forward() {
    let mut b: TaskBook<()> = TaskBook::default();
    assert_eq!(b.queue_stamp(1_000), 1_000);
    assert_eq!(b.queue_stamp(1_000), 1_001, "same millisecond");
    assert_eq!(b.queue_stamp(900), 1_002, "the clock stepped back");
    assert_eq!(b.queue_stamp(5_000), 5_000);
}
