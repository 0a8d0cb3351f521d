//! A real agent resumed after the server crashed
//! (docs/restore.md#resuming-a-pane, issue 14): one turn, SIGKILL of the server
//! (its panes' terminals close with it, so the agent dies too), a restart that
//! brings the pane back as `RESUMABLE` with its session id, `pane.resume`, and
//! a second turn that continues the same conversation: same session id, and the
//! model's first request of the second turn carries the first turn's prompt.

use super::{LONG, Rig, agent_bin, claude_rig, codex_rig, opencode_rig, pending_decision, pi_rig};
use super::{submit, wait_ready};
use super::{wait_screen, wait_session, wait_state};
use crate::support::client::Client;
use crate::support::{ok, str_field, wait_until};
use serde_json::{Value, json};

pub(super) const FIRST: &str = "Create out.txt containing hello";
pub(super) const SECOND: &str = "Now write the same file again";

/// Processes whose environment names `pane` (the agent and its children).
pub(super) fn processes_of(pane: &str) -> Vec<u32> {
    let needle = format!("SIGNALTTY_PANE={pane}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let alive = !crate::support::process_gone(*pid);
            alive
                && environ
                    .split(|b| *b == 0)
                    .any(|var| var == needle.as_bytes())
        })
        .collect()
}

/// How the tool's permission is given in a turn.
#[derive(Clone, Copy)]
pub(super) enum Allow {
    /// Allow once from signaltty (the agent's hook waits for it).
    FromSignaltty,
    /// In the agent's own prompt: wait for this text, then press Enter.
    InTerminal(&'static str),
    /// The agent asks nothing (Pi has no permission system).
    NotAsked,
}

/// One turn: the prompt, the tool's permission given, the turn done.
pub(super) fn turn(rig: &Rig, c: &mut Client, pane: &str, prompt: &str, allow: Allow) {
    let _ = std::fs::remove_file(rig.work.join("out.txt"));
    submit(c, pane, prompt);
    finish_turn(rig, c, pane, allow);
}

/// The rest of a turn once its prompt is in: the tool's permission given,
/// the tool's file written, the turn done.
pub(super) fn finish_turn(rig: &Rig, c: &mut Client, pane: &str, allow: Allow) {
    match allow {
        Allow::FromSignaltty => {
            let d = pending_decision(c, pane);
            ok(c.call(
                "decision.answer",
                json!({"pane_id": pane, "decision_id": d["id"], "option_id": "once"}),
            ));
        },
        Allow::InTerminal(text) => {
            wait_state(c, pane, "blocked");
            wait_screen(c, pane, text);
            super::press(c, pane, "\r");
        },
        Allow::NotAsked => {},
    }
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    wait_state(c, pane, "done");
}

/// Presses `keys` until `text` is on the pane's screen (`shown`) or gone
/// (`!shown`), at most 20 times, 3 s apart.
pub(super) fn press_until(c: &mut Client, pane: &str, keys: &str, text: &str, shown: bool) {
    for _ in 0..20 {
        super::press(c, pane, keys);
        let on_screen = |c: &mut Client| {
            let r = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
            str_field(&r, "text").contains(text)
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        while std::time::Instant::now() < deadline {
            if on_screen(c) == shown {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
    panic!(
        "pressing {keys:?} never made {text:?} {}:\n{}",
        if shown { "appear" } else { "go" },
        str_field(&screen, "text")
    );
}

/// The model's requests that carry `prompt` as a user message.
pub(super) fn requests_with(rig: &Rig, prompt: &str) -> Vec<Value> {
    rig.model
        .requests()
        .into_iter()
        .filter(|r| {
            r["users"].as_array().is_some_and(|u| {
                u.iter()
                    .any(|t| t.as_str().is_some_and(|t| t.contains(prompt)))
            })
        })
        .collect()
}

/// The whole walk for one agent. `before_ready` handles what the resumed
/// agent shows before its prompt (Codex's hook-trust menu).
pub(super) fn resumed_agent_continues(
    mut rig: Rig,
    agent: &str,
    argv: Value,
    hint: &str,
    allow: Allow,
    before_ready: impl FnOnce(&mut Client, &str),
) {
    let (mut c, pane) = rig.ready(agent, argv.clone(), hint);
    turn(&rig, &mut c, &pane, FIRST, allow);
    let before = wait_session(&mut c, &pane);
    let session = str_field(&before["pane"]["agent"], "agent_session_id").to_owned();
    assert!(
        !processes_of(&pane).is_empty(),
        "the agent runs in its pane"
    );
    drop(c);

    rig.server.crash_and_restart();
    // The terminals closed with the server: the agent is gone too.
    wait_until("the old agent to exit", LONG, || {
        processes_of(&pane).is_empty().then_some(())
    });
    let mut c = rig.server.client();
    let restored = ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone();
    assert_eq!(restored["restore_state"], "RESUMABLE", "{restored}");
    assert_eq!(restored["live"]["state"], "exited", "{restored}");
    assert_eq!(restored["agent"]["agent_session_id"], session.as_str());
    assert_eq!(
        restored["lifecycle"], "done",
        "the lifecycle is kept: {restored}"
    );
    let resume = restored["agent"]["resume_argv"].clone();
    assert_eq!(
        resume[0], argv[0],
        "the original executable is kept: {resume}"
    );
    assert!(
        resume.as_array().is_some_and(|a| a
            .iter()
            .filter_map(Value::as_str)
            .any(|x| x == session || x == format!("--resume={session}"))),
        "the exact session, never a --continue/--last fallback: {resume}"
    );
    // What the pane last showed is there before anything runs.
    let tail = ok(c.call(
        "pane.read",
        json!({"pane_id": pane, "mode": "tail", "lines": 400}),
    ));
    assert!(
        str_field(&tail, "text").contains("restored by signaltty"),
        "{}",
        str_field(&tail, "text")
    );

    let resumed = ok(c.call("pane.resume", json!({"pane_id": pane})));
    assert_eq!(resumed["pane"]["restore_state"], "LIVE", "{resumed}");
    before_ready(&mut c, &pane);
    // The restored tail still shows the old prompt: wait for the resumed
    // agent's own session report (lifecycle `idle` again), then its input box.
    wait_state(&mut c, &pane, "idle");
    wait_ready(&mut c, &pane, hint);
    turn(&rig, &mut c, &pane, SECOND, allow);

    let after = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(
        after["pane"]["agent"]["agent_session_id"],
        session.as_str(),
        "the resumed agent reports the same session"
    );
    let second = requests_with(&rig, SECOND);
    let first_of_second = second
        .first()
        .unwrap_or_else(|| panic!("the model never saw the second prompt"));
    let users = &first_of_second["users"];
    assert!(
        users.as_array().is_some_and(|u| u
            .iter()
            .any(|t| t.as_str().is_some_and(|t| t.contains(FIRST)))),
        "the second turn continues the first conversation: {users}"
    );
}

#[test]
fn claude_resumed_after_a_server_crash_continues_the_same_conversation() {
    let argv = json!([agent_bin("claude")]);
    let hint = "? for shortcuts";
    resumed_agent_continues(
        claude_rig(),
        "claude",
        argv,
        hint,
        Allow::FromSignaltty,
        |_, _| {},
    );
}

#[test]
fn codex_resumed_after_a_server_crash_continues_the_same_conversation() {
    let argv = super::codex_argv();
    // `codex resume <id>` has none of the first launch's options
    // (docs/restore.md#the-resume-command), so Codex asks once to trust the
    // hooks signaltty installed, as it asks a person: the answer is "Trust all
    // and continue".
    let hint = "Ask Codex to do anything";
    resumed_agent_continues(
        codex_rig(),
        "codex",
        argv,
        hint,
        Allow::FromSignaltty,
        |c, pane| {
            wait_screen(c, pane, "Trust all and continue");
            // The gate is a question for the person (issue 16): blocked, input.
            let gate = wait_state(c, pane, "blocked");
            assert_eq!(gate["attention"], "input_required", "{gate}");
            super::capture(c, pane, "codex", "blocked-hook-trust", Some("Trust all"));
            // A key pressed while the menu is still being drawn can be lost
            // (as for a person, who presses again).
            press_until(c, pane, "2", "› 2. Trust all and continue", true);
            press_until(c, pane, "\r", "Trust all and continue", false);
        },
    );
}

/// Pi: `pi --session <id>`; it asks no permission.
#[test]
fn pi_resumed_after_a_server_crash_continues_the_same_conversation() {
    let argv = json!([agent_bin("pi")]);
    resumed_agent_continues(pi_rig(), "pi", argv, "(auto)", Allow::NotAsked, |_, _| {});
}

/// OpenCode: `opencode --session <id>`; its permission is answered in its
/// own prompt ("Allow once" preselected). A resumed session shows the
/// conversation, not the "Ask anything" placeholder: the prompt box's model
/// line says it is ready.
#[test]
fn opencode_resumed_after_a_server_crash_continues_the_same_conversation() {
    let argv = json!([agent_bin("opencode")]);
    let allow = Allow::InTerminal("Allow once");
    resumed_agent_continues(
        opencode_rig(),
        "opencode",
        argv,
        "Fake loopback",
        allow,
        |_, _| {},
    );
}

/// Gemini CLI: `gemini --resume=<id>`; its permission is answered in its own
/// prompt.
#[test]
fn gemini_resumed_after_a_server_crash_continues_the_same_conversation() {
    let argv = json!([agent_bin("gemini")]);
    let allow = Allow::InTerminal("Allow once");
    let hint = "Type your message";
    resumed_agent_continues(super::gemini_rig(), "gemini", argv, hint, allow, |_, _| {});
}
