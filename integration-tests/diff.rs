//! Diffs and the git cache (docs/diffs.md, docs/methods.md#workspaces):
//! `workspace.diff`, `workspace.file_diff`, `workspace.refresh_git`,
//! `git.branch_changed` and `dirty`, against real repositories.

use crate::support::client::Client;
use crate::support::{DEADLINE, TestEnv, TestServer, err, ok, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output();
    match out {
        Ok(o) if o.status.success() => {},
        Ok(o) => panic!("git {args:?}: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => panic!("git {args:?}: {e}"),
    }
}

fn write(dir: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let full = dir.join(path);
    if let Some(parent) = full.parent()
        && let Err(e) = fs::create_dir_all(parent)
    {
        panic!("mkdir {}: {e}", parent.display());
    }
    if let Err(e) = fs::write(&full, bytes) {
        panic!("write {}: {e}", full.display());
    }
}

/// A fresh repository on `main` under the test's root.
fn repo(server: &TestServer, name: &str) -> PathBuf {
    let dir = server.env().root().join(name);
    if let Err(e) = fs::create_dir_all(&dir) {
        panic!("mkdir {}: {e}", dir.display());
    }
    git(&dir, &["init", "-q", "-b", "main"]);
    dir
}

fn commit_all(dir: &Path) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "c"]);
}

fn workspace(c: &mut Client, cwd: &Path) -> String {
    let ws = ok(c.call("workspace.create", json!({"name": "d", "cwd": cwd})));
    str_field(&ws["workspace"], "id").to_owned()
}

fn file_diff(c: &mut Client, ws: &str, path: &str) -> Value {
    ok(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws, "path": path}),
    ))
}

fn file<'a>(summary: &'a Value, path: &str) -> &'a Value {
    summary["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["path"] == path))
        .unwrap_or_else(|| panic!("{path} in {summary}"))
}

#[test]
fn file_diff_refuses_every_path_of_the_validation_set() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "a.txt", "a\n");
    write(&dir, "sub/b.txt", "b\n");
    commit_all(&dir);
    write(&dir, ".gitignore", "ignored.txt\n");
    write(&dir, "ignored.txt", "x\n");
    let ws = workspace(&mut c, &dir);
    for bad in [
        "",
        "/etc/passwd",
        "/a.txt",
        "a\u{0}b",
        "a//b",
        "sub/",
        "./a.txt",
        "sub/./b.txt",
        "../a.txt",
        "sub/../a.txt",
        ".git",
        ".git/config",
        "sub/.git/x",
        "sub",
        "missing.txt",
        "ignored.txt",
    ] {
        let e = err(c.call(
            "workspace.file_diff",
            json!({"workspace_id": ws, "path": bad}),
        ));
        assert_eq!(e.code, ErrorCode::BadParams, "{bad:?}: {e:?}");
    }
    // Mistyped params and unknown workspaces; the connection stays usable.
    let e = err(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws, "path": 7}),
    ));
    assert_eq!(e.code, ErrorCode::BadParams);
    let e = err(c.call(
        "workspace.diff",
        json!({"workspace_id": ws, "scope": "week"}),
    ));
    assert_eq!(e.code, ErrorCode::BadParams);
    let e = err(c.call(
        "workspace.file_diff",
        json!({"workspace_id": "nope", "path": "a.txt"}),
    ));
    assert_eq!(e.code, ErrorCode::NoSuchWorkspace);
    let e = err(c.call("workspace.diff", json!({"workspace_id": "nope"})));
    assert_eq!(e.code, ErrorCode::NoSuchWorkspace);
    // Glob-looking names are literal: `*.txt` is no file.
    let e = err(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws, "path": "*.txt"}),
    ));
    assert_eq!(e.code, ErrorCode::BadParams);
    assert_eq!(
        file_diff(&mut c, &ws, "a.txt")["content"]["kind"],
        "unchanged"
    );
    // Not a repository.
    let plain = server.env().root().join("plain");
    fs::create_dir_all(&plain).expect("dir");
    let ws2 = workspace(&mut c, &plain);
    let e = err(c.call("workspace.diff", json!({"workspace_id": ws2})));
    assert_eq!(e.code, ErrorCode::BadParams);
    let e = err(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws2, "path": "x"}),
    ));
    assert_eq!(e.code, ErrorCode::BadParams);
}

#[test]
fn an_unborn_repository_compares_against_the_empty_tree() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "unborn");
    write(&dir, "staged.txt", "one\ntwo\n");
    git(&dir, &["add", "staged.txt"]);
    write(&dir, "loose.txt", "x\n");
    let ws = workspace(&mut c, &dir);
    let s = ok(c.call("workspace.diff", json!({"workspace_id": ws})));
    assert_eq!(s["scope"], "head");
    assert_eq!(s["branch"], "main");
    assert_eq!(file(&s, "staged.txt")["added"], 2);
    assert_eq!(file(&s, "loose.txt")["untracked"], true);
    assert_eq!(
        (s["added"].as_u64(), s["removed"].as_u64()),
        (Some(2), Some(0))
    );
    assert!(s.get("turn").is_none(), "no turn field in head scope: {s}");
    let d = file_diff(&mut c, &ws, "staged.txt");
    assert_eq!(d["untracked"], false);
    let hunk = &d["content"]["hunks"][0];
    assert_eq!(
        (hunk["old_start"].as_u64(), hunk["new_count"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(
        hunk["lines"][0],
        json!({"kind": "added", "text": "one", "old_line": null, "new_line": 1})
    );
}

#[test]
fn untracked_symlinks_and_big_files_are_unavailable_and_nul_bytes_binary() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "a.txt", "a\n");
    commit_all(&dir);
    let secret = server.env().root().join("secret.txt");
    fs::write(&secret, "outside\n").expect("write");
    std::os::unix::fs::symlink(&secret, dir.join("link")).expect("symlink");
    write(&dir, "big.txt", vec![b'a'; 513 * 1024]);
    write(&dir, "nul.bin", b"a\0b\n");
    write(&dir, "new.txt", "n1\nn2\n");
    let ws = workspace(&mut c, &dir);
    let link = file_diff(&mut c, &ws, "link");
    assert_eq!(link["untracked"], true);
    assert_eq!(link["content"]["kind"], "unavailable", "{link}");
    assert!(
        !link.to_string().contains("outside"),
        "never follows the link: {link}"
    );
    let big = file_diff(&mut c, &ws, "big.txt");
    assert_eq!(big["content"]["kind"], "unavailable", "{big}");
    assert!(
        big["content"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("512 KiB"))
    );
    assert_eq!(
        file_diff(&mut c, &ws, "nul.bin")["content"],
        json!({"kind": "binary"})
    );
    let new = file_diff(&mut c, &ws, "new.txt");
    let lines = &new["content"]["hunks"][0]["lines"];
    assert_eq!(lines.as_array().map(Vec::len), Some(2));
    assert!(
        lines
            .as_array()
            .into_iter()
            .flatten()
            .all(|l| l["kind"] == "added")
    );
}

#[test]
fn a_file_of_10001_lines_is_truncated_at_a_whole_line() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "a.txt", "a\n");
    commit_all(&dir);
    let long: String = (1..=10_001).map(|i| format!("line {i}\n")).collect();
    write(&dir, "long.txt", &long);
    git(&dir, &["add", "long.txt"]);
    let ws = workspace(&mut c, &dir);
    let d = file_diff(&mut c, &ws, "long.txt");
    assert_eq!(d["content"]["kind"], "text");
    assert_eq!(d["content"]["truncated"], true);
    let lines = d["content"]["hunks"][0]["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 10_000);
    assert_eq!(lines[9_999]["text"], "line 10000");
    assert_eq!(lines[9_999]["new_line"], 10_000);
}

#[test]
fn git_diff_opts_in_the_server_environment_does_not_change_the_context() {
    let mut env = TestEnv::new();
    env.set_var("GIT_DIFF_OPTS", "--unified=0");
    let server = TestServer::start_in(env);
    let mut c = server.client();
    let dir = repo(&server, "repo");
    let body: String = (1..=30).map(|i| format!("{i}\n")).collect();
    write(&dir, "f.txt", &body);
    commit_all(&dir);
    write(&dir, "f.txt", body.replace("\n15\n", "\nfifteen\n"));
    let ws = workspace(&mut c, &dir);
    let d = file_diff(&mut c, &ws, "f.txt");
    let hunk = &d["content"]["hunks"][0];
    assert_eq!(hunk["old_start"], 12, "{hunk}");
    let context = hunk["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter(|l| l["kind"] == "context")
        .count();
    assert_eq!(context, 6, "three lines of context on each side");
}

#[test]
fn the_summary_counts_binaries_renames_rollups_and_leaves_untracked_out_of_totals() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "README", "r\n");
    write(&dir, "src/a.rs", "1\n2\n3\n");
    write(&dir, "src/old.rs", "o\n");
    write(&dir, "img.bin", b"\0\x01");
    commit_all(&dir);
    write(&dir, "src/a.rs", "1\nTWO\n3\n4\n");
    git(&dir, &["mv", "src/old.rs", "src/renamed.rs"]);
    write(&dir, "img.bin", b"\0\x02");
    write(&dir, "notes/todo.txt", "t1\nt2\nt3\n");
    let ws = workspace(&mut c, &dir);
    let s = ok(c.call(
        "workspace.diff",
        json!({"workspace_id": ws, "scope": "head"}),
    ));
    assert_eq!(file(&s, "img.bin")["binary"], true);
    assert_eq!(file(&s, "img.bin")["added"], 0);
    assert_eq!(file(&s, "src/old.rs")["removed"], 1);
    assert_eq!(file(&s, "src/renamed.rs")["added"], 1);
    let todo = file(&s, "notes/todo.txt");
    assert_eq!(
        (todo["untracked"].as_bool(), todo["added"].as_u64()),
        (Some(true), Some(0))
    );
    assert_eq!(
        (s["added"].as_u64(), s["removed"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(
        s["dirs"],
        json!([{"dir": ".", "added": 0, "removed": 0}, {"dir": "src", "added": 3, "removed": 2}])
    );
    let paths: Vec<&str> = s["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "files by path");
    // The CLI: one call, the raw result with --json, a table without.
    let out = server.cli(&["--json", "workspace", "diff", &ws]);
    assert!(out.status.success(), "{out:?}");
    let raw: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(raw["added"], 3);
    let out = server.cli(&["workspace", "diff", &ws]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("src/a.rs") && text.contains("+3 -2"),
        "{text}"
    );
    let out = server.cli(&["workspace", "file-diff", &ws, "src/a.rs"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("-2\n+TWO\n"), "{text}");
}

/// Starts a claude turn in a pane of `ws` and waits for its baseline.
fn start_turn(server: &TestServer, c: &mut Client, ws: &str) -> String {
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["workspace.turn_started"]})));
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let tab = str_field(&tab["tab"], "id").to_owned();
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": ["sleep", "600"]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    for event in ["SessionStart", "UserPromptSubmit"] {
        ok(c.call(
            "hook-event",
            json!({"agent": "claude", "event": event, "pane_id": pane, "payload": {"session_id": "s"}}),
        ));
    }
    let started = sub.next_event();
    assert_eq!(started.event, "workspace.turn_started");
    assert_eq!(started.payload["workspace_id"], ws);
    pane
}

#[test]
fn turn_scope_reads_without_a_baseline_are_null_or_bad_params() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "a.txt", "a\n");
    commit_all(&dir);
    write(&dir, "a.txt", "b\n");
    let ws = workspace(&mut c, &dir);
    let s = ok(c.call(
        "workspace.diff",
        json!({"workspace_id": ws, "scope": "turn"}),
    ));
    assert_eq!(s["turn"], Value::Null);
    assert!(s.get("turn").is_some(), "turn is present as null: {s}");
    assert_eq!(s["files"], json!([]));
    let e = err(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws, "path": "a.txt", "scope": "turn"}),
    ));
    assert_eq!(e.code, ErrorCode::BadParams);
}

#[test]
fn turn_scope_shows_only_what_changed_since_the_turn_started_and_its_end_refreshes_dirty() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "a.txt", "1\n");
    commit_all(&dir);
    write(&dir, "dirt.txt", "before the turn\n");
    let ws = workspace(&mut c, &dir);
    let pane = start_turn(&server, &mut c, &ws);
    write(&dir, "a.txt", "1\n2\n");
    write(&dir, "made.txt", "m\n");
    git(&dir, &["add", "a.txt"]);
    git(&dir, &["commit", "-q", "-m", "turn work"]);
    let s = ok(c.call(
        "workspace.diff",
        json!({"workspace_id": ws, "scope": "turn"}),
    ));
    assert_eq!(s["turn"]["pane_id"], pane.as_str());
    let paths: Vec<&str> = s["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths, vec!["a.txt", "made.txt"], "{s}");
    assert_eq!(s["added"], 2, "committed and untracked turn work count");
    let d = ok(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws, "path": "made.txt", "scope": "turn"}),
    ));
    assert_eq!(d["untracked"], true);
    assert_eq!(d["content"]["hunks"][0]["lines"][0]["text"], "m");
    let d = ok(c.call(
        "workspace.file_diff",
        json!({"workspace_id": ws, "path": "dirt.txt", "scope": "turn"}),
    ));
    assert_eq!(d["content"]["kind"], "unchanged");

    // The turn's end refreshes the cache: clean after a commit of everything.
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["workspace.updated"]})));
    commit_all(&dir);
    ok(c.call(
        "hook-event",
        json!({"agent": "claude", "event": "Stop", "pane_id": pane, "payload": {"session_id": "s"}}),
    ));
    let updated = sub.next_event();
    assert_eq!(
        updated.payload["workspace"]["git"]["dirty"], false,
        "{:?}",
        updated.payload
    );
}

#[test]
fn refresh_git_recomputes_dirty_and_announces_a_branch_change_once() {
    let server = TestServer::start();
    let mut c = server.client();
    let dir = repo(&server, "repo");
    write(&dir, "a.txt", "a\n");
    commit_all(&dir);
    let created = ok(c.call("workspace.create", json!({"name": "d", "cwd": dir})));
    assert_eq!(created["workspace"]["git"]["dirty"], false, "{created}");
    let ws = str_field(&created["workspace"], "id").to_owned();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["workspace.updated", "git.branch_changed"]}),
    ));
    git(&dir, &["checkout", "-q", "-b", "feature"]);
    write(&dir, "new.txt", "n\n");
    let r = ok(c.call("workspace.refresh_git", json!({"workspace_id": ws})));
    assert_eq!(r["workspace"]["git"]["branch"], "feature");
    assert_eq!(r["workspace"]["git"]["dirty"], true);
    let first = sub.next_event();
    assert_eq!(first.event, "workspace.updated");
    let changed = sub.next_event();
    assert_eq!(changed.event, "git.branch_changed");
    assert_eq!(
        changed.payload,
        json!({"workspace_id": ws, "branch": "feature"})
    );
    // Same branch: an update, no branch change (the rename's update follows it).
    ok(c.call("workspace.refresh_git", json!({"workspace_id": ws})));
    ok(c.call(
        "workspace.rename",
        json!({"workspace_id": ws, "name": "after"}),
    ));
    let again = sub.next_event();
    assert_eq!(again.event, "workspace.updated");
    let rename = sub.next_event();
    assert_eq!(rename.event, "workspace.updated");
    assert_eq!(rename.payload["workspace"]["name"], "after");
    // A detached HEAD has no branch.
    git(&dir, &["checkout", "-q", "--detach"]);
    let out = server.cli(&["workspace", "refresh-git", &ws]);
    assert!(out.status.success(), "{out:?}");
    let got = wait_until("the detached branch change", DEADLINE, || {
        let e = sub.next_event();
        (e.event == "git.branch_changed").then_some(e)
    });
    assert_eq!(got.payload["branch"], Value::Null);
    let e = err(c.call("workspace.refresh_git", json!({"workspace_id": "nope"})));
    assert_eq!(e.code, ErrorCode::NoSuchWorkspace);
}
