//! The CLI commands and flags of docs/cli.md#commands-and-their-methods added
//! for issue 18, one test each through the binary, and `server.schema`'s
//! capability flags checked against what the server really serves.

use crate::support::{Client, TestServer, ok, str_field};
use serde_json::{Value, json};
use signaltty_protocol::Method;
use std::process::Output;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[track_caller]
fn success(out: &Output) -> String {
    assert!(out.status.success(), "{out:?}");
    stdout(out)
}

fn workspace(c: &mut Client, server: &TestServer) -> String {
    let cwd = server.env().root().to_string_lossy().into_owned();
    let ws = ok(c.call("workspace.create", json!({"name": "cli", "cwd": cwd})));
    str_field(&ws["workspace"], "id").to_owned()
}

fn spawn(c: &mut Client, ws: &str, argv: Value) -> String {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let p = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": argv}),
    ));
    str_field(&p["pane"], "id").to_owned()
}

#[test]
fn focus_next_unread_prints_the_pane_or_says_none() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let quiet = success(&server.cli(&["focus", "next-unread"]));
    assert_eq!(quiet.trim(), "no pane needs attention");
    let raw: Value =
        serde_json::from_str(&success(&server.cli(&["--json", "focus", "next-unread"])))
            .unwrap_or(Value::Bool(false));
    assert_eq!(raw, json!({"pane_id": null}));
    let p = spawn(&mut c, &ws, json!(["sleep", "600"]));
    ok(c.call("notify", json!({"pane_id": p, "title": "look"})));
    assert_eq!(success(&server.cli(&["focus", "next-unread"])).trim(), p);
}

#[test]
fn wait_takes_comma_lists_a_pane_flag_and_the_after_baseline_alias() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let p = spawn(&mut c, &ws, json!(["true"]));
    // "failed,done" as one outcome would be BAD_PARAMS: the list is split.
    let out = success(&server.cli(&[
        "wait",
        "--pane",
        &p,
        "--until",
        "failed,done",
        "--timeout",
        "10",
    ]));
    assert!(out.starts_with("done"), "{out}");
    let out = success(&server.cli(&[
        "wait",
        &p,
        "--until",
        "failed",
        "--until",
        "idle,done",
        "--timeout",
        "10",
    ]));
    assert!(out.starts_with("done"), "{out}");
    // `--after-baseline`, the other spelling of `--after`
    // (docs/cli.md#commands-and-their-methods): a baseline that is not one is
    // refused, never a current-state wait.
    let out = server.cli(&["wait", &p, "--until", "done", "--after-baseline", "null"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stderr(&out).contains("wait_baseline"), "{out:?}");
    let both = server.cli(&["wait", &p, "--pane", &p, "--until", "done"]);
    assert_eq!(
        both.status.code(),
        Some(2),
        "the argument or the flag: {both:?}"
    );
}

#[test]
fn pane_spawn_takes_lineage_label_relationship_and_agent_hint() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let parent = spawn(&mut c, &ws, json!(["sleep", "600"]));
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let tab = str_field(&tab["tab"], "id").to_owned();
    let out = success(&server.cli(&[
        "--json",
        "pane",
        "spawn",
        &ws,
        "--tab",
        &tab,
        "--parent-pane",
        &parent,
        "--label",
        "reviewer",
        "--relationship",
        "fork",
        "--agent-hint",
        "codex",
        "--",
        "sleep",
        "600",
    ]));
    let spawned: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    let pane = &spawned["pane"];
    assert_eq!(pane["parent_pane_id"], parent.as_str(), "{spawned}");
    assert_eq!(pane["root_pane_id"], parent.as_str());
    assert_eq!(pane["label"], "reviewer");
    assert_eq!(pane["relationship"], "fork");
    assert_eq!(pane["agent"]["kind"], "codex");
    let orphan = server.cli(&["pane", "spawn", &ws, "--relationship", "fork", "--", "true"]);
    assert_eq!(
        orphan.status.code(),
        Some(2),
        "needs --parent-pane: {orphan:?}"
    );
}

#[test]
fn wait_output_raw_matches_the_screen_with_its_colours() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let p = spawn(
        &mut c,
        &ws,
        json!([
            "sh",
            "-c",
            "printf '\\033[31mRED\\033[0m plain\\n'; exec sleep 600"
        ]),
    );
    let colour = r"\x1b\[[0-9;]*mRED";
    let plain = success(&server.cli(&[
        "pane",
        "wait-output",
        &p,
        "RED plain",
        "--mode",
        "screen",
        "--timeout",
        "10",
    ]));
    assert_eq!(plain.trim(), "RED plain");
    let raw = success(&server.cli(&[
        "pane",
        "wait-output",
        &p,
        colour,
        "--regex",
        "--mode",
        "screen",
        "--raw",
        "--timeout",
        "10",
    ]));
    assert!(raw.contains("\u{1b}["), "{raw:?}");
    let stripped = server.cli(&[
        "pane",
        "wait-output",
        &p,
        colour,
        "--regex",
        "--mode",
        "screen",
        "--timeout",
        "1",
    ]);
    assert_eq!(
        stripped.status.code(),
        Some(1),
        "no colours without --raw: {stripped:?}"
    );
    assert!(stderr(&stripped).contains("TIMEOUT"), "{stripped:?}");
}

#[test]
fn pane_mark_seen_pane_attach_and_decision_answer_reach_their_methods() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let p = spawn(&mut c, &ws, json!(["sleep", "600"]));
    ok(c.call("notify", json!({"pane_id": p, "title": "look"})));
    let seen = success(&server.cli(&["pane", "mark-seen", &p]));
    assert!(seen.contains("none"), "{seen}");
    let got = ok(c.call("pane.get", json!({"pane_id": p})));
    assert_eq!(got["pane"]["attention"], "none");
    let answer = server.cli(&["decision", "answer", &p, "once"]);
    assert_eq!(answer.status.code(), Some(1), "{answer:?}");
    assert!(stderr(&answer).contains("NO_SUCH_DECISION"), "{answer:?}");
    let attach = server.cli(&["pane", "attach", "pane_nope"]);
    assert_eq!(attach.status.code(), Some(1), "{attach:?}");
    assert!(stderr(&attach).contains("NO_SUCH_PANE"), "{attach:?}");
}

/// What each capability flag promises: methods that must be dispatched.
const FLAGS: &[(&str, &[&str])] = &[
    ("subscribe_replay_coverage", &["subscribe"]),
    ("wait_baseline", &["wait", "pane.get"]),
    ("wait_multiple_outcomes", &["wait"]),
    ("layout_apply", &["layout.export", "layout.apply"]),
    (
        "notifications_read",
        &["notification.list", "notification.mark_read"],
    ),
    ("spawn_env_passthrough", &["pane.spawn", "pane.split"]),
    (
        "tasks",
        &[
            "task.start",
            "task.get",
            "task.list",
            "task.wait",
            "task.report",
            "task.finish",
            "task.cancel",
        ],
    ),
    (
        "worktrees",
        &[
            "worktree.list",
            "worktree.create",
            "worktree.open",
            "worktree.remove",
        ],
    ),
    (
        "diffs",
        &[
            "workspace.diff",
            "workspace.file_diff",
            "task.diff",
            "task.file_diff",
        ],
    ),
    ("restore", &["pane.resume", "workspace.set_auto_resume"]),
    (
        "decisions_native_answer",
        &["decision.answer", "hook-event"],
    ),
];

#[test]
fn every_capability_flag_is_true_and_backed_by_what_the_server_serves() {
    let server = TestServer::start();
    let mut c = server.client();
    let schema = ok(c.call("server.schema", json!({})));
    assert_eq!(
        schema["methods"],
        json!(Method::NAMES),
        "the dispatch table"
    );
    let caps = schema["capabilities"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut listed: Vec<&str> = caps.keys().map(String::as_str).collect();
    listed.sort_unstable();
    let mut known: Vec<&str> = FLAGS.iter().map(|(f, _)| *f).collect();
    known.sort_unstable();
    assert_eq!(listed, known, "every flag has its check here");
    let methods: Vec<&str> = schema["methods"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (flag, needs) in FLAGS {
        assert_eq!(caps[*flag], true, "{flag}");
        for m in *needs {
            assert!(methods.contains(m), "{flag} promises {m}");
        }
    }
    // The behaviours behind the non-method flags.
    let ws = workspace(&mut c, &server);
    let p = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["sleep", "600"], "env": {"ANY_NAME_AT_ALL": "1"}}),
    ));
    let p = str_field(&p["pane"], "id").to_owned();
    let got = ok(c.call("pane.get", json!({"pane_id": p})));
    assert!(got["wait_baseline"].is_object(), "{got}");
    let waited = ok(c.call(
        "wait",
        json!({"pane_id": p, "until": ["done", "unknown"], "timeout_s": 5}),
    ));
    assert_eq!(waited["outcome"], "unknown");
    let sub = ok(c.call("subscribe", json!({"from_seq": 0})));
    assert!(sub["replay"]["status"].is_string(), "{sub}");
    let status = ok(server.client().call("server.status", json!({})));
    assert!(status["restore"].is_object(), "{status}");
}
