//! The conflict radar through the real server (docs/tasks.md#conflict-radar):
//! two fake workers leave different, uncommitted edits of the same line →
//! `task.conflicts` reports the pair and the path, a subscriber sees
//! `task.conflict` appear, the CLI shows it; a discard clears it; a commit
//! on the target branch that collides with a task is reported with no `b`;
//! a merge names the tasks that now collide with the target.

use crate::support::git::{git, init_repo};
use crate::support::process::BIN;
use crate::support::{Client, DEADLINE, TestServer, ok, str_field, wait_until};
use serde_json::{Value, json};
use std::path::Path;

/// Starts a task whose fake worker writes `text` into `shared.txt`, commits
/// nothing and ends its turn; waits for that turn's end.
pub(crate) fn editing_task(c: &mut Client, repo: &Path, text: &str) -> String {
    worker_task(
        c,
        repo,
        &format!("edit: shared.txt {text}"),
        "input_required",
    )
}

/// Starts a task whose fake worker follows `objective`; waits for `state`.
pub(crate) fn worker_task(c: &mut Client, repo: &Path, objective: &str, state: &str) -> String {
    let argv = json!(["bash", crate::support::agents::fake("fake-worker"), BIN]);
    let reply = ok(c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(),
               "contract": {"objective": objective},
               "agent": "claude", "argv": argv, "submit_delay_ms": 50}),
    ));
    let id = str_field(&reply["task"], "id").to_owned();
    wait_until(&format!("task {id} {state}"), DEADLINE, || {
        let t = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
        (t["state"] == state).then_some(())
    });
    id
}

pub(crate) fn conflicts(c: &mut Client, repo: &Path) -> Vec<Value> {
    let r = ok(c.call("task.conflicts", json!({"repo": repo.to_string_lossy()})));
    r["conflicts"].as_array().cloned().unwrap_or_default()
}

/// The next `task.conflict` the subscriber sees.
fn next_conflict(sub: &mut Client) -> Value {
    loop {
        let e = sub.next_event();
        if e.event == "task.conflict" {
            return e.payload;
        }
    }
}

#[test]
fn two_workers_editing_one_line_collide_and_a_discard_clears_it() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["task.conflict"]})));
    let repo = server.env().root().join("repo");
    init_repo(&repo, "shared.txt", "base\n");
    let a = editing_task(&mut c, &repo, "alpha");
    let b = editing_task(&mut c, &repo, "beta");
    let (first, second) = if a < b { (&a, &b) } else { (&b, &a) };

    // The worker's edits are uncommitted: the radar sees them all the same.
    let mut last = Value::Null;
    let reported = crate::support::poll_until(DEADLINE, || {
        last = ok(c.call("task.conflicts", json!({"repo": repo.to_string_lossy()})));
        last["conflicts"].as_array().is_some_and(|l| !l.is_empty())
    });
    let tasks = ok(c.call("task.list", json!({})));
    assert!(reported, "no pair reported: {last}\ntasks: {tasks}");
    let found = last["conflicts"].as_array().cloned().unwrap_or_default();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["a"], first.as_str());
    assert_eq!(found[0]["b"], second.as_str());
    assert_eq!(found[0]["paths"], json!(["shared.txt"]));
    assert_eq!(found[0]["repo"], repo.to_string_lossy().as_ref());
    assert!(found[0]["since"].is_string(), "{found:?}");
    let appeared = next_conflict(&mut sub);
    assert_eq!(appeared["state"], "appeared", "{appeared}");
    assert_eq!(appeared["a"], first.as_str());
    assert_eq!(appeared["b"], second.as_str());
    assert_eq!(appeared["paths"], json!(["shared.txt"]));
    // Nothing of the checkouts was staged by the radar.
    let wt = ok(c.call("task.get", json!({"task_id": a})));
    let path = str_field(&wt["task"], "worktree_path").to_owned();
    assert_eq!(
        git(Path::new(&path), &["diff", "--cached", "--name-only"]),
        ""
    );
    assert_eq!(wt["conflicts"][0]["paths"], json!(["shared.txt"]), "{wt}");

    // The CLI shows it.
    let out = server.cli(&["task", "conflicts"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        text.contains(first.as_str()) && text.contains("shared.txt"),
        "{text}"
    );
    let list = server.cli(&["task", "list"]);
    let list = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(list.matches("[conflict]").count(), 2, "{list}");
    let get = server.cli(&["task", "get", &a]);
    let get = String::from_utf8_lossy(&get.stdout).into_owned();
    assert!(get.contains("conflicts with task"), "{get}");

    // b is thrown away: the pair clears, once.
    ok(c.call("task.finish", json!({"task_id": b, "mode": "discard"})));
    let cleared = next_conflict(&mut sub);
    assert_eq!(cleared["state"], "cleared", "{cleared}");
    assert_eq!(cleared["b"], second.as_str());
    assert!(conflicts(&mut c, &repo).is_empty());
}

#[test]
fn a_commit_on_the_target_branch_that_collides_is_reported_without_b() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["task.conflict"]})));
    let repo = server.env().root().join("repo");
    init_repo(&repo, "shared.txt", "base\n");
    let a = editing_task(&mut c, &repo, "alpha");
    assert!(conflicts(&mut c, &repo).is_empty());
    // Someone commits on main, touching the same line.
    std::fs::write(repo.join("shared.txt"), "gamma\n").unwrap_or_else(|e| panic!("{e}"));
    git(&repo, &["commit", "-qam", "on main"]);
    // Nothing triggers a pass but the call itself, which is fresh.
    let found = conflicts(&mut c, &repo);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["a"], a.as_str());
    assert!(found[0].get("b").is_none(), "{found:?}");
    assert_eq!(found[0]["target_branch"], "main");
    assert_eq!(found[0]["paths"], json!(["shared.txt"]));
    let appeared = next_conflict(&mut sub);
    assert_eq!(appeared["state"], "appeared");
    assert!(appeared.get("b").is_none(), "{appeared}");
    // The task's own workspace names its repository.
    let t = ok(c.call("task.get", json!({"task_id": a})));
    let pane = ok(c.call("pane.get", json!({"pane_id": t["task"]["pane_id"]})));
    let ws = pane["pane"]["workspace_id"].clone();
    let by_ws = ok(c.call("task.conflicts", json!({"workspace_id": ws})));
    assert_eq!(by_ws["conflicts"], json!(found), "{by_ws}");
    // A relative repo, or both a repo and a workspace, are refused.
    for bad in [
        json!({"repo": "repo"}),
        json!({"repo": repo.to_string_lossy(), "workspace_id": ws}),
    ] {
        crate::support::expect_code(
            c.call("task.conflicts", bad),
            signaltty_protocol::ErrorCode::BadParams,
        );
    }
}

#[test]
fn a_merge_names_the_tasks_that_now_conflict_with_the_target() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = server.env().root().join("repo");
    init_repo(&repo, "shared.txt", "base\n");
    let done = worker_task(&mut c, &repo, "put: shared.txt alpha", "completed");
    let other = editing_task(&mut c, &repo, "beta");
    let merged = ok(c.call("task.finish", json!({"task_id": done, "mode": "merge"})));
    assert_eq!(merged["merge"]["target"], "main", "{merged}");
    let after = merged["conflicts"].as_array().cloned().unwrap_or_default();
    assert_eq!(after.len(), 1, "{merged}");
    assert_eq!(after[0]["a"], other.as_str());
    assert!(after[0].get("b").is_none(), "{merged}");
    assert_eq!(after[0]["target_branch"], "main");
    assert_eq!(after[0]["paths"], json!(["shared.txt"]));
    // The pair with the merged task is gone; the other task against main
    // stays.
    let now = conflicts(&mut c, &repo);
    assert_eq!(now.len(), 1, "{now:?}");
    assert!(now[0].get("b").is_none(), "{now:?}");
}

/// docs/tasks.md#conflict-radar: the server's start looks again. Two
/// completed tasks (they survive a restart) whose commits collide are known
/// to `task.list` after a restart without anyone asking `task.conflicts`.
#[test]
fn a_restart_looks_again_and_knows_the_completed_tasks_collision() {
    let mut life = crate::support::life::Life::new(&[]);
    life.start();
    let repo = life.env.root().join("repo");
    init_repo(&repo, "shared.txt", "base\n");
    let mut c = life.client();
    let a = worker_task(&mut c, &repo, "put: shared.txt alpha", "completed");
    let b = worker_task(&mut c, &repo, "put: shared.txt beta", "completed");
    let pair = conflicts(&mut c, &repo);
    assert_eq!(pair.len(), 1, "{pair:?}");
    drop(c);
    life.stop();
    life.start();
    let mut c = life.client();
    let listed = wait_until("the collision known after the restart", DEADLINE, || {
        let l = ok(c.call("task.list", json!({})));
        let found = l["conflicts"].as_array().cloned().unwrap_or_default();
        (!found.is_empty()).then_some(found)
    });
    assert_eq!(listed.len(), 1, "{listed:?}");
    let ids = [listed[0]["a"].clone(), listed[0]["b"].clone()];
    assert!(
        ids.contains(&json!(a)) && ids.contains(&json!(b)),
        "{listed:?}"
    );
    assert_eq!(listed[0]["paths"], json!(["shared.txt"]));
    // While the server is down, b's commit is taken back: the next start
    // finds the pair gone, again without being asked.
    let t = ok(c.call("task.get", json!({"task_id": b})));
    let path = str_field(&t["task"], "worktree_path").to_owned();
    drop(c);
    life.stop();
    git(Path::new(&path), &["reset", "-q", "--hard", "HEAD~1"]);
    life.start();
    let mut c = life.client();
    wait_until("the collision gone after the restart", DEADLINE, || {
        let l = ok(c.call("task.list", json!({})));
        l["conflicts"]
            .as_array()
            .is_none_or(|found| found.is_empty())
            .then_some(())
    });
}
