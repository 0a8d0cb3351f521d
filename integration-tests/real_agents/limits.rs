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
