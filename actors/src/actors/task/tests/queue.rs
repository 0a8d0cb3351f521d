//! The task queue through the Supervisor, on fakes
//! (docs/tasks.md#the-task-queue): a start over the cap is queued with its
//! place, a freed slot starts the first in line, `after` waits for its
//! tasks to complete and fails when one does not, a queued task cancels
//! and never finishes.

use crate::testkit::tasks::World;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::time::{Duration, Instant};

/// Polls `task.get` until the task is `state` (10 s at most).
async fn until_state(w: &World, id: &Value, state: &str) -> Value {
    let id = id.as_str().expect("a task id");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let task = w.task(id).await;
        if task["state"] == state {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "task {id} never became {state}: {task}"
        );
        actix_rt::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn cancel(w: &World, id: &Value) -> Value {
    w.call(World::method("task.cancel", json!({"task_id": id})))
        .await
        .expect("task.cancel")["task"]
        .clone()
}

#[actix::test]
async fn over_the_cap_a_start_is_queued_with_its_place_and_starts_when_a_slot_frees() {
    let w = World::start(|c| c.limits.max_parallel_tasks = 1);
    let a = w.start_task(json!({})).await.expect("a slot");
    let b = w.start_task(json!({})).await.expect("queued, not refused");
    let c = w.start_task(json!({})).await.expect("queued");
    assert_eq!(b["task"]["state"], "queued");
    assert_eq!(b["task"]["queue_position"], 1);
    assert_eq!(c["task"]["queue_position"], 2);
    assert_eq!(b["pane"], Value::Null, "no worker yet");
    assert_eq!(b["task"]["worktree_path"], "", "no checkout yet");
    assert_eq!(
        w.git.with(|g| g.prepares),
        1,
        "only the running task's checkout"
    );
    let listed = w
        .call(World::method("task.list", json!({})))
        .await
        .expect("task.list");
    let places: Vec<Value> = listed["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["queue_position"].clone())
        .collect();
    assert_eq!(places, [Value::Null, json!(1), json!(2)], "in order");
    // The running task ends: the first in line starts, the other moves up.
    cancel(&w, &a["task"]["id"]).await;
    let started = until_state(&w, &b["task"]["id"], "pending").await;
    assert_eq!(started["id"], b["task"]["id"]);
    assert_eq!(
        started["created_at"], b["task"]["created_at"],
        "the same task"
    );
    assert_ne!(started["worktree_path"], "", "its checkout now exists");
    assert_eq!(started.get("queued_start"), None, "its start is spent");
    assert_eq!(
        w.task(c["task"]["id"].as_str().unwrap()).await["queue_position"],
        1
    );
    assert_eq!(w.git.with(|g| g.prepares), 2);
}

#[actix::test]
async fn queue_false_keeps_the_old_refusal() {
    let w = World::start(|c| c.limits.max_parallel_tasks = 1);
    w.start_task(json!({})).await.expect("a slot");
    let e = w
        .start_task(json!({"queue": false}))
        .await
        .expect_err("refused");
    assert_eq!(e.code(), ErrorCode::RateLimited, "{e}");
    assert_eq!(
        e.details().expect("details"),
        json!({"active_tasks": 1, "max_parallel_tasks": 1})
    );
}

#[actix::test]
async fn after_waits_for_its_tasks_to_complete_then_starts() {
    let w = World::start(|_| {});
    let a = w.start_task(json!({})).await.expect("a");
    let a_id = a["task"]["id"].clone();
    let short = &a_id.as_str().unwrap()[..12];
    let b = w
        .start_task(json!({"after": [short]}))
        .await
        .expect("queued after a");
    assert_eq!(b["task"]["state"], "queued");
    assert_eq!(b["task"]["after"], json!([a_id]), "spelled out in full");
    // a reports done: b starts.
    w.call(World::method(
        "task.report",
        json!({"task_id": a_id, "status": "completed", "summary": "ok"}),
    ))
    .await
    .expect("report");
    until_state(&w, &b["task"]["id"], "pending").await;
}

#[actix::test]
async fn an_after_task_that_fails_or_is_canceled_fails_the_queued_ones_down_the_chain() {
    let w = World::start(|_| {});
    let a = w.start_task(json!({})).await.expect("a");
    let b = w
        .start_task(json!({"after": [a["task"]["id"]]}))
        .await
        .expect("b after a");
    let c = w
        .start_task(json!({"after": [b["task"]["id"]]}))
        .await
        .expect("c after b");
    cancel(&w, &a["task"]["id"]).await;
    let b = until_state(&w, &b["task"]["id"], "failed").await;
    assert_eq!(b["status_reason"]["stage"], "after");
    assert_eq!(b["status_reason"]["dependency"], a["task"]["id"]);
    assert_eq!(b["status_reason"]["dependency_state"], "canceled");
    let c = until_state(&w, &c["task"]["id"], "failed").await;
    assert_eq!(c["status_reason"]["dependency_state"], "failed");
    // Starting after a task that already failed is refused outright.
    let e = w
        .start_task(json!({"after": [b["id"]]}))
        .await
        .expect_err("refused");
    assert_eq!(e.code(), ErrorCode::BadParams, "{e}");
    let e = w
        .start_task(json!({"after": ["task_nosuch"]}))
        .await
        .expect_err("refused");
    assert_eq!(e.code(), ErrorCode::NoSuchTask, "{e}");
}

#[actix::test]
async fn a_queued_task_cancels_and_cannot_be_finished() {
    let w = World::start(|c| c.limits.max_parallel_tasks = 1);
    let a = w.start_task(json!({})).await.expect("a");
    let b = w.start_task(json!({})).await.expect("queued");
    let e = w
        .call(World::method(
            "task.finish",
            json!({"task_id": b["task"]["id"], "mode": "discard"}),
        ))
        .await
        .expect_err("nothing to finish");
    assert_eq!(e.code(), ErrorCode::BadParams, "{e}");
    assert_eq!(cancel(&w, &b["task"]["id"]).await["state"], "canceled");
    // A canceled queued task never starts, even when a slot frees.
    cancel(&w, &a["task"]["id"]).await;
    let c = w.start_task(json!({})).await.expect("the free slot");
    assert_eq!(c["task"]["state"], "pending");
    assert_eq!(
        w.task(b["task"]["id"].as_str().unwrap()).await["state"],
        "canceled"
    );
    assert_eq!(w.git.with(|g| g.prepares), 2);
}

#[actix::test]
async fn a_queued_start_whose_checkout_fails_fails_the_task_and_gives_the_slot_back() {
    let w = World::start(|c| c.limits.max_parallel_tasks = 1);
    let a = w.start_task(json!({})).await.expect("a");
    let b = w.start_task(json!({})).await.expect("queued");
    w.git
        .with(|g| g.refuse_prepare = Some("base_ref is not a ref".into()));
    cancel(&w, &a["task"]["id"]).await;
    let b = until_state(&w, &b["task"]["id"], "failed").await;
    assert_eq!(b["status_reason"]["stage"], "checkout");
    w.git.with(|g| g.refuse_prepare = None);
    // Its slot went back: a new start is not queued.
    let c = w.start_task(json!({})).await.expect("a free slot");
    assert_eq!(c["task"]["state"], "pending");
}
