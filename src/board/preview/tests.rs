//! The preview connection's orders: what a burst of selection moves comes
//! down to while a connect is under way.

use super::*;

fn follow(n: u32) -> Order {
    Order::Follow(Some(PaneId(format!("pane_{n}"))))
}

#[test]
fn of_several_follows_only_the_last_is_carried_out() {
    let batch = vec![follow(1), follow(2), Order::Follow(None), follow(3)];
    assert_eq!(latest(batch), vec![follow(3)]);
}

#[test]
fn a_reset_keeps_its_place_among_the_follows() {
    // Attached, then the server went away: the connection is dropped last.
    assert_eq!(
        latest(vec![follow(1), Order::Reset]),
        vec![follow(1), Order::Reset]
    );
    // Dropped, then a pane to follow on a fresh connection.
    assert_eq!(
        latest(vec![follow(1), Order::Reset, follow(2)]),
        vec![Order::Reset, follow(2)]
    );
    assert_eq!(latest(vec![Order::Reset]), vec![Order::Reset]);
    assert_eq!(latest(vec![]), vec![]);
}
