//! Kilo Code CLI (`@kilocode/cli`) in signaltty panes, against the fake
//! model's Chat Completions API (an `@ai-sdk/openai-compatible` provider, as
//! OpenCode's). Kilo Code descends from OpenCode and loads the same plugins
//! with the same events: `signaltty integration install kilo` writes
//! signaltty's OpenCode plugin into `<config>/kilo/plugins/`, reporting as
//! `--agent generic`, and the bundled `manifests/kilo.toml` reads it with
//! OpenCode's vocabulary; the pane stays a generic one (`kilo --session <id>`).
//! Like OpenCode's, its permission is answered in its own prompt.

use super::resume::{Allow, resumed_agent_continues};
use super::{LONG, Rig, agent_bin, capture, press, submit, wait_screen, wait_state};
use crate::support::client::Client;
use crate::support::{ok, str_field, wait_until};
use serde_json::{Value, json};

/// What Kilo Code draws in its empty input box.
const HINT: &str = "Ask anything";

pub(super) fn kilo_rig() -> Rig {
    super::opencode_family_rig("kilo", "KILO")
}

/// Waits (up to a minute) until no line of the pane's screen contains `text`.
fn wait_gone(c: &mut Client, pane: &str, text: &str) {
    let shown = |c: &mut Client| {
        let r = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        str_field(&r, "text").contains(text)
    };
    crate::support::poll_until(LONG, || !shown(c));
    assert!(!shown(c), "{text:?} stayed on screen");
}

fn kilo_argv() -> Value {
    json!([agent_bin("kilo")])
}

/// Kilo Code through signaltty's plugin (OpenCode's events): working while
/// busy, blocked while its permission is asked, working again once allowed
/// in the terminal, done + unread.
#[test]
fn kilo_reports_its_permission_wait_through_the_plugin() {
    let rig = kilo_rig();
    let (mut c, pane) = rig.ready("kilo", kilo_argv(), HINT);
    capture(&mut c, &pane, "kilo", "idle", None);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "kilo", "working", Some("esc interrupt"));
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "permission_required");
    // "Allow once" is preselected.
    wait_screen(&mut c, &pane, "Allow once");
    capture(&mut c, &pane, "kilo", "blocked", None);
    press(&mut c, &pane, "\r");
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    // The footer keeps "esc interrupt" for a moment after the turn's end.
    wait_gone(&mut c, &pane, "esc interrupt");
    capture(&mut c, &pane, "kilo", "done", Some("done: wrote out.txt"));
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["agent"]["kind"], "generic", "{p}");
    let session = str_field(&p["pane"]["agent"], "agent_session_id").to_owned();
    assert!(session.starts_with("ses_"), "{p}");
    assert_eq!(
        p["pane"]["agent"]["resume_argv"],
        json!([kilo_argv()[0], "--session", session]),
        "{p}"
    );
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    // The turn resumed on the plugin's reply, read as OpenCode's.
    let life = rig.watch.lifecycle(&pane);
    let after_blocked: Vec<&str> = life
        .iter()
        .skip_while(|(_, n, _)| n != "blocked")
        .map(|(_, _, source)| source.as_str())
        .collect();
    assert_eq!(
        after_blocked.first().copied(),
        Some("hook:generic:permission.asked"),
        "{life:?}"
    );
    assert_eq!(
        after_blocked.get(1).copied(),
        Some("hook:generic:permission.replied"),
        "{life:?}"
    );
}

/// Without its plugin Kilo Code is read from its screen alone (the bundled
/// rules): its progress bar, its permission prompt, its input box.
#[test]
fn kilo_without_its_plugin_is_read_from_its_screen() {
    let rig = kilo_rig();
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, kilo_argv());
    super::wait_ready(&mut c, &pane, HINT);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required");
    wait_screen(&mut c, &pane, "Allow once");
    super::enter_allows_and_the_turn_ends_done(&rig, &mut c, &pane);
}

/// `kilo --session <id>` after a server crash continues the conversation. A
/// resumed session shows the conversation, not the placeholder: the prompt
/// box's model line says it is ready.
#[test]
fn kilo_resumed_after_a_server_crash_continues_the_same_conversation() {
    resumed_agent_continues(
        kilo_rig(),
        "kilo",
        kilo_argv(),
        "Fake loopback",
        Allow::InTerminal("Allow once"),
        |_, _| {},
    );
}
