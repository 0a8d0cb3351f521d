//! `worktree.*` through the real binary
//! (docs/worktrees.md#the-worktree-commands): create, open and remove with
//! their events, every refusal of a removal, a launch into a checkout while it
//! is being removed, and a git hook that outlives the deadline killed with its
//! process group.

use crate::support::process::run_with_deadline;
use crate::support::{Client, DEADLINE, TestEnv, TestServer, expect_code, ok, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in `dir`, failing the test on a non-zero exit.
fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0");
    let out = run_with_deadline(&mut cmd, "git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository with one commit under the env's root, canonical, and a
/// workspace `proj` on it.
fn repo(server: &TestServer, c: &mut Client) -> PathBuf {
    let root = match std::fs::canonicalize(server.env().root()) {
        Ok(r) => r.join("proj"),
        Err(e) => panic!("cannot resolve the env root: {e}"),
    };
    if let Err(e) = std::fs::create_dir_all(&root) {
        panic!("cannot create {}: {e}", root.display());
    }
    git(&root, &["init", "-q", "-b", "main"]);
    if let Err(e) = std::fs::write(root.join("a.txt"), "a\n") {
        panic!("cannot write a.txt: {e}");
    }
    git(&root, &["add", "a.txt"]);
    git(&root, &["commit", "-q", "-m", "one"]);
    ok(c.call("workspace.create", json!({"name": "proj", "cwd": s(&root)})));
    root
}

/// A test path as the string the wire carries (the temp dirs are UTF-8).
fn s(p: &Path) -> &str {
    match p.to_str() {
        Some(text) => text,
        None => panic!("{} is not UTF-8", p.display()),
    }
}

fn create(c: &mut Client, path: &Path, branch: &str) -> Value {
    ok(c.call(
        "worktree.create",
        json!({"workspace_id": "proj", "path": s(path), "branch": branch}),
    ))
}

fn remove(c: &mut Client, path: &Path) -> signaltty_protocol::Response {
    c.call(
        "worktree.remove",
        json!({"workspace_id": "proj", "path": s(path)}),
    )
}

fn close_workspace(c: &mut Client, id: &Value) {
    ok(c.call(
        "workspace.close",
        json!({"workspace_id": id, "signal": "KILL"}),
    ));
}

fn listed(c: &mut Client) -> Vec<Value> {
    ok(c.call("worktree.list", json!({"workspace_id": "proj"})))["worktrees"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn subscriber(server: &TestServer) -> Client {
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["worktree.*", "workspace.*"]}),
    ));
    sub
}

#[test]
fn create_binds_a_workspace_list_shows_it_and_remove_keeps_the_branch() {
    let server = TestServer::start();
    let mut c = server.client();
    let root = repo(&server, &mut c);
    let mut sub = subscriber(&server);
    let wt = root.parent().unwrap().join("proj-feature");
    let made = create(&mut c, &wt, "feature/one");
    assert_eq!(made["reused"], false);
    assert_eq!(made["path"], s(&wt));
    let ws = &made["workspace"];
    assert_eq!(ws["name"], "feature/one");
    assert_eq!(ws["cwd"], s(&wt));
    assert_eq!(ws["git"]["branch"], "feature/one");
    assert_eq!(ws["git"]["dirty"], false);
    assert_eq!(
        git(&wt, &["rev-parse", "HEAD"]),
        git(&root, &["rev-parse", "HEAD"])
    );

    let source =
        ok(c.call("workspace.get", json!({"workspace_id": "proj"})))["workspace"]["id"].clone();
    let changed = sub.next_event();
    assert_eq!(changed.event, "worktree.changed");
    assert_eq!(
        changed.payload,
        json!({"operation": "create", "path": s(&wt), "workspace_id": source})
    );
    let created = sub.next_event();
    assert_eq!(created.event, "workspace.created");
    assert_eq!(created.payload["workspace"]["id"], ws["id"]);

    let list = listed(&mut c);
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["path"], s(&root));
    assert_eq!(list[0]["main"], true);
    assert_eq!(list[0]["branch"], "main");
    assert_eq!(list[0]["workspace_id"], source);
    assert_eq!(list[1]["path"], s(&wt));
    assert_eq!(list[1]["main"], false);
    assert_eq!(list[1]["locked"], false);
    assert_eq!(list[1]["workspace_id"], ws["id"]);

    close_workspace(&mut c, &ws["id"]);
    assert_eq!(sub.next_event().event, "workspace.closed");
    let removed = ok(remove(&mut c, &wt));
    assert_eq!(removed, json!({"removed": true, "path": s(&wt)}));
    let gone = sub.next_event();
    assert_eq!(gone.event, "worktree.changed");
    assert_eq!(gone.payload["operation"], "remove");
    assert!(!wt.exists());
    git(&root, &["rev-parse", "--verify", "refs/heads/feature/one"]);
    assert_eq!(listed(&mut c).len(), 1);
}

#[test]
fn open_binds_once_and_reopening_is_reused_without_events() {
    let server = TestServer::start();
    let mut c = server.client();
    let root = repo(&server, &mut c);
    let wt = root.parent().unwrap().join("by-git");
    git(&root, &["worktree", "add", "-q", "-b", "side", s(&wt)]);
    let mut sub = subscriber(&server);
    // Through a symlink: compared after canonicalisation.
    let link = root.parent().unwrap().join("link-to-wt");
    std::os::unix::fs::symlink(&wt, &link).unwrap();
    let opened = ok(c.call(
        "worktree.open",
        json!({"workspace_id": "proj", "path": s(&link), "name": "side work"}),
    ));
    assert_eq!(opened["reused"], false);
    assert_eq!(opened["path"], s(&wt));
    assert_eq!(opened["workspace"]["name"], "side work");
    let e = sub.next_event();
    assert_eq!(
        (e.event.as_str(), &e.payload["operation"]),
        ("worktree.changed", &json!("open"))
    );
    assert_eq!(sub.next_event().event, "workspace.created");

    let again = ok(c.call(
        "worktree.open",
        json!({"workspace_id": "proj", "path": s(&wt)}),
    ));
    assert_eq!(again["reused"], true);
    assert_eq!(again["workspace"]["id"], opened["workspace"]["id"]);
    // Nothing was emitted: the next event is this marker's.
    ok(c.call(
        "workspace.rename",
        json!({"workspace_id": "proj", "name": "marker"}),
    ));
    assert_eq!(sub.next_event().event, "workspace.updated");

    // Not a registered checkout, the repository root's parent, a relative path.
    let plain = root.parent().unwrap().join("plain");
    std::fs::create_dir(&plain).unwrap();
    for bad in [s(&plain), "relative/path", "/no/such/dir"] {
        expect_code(
            c.call(
                "worktree.open",
                json!({"workspace_id": "proj", "path": bad}),
            ),
            ErrorCode::BadParams,
        );
    }
    expect_code(
        c.call(
            "worktree.open",
            json!({"workspace_id": "nope", "path": s(&wt)}),
        ),
        ErrorCode::NoSuchWorkspace,
    );
}

#[test]
fn create_refuses_bad_branches_names_and_paths() {
    let server = TestServer::start();
    let mut c = server.client();
    let root = repo(&server, &mut c);
    let parent = root.parent().unwrap();
    let fresh = parent.join("fresh");
    let cases = [
        json!({"workspace_id": "proj", "path": s(&fresh), "branch": "-x"}),
        json!({"workspace_id": "proj", "path": s(&fresh), "branch": " "}),
        json!({"workspace_id": "proj", "path": s(&fresh), "branch": "a..b"}),
        json!({"workspace_id": "proj", "path": s(&fresh), "branch": "ok", "name": "  "}),
        json!({"workspace_id": "proj", "path": "rel/x", "branch": "ok"}),
        json!({"workspace_id": "proj", "path": s(&root), "branch": "ok"}),
        json!({"workspace_id": "proj", "path": s(&parent.join("no/parent/x")), "branch": "ok"}),
        json!({"workspace_id": "proj", "path": s(&fresh), "branch": "main"}),
        json!({"workspace_id": "proj", "path": s(&fresh)}),
    ];
    for params in cases {
        expect_code(
            c.call("worktree.create", params.clone()),
            ErrorCode::BadParams,
        );
        assert!(!fresh.exists(), "nothing was made for {params}");
    }
    // A workspace that is not a repository.
    ok(c.call(
        "workspace.create",
        json!({"name": "bare-dir", "cwd": s(parent)}),
    ));
    expect_code(
        c.call(
            "worktree.create",
            json!({"workspace_id": "bare-dir", "path": s(&fresh), "branch": "ok"}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("worktree.list", json!({"workspace_id": "bare-dir"})),
        ErrorCode::BadParams,
    );
    // The connection survived every refusal.
    assert_eq!(listed(&mut c).len(), 1);
}

#[test]
fn remove_refuses_main_locked_dirty_an_open_workspace_and_live_panes() {
    let server = TestServer::start();
    let mut c = server.client();
    let root = repo(&server, &mut c);
    let parent = root.parent().unwrap().to_path_buf();
    let wt = parent.join("proj-wt");
    let made = create(&mut c, &wt, "wt");

    let refused = |c: &mut Client, path: &Path, code: ErrorCode, says: &str| {
        let e = expect_code(remove(c, path), code);
        assert!(e.message.contains(says), "{says:?} not in {e:?}");
        assert!(path.exists());
    };
    refused(&mut c, &root, ErrorCode::BadParams, "main worktree");
    refused(
        &mut c,
        &parent,
        ErrorCode::BadParams,
        "not a registered worktree",
    );
    // The workspace bound at create is still open.
    refused(
        &mut c,
        &wt,
        ErrorCode::BadParams,
        "close the workspace first",
    );
    close_workspace(&mut c, &made["workspace"]["id"]);

    git(&root, &["worktree", "lock", s(&wt)]);
    refused(&mut c, &wt, ErrorCode::BadParams, "locked");
    git(&root, &["worktree", "unlock", s(&wt)]);

    std::fs::write(wt.join("untracked.txt"), "u").unwrap();
    refused(&mut c, &wt, ErrorCode::BadParams, "changes");
    std::fs::remove_file(wt.join("untracked.txt")).unwrap();

    // A live pane of the source workspace running inside the checkout.
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "proj", "argv": ["sleep", "60"], "cwd": s(&wt.join("."))}),
    ))["pane"]["id"]
        .clone();
    let e = expect_code(remove(&mut c, &wt), ErrorCode::PanesAlive);
    assert!(e.message.contains(pane.as_str().unwrap()), "{e:?}");
    ok(c.call("pane.close", json!({"pane_id": pane, "signal": "KILL"})));

    // A process below a pane started elsewhere, gone into the checkout.
    let script = format!("cd '{}' && echo inside-now && exec sleep 60", s(&wt));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "proj", "argv": ["sh", "-c", format!("{script} & wait")]}),
    ))["pane"]["id"]
        .clone();
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": "inside-now", "timeout_s": 10}),
    ));
    let e = expect_code(remove(&mut c, &wt), ErrorCode::PanesAlive);
    assert!(e.message.contains("process"), "{e:?}");
    ok(c.call("pane.close", json!({"pane_id": pane, "signal": "KILL"})));

    // A sibling with a common prefix does not block; the process is gone.
    let sibling = parent.join("proj-wt-other");
    std::fs::create_dir(&sibling).unwrap();
    ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "proj", "argv": ["sleep", "60"], "cwd": s(&sibling)}),
    ));
    wait_until("the removal once nothing lives inside", DEADLINE, || {
        let r = remove(&mut c, &wt);
        match r.error {
            None => Some(()),
            Some(e) if e.code == ErrorCode::PanesAlive => None,
            Some(e) => panic!("unexpected refusal {e:?}"),
        }
    });
    assert!(!wt.exists());
}

/// An fsmonitor hook makes the removal's `git status` wait for a file, so the
/// test holds the removal at a known point without sleeping.
#[test]
fn launching_into_a_checkout_being_removed_is_refused_until_it_is_done() {
    let server = TestServer::start();
    let mut c = server.client();
    let root = repo(&server, &mut c);
    let parent = root.parent().unwrap().to_path_buf();
    let wt = parent.join("proj-slow");
    let made = create(&mut c, &wt, "slow");
    close_workspace(&mut c, &made["workspace"]["id"]);
    let entered = parent.join("status-entered");
    let release = parent.join("status-release");
    let hook = parent.join("fsmonitor.sh");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\ntouch '{}'\nwhile [ ! -e '{}' ]; do sleep 0.02; done\nexit 1\n",
            s(&entered),
            s(&release)
        ),
    )
    .unwrap();
    crate::support::process::set_mode(&hook, 0o755);
    git(&root, &["config", "core.fsmonitor", s(&hook)]);

    let mut remover = server.client();
    let id = remover.send(
        "worktree.remove",
        json!({"workspace_id": "proj", "path": s(&wt)}),
    );
    wait_until("the removal's git status", DEADLINE, || {
        entered.exists().then_some(())
    });

    let e = expect_code(
        c.call(
            "pane.spawn",
            json!({"workspace_id": "proj", "argv": ["true"], "cwd": s(&wt)}),
        ),
        ErrorCode::BadParams,
    );
    assert!(e.message.contains("checkout is being removed"), "{e:?}");
    let e = expect_code(
        c.call("workspace.create", json!({"cwd": s(&wt)})),
        ErrorCode::BadParams,
    );
    assert!(e.message.contains("checkout is being removed"), "{e:?}");
    // Outside the checkout, launches go on.
    ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "proj", "argv": ["true"], "cwd": s(&parent)}),
    ));

    std::fs::write(&release, "").unwrap();
    let response = remover.read_response();
    assert_eq!(response.id, id);
    ok(response);
    assert!(!wt.exists());
    git(&root, &["config", "--unset", "core.fsmonitor"]);
    // Released: the path can be entered again (a fresh directory there).
    std::fs::create_dir(&wt).unwrap();
    ok(c.call("workspace.create", json!({"cwd": s(&wt)})));
}

#[test]
fn a_hook_outliving_the_git_deadline_is_killed_with_its_process_group() {
    let mut env = TestEnv::new();
    env.set_var("SIGNALTTY_WORKTREE_TIMEOUT_MS", "1500");
    let server = TestServer::start_in(env);
    let mut c = server.client();
    let root = repo(&server, &mut c);
    let pid_file = root.parent().unwrap().join("hook.pid");
    let hook = root.join(".git/hooks/post-checkout");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nsleep 120 &\necho $! > '{}'\nsleep 120\n",
            s(&pid_file)
        ),
    )
    .unwrap();
    crate::support::process::set_mode(&hook, 0o755);
    let wt = root.parent().unwrap().join("hooked");
    let e = expect_code(
        c.call(
            "worktree.create",
            json!({"workspace_id": "proj", "path": s(&wt), "branch": "hooked"}),
        ),
        ErrorCode::Timeout,
    );
    assert!(e.message.contains("refresh the list"), "{e:?}");
    let pid: u32 = wait_until("the hook's pid", DEADLINE, || {
        std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
    });
    crate::support::process::wait_process_gone(pid, "the hook's background child");
    // The server is still serving.
    assert!(!listed(&mut c).is_empty());
}
