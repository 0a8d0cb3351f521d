//! Tests of the states `task.wait` accepts to wait for.

use super::*;

#[test]
fn until_takes_states_terminal_settled_and_lists_and_refuses_the_rest() {
    assert_eq!(parse_until(None).unwrap(), [Wanted::Settled]);
    assert_eq!(
        parse_until(Some(&serde_json::json!(["working", "terminal"]))).unwrap(),
        [Wanted::State(TaskState::Working), Wanted::Terminal]
    );
    for bad in [
        serde_json::json!([]),
        serde_json::json!("done"),
        serde_json::json!([1]),
    ] {
        assert!(parse_until(Some(&bad)).is_err(), "{bad}");
    }
    assert!(Wanted::Settled.holds(TaskState::InputRequired));
    assert!(Wanted::Settled.holds(TaskState::Canceled));
    assert!(!Wanted::Settled.holds(TaskState::Working));
    assert!(!Wanted::Terminal.holds(TaskState::InputRequired));
}
