//! A real agent hibernated after a turn (docs/restore.md#hibernation): its
//! workspace hibernates after 1 s, the agent is stopped by its adapter (two
//! Ctrl-C), its whole process tree is gone and the pane reads `HIBERNATED`;
//! `pane.submit` wakes it with its exact session, the prompt reaches it once
//! it is ready, and the model's first request of the second turn carries the
//! first turn's prompt: the conversation goes on.
//!
//! It prints the figures of docs/performance.md#hibernation: the live tree's
//! RSS and the hibernated pane's, the agent's own start time (its spawn to
//! its prompt on screen with the pane idle) and the wake (`pane.submit` to
//! its reply: the agent took the prompt); `SIGNALTTY_HIBERNATE_OUT=FILE`
//! appends them as JSON.

use super::resume::{
    Allow, FIRST, SECOND, finish_turn, press_until, processes_of, requests_with, turn,
};
use super::{LONG, Rig, agent_bin, claude_rig, codex_rig, wait_screen, wait_session};
use crate::support::client::Client;
use crate::support::{ok, str_field, wait_until};
use serde_json::{Value, json};
use std::io::Write as _;
use std::time::Instant;

/// The resident memory of `pids`, in KiB (`VmRSS` of each).
fn rss_kib(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
        .filter_map(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse::<u64>().ok())
        })
        .sum()
}

fn pane(c: &mut Client, id: &str) -> Value {
    ok(c.call("pane.get", json!({"pane_id": id})))["pane"].clone()
}

/// The walk for one agent. `first_ready` handles what the agent shows
/// before its first prompt (Codex's hook-trust menu, answered once as a
/// person does, so that its resume does not ask again).
fn hibernated_agent_continues(
    rig: Rig,
    agent: &str,
    argv: Value,
    hint: &str,
    first_ready: impl FnOnce(&mut Client, &str),
) {
    rig.install_hooks(agent);
    let started = Instant::now();
    let mut c = rig.server.client();
    let p = rig.spawn(&mut c, argv);
    first_ready(&mut c, &p);
    // Idle, or done once a first-launch question went (it is seen).
    wait_screen(&mut c, &p, hint);
    wait_until("the agent at its prompt", LONG, || {
        let now = pane(&mut c, &p);
        ["idle", "done"]
            .contains(&now["lifecycle"].as_str().unwrap_or(""))
            .then_some(())
    });
    ok(c.call("pane.mark_seen", json!({"pane_id": p})));
    let start_ms = started.elapsed().as_millis();
    turn(&rig, &mut c, &p, FIRST, Allow::FromSignaltty);
    let before = wait_session(&mut c, &p);
    let session = str_field(&before["pane"]["agent"], "agent_session_id").to_owned();
    // The turn's result seen: nothing keeps it awake but its workspace.
    ok(c.call("pane.mark_seen", json!({"pane_id": p})));
    let live = processes_of(&p);
    let live_kib = rss_kib(&live);
    assert!(live_kib > 0, "the agent runs: {live:?}");
    let ws = str_field(&before["pane"], "workspace_id").to_owned();
    ok(c.call(
        "workspace.set_hibernate",
        json!({"workspace_id": ws, "after_s": 1}),
    ));
    let asleep = wait_until("the agent hibernated", LONG, || {
        let now = pane(&mut c, &p);
        (now["restore_state"] == "HIBERNATED").then_some(now)
    });
    assert_eq!(asleep["agent"]["agent_session_id"], session.as_str());
    // Quitting is the stop, not news: no attention.
    assert_eq!(asleep["attention"], "none", "{asleep}");
    wait_until("the agent's process tree gone", LONG, || {
        processes_of(&p).is_empty().then_some(())
    });
    let asleep_kib = rss_kib(&processes_of(&p));
    assert!(
        asleep_kib * 100 <= live_kib,
        "hibernated {asleep_kib} KiB of a live {live_kib} KiB"
    );
    // Hibernation keeps nothing asleep for long: the workspace stops it, and
    // nothing wakes it but a person.
    ok(c.call(
        "workspace.set_hibernate",
        json!({"workspace_id": ws, "after_s": 0}),
    ));

    let _ = std::fs::remove_file(rig.work.join("out.txt"));
    // `pane.submit` as a person sends it (the default 300 ms before Enter);
    // it answers once the agent took the prompt (`working`).
    let _ = c.stream().set_read_timeout(Some(LONG));
    let woken = Instant::now();
    let woken_us = super::now_us();
    // When the prompt shows in the agent's input box: delivered.
    let shown = {
        let mut c = rig.server.client();
        let p = p.clone();
        std::thread::spawn(move || {
            let on_screen = |c: &mut Client| {
                let r = c.call("pane.read", json!({"pane_id": p, "mode": "screen"}));
                r.ok && r
                    .result
                    .is_some_and(|v| str_field(&v, "text").contains(SECOND))
            };
            while woken.elapsed() < LONG {
                if on_screen(&mut c) {
                    return Some(woken.elapsed().as_millis());
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            None
        })
    };
    // The default delay; the generous stall of the suite's own submit (a
    // real agent is slow on a loaded machine).
    let taken = c.call(
        "pane.submit",
        json!({"pane_id": p, "text": SECOND, "stall_timeout_s": 40}),
    );
    let wake_ms = woken.elapsed().as_millis();
    let delivered_ms = shown.join().unwrap_or(None);
    if !taken.ok {
        let screen = ok(c.call("pane.read", json!({"pane_id": p, "mode": "screen"})));
        panic!(
            "the wake's prompt: {:?}\npane: {}\nscreen:\n{}",
            taken.error,
            pane(&mut c, &p),
            str_field(&screen, "text")
        );
    }
    let taken = ok(taken);

    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    assert_eq!(taken["outcome"], "working", "{taken}");
    finish_turn(&rig, &mut c, &p, Allow::FromSignaltty);
    // When the woken agent was ready (its first idle) and took the prompt
    // (its first working: the prompt's own hook), as the subscriber saw them.
    let after_wake = |state: &str| {
        rig.watch
            .lifecycle(&p)
            .into_iter()
            .find(|(at, name, _)| *at >= woken_us && name == state)
            .map(|(at, _, _)| (at - woken_us) / 1000)
    };
    let ready_ms = after_wake("idle");
    let working_ms = after_wake("working");
    let after = pane(&mut c, &p);
    assert_eq!(after["restore_state"], "LIVE", "{after}");
    assert_eq!(
        after["agent"]["agent_session_id"],
        session.as_str(),
        "the woken agent reports the same session"
    );
    let second = requests_with(&rig, SECOND);
    let users = &second
        .first()
        .unwrap_or_else(|| panic!("the model never saw the second prompt"))["users"];
    assert!(
        users.as_array().is_some_and(|u| u
            .iter()
            .any(|t| t.as_str().is_some_and(|t| t.contains(FIRST)))),
        "the second turn continues the first conversation: {users}"
    );
    let figures = json!({
        "agent": agent,
        "live_processes": live.len(),
        "live_rss_kib": live_kib,
        "hibernated_rss_kib": asleep_kib,
        "start_ms": start_ms,
        "wake_to_idle_ms": ready_ms,
        "wake_to_prompt_on_screen_ms": delivered_ms,
        "wake_to_working_ms": working_ms,
        "wake_to_prompt_taken_ms": wake_ms,
    });
    eprintln!("hibernation figures: {figures}");
    if let Ok(out) = std::env::var("SIGNALTTY_HIBERNATE_OUT") {
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&out)
            .and_then(|mut f| writeln!(f, "{figures}"));
        if let Err(e) = written {
            panic!("cannot append to {out}: {e}");
        }
    }
}

#[test]
fn claude_hibernated_after_a_turn_wakes_on_a_prompt_and_continues_the_conversation() {
    let argv = json!([agent_bin("claude")]);
    hibernated_agent_continues(claude_rig(), "claude", argv, "? for shortcuts", |_, _| {});
}

/// Codex started as a person starts it, without `--dangerously-bypass-hook-trust`:
/// it asks once to trust the hooks signaltty installed, and the answer
/// "Trust all and continue" is remembered, so its resume (`codex resume
/// <id>`, docs/restore.md#the-resume-command) goes straight to its prompt.
#[test]
fn codex_hibernated_after_a_turn_wakes_on_a_prompt_and_continues_the_conversation() {
    let argv = json!([agent_bin("codex"), "--no-daemon"]);
    hibernated_agent_continues(
        codex_rig(),
        "codex",
        argv,
        "Ask Codex to do anything",
        |c, p| {
            wait_screen(c, p, "Trust all and continue");
            press_until(c, p, "2", "› 2. Trust all and continue", true);
            press_until(c, p, "\r", "Trust all and continue", false);
        },
    );
}
