//! The task queue through the real server (docs/tasks.md#the-task-queue):
//! starts over the cap queue in order and start as slots free, `after`
//! waits for its tasks and fails when one does not complete, the CLI shows
//! the queue, and the queue survives a kill, a restart and an upgrade.

use crate::support::life::Life;
use crate::support::{Client, DEADLINE, TestServer, ok, str_field, wait_until};
use crate::tasks::{repo, start, task_get, wait_task_state, worktrees};
use serde_json::{Value, json};
use std::path::Path;

fn id(reply: &Value) -> String {
    str_field(&reply["task"], "id").to_owned()
}

fn cancel(c: &mut Client, id: &str) {
    ok(c.call("task.cancel", json!({"task_id": id})));
}

fn complete(c: &mut Client, id: &str) {
    ok(c.call(
        "task.report",
        json!({"task_id": id, "status": "completed", "summary": "done"}),
    ));
}

/// Waits until the queued task `id` has started: `pending` (or later),
/// with its checkout on disk.
fn wait_started(c: &mut Client, id: &str) -> Value {
    let task = wait_until(&format!("task {id} to start"), DEADLINE, || {
        let t = task_get(c, id);
        (t["state"] != "queued").then_some(t)
    });
    assert_eq!(task["state"], "pending", "{task}");
    assert!(
        Path::new(str_field(&task, "worktree_path")).is_dir(),
        "{task}"
    );
    task
}

#[test]
fn starts_over_the_cap_queue_in_order_and_start_as_slots_free() {
    let env = crate::support::TestEnv::new();
    let socket = env.default_socket();
    let server = TestServer::start_with_args(env, &["server", "--max-tasks", "2"], socket);
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["task.created"]})));
    let repo = repo(server.env().root());
    let running: Vec<String> = (0..2)
        .map(|_| id(&start(&mut c, &repo, json!({}))))
        .collect();
    let third = start(&mut c, &repo, json!({"label": "third"}));
    let fourth = start(&mut c, &repo, json!({"label": "fourth"}));
    for (reply, place) in [(&third, 1), (&fourth, 2)] {
        assert_eq!(reply["task"]["state"], "queued", "{reply}");
        assert_eq!(reply["task"]["queue_position"], place, "{reply}");
        assert_eq!(reply["pane"], Value::Null);
    }
    assert_eq!(worktrees(&repo), 3, "main and the two running tasks only");
    // Subscribers see the queued task created.
    let created = wait_until("the queued task.created", DEADLINE, || {
        let frame = sub.next_event();
        (frame.payload["task"]["id"] == third["task"]["id"]).then_some(frame)
    });
    assert_eq!(created.event, "task.created");
    assert_eq!(created.payload["task"]["state"], "queued");
    // The CLI lists the queue in order, with places.
    let out = server.cli(&["task", "list"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let at = |needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not listed:\n{text}"))
    };
    assert!(at(&id(&third)) < at(&id(&fourth)), "{text}");
    assert!(
        text.contains("queued #1") && text.contains("queued #2"),
        "{text}"
    );
    // A running task ends: the first in line starts, the next moves up.
    cancel(&mut c, &running[0]);
    let started = wait_started(&mut c, &id(&third));
    assert_eq!(started["label"], "third");
    assert_eq!(task_get(&mut c, &id(&fourth))["queue_position"], 1);
    assert_eq!(worktrees(&repo), 4);
}

#[test]
fn after_starts_a_task_once_its_tasks_complete_and_fails_it_when_one_does_not() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let a = id(&start(&mut c, &repo, json!({})));
    let b = id(&start(&mut c, &repo, json!({"after": [a]})));
    // Through the CLI, with the id cut short as it prints it.
    let out = server.cli(&[
        "task",
        "start",
        "--repo",
        &repo.to_string_lossy(),
        "--objective",
        "after b",
        "--after",
        &b[..13],
        "--",
        "sh",
        "-c",
        "exec cat",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    let c_id = printed
        .split_whitespace()
        .next()
        .unwrap_or_else(|| panic!("no id in {printed}"))
        .to_owned();
    assert!(printed.contains(&format!("after {b}")), "{printed}");
    let queued = task_get(&mut c, &c_id);
    assert_eq!(queued["state"], "queued");
    assert_eq!(queued["after"], json!([b]));
    assert_eq!(task_get(&mut c, &b)["state"], "queued");
    complete(&mut c, &a);
    wait_started(&mut c, &b);
    assert_eq!(
        task_get(&mut c, &c_id)["state"],
        "queued",
        "b has not completed"
    );
    cancel(&mut c, &b);
    let failed = wait_task_state(&mut c, &c_id, "failed");
    assert_eq!(failed["status_reason"]["stage"], "after");
    assert_eq!(failed["status_reason"]["dependency"], b.as_str());
    assert_eq!(failed["status_reason"]["dependency_state"], "canceled");
}

#[test]
fn the_queue_survives_a_kill_and_a_restart_and_an_upgrade() {
    let mut life = Life::new(&["--max-tasks", "1"]);
    life.start();
    let repo = repo(life.env.root());
    let mut c = life.client();
    let a = id(&start(&mut c, &repo, json!({})));
    let b = id(&start(&mut c, &repo, json!({})));
    let after_b = id(&start(&mut c, &repo, json!({"after": [b]})));
    assert_eq!(task_get(&mut c, &b)["queue_position"], 1);
    // An upgrade keeps the running worker and the queue as they are.
    ok(c.call("server.upgrade", json!({})));
    assert_eq!(task_get(&mut c, &a)["state"], "pending");
    assert_eq!(task_get(&mut c, &b)["state"], "queued");
    assert_eq!(task_get(&mut c, &after_b)["state"], "queued");
    // A kill: the running task fails at the restart, which frees its slot
    // for the first in line; the one after it still waits.
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    let failed = wait_task_state(&mut c, &a, "failed");
    assert_eq!(failed["status_reason"], json!({"stage": "restart"}));
    wait_started(&mut c, &b);
    let waiting = task_get(&mut c, &after_b);
    assert_eq!(waiting["state"], "queued", "{waiting}");
    assert_eq!(waiting["queue_position"], 1);
}
