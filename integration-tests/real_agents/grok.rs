//! Grok CLI (`@vibe-kit/grok-cli`, the `grok` program) in a signaltty pane.
//! It has no hooks, no plugin events and no sessions, and sets no window
//! title: signaltty knows it by its program (`manifests/grok.toml`'s
//! `binaries`) and reads every state from its screen with that manifest's
//! rules. Its permission prompt is answered in its own terminal.

use super::{LONG, Rig, agent_bin, capture, now_us, press, submit, wait_ready};
use super::{wait_screen, wait_state};
use crate::support::client::Client;
use crate::support::{ok, str_field, wait_until};
use serde_json::{Value, json};

/// Its input box's placeholder.
const READY: &str = "Ask me anything";

/// The last line of the logo it prints once its input box is up. Until then
/// its event loop is busy drawing it: a paste and the Enter after it arrive
/// as one chunk, which Ink takes for text, the Enter typed into the prompt.
pub(super) const LOGO: &str = r"__\////////////____";

/// Grok CLI against the fake model: an OpenAI Chat Completions client,
/// pointed at it by environment (no settings file needed). Its model is kept
/// answering for two seconds after the permission too, so the screen sees the
/// turn working again before it ends.
pub(super) fn grok_rig() -> Rig {
    Rig::new(
        |env, model, _home| {
            env.set_var("GROK_API_KEY", "sk-fake");
            env.set_var("GROK_BASE_URL", format!("{}/v1", model.url()));
            env.set_var("GROK_MODEL", "fake-model");
        },
        json!({"delay": 2.0, "final_delay": 2.0}),
    )
}

/// Starts Grok in a pane and waits until it takes a prompt.
fn start(rig: &Rig) -> (Client, String) {
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, json!([agent_bin("grok")]));
    wait_screen(&mut c, &pane, LOGO);
    wait_ready(&mut c, &pane, READY);
    (c, pane)
}

/// The pane is a generic one known by its program, read by the bundled
/// Grok rules.
fn assert_read_by_the_bundled_rules(c: &mut Client, pane: &str) -> Value {
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["kind"], "generic", "{explain}");
    assert_eq!(explain["process"], "grok", "{explain}");
    assert_eq!(explain["source"], "bundled", "{explain}");
    assert_eq!(explain["classifies"], true, "{explain}");
    explain
}

/// A full turn read from the screen: idle at its input box, working while
/// its spinner runs, blocked on its confirmation dialog (answered with Enter
/// in the terminal: nothing else can answer it), working again while the
/// model finishes, then done + unread.
#[test]
fn grok_blocks_on_its_confirmation_and_finishes_the_turn_by_the_screen() {
    let rig = grok_rig();
    let (mut c, pane) = start(&rig);
    capture(&mut c, &pane, "grok", "idle", Some(READY));
    let idle = assert_read_by_the_bundled_rules(&mut c, &pane);
    assert_eq!(idle["matched"]["id"], "input_box_idle", "{idle}");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "grok", "working", Some("esc to interrupt"));
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required");
    wait_screen(&mut c, &pane, "Do you want to proceed");
    capture(&mut c, &pane, "grok", "blocked", Some("Esc cancel"));
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["matched"]["id"], "confirmation_dialog", "{explain}");
    assert!(
        !rig.work.join("out.txt").exists(),
        "it waits for the answer"
    );
    // "1. Yes" is preselected.
    press(&mut c, &pane, "\r");
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    wait_screen(&mut c, &pane, "done: wrote out.txt");
    capture(&mut c, &pane, "grok", "done", Some(READY));
    let requests = rig.model.requests();
    // `pane.submit` pasted without bracketed-paste markers: Grok never asks
    // for them, and took them for typed text ("[200~Create…").
    assert_eq!(
        requests[0]["users"],
        json!(["Create out.txt containing hello"]),
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .any(|r| r["last"] == "tool_result" && r["api"] == "chat"),
        "the model saw the tool's result"
    );
    // No session, so nothing to resume: Grok CLI has neither session ids
    // nor a resume flag.
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert!(p["pane"]["agent"]["agent_session_id"].is_null(), "{p}");
    assert!(p["pane"]["agent"]["resume_argv"].is_null(), "{p}");
    rig.watch
        .expect_screen_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
}

/// Esc at Grok's confirmation rejects the command: the dialog goes, the
/// screen reads idle, the pane leaves `blocked` with the question's
/// attention withdrawn, and the command never runs.
#[test]
fn grok_question_dismissed_with_esc_leaves_blocked_by_the_screen() {
    let rig = grok_rig();
    let (mut c, pane) = start(&rig);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "blocked");
    wait_screen(&mut c, &pane, "Esc cancel");
    let esc_at = now_us();
    press(&mut c, &pane, "\x1b");
    let after = wait_state(&mut c, &pane, "idle");
    assert_eq!(after["attention"], "none");
    let explain = assert_read_by_the_bundled_rules(&mut c, &pane);
    assert!(
        str_field(&explain["lifecycle"], "source").starts_with("screen:"),
        "{explain}"
    );
    assert!(!rig.work.join("out.txt").exists());
    rig.watch
        .expect_screen_lifecycle(&pane, &["idle", "working", "blocked", "idle"]);
    let idle_at = rig
        .watch
        .lifecycle(&pane)
        .last()
        .map_or(0, |(at, _, _)| *at);
    rig.record_latency("grok", &pane, &[("esc → idle", idle_at - esc_at)]);
}
