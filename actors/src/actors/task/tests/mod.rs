//! A task's start on a real Supervisor with fake git, fake checkout reads
//! and fake PTYs (`testkit/tasks.rs`): the pipeline's order, idempotency,
//! the cap, and a failed spawn (docs/tasks.md#starting-a-task).

mod finish;
mod queue;

use crate::testkit::tasks::World;
use crate::testkit::wait_for;
use serde_json::{Value, json};
use signaltty_protocol::subscribe::SubscribeParams;
use signaltty_protocol::{ErrorCode, Method};
use std::path::Path;

fn str_of<'v>(v: &'v Value, field: &str) -> &'v str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {v}"))
}

#[actix::test]
async fn a_start_commits_its_task_then_places_its_worker_and_answers_after_task_updated() {
    let w = World::start(|_| {});
    w.call(Method::Subscribe(SubscribeParams::default()))
        .await
        .unwrap();
    let reply = w
        .start_task(json!({"label": "writer"}))
        .await
        .expect("started");
    let task = &reply["task"];
    let pane = &reply["pane"];
    assert_eq!(task["state"], "pending", "{task}");
    assert_eq!(task["label"], "writer");
    assert_eq!(task["pane_id"], pane["id"], "{reply}");
    assert_eq!(task["worker_pid"], 4242, "the worker's process is recorded");
    assert_eq!(pane["task_id"], task["id"]);
    let checkout = str_of(task, "worktree_path");
    assert!(Path::new(checkout).is_dir());
    assert_eq!(pane["cwd"], checkout, "the worker runs in the checkout");
    assert_eq!(w.git.with(|g| g.prepares), 1);
    // The worker got the task in its environment and nothing was typed yet.
    let argv = w.spawner.with(|s| s.ptys[0].0.clone());
    assert_eq!(argv, ["fake-worker"]);
    assert!(w.spawner.pty(0).written().is_empty());

    // The workspace is rooted at the checkout, named after the label, with
    // the worker alone in its `task` tab.
    let ws = w
        .call(World::method(
            "workspace.get",
            json!({"workspace_id": pane["workspace_id"]}),
        ))
        .await
        .unwrap();
    assert_eq!(ws["workspace"]["cwd"], checkout);
    assert_eq!(ws["workspace"]["name"], "writer");
    assert_eq!(ws["tabs"][0]["title"], "task", "{ws}");
    assert_eq!(ws["tabs"][0]["id"], pane["tab_id"]);

    // Subscribers see the start in its order, the reply after the last.
    let expected = [
        "task.created",
        "workspace.created",
        "tab.created",
        "pane.created",
        "task.updated",
    ];
    let names = || -> Vec<String> {
        w.log
            .lock()
            .events
            .iter()
            .filter_map(|e| e["event"].as_str().map(str::to_owned))
            .filter(|n| !n.starts_with("pty") && !n.starts_with("agent"))
            .collect()
    };
    wait_for("the start's events", || names().len() >= expected.len()).await;
    assert_eq!(names()[..expected.len()], expected);
}

#[actix::test]
async fn a_second_start_with_the_same_key_returns_the_same_task_also_concurrently() {
    let w = World::start(|_| {});
    let gate = w.git.gate();
    let key = json!({"client_request_id": "k-1"});
    let first = w.sup.send(crate::actors::connection::Dispatch {
        request: signaltty_protocol::Request::new(
            "a",
            Method::TaskStart(w.start_params(key.clone())),
        ),
        conn: w.conn.clone(),
        generation: 1,
    });
    let second = w.sup.send(crate::actors::connection::Dispatch {
        request: signaltty_protocol::Request::new(
            "b",
            Method::TaskStart(w.start_params(key.clone())),
        ),
        conn: w.conn.clone(),
        generation: 1,
    });
    let (first, second) = (actix_rt::spawn(first), actix_rt::spawn(second));
    wait_for("the first start's checkout", || {
        w.git.with(|g| g.prepares) == 1
    })
    .await;
    // The second waits for the key while the first holds it.
    actix_rt::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(!second.is_finished(), "the second start waits for the key");
    gate.send(()).unwrap();
    let parse = |r: crate::actors::connection::reply::Reply| -> Value {
        serde_json::from_slice(&r.result.expect("started")).unwrap()
    };
    let first = parse(first.await.unwrap().unwrap());
    let second = parse(second.await.unwrap().unwrap());
    // The second found the task once it was committed (its worker may not
    // be recorded yet).
    assert_eq!(first["task"]["id"], second["task"]["id"]);
    // A repeated start answers at once with the task as it is, and its pane.
    let third = w.start_task(key).await.unwrap();
    assert_eq!(third["task"]["id"], first["task"]["id"]);
    assert_eq!(third["pane"]["id"], first["pane"]["id"], "with its pane");
    assert_eq!(w.git.with(|g| g.prepares), 1, "one checkout for one key");
    let listed = w.call(World::method("task.list", json!({}))).await.unwrap();
    assert_eq!(listed["tasks"].as_array().map(Vec::len), Some(1));
}

fn rate_limited(r: Result<Value, crate::error::Error>) -> Value {
    let e = r.expect_err("the cap refuses");
    assert_eq!(e.code(), ErrorCode::RateLimited, "{e}");
    e.details().expect("details")
}

#[actix::test]
async fn the_cap_counts_starts_under_way_and_gives_their_slot_back_after_commit_or_failure() {
    let w = World::start(|c| c.limits.max_parallel_tasks = 2);
    // A start that fails before its checkout gives its slot and its key back.
    w.git
        .with(|g| g.refuse_prepare = Some("base_ref is not a ref".into()));
    let e = w
        .start_task(json!({"client_request_id": "again"}))
        .await
        .expect_err("refused");
    assert_eq!(e.code(), ErrorCode::BadParams);
    w.git.with(|g| g.refuse_prepare = None);
    // Committed: its task counts from now on, its slot no more.
    let a = w
        .start_task(json!({"client_request_id": "again"}))
        .await
        .expect("the key is free again");
    let b = w.start_task(json!({})).await.expect("a second slot");
    let details = rate_limited(w.start_task(json!({"queue": false})).await);
    assert_eq!(details, json!({"active_tasks": 2, "max_parallel_tasks": 2}));
    // A start under way holds its slot until its task exists.
    w.call(World::method(
        "task.cancel",
        json!({"task_id": a["task"]["id"]}),
    ))
    .await
    .unwrap();
    let gate = w.git.gate();
    let pending = actix_rt::spawn(w.sup.send(crate::actors::connection::Dispatch {
        request: signaltty_protocol::Request::new(
            "c",
            Method::TaskStart(w.start_params(json!({}))),
        ),
        conn: w.conn.clone(),
        generation: 1,
    }));
    wait_for("the start under way", || w.git.with(|g| g.prepares) == 3).await;
    let details = rate_limited(w.start_task(json!({"queue": false})).await);
    assert_eq!(details["active_tasks"], 2, "one task and one start");
    gate.send(()).unwrap();
    assert!(pending.await.unwrap().unwrap().result.is_ok());
    // A start that fails after its checkout gives its slot back too.
    w.call(World::method(
        "task.cancel",
        json!({"task_id": b["task"]["id"]}),
    ))
    .await
    .unwrap();
    w.spawner.with(|s| s.fail = Some("no such program".into()));
    gate.send(()).unwrap();
    let e = w.start_task(json!({})).await.expect_err("the spawn fails");
    assert_eq!(e.details().unwrap()["stage"], "spawn");
    w.spawner.with(|s| s.fail = None);
    gate.send(()).unwrap();
    w.start_task(json!({})).await.expect("its slot is free");
}

#[actix::test]
async fn a_spawn_failure_fails_the_task_at_its_stage_and_keeps_its_checkout_unlocked() {
    let w = World::start(|_| {});
    w.spawner.with(|s| s.fail = Some("not found".into()));
    let e = w.start_task(json!({})).await.expect_err("the spawn fails");
    assert_eq!(e.code(), ErrorCode::SpawnFailed, "{e}");
    let details = e.details().expect("details");
    assert_eq!(details["stage"], "spawn");
    let id = str_of(&details, "task_id").to_owned();
    let task = w.task(&id).await;
    assert_eq!(task["state"], "failed", "{task}");
    assert_eq!(task["status_reason"]["stage"], "spawn");
    assert!(task["status_reason"]["error"].is_string());
    let checkout = Path::new(str_of(&task, "worktree_path")).to_path_buf();
    assert!(checkout.is_dir(), "kept for inspection");
    wait_for("the unlock", || w.git.with(|g| !g.unlocked.is_empty())).await;
    w.git.with(|g| {
        assert_eq!(g.unlocked, std::slice::from_ref(&checkout));
        assert!(g.removed.is_empty(), "never removed");
        assert_eq!(g.steps, ["prepare", "unlock"]);
    });
    // The workspace and its tab stay; no pane was made.
    let listed = w
        .call(World::method("workspace.list", json!({})))
        .await
        .unwrap();
    assert_eq!(
        listed["workspaces"][0]["cwd"],
        checkout.to_string_lossy().as_ref()
    );
}

#[actix::test]
async fn every_task_route_takes_the_id_cut_short_as_it_is_printed() {
    let w = World::start(|_| {});
    let one = w.start_task(json!({"label": "one"})).await.expect("one");
    let two = w.start_task(json!({"label": "two"})).await.expect("two");
    let id = str_of(&one["task"], "id").to_string();
    // Cut to the kind and eight digits, with the ellipsis lists print.
    let short = format!("{}…", &id[..13]);
    assert_eq!(w.task(&short).await["id"], id.as_str());
    assert_eq!(w.task(&id[..9]).await["id"], id.as_str(), "four digits do");
    // The other task is still found by its own; too short an id is no
    // task at all (an ambiguous one is refused: the registry's tests).
    let other = str_of(&two["task"], "id");
    assert_eq!(w.task(&other[..13]).await["id"], other);
    w.call(World::method(
        "task.cancel",
        json!({"task_id": &other[..13]}),
    ))
    .await
    .expect("a cancel takes it too");
    assert_eq!(w.task(other).await["state"], "canceled");
    let e = w
        .call(World::method("task.get", json!({"task_id": &id[..8]})))
        .await
        .expect_err("three digits are too few");
    assert_eq!(e.code(), ErrorCode::NoSuchTask, "{e:?}");
    let e = w
        .call(World::method("task.cancel", json!({"task_id": &id[..8]})))
        .await
        .expect_err("nor for a cancel");
    assert_eq!(e.code(), ErrorCode::NoSuchTask, "{e:?}");
}

/// `task.get` of `id` until `cond` holds of it (10 s at most).
async fn task_until(w: &World, id: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let task = w.task(id).await;
        if cond(&task) {
            return task;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {task}");
        actix_rt::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[actix::test]
async fn a_worker_nothing_reads_as_ready_says_so_while_pending_and_when_it_fails() {
    let w = World::start(|_| {});
    let reply = w
        .start_task(json!({"ready_timeout_s": 1}))
        .await
        .expect("started");
    let id = str_of(&reply["task"], "id").to_string();
    // Pending, and saying what for and how to fix it, long before the deadline.
    let task = task_until(&w, &id, "a ready_wait reason", |t| {
        t["status_reason"]["stage"] == "ready_wait"
    })
    .await;
    assert_eq!(task["state"], "pending");
    let hint = str_of(&task["status_reason"], "hint");
    assert!(hint.starts_with("fake-worker is not an agent"), "{hint}");
    assert!(hint.contains("task report"), "{hint}");
    // The failure at the deadline keeps the hint beside the screen's tail.
    let task = task_until(&w, &id, "failed", |t| t["state"] == "failed").await;
    assert_eq!(task["status_reason"]["stage"], "ready_timeout", "{task}");
    assert_eq!(task["status_reason"]["hint"], hint, "{task}");
}
