//! `hook-event` and `report-session` through the real binary
//! (docs/states.md#hook-processing-rules,
//! docs/integrations.md#the-hook-reporter, docs/agents.md#per-agent-hooks):
//! fake agents that report the way real hooks do, attribution by
//! `$SIGNALTTY_PANE` and by process ancestry, the adapters' mappings and the
//! guards, and the CLI's stdout discipline.

use crate::support::agents::{script, spawn_fake_with, type_line, wait_screen, workspace};
use crate::support::client::Client;
use crate::support::{TestServer, err, ok, str_field, u64_field};
use serde_json::{Value, json};
use signaltty_protocol::{ErrorCode, EventFrame};
use std::time::Duration;

/// Starts a fake agent in a new tab; `strip` makes its hooks find the pane by
/// ancestry. Returns the pane id.
fn spawn_fake(c: &mut Client, ws: &str, agent: &str, strip: bool) -> String {
    let env = if strip {
        json!({"SIGNALTTY_FAKE_STRIP_PANE": "1"})
    } else {
        json!({})
    };
    spawn_fake_with(c, ws, agent, env)
}

fn spawn_sleeper(c: &mut Client, ws: &str) -> String {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let tab = str_field(&tab["tab"], "id").to_owned();
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": ["sleep", "600"]}),
    ));
    str_field(&pane["pane"], "id").to_owned()
}

fn get(c: &mut Client, pane: &str) -> Value {
    ok(c.call("pane.get", json!({"pane_id": pane})))
}

fn wait_for(c: &mut Client, pane: &str, until: &str, after: &Value) -> Value {
    // The reply may take the whole 20 s: read for longer than that.
    let _ = c.stream().set_read_timeout(Some(Duration::from_secs(30)));
    let r = c.call(
        "wait",
        json!({"pane_id": pane, "until": until, "after": after, "timeout_s": 20}),
    );
    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    ok(r)
}

fn hook(c: &mut Client, pane: &str, agent: &str, event: &str, payload: Value) -> Value {
    ok(c.call(
        "hook-event",
        json!({"agent": agent, "event": event, "pane_id": pane, "payload": payload}),
    ))
}

/// The `agent.*` and `attention.*` event names for `pane` seen so far.
fn state_events(sub: &mut Client, pane: &str, until_seq: u64) -> Vec<String> {
    let mut names = Vec::new();
    loop {
        let event: EventFrame = sub.next_event();
        let p = &event.payload;
        if p["pane_id"].as_str() == Some(pane) {
            let name = match event.event.as_str() {
                "attention.cleared" => format!("cleared:{}", str_field(p, "reason")),
                e if e.starts_with("attention.") => {
                    format!("attention:{}", str_field(p, "attention"))
                },
                e => e.to_owned(),
            };
            names.push(name);
        }
        if event.seq >= until_seq {
            return names;
        }
    }
}

/// A whole Claude turn from a fake agent whose hooks carry `$SIGNALTTY_PANE`,
/// observed through `wait` with baselines and through `subscribe`.
#[test]
fn a_fake_claude_turn_goes_working_blocked_done_and_is_seen() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["agent.*", "attention.*"]})));
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_fake(&mut c, &ws, "fake-claude", false);

    // The session starts with the process: wait for the state, not a transition.
    let idle = wait_for(&mut c, &pane, "idle", &Value::Null);
    assert_eq!(idle["lifecycle"], "idle");
    let got = get(&mut c, &pane);
    assert_eq!(got["pane"]["agent"]["kind"], "claude");
    assert_eq!(
        got["pane"]["agent"]["agent_session_id"],
        "5b0c6a52-claude-session"
    );
    assert_eq!(
        got["pane"]["agent"]["resume_argv"],
        json!(["claude", "--resume", "5b0c6a52-claude-session"])
    );
    assert_eq!(got["pane"]["last_message"], "session started");

    let b = got["wait_baseline"].clone();
    type_line(&mut c, &pane, "prompt fix the bug");
    wait_for(&mut c, &pane, "working", &b);

    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "ask Bash");
    let blocked = wait_for(&mut c, &pane, "permission_required", &b);
    assert_eq!(blocked["lifecycle"], "blocked");

    // The person answers in the terminal: Claude cancels its waiting
    // permission hook (the decision goes), and attaching marks the pane seen.
    let pid_file = server.env().root().join("reporter.1.pid");
    let pid: i32 = crate::support::wait_until(
        "the reporter's pid",
        std::time::Duration::from_secs(20),
        || {
            std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
        },
    );
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    );
    crate::support::wait_until(
        "the decision to go",
        std::time::Duration::from_secs(20),
        || {
            get(&mut c, &pane)["pane"]["pending_decision"]
                .is_null()
                .then_some(())
        },
    );
    let mut viewer = server.client();
    ok(viewer.call("pane.attach", json!({"pane_id": pane})));
    type_line(&mut c, &pane, "allow");
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "stop Fixed the off-by-one.");
    let done = wait_for(&mut c, &pane, "done", &b);
    assert_eq!(done["attention"], "unread");
    assert_eq!(
        get(&mut c, &pane)["pane"]["last_message"],
        "Fixed the off-by-one."
    );

    let seen = ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    assert_eq!(seen["pane"]["attention"], "none");
    let head = u64_field(&get(&mut c, &pane)["wait_baseline"], "attention_seq");
    assert_eq!(
        state_events(&mut sub, &pane, head),
        [
            "agent.idle",
            "agent.working",
            "agent.blocked",
            "attention:permission_required",
            "cleared:attach",
            "agent.done",
            "attention:unread",
            "cleared:mark_seen",
        ]
    );

    // A session end after the reviewed turn changes nothing (H5 of
    // docs/states.md#hook-processing-rules).
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "end");
    wait_for(&mut c, &pane, "exited", &b);
    let after = get(&mut c, &pane)["pane"].clone();
    assert_eq!(after["lifecycle"], "exited");
    assert_eq!(after["last_lifecycle"], "done");
    assert_eq!(
        after["attention"], "none",
        "a reviewed turn stays quiet at exit"
    );
    assert_eq!(after["last_message"], "Fixed the off-by-one.");
}

/// Hooks that do not carry `$SIGNALTTY_PANE` are attributed by walking the
/// reporting process's parents; the tool guard keeps a blocked Codex pane blocked.
#[test]
fn a_fake_codex_without_its_pane_variable_is_found_by_ancestry() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_fake(&mut c, &ws, "fake-codex", true);
    let other = spawn_sleeper(&mut c, &ws);

    // The session starts with the process: wait for the state, not a transition.
    wait_for(&mut c, &pane, "idle", &Value::Null);
    assert_eq!(get(&mut c, &pane)["pane"]["agent"]["kind"], "codex");

    // Tool traffic moves an idle Codex pane to working (H4 of
    // docs/states.md#hook-processing-rules)…
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "tool");
    wait_for(&mut c, &pane, "working", &b);
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "permission shell");
    wait_for(&mut c, &pane, "blocked", &b);
    // …but not a blocked one.
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "tool");
    type_line(&mut c, &pane, "stop done");
    let done = wait_for(&mut c, &pane, "done", &b);
    assert_eq!(
        done["attention"], "permission_required",
        "raise never lowers"
    );
    let p = get(&mut c, &pane)["pane"].clone();
    assert_eq!(
        p["last_lifecycle"], "blocked",
        "the tool hook left it blocked until Stop"
    );
    assert_eq!(
        get(&mut c, &other)["pane"]["lifecycle"],
        "unknown",
        "nothing reached the other pane"
    );
    // The unanswered (read-only) question is kept at the turn end and survives
    // reading (docs/decisions.md#every-way-a-decision-ends); the next prompt
    // clears it.
    let seen = ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    assert_eq!(
        (
            seen["pane"]["lifecycle"].clone(),
            seen["pane"]["attention"].clone()
        ),
        (json!("done"), json!("permission_required"))
    );
    assert_eq!(seen["pane"]["pending_decision"]["answerable"], false);
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "prompt next");
    let working = wait_for(&mut c, &pane, "working", &b);
    assert_eq!(working["attention"], "none");
    assert!(get(&mut c, &pane)["pane"]["pending_decision"].is_null());
}

#[test]
fn claude_background_work_idle_prompts_and_session_end_follow_the_seeds() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_sleeper(&mut c, &ws);
    let s = json!({"session_id": "s1"});

    hook(&mut c, &pane, "claude", "UserPromptSubmit", s.clone());
    let r = hook(
        &mut c,
        &pane,
        "claude",
        "Stop",
        json!({"session_id": "s1", "background_tasks": [{"type": "subagent", "status": "running"}, {"type": "shell", "status": "running"}]}),
    );
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("working"), json!("none"))
    );
    let r = hook(
        &mut c,
        &pane,
        "claude",
        "Stop",
        json!({"session_id": "s1", "background_tasks": [{"type": "workflow", "status": "completed"}]}),
    );
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("done"), json!("unread"))
    );
    assert_eq!(get(&mut c, &pane)["pane"]["last_message"], "turn complete");

    // idle_prompt is recognised and changes nothing.
    let r = hook(
        &mut c,
        &pane,
        "claude",
        "Notification",
        json!({"session_id": "s1", "notification_type": "idle_prompt", "message": "waiting"}),
    );
    assert_eq!(r["accepted"], true);
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("done"), json!("unread"))
    );
    assert_eq!(get(&mut c, &pane)["pane"]["last_message"], "turn complete");
    // Other notifications are questions.
    let r = hook(
        &mut c,
        &pane,
        "claude",
        "Notification",
        json!({"session_id": "s1", "notification_type": "agent_needs_input", "message": "Which file?"}),
    );
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("blocked"), json!("input_required"))
    );

    // H5 of docs/states.md#hook-processing-rules.
    ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    hook(&mut c, &pane, "claude", "UserPromptSubmit", s.clone());
    let r = hook(&mut c, &pane, "claude", "SessionEnd", s.clone());
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("done"), json!("unread"))
    );
    assert_eq!(get(&mut c, &pane)["pane"]["last_message"], "session ended");
    hook(
        &mut c,
        &pane,
        "claude",
        "StopFailure",
        json!({"session_id": "s1", "error": "rate limited"}),
    );
    let r = hook(&mut c, &pane, "claude", "SessionEnd", s);
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("failed"), json!("error")),
        "failed is never rewritten to done"
    );
}

#[test]
fn opencode_and_cursor_map_their_events() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let oc = spawn_sleeper(&mut c, &ws);
    let s = json!({"sessionID": "ses_1"});
    let r = hook(
        &mut c,
        &oc,
        "opencode",
        "session.status",
        json!({"sessionID": "ses_1", "status": "busy"}),
    );
    assert_eq!(r["lifecycle"], "working");
    let r = hook(
        &mut c,
        &oc,
        "opencode",
        "session.error",
        json!({"sessionID": "ses_1", "message": "provider exploded"}),
    );
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("failed"), json!("error"))
    );
    let r = hook(&mut c, &oc, "opencode", "session.idle", s.clone());
    assert_eq!(
        r["lifecycle"], "failed",
        "an idle never turns an error into success"
    );
    let r = hook(
        &mut c,
        &oc,
        "opencode",
        "session.status",
        json!({"sessionID": "ses_1", "status": "busy"}),
    );
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("working"), json!("none"))
    );
    let r = hook(&mut c, &oc, "opencode", "session.idle", s);
    assert_eq!(r["lifecycle"], "done");
    assert_eq!(
        get(&mut c, &oc)["pane"]["agent"]["resume_argv"],
        json!(["opencode", "--session", "ses_1"])
    );

    let cur = spawn_sleeper(&mut c, &ws);
    for (status, lifecycle, attention) in [
        (json!("aborted"), "idle", "none"),
        (json!("error"), "failed", "error"),
        (Value::Null, "done", "unread"),
    ] {
        hook(
            &mut c,
            &cur,
            "cursor",
            "beforeSubmitPrompt",
            json!({"conversation_id": "c1"}),
        );
        let r = hook(
            &mut c,
            &cur,
            "cursor",
            "stop",
            json!({"conversation_id": "c1", "status": status}),
        );
        assert_eq!(
            (r["lifecycle"].clone(), r["attention"].clone()),
            (json!(lifecycle), json!(attention)),
            "{status}"
        );
        ok(c.call("pane.mark_seen", json!({"pane_id": cur})));
    }
    assert_eq!(
        get(&mut c, &cur)["pane"]["agent"]["resume_argv"],
        json!(["cursor-agent", "--resume", "c1"])
    );
}

#[test]
fn dropped_foreign_and_invalid_hooks_change_nothing() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_sleeper(&mut c, &ws);

    let r = hook(&mut c, &pane, "claude", "Stop", json!({"agent": "codex"}));
    assert_eq!(
        (r["accepted"].clone(), r["reason"].clone()),
        (json!(false), json!("harness_mismatch"))
    );
    let r = hook(&mut c, &pane, "claude", "MadeUpHook", json!({}));
    assert_eq!(
        (r["accepted"].clone(), r["reason"].clone()),
        (json!(false), json!("unrecognized_hook"))
    );
    let r = hook(&mut c, &pane, "claude", "PreToolUse", json!({}));
    assert_eq!(r["accepted"], true, "tool hooks are liveness");
    let p = get(&mut c, &pane)["pane"].clone();
    assert_eq!(
        (p["lifecycle"].clone(), p["attention"].clone()),
        (json!("unknown"), json!("none"))
    );
    assert_eq!(p["agent"]["kind"], "generic");

    // Pi's extension events record a session; an event it does not map
    // changes no state.
    let r = hook(
        &mut c,
        &pane,
        "pi",
        "turn_start",
        json!({"session_id": "pi-1"}),
    );
    assert_eq!(r["lifecycle"], "unknown");
    assert_eq!(
        get(&mut c, &pane)["pane"]["agent"]["resume_argv"],
        json!(["pi", "--session", "pi-1"])
    );

    // A process outside every pane: accepted, routed nowhere.
    let foreign = ok(c.call(
        "hook-event",
        json!({"agent": "cursor", "event": "stop", "client_pid": std::process::id()}),
    ));
    assert_eq!(
        foreign,
        json!({"accepted": true, "agent": "cursor", "event": "stop", "pane_id": null})
    );
    assert_eq!(
        err(c.call(
            "hook-event",
            json!({"agent": "gpt", "event": "Stop", "pane_id": pane})
        ))
        .code,
        ErrorCode::BadParams
    );
    assert_eq!(
        err(c.call(
            "hook-event",
            json!({"agent": "claude", "event": "Stop", "pane_id": "pane_nope"})
        ))
        .code,
        ErrorCode::NoSuchPane
    );
    assert_eq!(
        err(c.call(
            "hook-event",
            json!({"agent": "claude", "event": "Stop", "pane_id": pane, "severity": "meh"})
        ))
        .code,
        ErrorCode::BadParams
    );
    let decision = json!({"id": "d1", "prompt": "ok?", "options": [{"id": "a", "label": "A"}, {"id": "a", "label": "B"}]});
    assert_eq!(
        err(c.call(
            "hook-event",
            json!({"agent": "claude", "event": "Stop", "pane_id": pane, "decision": decision})
        ))
        .code,
        ErrorCode::BadParams
    );
    let big = "x".repeat(300 * 1024);
    assert_eq!(
        err(c.call(
            "hook-event",
            json!({"agent": "claude", "event": "Stop", "pane_id": pane, "payload": {"blob": big}})
        ))
        .code,
        ErrorCode::RateLimited
    );

    // An explicit message makes a notification with the hook's source.
    let r = ok(c.call("hook-event", json!({"agent": "generic", "event": "custom", "pane_id": pane, "message": "deploy finished", "title": "CI", "severity": "warning"})));
    assert_eq!(r["attention"], "warning");
    assert_eq!(
        get(&mut c, &pane)["pane"]["last_message"],
        "CI: deploy finished"
    );
}

#[test]
fn report_session_sets_the_kind_and_counts_session_generations() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_sleeper(&mut c, &ws);
    let b0 = get(&mut c, &pane)["wait_baseline"].clone();
    let r = ok(c.call(
        "report-session",
        json!({"pane_id": pane, "agent_session_id": "one", "agent": "codex"}),
    ));
    assert_eq!(
        r["pane"]["agent"]["resume_argv"],
        json!(["codex", "resume", "one"])
    );
    assert_eq!(
        get(&mut c, &pane)["wait_baseline"]["session_generation"],
        0,
        "first discovery"
    );
    ok(c.call(
        "report-session",
        json!({"pane_id": pane, "agent_session_id": "two"}),
    ));
    ok(c.call(
        "report-session",
        json!({"pane_id": pane, "agent_session_id": "one"}),
    ));
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    assert_eq!(b["session_generation"], 2);
    assert_eq!(b["agent_session_id"], "one");
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": b0})
        ))
        .code,
        ErrorCode::IdentityChanged
    );
    let unknown = ok(c.call(
        "report-session",
        json!({"pane_id": pane, "agent_session_id": "x", "agent": "martian"}),
    ));
    assert_eq!(unknown["pane"]["agent"]["kind"], "generic");
}

/// The CLI reporter: nothing on stdout by default, the result with --json,
/// nothing on a non-terminal stderr, and exit 0 when no server runs.
#[test]
fn the_hook_reporter_keeps_stdout_clean_and_never_fails_without_a_server() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_sleeper(&mut c, &ws);

    let out = server.cli_with_stdin(
        &[
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "Stop",
            "--pane",
            &pane,
        ],
        br#"{"session_id":"s9","last_assistant_message":"all green"}"#,
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "stdout must stay empty: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The summary line is for a person at a terminal: run by a hook (stderr a
    // pipe) it stays quiet, since Gemini CLI shows hooks' stderr in its UI.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(
        (
            p["pane"]["lifecycle"].clone(),
            p["pane"]["attention"].clone()
        ),
        (json!("done"), json!("unread"))
    );

    let out = server.cli_with_stdin(
        &[
            "--json",
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "UserPromptSubmit",
            "--pane",
            &pane,
        ],
        b"{}",
    );
    let result: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout with --json");
    assert_eq!(result["lifecycle"], "working");

    let out = server.cli_with_stdin(
        &[
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "Stop",
            "--pane",
            "pane_nope",
        ],
        b"{}",
    );
    assert_eq!(out.status.code(), Some(1), "a refused hook is a failure");

    let out = server.cli_with_stdin(
        &["hook-event", "--agent", "claude", "--event", "Stop"],
        b"not json",
    );
    assert_eq!(out.status.code(), Some(1));

    // A fresh environment where no server runs.
    let env = crate::support::TestEnv::new();
    let out = env.cli(&["hook-event", "--agent", "claude", "--event", "Stop"]);
    assert!(
        out.status.success(),
        "no server is not a hook failure: {out:?}"
    );
    assert!(out.stdout.is_empty());
    // Run by an agent (stderr not a terminal), it says nothing: Gemini CLI
    // would show the line in its transcript on every hook.
    assert!(out.stderr.is_empty(), "{out:?}");
    assert!(
        !env.default_socket().exists(),
        "the reporter never starts a server"
    );
}

/// docs/diffs.md#turn-baselines: a new turn is announced as
/// `workspace.turn_started` once the workspace checkout's tree is captured.
/// Which working transitions start a turn (not the one resuming from `blocked`,
/// docs/states.md#turns) is checked on the pure rule `state::starts_turn`:
/// announcements come after their capture, so their order against later events
/// is not fixed here.
#[test]
fn new_turns_are_announced_with_their_workspace_and_pane() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["workspace.turn_started", "agent.*"]}),
    ));
    let repo = server.env().root().join("repo");
    std::fs::create_dir_all(&repo).expect("repo dir");
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status();
    assert!(git.is_ok_and(|s| s.success()), "git init");
    let ws = ok(c.call("workspace.create", json!({"name": "repo", "cwd": repo})));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    let pane = spawn_sleeper(&mut c, &ws);
    let s = json!({"session_id": "s"});

    hook(&mut c, &pane, "claude", "SessionStart", s.clone());
    hook(&mut c, &pane, "claude", "UserPromptSubmit", s.clone());
    hook(
        &mut c,
        &pane,
        "claude",
        "PermissionRequest",
        json!({"session_id": "s", "tool_name": "Bash", "tool_input": {}}),
    );
    hook(&mut c, &pane, "claude", "UserPromptSubmit", s.clone());
    hook(&mut c, &pane, "claude", "Stop", s.clone());
    hook(&mut c, &pane, "claude", "UserPromptSubmit", s);

    let mut names = Vec::new();
    let mut started = Vec::new();
    while started.len() < 2 {
        let e = sub.next_event();
        if e.event == "workspace.turn_started" {
            started.push(e.payload.clone());
        }
        names.push(format!(
            "{}<{}",
            e.event,
            e.payload["prev"].as_str().unwrap_or("")
        ));
    }
    for announced in &started {
        assert_eq!(announced["workspace_id"], ws.as_str());
        assert_eq!(announced["pane_id"], pane.as_str());
        assert!(announced["started_at"].is_string());
    }
}

/// docs/agents.md#cursor-approval-inference: a Cursor tool call without its
/// post hook within the wait is taken to wait for approval; its post hook
/// resolves it back to working; a call that finishes in time shows nothing.
#[test]
fn cursor_approval_is_inferred_from_a_tool_call_that_does_not_finish() {
    let env = crate::support::TestEnv::new();
    let socket = env.default_socket();
    let server =
        TestServer::start_with_args(env, &["server", "--cursor-approval-ms", "300"], socket);
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["attention.cleared"]})));
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_sleeper(&mut c, &ws);
    let call =
        |id: &str| json!({"conversation_id": "c1", "tool_use_id": id, "tool_name": "edit_file"});

    hook(
        &mut c,
        &pane,
        "cursor",
        "beforeSubmitPrompt",
        json!({"conversation_id": "c1"}),
    );
    // A quick call: pre and post within the wait.
    hook(&mut c, &pane, "cursor", "preToolUse", call("fast"));
    hook(&mut c, &pane, "cursor", "postToolUse", call("fast"));
    // A slow one.
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    hook(&mut c, &pane, "cursor", "preToolUse", call("slow"));
    let blocked = wait_for(&mut c, &pane, "permission_required", &b);
    assert_eq!(blocked["lifecycle"], "blocked");
    assert_eq!(
        get(&mut c, &pane)["pane"]["last_message"],
        "waiting for approval: edit_file"
    );
    // Other tool traffic cannot unblock it; the matching post hook does.
    let r = hook(&mut c, &pane, "cursor", "postToolUse", call("other"));
    assert_eq!(r["lifecycle"], "blocked");
    let r = hook(&mut c, &pane, "cursor", "postToolUse", call("slow"));
    assert_eq!(
        (r["lifecycle"].clone(), r["attention"].clone()),
        (json!("working"), json!("none"))
    );
    assert_eq!(sub.next_event().payload["reason"], "approval_resolved");

    // A run that stops forgets its calls: no approval shows up later.
    hook(&mut c, &pane, "cursor", "preToolUse", call("left"));
    let r = hook(
        &mut c,
        &pane,
        "cursor",
        "stop",
        json!({"conversation_id": "c1", "status": "completed"}),
    );
    assert_eq!(r["lifecycle"], "done");
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    let later = c.call(
        "wait",
        json!({"pane_id": pane, "until": "blocked", "after": b, "timeout_s": 1}),
    );
    assert_eq!(err(later).code, ErrorCode::Timeout);
}

/// `pane.resume` (docs/methods.md#paneresume): the agent of a tombstone starts
/// again in the same pane with its resume command; a new process, so old
/// baselines read IDENTITY_CHANGED; never for a live or unresumable pane.
#[test]
fn a_tombstone_resumes_its_agent_in_the_same_pane() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.created"]})));
    let ws = workspace(&mut c, &server, "hooks");
    let claude = script(
        server.env().root(),
        "claude",
        "if [ \"$1\" = --resume ]; then echo \"resumed $2\"; exec sleep 600; fi\necho first run\n",
    );
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    ok(c.call(
        "report-session",
        json!({"pane_id": pane, "agent_session_id": "s1"}),
    ));
    let exited = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "exited", "timeout_s": 20}),
    ));
    assert_eq!(exited["lifecycle"], "exited");
    let before = get(&mut c, &pane)["wait_baseline"].clone();

    let resumed = ok(c.call("pane.resume", json!({"pane_id": pane})));
    assert_eq!(resumed["pane"]["live"], json!({"state": "live"}));
    assert_eq!(resumed["pane"]["lifecycle"], "unknown");
    assert_eq!(resumed["pane"]["id"], pane.as_str());
    let text = ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": "resumed s1", "timeout_s": 20}),
    ));
    assert!(
        text["matched_line"]
            .as_str()
            .is_some_and(|l| l.contains("resumed s1"))
    );
    let read = ok(c.call(
        "pane.read",
        json!({"pane_id": pane, "mode": "tail", "lines": 50}),
    ));
    assert!(
        read["text"]
            .as_str()
            .is_some_and(|t| t.contains("first run")),
        "the history is kept"
    );
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": before})
        ))
        .code,
        ErrorCode::IdentityChanged
    );
    let mut created = Vec::new();
    while created.len() < 2 {
        created.push(sub.next_event().payload);
    }
    assert_eq!(created[1]["resumed"], true);
    assert!(
        created[0].get("resumed").is_none(),
        "a spawn carries no resumed flag"
    );
    assert_eq!(
        err(c.call("pane.resume", json!({"pane_id": pane}))).code,
        ErrorCode::BadParams,
        "already live"
    );

    let plain = spawn_sleeper(&mut c, &ws);
    ok(c.call("pane.signal", json!({"pane_id": plain, "signal": "KILL"})));
    ok(c.call(
        "wait",
        json!({"pane_id": plain, "until": "exited", "timeout_s": 20}),
    ));
    assert_eq!(
        err(c.call("pane.resume", json!({"pane_id": plain}))).code,
        ErrorCode::BadParams,
        "not resumable"
    );
}

/// A fake Claude in a turn, blocked by the hook of `ask` (a `permission`
/// command) with `permission_required`.
fn fake_claude_blocked(c: &mut Client, server: &TestServer, ask: &str) -> String {
    let ws = workspace(c, server, "hooks");
    let pane = spawn_fake(c, &ws, "fake-claude", false);
    wait_for(c, &pane, "idle", &Value::Null);
    type_line(c, &pane, "prompt fix the bug");
    wait_for(c, &pane, "working", &Value::Null);
    type_line(c, &pane, ask);
    let blocked = wait_for(c, &pane, "blocked", &Value::Null);
    assert_eq!(blocked["attention"], "permission_required");
    pane
}

/// Esc at an agent's question sends no hook. Once the screen rules have seen
/// the question a hook raised, the screen going back to the prompt unblocks
/// the pane and clears its attention (the real Gemini test agrees).
#[test]
fn a_question_dismissed_on_screen_unblocks_a_hooked_pane() {
    let server = TestServer::start();
    let mut c = server.client();
    let pane = fake_claude_blocked(&mut c, &server, "permission Bash");
    wait_screen(&mut c, &pane, "2. No");
    assert_eq!(
        get(&mut c, &pane)["pane"]["pending_decision"]["answerable"],
        false
    );

    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "dismiss");
    let idle = wait_for(&mut c, &pane, "idle", &b);
    assert_eq!(idle["attention"], "none");
    assert!(get(&mut c, &pane)["pane"]["pending_decision"].is_null());
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert!(
        str_field(&explain["lifecycle"], "source").starts_with("screen:"),
        "{explain}"
    );

    // Hooks lead again: the next prompt is working, the screen is not consulted.
    type_line(&mut c, &pane, "prompt again");
    wait_for(&mut c, &pane, "working", &Value::Null);
}

/// A question the screen never showed is not dismissed by the screen: a
/// blocked pane whose screen reads idle from the start stays blocked until a
/// hook (or an answer) moves it.
#[test]
fn a_hook_blocked_pane_whose_question_never_showed_stays_blocked() {
    let server = TestServer::start();
    let mut c = server.client();
    let pane = fake_claude_blocked(&mut c, &server, "quiet-permission Bash");
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "dismiss");
    wait_screen(&mut c, &pane, "(dismissed)");
    // Four screen ticks and more: the pane must not have left `blocked`.
    let r = c.call(
        "wait",
        json!({"pane_id": pane, "until": "idle", "after": b, "timeout_s": 3}),
    );
    assert_eq!(err(r).code, ErrorCode::Timeout);
    assert_eq!(get(&mut c, &pane)["pane"]["lifecycle"], "blocked");
    type_line(&mut c, &pane, "stop all done");
    wait_for(&mut c, &pane, "done", &Value::Null);
}

/// A question answered in the terminal whose turn ends at once: the screen
/// reads idle for a moment before the turn-end hook. The pane goes from
/// `blocked` straight to `done`, never through a screen `idle` (the real
/// Gemini answers this way).
#[test]
fn an_answered_question_whose_turn_ends_at_once_is_done_not_idle() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["agent.*"]})));
    let pane = fake_claude_blocked(&mut c, &server, "permission Bash");
    wait_screen(&mut c, &pane, "2. No");
    // The prompt comes back, then the turn-end hook well inside the settle time.
    type_line(&mut c, &pane, "dismiss");
    wait_screen(&mut c, &pane, "(dismissed)");
    let b = get(&mut c, &pane)["wait_baseline"].clone();
    type_line(&mut c, &pane, "stop all done");
    let done = wait_for(&mut c, &pane, "done", &b);
    // A turn end never drops a decision (lifecycle.md H8): the terminal's
    // question is still what needs a person.
    assert_eq!(done["attention"], "permission_required");
    let seq = u64_field(&done, "transition_seq");
    let names = state_events(&mut sub, &pane, seq);
    assert_eq!(
        names,
        ["agent.idle", "agent.working", "agent.blocked", "agent.done"],
        "{names:?}"
    );
}

/// `$SIGNALTTY_HOOK_LOG`: every reporter notes, as it starts, which hook of
/// which pane it is (one JSON line each), and the hook still works; a log
/// that cannot be written never fails the hook.
#[test]
fn the_hook_log_notes_every_reporter_and_never_fails_a_hook() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "hooks");
    let pane = spawn_sleeper(&mut c, &ws);
    let log = server.env().root().join("hooks.log");
    let hook = |log: &std::path::Path, event: &str| {
        let mut cmd = server.env().command(&[
            "hook-event",
            "--agent",
            "claude",
            "--event",
            event,
            "--pane",
            &pane,
        ]);
        cmd.env("SIGNALTTY_HOOK_LOG", log);
        crate::support::process::run_with_deadline(&mut cmd, "hook-event")
    };
    for event in ["UserPromptSubmit", "Stop"] {
        let out = hook(&log, event);
        assert!(out.status.success(), "{out:?}");
    }
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["event"], "UserPromptSubmit");
    assert_eq!(lines[1]["event"], "Stop");
    for line in &lines {
        assert_eq!(line["agent"], "claude");
        assert_eq!(line["pane"], pane.as_str());
        assert!(line["at_us"].as_u64().is_some_and(|t| t > 0), "{line}");
        assert!(line["pid"].as_u64().is_some(), "{line}");
    }
    assert!(lines[0]["at_us"].as_u64() <= lines[1]["at_us"].as_u64());
    assert_eq!(get(&mut c, &pane)["pane"]["lifecycle"], "done");

    // A log in a directory that does not exist: the hook still lands.
    let out = hook(
        &server.env().root().join("missing/hooks.log"),
        "UserPromptSubmit",
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(get(&mut c, &pane)["pane"]["lifecycle"], "working");
}
