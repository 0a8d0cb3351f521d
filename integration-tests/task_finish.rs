//! `task.finish` through the real server (docs/tasks.md#finishing-a-task):
//! merge and discard into real repositories, every refusal, a conflict that
//! leaves the target clean, the deadline, and a SIGKILL between the merge and
//! the recorded disposition that the next finish completes without a second
//! merge.

use crate::support::git::{git, init_repo};
use crate::support::life::Life;
use crate::support::process::BIN;
use crate::support::{Client, DEADLINE, TestServer, expect_code, ok, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};

pub(crate) fn repo(root: &Path) -> PathBuf {
    let r = root.join("repo");
    init_repo(&r, "shared.txt", "base\n");
    r
}

/// A task whose fake worker commits `file` and reports completed; returns
/// the completed task.
pub(crate) fn completed_task(c: &mut Client, repo: &Path, file: &str) -> Value {
    let argv = json!(["bash", crate::support::agents::fake("fake-worker"), BIN]);
    let reply = ok(c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": format!("commit: {file}")},
               "agent": "claude", "argv": argv, "submit_delay_ms": 50}),
    ));
    let id = str_field(&reply["task"], "id").to_owned();
    wait_until(&format!("task {id} completed"), DEADLINE, || {
        let t = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
        (t["state"] == "completed").then_some(t)
    })
}

fn finish(c: &mut Client, id: &str, extra: Value) -> signaltty_protocol::Response {
    let mut p = json!({"task_id": id, "mode": "merge"});
    for (k, v) in extra.as_object().into_iter().flatten() {
        p[k] = v.clone();
    }
    c.call("task.finish", p)
}

/// docs/tasks.md#merging: a merge lands the worker's commit on the target,
/// removes the checkout, deletes the branch; a second finish is refused.
#[test]
fn a_completed_task_merges_into_its_target_and_its_checkout_goes() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let task = completed_task(&mut c, &repo, "out.txt");
    let id = str_field(&task, "id").to_owned();
    let path = PathBuf::from(str_field(&task, "worktree_path"));
    let branch = str_field(&task, "branch").to_owned();
    let done = ok(finish(&mut c, &id, json!({})));
    let sha = str_field(&done["merge"], "sha").to_owned();
    assert_eq!(done["merge"]["target"], "main");
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), sha);
    assert!(repo.join("out.txt").is_file(), "the commit is on main");
    assert_eq!(done["task"]["disposition"]["outcome"], "merged");
    assert_eq!(done["task"]["disposition"]["merged_sha"], sha.as_str());
    assert_eq!(done["task"]["disposition"]["branch_deleted"], true);
    assert_eq!(
        done["task"]["state"], "completed",
        "the state keeps its A2A value"
    );
    assert!(!path.exists(), "the checkout is removed");
    assert!(git(&repo, &["branch", "--list", &branch]).is_empty());
    // The worker's workspace, rooted at the checkout, is closed.
    let ws = ok(c.call("workspace.list", json!({})));
    assert!(
        ws["workspaces"].as_array().is_some_and(|w| w
            .iter()
            .all(|w| w["cwd"] != path.to_string_lossy().as_ref())),
        "{ws}"
    );
    expect_code(finish(&mut c, &id, json!({})), ErrorCode::BadParams);
}

/// docs/tasks.md#checks-before-finishing: the refusals before anything is
/// merged.
#[test]
fn a_merge_is_refused_when_the_task_the_target_or_either_checkout_is_not_ready() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    expect_code(
        c.call(
            "task.finish",
            json!({"task_id": "task_x", "mode": "rebase"}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("task.finish", json!({"task_id": "task_x", "mode": "merge"})),
        ErrorCode::NoSuchTask,
    );
    // Not completed.
    let running = ok(c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": "x"}, "argv": ["cat"]}),
    ));
    let running = str_field(&running["task"], "id").to_owned();
    let e = expect_code(finish(&mut c, &running, json!({})), ErrorCode::BadParams);
    assert_eq!(e.details, Some(json!({"state": "pending"})));
    let task = completed_task(&mut c, &repo, "out.txt");
    let id = str_field(&task, "id").to_owned();
    let path = PathBuf::from(str_field(&task, "worktree_path"));
    // The wrong branch checked out in the source repository.
    git(&repo, &["checkout", "-q", "-b", "elsewhere"]);
    let e = expect_code(finish(&mut c, &id, json!({})), ErrorCode::BadParams);
    assert_eq!(
        e.details,
        Some(json!({"expected": "main", "actual": "elsewhere"}))
    );
    git(&repo, &["checkout", "-q", "main"]);
    // Uncommitted work in the task's checkout, unless ignored.
    std::fs::write(path.join("scratch.txt"), "x\n").unwrap_or_else(|e| panic!("{e}"));
    expect_code(finish(&mut c, &id, json!({})), ErrorCode::BadParams);
    // A dirty target.
    std::fs::write(repo.join("shared.txt"), "edited\n").unwrap_or_else(|e| panic!("{e}"));
    expect_code(
        finish(&mut c, &id, json!({"ignore_dirty": true})),
        ErrorCode::BadParams,
    );
    git(&repo, &["checkout", "--", "shared.txt"]);
    // A foreign live pane inside the checkout; a sibling does not count.
    let ws = ok(c.call(
        "workspace.create",
        json!({"name": "side", "cwd": server.env().root().to_string_lossy()}),
    ));
    let sibling = PathBuf::from(format!("{}-other", path.display()));
    std::fs::create_dir_all(&sibling).unwrap_or_else(|e| panic!("{e}"));
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws["workspace"]["id"]})));
    ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "tab_id": tab["tab"]["id"], "cwd": sibling.to_string_lossy(), "argv": ["cat"]}),
    ));
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws["workspace"]["id"]})));
    let inside = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "tab_id": tab["tab"]["id"], "cwd": path.to_string_lossy(), "argv": ["cat"]}),
    ));
    let e = expect_code(
        finish(&mut c, &id, json!({"ignore_dirty": true})),
        ErrorCode::PanesAlive,
    );
    assert!(
        format!("{:?}", e.details).contains(str_field(&inside["pane"], "id")),
        "{e:?}"
    );
    ok(c.call("pane.close", json!({"pane_id": inside["pane"]["id"]})));
    // A pane whose cwd is a symlink to the checkout is inside it too.
    let link = server.env().root().join("link-to-checkout");
    std::os::unix::fs::symlink(&path, &link).unwrap_or_else(|e| panic!("{e}"));
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws["workspace"]["id"]})));
    let linked = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "tab_id": tab["tab"]["id"], "cwd": link.to_string_lossy(), "argv": ["cat"]}),
    ));
    expect_code(
        finish(&mut c, &id, json!({"ignore_dirty": true})),
        ErrorCode::PanesAlive,
    );
    ok(c.call("pane.close", json!({"pane_id": linked["pane"]["id"]})));
    // Now it merges, the untracked scratch file dropped with the checkout.
    let done = ok(finish(&mut c, &id, json!({"ignore_dirty": true})));
    assert_eq!(done["task"]["disposition"]["outcome"], "merged");
}

/// docs/tasks.md#merging: a conflict leaves the target clean, records the files
/// and no disposition; the task can be finished again.
#[test]
fn a_conflicting_merge_leaves_the_target_clean_and_the_task_finishable() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let task = completed_task(&mut c, &repo, "shared.txt");
    let id = str_field(&task, "id").to_owned();
    std::fs::write(repo.join("shared.txt"), "changed on main\n").unwrap_or_else(|e| panic!("{e}"));
    git(&repo, &["commit", "-q", "-am", "main moves on"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let e = expect_code(finish(&mut c, &id, json!({})), ErrorCode::MergeConflict);
    assert_eq!(e.details, Some(json!({"conflicted": ["shared.txt"]})));
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    assert!(
        git(&repo, &["status", "--porcelain"]).is_empty(),
        "the target is clean"
    );
    let after = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
    assert_eq!(after["disposition"]["outcome"], "none");
    assert_eq!(after["finish_error"], json!({"conflicted": ["shared.txt"]}));
    // Discard still works: the branch is kept unless asked.
    let discarded = ok(finish(&mut c, &id, json!({"mode": "discard"})));
    assert_eq!(discarded["task"]["disposition"]["outcome"], "discarded");
    assert_eq!(discarded["task"]["disposition"]["branch_deleted"], false);
    assert!(!git(&repo, &["branch", "--list", str_field(&task, "branch")]).is_empty());
}

/// docs/tasks.md#discarding: discard from `working`: canceled then discarded,
/// the worker stopped, the checkout removed, the branch kept.
#[test]
fn discarding_a_working_task_cancels_it_stops_the_worker_and_removes_the_checkout() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let argv = json!(["bash", crate::support::agents::fake("fake-worker"), BIN]);
    let reply = ok(c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": "keep working"},
               "agent": "claude", "argv": argv, "submit_delay_ms": 50}),
    ));
    let id = str_field(&reply["task"], "id").to_owned();
    let pane = str_field(&reply["pane"], "id").to_owned();
    let path = PathBuf::from(str_field(&reply["task"], "worktree_path"));
    wait_until("the task working", DEADLINE, || {
        let t = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
        (t["state"] == "working").then_some(())
    });
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["task.updated"], "task_ids": [id]}),
    ));
    let done = ok(finish(&mut c, &id, json!({"mode": "discard"})));
    assert_eq!(done["task"]["state"], "canceled");
    assert_eq!(done["task"]["disposition"]["outcome"], "discarded");
    assert_eq!(done["task"]["disposition"]["branch_deleted"], false);
    assert!(!path.exists());
    let first = sub.next_event();
    assert_eq!(first.payload["task"]["state"], "canceled", "canceled first");
    let p = c.call("pane.get", json!({"pane_id": pane}));
    if p.ok {
        assert_eq!(
            ok(p)["pane"]["live"]["state"],
            "exited",
            "the worker is stopped"
        );
    }
}

/// A SIGKILL right after the merge commit (a post-merge hook kills the
/// server): the next finish records the merge, without merging twice.
#[test]
fn a_finish_killed_after_its_merge_is_completed_by_the_next_without_a_second_merge() {
    let mut life = Life::new(&[]);
    life.start();
    let repo = repo(life.env.root());
    let mut c = life.client();
    let task = completed_task(&mut c, &repo, "out.txt");
    let id = str_field(&task, "id").to_owned();
    let pid = life.pid();
    let hook = repo.join(".git/hooks/post-merge");
    std::fs::write(&hook, format!("#!/bin/sh\nkill -9 {pid}\n")).unwrap_or_else(|e| panic!("{e}"));
    crate::support::process::set_mode(&hook, 0o755);
    let line = json!({"protocol": "signaltty/1", "id": "f", "method": "task.finish",
                      "params": {"task_id": id, "mode": "merge"}});
    c.send_raw(format!("{line}\n").as_bytes());
    // The server dies before it answers: the connection just ends.
    while let crate::support::RawLine::Line(l) = c.read_raw_line() {
        assert!(!l.contains("\"id\":\"f\""), "answered: {l}");
    }
    life.reap_killed();
    std::fs::remove_file(&hook).unwrap_or_else(|e| panic!("{e}"));
    let merges_before = git(&repo, &["rev-list", "--merges", "--count", "HEAD"]);
    assert_eq!(merges_before, "1", "the merge landed before the kill");
    life.start();
    let mut c = life.client();
    let done = ok(finish(&mut c, &id, json!({})));
    assert_eq!(done["task"]["disposition"]["outcome"], "merged");
    assert_eq!(
        git(&repo, &["rev-list", "--merges", "--count", "HEAD"]),
        "1",
        "merged once"
    );
    assert_eq!(done["merge"]["sha"], git(&repo, &["rev-parse", "HEAD"]));
    assert!(!Path::new(str_field(&task, "worktree_path")).exists());
}

/// docs/tasks.md#merging: a merge past its deadline is killed and the target
/// restored.
#[test]
fn a_merge_past_its_deadline_is_stopped_and_the_target_restored() {
    let mut env = crate::support::TestEnv::new();
    env.set_var("SIGNALTTY_MERGE_TIMEOUT_MS", "1500");
    let server = TestServer::start_in(env);
    let mut c = server.client();
    let repo = repo(server.env().root());
    let task = completed_task(&mut c, &repo, "out.txt");
    let id = str_field(&task, "id").to_owned();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let hook = repo.join(".git/hooks/pre-merge-commit");
    std::fs::write(&hook, "#!/bin/sh\nsleep 60\n").unwrap_or_else(|e| panic!("{e}"));
    crate::support::process::set_mode(&hook, 0o755);
    let e = expect_code(finish(&mut c, &id, json!({})), ErrorCode::Timeout);
    assert_eq!(
        e.details,
        Some(json!({"abort_ok": true, "target_dirty": false}))
    );
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    assert!(git(&repo, &["status", "--porcelain", "--untracked-files=no"]).is_empty());
    let after = ok(c.call("task.get", json!({"task_id": id})))["task"].clone();
    assert_eq!(after["disposition"]["outcome"], "none");
}

/// docs/diffs.md#task-diffs: `task.diff` counts the committed work and
/// untracked lines against the base and previews the merge; `task.file_diff`
/// shows a file against the base.
#[test]
fn a_tasks_diff_includes_its_commits_and_previews_the_merge() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let task = completed_task(&mut c, &repo, "out.txt");
    let id = str_field(&task, "id").to_owned();
    let path = PathBuf::from(str_field(&task, "worktree_path"));
    std::fs::write(path.join("notes.md"), "one\ntwo\n").unwrap_or_else(|e| panic!("{e}"));
    let d = ok(c.call("task.diff", json!({"task_id": id})));
    assert_eq!(d["base_sha"], task["base_sha"]);
    assert_eq!(d["branch"], task["branch"]);
    let files = d["files"].as_array().cloned().unwrap_or_default();
    let find = |p: &str| files.iter().find(|f| f["path"] == p).cloned();
    let out = find("out.txt").unwrap_or_else(|| panic!("{d}"));
    assert_eq!(
        (out["added"].clone(), out["untracked"].clone()),
        (json!(1), json!(false))
    );
    let notes = find("notes.md").unwrap_or_else(|| panic!("{d}"));
    assert_eq!(
        (notes["added"].clone(), notes["untracked"].clone()),
        (json!(2), json!(true))
    );
    assert_eq!(d["added"], 3, "untracked lines count in a task's totals");
    assert_eq!(
        d["merge_preview"],
        json!({"target": "main", "clean": true, "conflicted": []})
    );
    let f = ok(c.call("task.file_diff", json!({"task_id": id, "path": "out.txt"})));
    assert_eq!(f["content"]["kind"], "text", "{f}");
    assert!(f.to_string().contains("written by the worker"), "{f}");
    expect_code(
        c.call("task.file_diff", json!({"task_id": id, "path": "../x"})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("task.diff", json!({"task_id": "task_nope"})),
        ErrorCode::NoSuchTask,
    );
}
