//! A permission question raised inside a subagent. The fake model delegates
//! the turn (`mode: "subagent"`) to Claude Code's `Agent` tool (formerly
//! `Task`); the subagent's own requests get the shell call, which asks
//! permission. Claude 2.1.332 runs the subagent in the background even when
//! asked for the foreground: the main turn ends ("Waiting for 1 background
//! agent to finish", its `Stop` hook fires) and the subagent's dialog comes
//! after. The pane must read working in between, never done, and blocked
//! while the subagent's question waits, never working (a peer's known miss):
//! with hooks, with the question's real options, answered from signaltty;
//! with none, from the screen alone.

use super::{Rig, agent_bin, capture, claude_rig, pending_decision, submit};
use super::{press, the_tool_runs_and_the_turn_ends_done, wait_ready, wait_screen, wait_state};
use crate::support::client::Client;
use crate::support::{ok, str_field};
use serde_json::json;
use std::time::Duration;

fn subagent_rig() -> Rig {
    let rig = claude_rig();
    rig.model
        .set(json!({"mode": "subagent", "delay": 2.0, "final_delay": 0.3}));
    rig
}

/// The model delegated the turn to a subagent, and the subagent itself
/// asked for the shell call.
fn delegated(rig: &Rig) {
    let requests = rig.model.requests();
    assert!(
        requests
            .iter()
            .any(|r| r["tool"] == "Agent" || r["tool"] == "Task"),
        "the main turn called the subagent tool: {requests:?}"
    );
    assert!(
        requests.iter().any(|r| r["tool"] == "Bash"
            && r["users"].as_array().is_some_and(|u| u.iter().any(|t| t
                .as_str()
                .is_some_and(|t| t.contains("[fake-model subagent]"))))),
        "the subagent asked for the shell: {requests:?}"
    );
}

/// With hooks: the subagent's PermissionRequest blocks the pane with a native
/// decision offering Allow once and Deny; Allow once from signaltty runs the
/// subagent's tool, and the main turn ends done.
#[test]
fn claude_subagents_permission_blocks_the_pane_and_is_answered_from_signaltty() {
    let rig = subagent_rig();
    let (mut c, pane) = rig.ready("claude", json!([agent_bin("claude")]), "? for shortcuts");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    let d = pending_decision(&mut c, &pane);
    capture(
        &mut c,
        &pane,
        "claude",
        "blocked-subagent",
        Some("Do you want"),
    );
    assert!(str_field(&d, "prompt").starts_with("Allow Bash?"), "{d}");
    blocked_with_its_options(&mut c, &pane, &d);
    delegated(&rig);
    super::allow_once_and_finish(&rig, &mut c, &pane, &d);
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
}

/// Without hooks: the subagent's permission dialog reads blocked from the
/// screen, with `input_required`; Enter allows it and the turn ends done.
#[test]
fn claude_subagents_permission_without_hooks_reads_blocked_from_the_screen() {
    let rig = subagent_rig();
    let mut c = rig.server.client();
    // Spawning `claude` sets its hooks up; without user settings it runs
    // with none, as a person who never installed them would.
    let argv = json!([agent_bin("claude"), "--setting-sources", "project,local"]);
    let pane = rig.spawn(&mut c, argv);
    wait_ready(&mut c, &pane, "? for shortcuts");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required", "{blocked}");
    wait_screen(&mut c, &pane, "Do you want");
    capture(
        &mut c,
        &pane,
        "claude",
        "blocked-subagent-screen",
        Some("Do you want"),
    );
    delegated(&rig);
    // Claude can draw a background agent's dialog a moment before it takes
    // keys (seen under load): Enter again while the question is still shown,
    // as a person would.
    let gone = |c: &mut Client| {
        let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        !str_field(&screen, "text").contains("Do you want to proceed?")
    };
    let mut answered = false;
    for _ in 0..5 {
        press(&mut c, &pane, "\r");
        if crate::support::poll_until(Duration::from_secs(5), || gone(&mut c)) {
            answered = true;
            break;
        }
    }
    assert!(answered, "the subagent's dialog took Enter");
    the_tool_runs_and_the_turn_ends_done(&rig, &mut c, &pane);
}

/// Codex's sub-agents (`spawn_agent`, on by default in 0.171) run on after
/// the main turn's `Stop` and ask through the same hooks, naming themselves
/// (`agent_id`) beside the main session. The spawned agent's escalated command blocks the pane with the
/// question's real options; Allow once from signaltty runs it, and the pane
/// goes back to the main turn's `done` (no hook says when a sub-agent ends),
/// its session still the main agent's.
#[test]
fn codex_subagents_permission_blocks_the_pane_and_is_answered_from_signaltty() {
    let rig = super::codex_rig();
    rig.model
        .set(json!({"mode": "subagent", "delay": 2.0, "final_delay": 0.3}));
    let (mut c, pane) = rig.ready("codex", super::codex_argv(), "Ask Codex to do anything");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    let session = |c: &mut Client| {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        p["pane"]["agent"]["agent_session_id"].clone()
    };
    let d = pending_decision(&mut c, &pane);
    let main = session(&mut c);
    capture(&mut c, &pane, "codex", "blocked-subagent", None);
    blocked_with_its_options(&mut c, &pane, &d);
    let requests = rig.model.requests();
    assert!(
        requests.iter().any(|r| r["tool"] == "spawn_agent"),
        "the main turn spawned a sub-agent: {requests:?}"
    );
    let answered = ok(c.call(
        "decision.answer",
        json!({"pane_id": pane, "decision_id": d["id"], "option_id": "once"}),
    ));
    assert_eq!(answered["lifecycle"], "done", "{answered}");
    let out = rig.work.join("out.txt");
    crate::support::wait_until("the sub-agent to write out.txt", super::LONG, || {
        out.exists().then_some(())
    });
    assert!(!main.is_null());
    assert_eq!(
        session(&mut c),
        main,
        "the pane's session stays the main agent's"
    );
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "done", "blocked", "done"]);
}

/// The pane is blocked on the subagent's permission question, whose
/// decision `d` offers the real options: Allow once and Deny.
fn blocked_with_its_options(c: &mut Client, pane: &str, d: &serde_json::Value) {
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["lifecycle"], "blocked");
    assert_eq!(p["pane"]["attention"], "permission_required");
    let options: Vec<&str> = d["options"]
        .as_array()
        .map(|o| o.iter().filter_map(|o| o["id"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        options.contains(&"once") && options.contains(&"deny"),
        "{d}"
    );
}
