//! `wait` through the real binary (docs/methods.md#wait,
//! docs/states.md#waiting-on-states): current-state waits, baselines, identity,
//! validation, timeouts and the single-flight connection.

use crate::support::client::Client;
use crate::support::{TestServer, err, ok, str_field, u64_field};
use serde_json::{Value, json};
use signaltty_protocol::{ErrorCode, ServerLine};
use std::time::{Duration, Instant};

fn workspace(c: &mut Client, server: &TestServer) -> String {
    let cwd = server.env().root().to_string_lossy().into_owned();
    let ws = ok(c.call("workspace.create", json!({"name": "waits", "cwd": cwd})));
    str_field(&ws["workspace"], "id").to_owned()
}

fn spawn_sh(c: &mut Client, ws: &str, script: &str) -> String {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let tab = str_field(&tab["tab"], "id").to_owned();
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": ["/bin/sh", "-c", script]}),
    ));
    str_field(&pane["pane"], "id").to_owned()
}

fn baseline(c: &mut Client, pane: &str) -> Value {
    ok(c.call("pane.get", json!({"pane_id": pane})))["wait_baseline"].clone()
}

#[test]
fn a_current_state_wait_answers_at_once_and_a_pending_one_when_the_state_comes() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "read line; exit 0");

    let now = ok(c.call("wait", json!({"pane_id": pane, "until": "unknown"})));
    assert_eq!(now["satisfied"], true);
    assert_eq!(now["outcome"], "unknown");
    assert_eq!(
        (now["lifecycle"].clone(), now["attention"].clone()),
        (json!("unknown"), json!("none"))
    );
    let seen = ok(c.call("wait", json!({"pane_id": pane, "until": ["error", "seen"]})));
    assert_eq!(seen["outcome"], "seen", "seen is attention none");

    // Waiting for the exit on one connection while another ends the child.
    let mut waiter = server.client();
    let id = waiter.send(
        "wait",
        json!({"pane_id": pane, "until": ["failed", "done"], "timeout_s": 30}),
    );
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": "Z28K"})));
    let reply = waiter.read_response();
    assert_eq!(reply.id, id);
    let done = ok(reply);
    assert_eq!(done["outcome"], "done");
    assert_eq!(done["lifecycle"], "done");
    assert_eq!(done["attention"], "unread");
    assert!(u64_field(&done, "transition_seq") > 0);
}

/// docs/states.md#waiting-after-a-baseline (the parts that need no hook): a
/// transition before the baseline does not match; one after it does, even once
/// the pane moved on; the exit keeps the identity so `until: exited` succeeds
/// after it.
#[test]
fn a_baseline_matches_only_newer_transitions_on_the_outcomes_own_axis() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "read line; exit 0");

    ok(c.call("notify", json!({"pane_id": pane, "title": "old news"})));
    let before = baseline(&mut c, &pane);
    ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    // `unread` was entered before the baseline: no match within the timeout.
    let stale = c.call(
        "wait",
        json!({"pane_id": pane, "until": "unread", "after": before, "timeout_s": 1}),
    );
    assert_eq!(err(stale).code, ErrorCode::Timeout);
    // `seen` (attention none) was entered after it: a match.
    let cleared = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "seen", "after": before}),
    ));
    assert_eq!(cleared["outcome"], "seen");

    // A brief state the pane already left still matches.
    let b2 = baseline(&mut c, &pane);
    ok(c.call("notify", json!({"pane_id": pane, "title": "brief"})));
    ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    let brief = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "unread", "after": b2}),
    ));
    assert_eq!(
        brief["attention"], "none",
        "current state reported, not the matched one"
    );

    // The exit keeps the identity.
    let b3 = baseline(&mut c, &pane);
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": "Z28K"})));
    let exited = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "exited", "after": b3, "timeout_s": 30}),
    ));
    assert_eq!(exited["outcome"], "exited");
    assert!(u64_field(&exited, "transition_seq") > u64_field(&b3, "lifecycle_seq"));
    let again = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "exited", "after": b3}),
    ));
    assert_eq!(again["outcome"], "exited");
}

/// The checks of docs/states.md#waiting-after-a-baseline: a bad baseline, and
/// the identity checks.
#[test]
fn bad_waits_fail_up_front_and_a_foreign_baseline_reads_identity_changed() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "sleep 600");
    let other = spawn_sh(&mut c, &ws, "sleep 600");
    let b = baseline(&mut c, &pane);

    for (params, code) in [
        (json!({"pane_id": pane, "until": []}), ErrorCode::BadParams),
        (
            json!({"pane_id": pane, "until": "sideways"}),
            ErrorCode::BadParams,
        ),
        (json!({"pane_id": pane}), ErrorCode::BadParams),
        (
            json!({"pane_id": "pane_nope", "until": "done"}),
            ErrorCode::NoSuchPane,
        ),
        (
            json!({"pane_id": other, "until": "done", "after": b}),
            ErrorCode::BadParams,
        ),
        (
            json!({"pane_id": pane, "until": "done", "timeout_s": u64::MAX}),
            ErrorCode::BadParams,
        ),
    ] {
        assert_eq!(err(c.call("wait", params.clone())).code, code, "{params}");
    }
    let mut ahead = b.clone();
    ahead["lifecycle_seq"] = json!(u64_field(&b, "lifecycle_seq") + 1000);
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": ahead})
        ))
        .code,
        ErrorCode::BadParams
    );
    let mut empty = b.clone();
    empty["process_instance"] = json!("");
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": empty})
        ))
        .code,
        ErrorCode::BadParams
    );
    let mut replaced = b.clone();
    replaced["process_instance"] = json!("another-process");
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": replaced})
        ))
        .code,
        ErrorCode::IdentityChanged
    );
    let mut generation = b.clone();
    generation["session_generation"] = json!(3);
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": generation})
        ))
        .code,
        ErrorCode::IdentityChanged
    );
    let mut session = b;
    session["agent_session_id"] = json!("sess-1");
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "after": session})
        ))
        .code,
        ErrorCode::IdentityChanged
    );

    let started = Instant::now();
    assert_eq!(
        err(c.call(
            "wait",
            json!({"pane_id": pane, "until": "done", "timeout_s": 1})
        ))
        .code,
        ErrorCode::Timeout
    );
    assert!(started.elapsed() >= Duration::from_millis(900));
    // The connection still serves requests after a timeout.
    ok(c.call("server.status", json!({})));
}

/// docs/protocol.md#connection-rules: a pending wait reserves its connection;
/// another line or EOF cancels it without a response and closes the connection.
/// Closing the pane answers a pending wait with NO_SUCH_PANE.
#[test]
fn a_second_line_or_eof_cancels_a_pending_wait_and_closes_the_connection() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "sleep 600");

    let mut waiter = server.client();
    waiter.send("wait", json!({"pane_id": pane, "until": "done"}));
    // Let the wait reach the server before the second line.
    std::thread::sleep(Duration::from_millis(100));
    waiter.send("server.status", json!({}));
    let lines = waiter.read_until_eof();
    assert!(
        !lines.iter().any(|l| matches!(l, ServerLine::Response(_))),
        "no response after a cancel: {lines:?}"
    );

    let mut quitter = server.client();
    quitter.send("wait", json!({"pane_id": pane, "until": "done"}));
    quitter.half_close();
    assert!(quitter.read_until_eof().is_empty());

    let mut closing = server.client();
    closing.send("wait", json!({"pane_id": pane, "until": "done"}));
    std::thread::sleep(Duration::from_millis(100));
    ok(c.call("pane.close", json!({"pane_id": pane})));
    assert_eq!(err(closing.read_response()).code, ErrorCode::NoSuchPane);
    ok(c.call("server.status", json!({})));
}
