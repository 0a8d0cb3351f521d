//! `task.finish` on a real Supervisor with fake git, fake checkout reads and
//! fake PTYs whose processes exit when stopped (`testkit/tasks.rs`): the
//! order of docs/tasks.md#finishing-a-task, each refusal, a conflict, and a
//! finish interrupted between the merge and the record.

use crate::error::Error;
use crate::testkit::tasks::World;
use nix::sys::signal::Signal;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};

/// A started task, reported `completed`: its id and checkout.
async fn completed(w: &World, extra: Value) -> (String, PathBuf) {
    let started = w.start_task(extra).await.expect("started");
    let id = started["task"]["id"].as_str().unwrap().to_owned();
    w.call(World::method(
        "task.report",
        json!({"task_id": id, "status": "completed", "summary": "done"}),
    ))
    .await
    .expect("reported");
    let checkout = PathBuf::from(started["task"]["worktree_path"].as_str().unwrap());
    (id, checkout)
}

async fn finish(w: &World, id: &str, extra: Value) -> Result<Value, Error> {
    let mut p = json!({"task_id": id, "mode": "merge"});
    if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    w.call(World::method("task.finish", p)).await
}

fn refused(r: Result<Value, Error>, code: ErrorCode) -> Error {
    let e = r.expect_err("refused");
    assert_eq!(e.code(), code, "{e}");
    e
}

#[actix::test]
async fn a_merge_stops_the_worker_merges_cleans_up_closes_the_workspace_and_records() {
    let w = World::start(|_| {});
    let (id, checkout) = completed(&w, json!({})).await;
    let done = finish(&w, &id, json!({})).await.expect("merged");
    assert_eq!(done["merge"]["target"], "main", "{done}");
    assert_eq!(done["merge"]["sha"], format!("{:040x}", 1));
    let task = &done["task"];
    assert_eq!(task["state"], "completed", "the state keeps its value");
    assert_eq!(task["disposition"]["outcome"], "merged");
    assert_eq!(task["disposition"]["merged_sha"], done["merge"]["sha"]);
    assert_eq!(task["disposition"]["branch_deleted"], true);
    assert!(
        task.get("finish_error").is_none_or(Value::is_null),
        "{task}"
    );
    // The worker was stopped before the merge, the checkout removed after.
    let signals = w.spawner.pty(0).signals();
    assert_eq!(signals.first().map(|s| s.0), Some(Signal::SIGTERM));
    w.git.with(|g| {
        assert_eq!(g.steps, ["prepare", "merge", "cleanup"]);
        assert_eq!(g.removed, std::slice::from_ref(&checkout));
    });
    assert!(!checkout.exists());
    // The workspace rooted there is closed.
    let listed = w
        .call(World::method("workspace.list", json!({})))
        .await
        .unwrap();
    assert_eq!(listed["workspaces"], json!([]), "{listed}");
    // Finished, with the checkout gone: refused.
    let e = refused(finish(&w, &id, json!({})).await, ErrorCode::BadParams);
    assert!(e.to_string().contains("checkout is gone"), "{e}");
    assert_eq!(w.git.with(|g| g.merges), 1, "never merged twice");
}

#[actix::test]
async fn a_merge_is_refused_before_anything_is_touched_until_the_task_can_be_merged() {
    let w = World::start(|_| {});
    // Not completed.
    let started = w.start_task(json!({})).await.unwrap();
    let pending = started["task"]["id"].as_str().unwrap().to_owned();
    let e = refused(finish(&w, &pending, json!({})).await, ErrorCode::BadParams);
    assert_eq!(e.details(), Some(json!({"state": "pending"})));
    // Started on a detached HEAD: it needs a target.
    w.git.with(|g| g.detached = true);
    let (detached, _) = completed(&w, json!({})).await;
    let e = refused(finish(&w, &detached, json!({})).await, ErrorCode::BadParams);
    assert!(e.to_string().contains("detached HEAD"), "{e}");
    let e = refused(
        finish(&w, &pending, json!({"mode": "rebase"})).await,
        ErrorCode::BadParams,
    );
    assert!(e.to_string().contains("merge or discard"), "{e}");
    let unknown = "task_00000000000000000000000000000000";
    refused(finish(&w, unknown, json!({})).await, ErrorCode::NoSuchTask);
    // Nothing was stopped, merged or removed.
    assert!(w.spawner.pty(0).signals().is_empty());
    assert!(w.spawner.pty(1).signals().is_empty());
    assert_eq!(w.git.with(|g| (g.merges, g.removed.len())), (0, 0));
    let merged = finish(&w, &detached, json!({"target_ref": "main"}))
        .await
        .expect("merged into the target named");
    assert_eq!(merged["merge"]["target"], "main");
}

#[actix::test]
async fn a_live_pane_inside_the_checkout_refuses_the_finish_until_it_is_gone() {
    let w = World::start(|_| {});
    let (id, checkout) = completed(&w, json!({})).await;
    // Another workspace at the checkout, with a shell in it.
    let ws = w
        .call(World::method(
            "workspace.create",
            json!({"name": "look", "cwd": checkout}),
        ))
        .await
        .unwrap();
    let shell = w
        .call(World::method(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "argv": ["sh"]}),
        ))
        .await
        .unwrap();
    let shell = shell["pane"]["id"].as_str().unwrap().to_owned();
    for mode in ["merge", "discard"] {
        let e = refused(
            finish(&w, &id, json!({"mode": mode})).await,
            ErrorCode::PanesAlive,
        );
        assert_eq!(e.details(), Some(json!({"panes": [shell]})), "{e}");
    }
    assert_eq!(w.bench.looks(), 2, "one look per finish");
    assert!(w.spawner.pty(0).signals().is_empty(), "the worker runs on");
    assert_eq!(w.git.with(|g| g.merges), 0);
    w.call(World::method("pane.close", json!({"pane_id": shell})))
        .await
        .unwrap();
    let done = finish(&w, &id, json!({})).await.expect("merged");
    assert_eq!(done["task"]["disposition"]["outcome"], "merged");
    // Both workspaces rooted at the checkout are closed.
    let listed = w
        .call(World::method("workspace.list", json!({})))
        .await
        .unwrap();
    assert_eq!(listed["workspaces"], json!([]), "{listed}");
}

#[actix::test]
async fn a_merge_conflict_keeps_its_files_and_leaves_the_task_finishable() {
    let w = World::start(|_| {});
    let (id, checkout) = completed(&w, json!({})).await;
    w.git
        .with(|g| g.conflict = Some(vec!["a.txt".into(), "b.txt".into()]));
    let e = refused(finish(&w, &id, json!({})).await, ErrorCode::MergeConflict);
    assert_eq!(e.details(), Some(json!({"conflicted": ["a.txt", "b.txt"]})));
    let task = w.task(&id).await;
    assert_eq!(
        task["finish_error"],
        json!({"conflicted": ["a.txt", "b.txt"]})
    );
    assert_eq!(task["disposition"]["outcome"], "none", "{task}");
    assert!(checkout.is_dir(), "nothing removed");
    // The conflict dealt with, the same finish goes through.
    w.git.with(|g| g.conflict = None);
    let done = finish(&w, &id, json!({})).await.expect("merged");
    assert_eq!(done["task"]["disposition"]["outcome"], "merged");
    assert!(
        done["task"].get("finish_error").is_none_or(Value::is_null),
        "{done}"
    );
}

#[actix::test]
async fn a_finish_cut_off_between_merge_and_record_is_completed_by_the_next_without_a_second_merge()
{
    let w = World::start(|_| {});
    let (id, checkout) = completed(&w, json!({})).await;
    w.git.with(|g| g.die_in_cleanup = true);
    let e = refused(finish(&w, &id, json!({})).await, ErrorCode::Internal);
    assert!(e.to_string().contains("the finish step stopped"), "{e}");
    let task = w.task(&id).await;
    assert_eq!(task["disposition"]["outcome"], "none", "nothing recorded");
    assert!(checkout.is_dir());
    assert_eq!(w.git.with(|g| g.merge_commits), 1, "merged once");
    // The next finish merges again, finds the branch merged and records the
    // same HEAD; the worker is stopped already.
    let done = finish(&w, &id, json!({})).await.expect("completed");
    assert_eq!(done["merge"]["sha"], format!("{:040x}", 1));
    assert_eq!(
        done["task"]["disposition"]["merged_sha"],
        done["merge"]["sha"]
    );
    w.git.with(|g| {
        assert_eq!(g.merge_commits, 1, "no second merge commit");
        assert_eq!(g.steps, ["prepare", "merge", "cleanup", "merge", "cleanup"]);
    });
    assert!(!checkout.exists());
    assert_eq!(
        w.spawner.pty(0).signals().len(),
        1,
        "one SIGTERM: the second finish found the worker gone"
    );
}

#[actix::test]
async fn a_failed_cleanup_is_retried_alone_by_the_next_finish() {
    let w = World::start(|_| {});
    let (id, checkout) = completed(&w, json!({})).await;
    w.git
        .with(|g| g.cleanup_error = Some("cannot remove it".into()));
    let done = finish(&w, &id, json!({})).await.expect("merged");
    assert_eq!(done["cleanup_error"], "cannot remove it");
    assert_eq!(
        done["task"]["finish_error"],
        json!({"cleanup_error": "cannot remove it"})
    );
    assert!(checkout.is_dir());
    w.git.with(|g| g.cleanup_error = None);
    let again = finish(&w, &id, json!({"mode": "discard"}))
        .await
        .expect("cleaned up");
    assert_eq!(again["merge"], done["merge"], "the recorded merge");
    assert_eq!(again["task"]["disposition"]["outcome"], "merged");
    assert!(again["task"]["finish_error"].is_null(), "{again}");
    assert!(!Path::new(&checkout).exists());
    assert_eq!(w.git.with(|g| g.merges), 1, "only the cleanup again");
}

#[actix::test]
async fn a_discard_cancels_a_working_task_first_and_removes_its_checkout_without_a_merge() {
    let w = World::start(|_| {});
    let started = w.start_task(json!({})).await.unwrap();
    let id = started["task"]["id"].as_str().unwrap().to_owned();
    let done = finish(&w, &id, json!({"mode": "discard"}))
        .await
        .expect("discarded");
    let task = &done["task"];
    // Canceled before the worker was stopped: its exit did not fail it.
    assert_eq!(task["state"], "canceled", "{task}");
    assert_eq!(task["disposition"]["outcome"], "discarded");
    assert_eq!(task["disposition"]["branch_deleted"], false);
    assert!(done.get("merge").is_none_or(Value::is_null));
    assert_eq!(w.git.with(|g| g.merges), 0);
    assert_eq!(w.git.with(|g| g.removed.len()), 1);
    assert_eq!(
        w.spawner.pty(0).signals().first().map(|s| s.0),
        Some(Signal::SIGTERM)
    );
    assert_eq!(w.task(&id).await["state"], "canceled");
}
