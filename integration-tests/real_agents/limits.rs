//! A usage limit (docs/states.md#usage-limits): the fake model answers the
//! turn with HTTP 429 and the provider's own usage-limit error, its reset two
//! hours away; each real CLI stops and says so, and the pane reads `blocked`
//! with attention `rate_limited` and, when the CLI printed one, the reset
//! time. `SIGNALTTY_CAPTURE_SCREENS` keeps each screen as a fixture.

use super::{Rig, agent_bin, capture, codex_argv, submit, wait_state, wait_until};
use crate::support::client::Client;
use crate::support::ok;
use serde_json::{Value, json};

/// Drives the agent in `pane` into its limit and returns the pane.
fn into_the_limit(rig: &Rig, c: &mut Client, pane: &str, agent: &str) -> Value {
    rig.model
        .set(json!({"mode": "rate_limit", "reset_in": 7200}));
    submit(c, pane, "Create out.txt containing hello");
    let limited = wait_state(c, pane, "rate_limited");
    capture(c, pane, agent, "rate-limited", None);
    assert_eq!(limited["lifecycle"], "blocked", "{limited}");
    assert!(
        rig.model.requests().iter().any(|r| r["limit"] == true),
        "the model answered with its limit"
    );
    ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone()
}

/// The pane's reset time is about two hours away (the CLI may round it to
/// its minute).
fn resets_in_two_hours(pane: &Value) {
    let at = pane["resets_at"]
        .as_str()
        .unwrap_or_else(|| panic!("a reset time: {pane}"));
    let at = signaltty_protocol::Timestamp(at.to_owned());
    let secs = at
        .seconds_since(&signaltty_protocol::Timestamp::now())
        .unwrap_or_else(|| panic!("a timestamp: {pane}"));
    assert!((7080..=7260).contains(&secs), "{secs} s: {pane}");
}

/// Claude Code with an API key (as the suite runs it) says "API Error:
/// Request rejected (429) · … rate limit …" and no reset time (a plan's
/// "You've hit your session limit · resets 3pm" needs a claude.ai login); its
/// `StopFailure` hook with `error` "rate_limit" says the same.
#[test]
fn claude_at_its_usage_limit_is_rate_limited() {
    let rig = super::claude_rig();
    let (mut c, pane) = rig.ready("claude", json!([agent_bin("claude")]), "? for shortcuts");
    let p = into_the_limit(&rig, &mut c, &pane, "claude");
    assert!(p["resets_at"].is_null(), "{p}");
    let source = wait_until(
        "the subscriber to see the pane blocked",
        super::LONG,
        || {
            let life = rig.watch.lifecycle(&pane);
            life.into_iter()
                .find(|(_, name, _)| name == "blocked")
                .map(|(_, _, source)| source)
        },
    );
    assert_eq!(source, "hook:claude:StopFailure");
}

#[test]
fn codex_at_its_usage_limit_is_rate_limited() {
    let rig = super::codex_rig();
    let (mut c, pane) = rig.ready("codex", codex_argv(), "Ask Codex to do anything");
    let p = into_the_limit(&rig, &mut c, &pane, "codex");
    resets_in_two_hours(&p);
}

#[test]
fn gemini_at_its_usage_limit_is_rate_limited() {
    let rig = super::gemini_rig();
    let (mut c, pane) = rig.ready("gemini", json!([agent_bin("gemini")]), "Type your message");
    let p = into_the_limit(&rig, &mut c, &pane, "gemini");
    resets_in_two_hours(&p);
}

/// Auto-continue with the real Codex (docs/states.md#auto-continue): its
/// limit resets a few seconds out ("try again at" the minute), the margin is
/// 0, and the model answers again: signaltty types "continue" once, Codex
/// takes it and finishes the turn.
#[test]
fn codex_is_continued_once_after_its_limit_resets() {
    let rig = super::codex_rig_with(|env| env.set_var("SIGNALTTY_AUTO_CONTINUE_MARGIN_S", "0"));
    let (mut c, pane) = rig.ready("codex", codex_argv(), "Ask Codex to do anything");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone();
    let on = ok(c.call(
        "workspace.set_auto_continue",
        json!({"workspace_id": p["workspace_id"], "enabled": true}),
    ));
    assert_eq!(on["workspace"]["auto_continue"], true, "{on}");
    let mut sub = rig.server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.auto_continued"]})));
    rig.model.set(json!({"mode": "rate_limit", "reset_in": 5}));
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "rate_limited");
    // The model has its quota back; the command needs no approval.
    rig.model
        .set(json!({"delay": 1.0, "final_delay": 0.3, "escalate": false}));
    let event = sub.next_event();
    assert_eq!(event.event, "pane.auto_continued");
    assert_eq!(event.payload["prompt"], "continue");
    let done = wait_state(&mut c, &pane, "done");
    assert!(done["resets_at"].is_null(), "{done}");
    let continued = rig
        .model
        .requests()
        .iter()
        .filter(|r| {
            r["last"] == "user"
                && r["users"]
                    .as_array()
                    .and_then(|u| u.last())
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.trim() == "continue")
        })
        .count();
    assert_eq!(continued, 1, "{:?}", rig.model.requests());
}

/// Gemini CLI's limit is a dialog; the continue prompt typed into it as
/// auto-continue types it (`pane.submit`'s paste and Enter) picks its
/// preselected "1. Keep trying": the turn runs again, and its tool's
/// permission prompt is a turn taken for the activity gate, though Gemini
/// fires no hook before it (docs/states.md#usage-limits).
#[test]
fn gemini_takes_the_continue_prompt_at_its_limit_dialog() {
    let rig = super::gemini_rig();
    let (mut c, pane) = rig.ready("gemini", json!([agent_bin("gemini")]), "Type your message");
    rig.model
        .set(json!({"mode": "rate_limit", "reset_in": 7200}));
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "rate_limited");
    rig.model.set(json!({"delay": 1.0, "final_delay": 0.3}));
    submit(&mut c, &pane, "continue");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone();
    assert_ne!(p["attention"], "rate_limited", "{p}");
    assert!(p["resets_at"].is_null(), "{p}");
}
