//! The queue's order, its places, and what it starts and fails.

use super::*;
use signaltty_protocol::task::{Task, TaskState};

fn task(id: &str, state: &str, created_ms: i64, after: &[&str]) -> Task {
    let at = signaltty_protocol::Timestamp::from_unix_millis(created_ms);
    let n = id.strip_prefix("task_").unwrap_or(id);
    Task {
        after: after.iter().map(|a| TaskId((*a).to_owned())).collect(),
        created_at: at.clone(),
        updated_at: at,
        ..crate::domain::task::sample::task(n, TaskState::parse(state).expect("a state"))
    }
}

fn ids(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .map(|s| match s {
            Step::Start(id) => format!("start {}", id.0),
            Step::Fail(id, _) => format!("fail {}", id.0),
        })
        .collect()
}

#[test]
fn the_queue_is_in_creation_order_and_places_count_from_one() {
    let (a, b, c) = (
        task("task_c", "queued", 3, &[]),
        task("task_a", "queued", 1, &[]),
        task("task_b", "working", 2, &[]),
    );
    let order: Vec<&str> = in_order([&a, &b, &c])
        .iter()
        .map(|t| t.id.0.as_str())
        .collect();
    assert_eq!(order, ["task_a", "task_c"]);
    let places = positions([&a, &b, &c]);
    assert_eq!(places.get(&TaskId("task_a".into())), Some(&1));
    assert_eq!(places.get(&TaskId("task_c".into())), Some(&2));
    assert_eq!(places.get(&TaskId("task_b".into())), None);
}

#[test]
fn free_slots_start_queued_tasks_in_order() {
    let tasks = [
        task("task_1", "working", 1, &[]),
        task("task_2", "queued", 2, &[]),
        task("task_3", "queued", 3, &[]),
        task("task_4", "queued", 4, &[]),
    ];
    let all: Vec<&Task> = tasks.iter().collect();
    assert_eq!(
        ids(&plan(&all, |_| false, 1, 3)),
        ["start task_2", "start task_3"]
    );
    assert!(plan(&all, |_| false, 3, 3).is_empty(), "no slot, no start");
    assert!(
        plan(&all, |_| false, 5, 3).is_empty(),
        "over the cap, no start"
    );
}

#[test]
fn a_task_waiting_for_its_after_tasks_keeps_its_place_but_holds_nobody_up() {
    let tasks = [
        task("task_1", "working", 1, &[]),
        task("task_2", "queued", 2, &["task_1"]),
        task("task_3", "queued", 3, &[]),
    ];
    let all: Vec<&Task> = tasks.iter().collect();
    assert_eq!(ids(&plan(&all, |_| false, 1, 2)), ["start task_3"]);
    assert_eq!(positions(all.iter().copied())[&TaskId("task_2".into())], 1);
}

#[test]
fn a_completed_after_task_lets_it_start() {
    let tasks = [
        task("task_1", "completed", 1, &[]),
        task("task_2", "queued", 2, &["task_1"]),
    ];
    let all: Vec<&Task> = tasks.iter().collect();
    assert_eq!(ids(&plan(&all, |_| false, 0, 1)), ["start task_2"]);
}

#[test]
fn an_after_task_that_ends_otherwise_fails_it_with_the_reason() {
    for state in ["failed", "canceled", "rejected"] {
        let tasks = [
            task("task_1", state, 1, &[]),
            task("task_2", "queued", 2, &["task_1"]),
        ];
        let all: Vec<&Task> = tasks.iter().collect();
        let steps = plan(&all, |_| false, 0, 4);
        let [Step::Fail(id, reason)] = steps.as_slice() else {
            panic!("{state}: {steps:?}");
        };
        assert_eq!(id.0, "task_2");
        assert_eq!(reason["stage"], "after");
        assert_eq!(reason["dependency"], "task_1");
        assert_eq!(reason["dependency_state"], state);
    }
}

#[test]
fn a_failure_is_planned_even_with_no_free_slot_and_an_unknown_after_task_fails_too() {
    let tasks = [
        task("task_1", "failed", 1, &[]),
        task("task_2", "queued", 2, &["task_1"]),
        task("task_3", "queued", 3, &["task_gone"]),
    ];
    let all: Vec<&Task> = tasks.iter().collect();
    assert_eq!(
        ids(&plan(&all, |_| false, 9, 1)),
        ["fail task_2", "fail task_3"]
    );
}

#[test]
fn ready_lists_what_is_still_running() {
    let tasks = [
        task("task_1", "completed", 1, &[]),
        task("task_2", "working", 2, &[]),
    ];
    let find = |id: &TaskId| tasks.iter().find(|t| &t.id == id);
    let after = [TaskId("task_1".into()), TaskId("task_2".into())];
    assert_eq!(
        ready(&after, find),
        Ready::Waiting(vec![TaskId("task_2".into())])
    );
    assert_eq!(ready(&after[..1], find), Ready::Yes);
}

#[test]
fn a_task_being_started_is_left_alone_but_still_counts_as_known() {
    let tasks = [
        task("task_1", "queued", 1, &[]),
        task("task_2", "queued", 2, &["task_1"]),
        task("task_3", "queued", 3, &[]),
    ];
    let all: Vec<&Task> = tasks.iter().collect();
    let launching = |id: &TaskId| id.0 == "task_1";
    assert_eq!(ids(&plan(&all, launching, 1, 4)), ["start task_3"]);
}
