//! Qwen Code (`@qwen-code/qwen-code`) in signaltty panes, against the fake
//! model's Chat Completions API. Its hooks are Claude Code's: `signaltty
//! integration install qwen` writes Claude's hook set into
//! `~/.qwen/settings.json`, reporting as `--agent generic`, and the bundled
//! `manifests/qwen.toml` reads them with Claude's vocabulary; the pane stays
//! a generic one (`qwen --resume <id>`). Its PermissionRequest hook takes a
//! verdict, so its permission is answered from signaltty.

use super::resume::{Allow, resumed_agent_continues};
use super::{Rig, agent_bin, capture, pending_decision, submit};
use super::{denied_tool_does_not_run, wait_ready, wait_screen, wait_state};
use crate::support::{ok, str_field};
use serde_json::{Value, json};

/// What Qwen Code draws in its input box when it can take a prompt.
const HINT: &str = "Type your message";

pub(super) fn qwen_rig() -> Rig {
    Rig::new(
        |env, model, home| {
            let dir = home.join(".qwen");
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
            // An OpenAI-compatible provider on loopback; "Ask permissions"
            // (0.24's default is "auto": a model call judges each tool call);
            // no update check, statistics, follow-up suggestions (Enter would
            // accept one) or feedback dialog. The bundled ripgrep lacks its
            // executable bit in the npm package: the built-in grep is used.
            let settings = json!({
                "general": {"enableAutoUpdate": false},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "ui": {"enableFollowupSuggestions": false, "enableUserFeedback": false},
                "security": {"auth": {"selectedType": "openai", "apiKey": "sk-fake",
                                      "baseUrl": format!("{}/v1", model.url())}},
                "model": {"name": "fake-model"},
                "tools": {"approvalMode": "default", "useRipgrep": false}
            });
            std::fs::write(dir.join("settings.json"), settings.to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            env.set_var("QWEN_HOME", &dir);
        },
        json!({"delay": 2.0, "final_delay": 0.3}),
    )
}

fn qwen_argv() -> Value {
    json!([agent_bin("qwen")])
}

/// Qwen Code through its hooks (Claude's, read as Claude's): idle, working,
/// blocked on its PermissionRequest hook with a native decision, Allow once
/// from signaltty (Qwen Code then runs the tool without its own prompt),
/// done + unread with the turn's last text.
#[test]
fn qwen_asks_permission_and_an_allow_once_from_signaltty_runs_the_tool() {
    let rig = qwen_rig();
    let (mut c, pane) = rig.ready("qwen", qwen_argv(), HINT);
    capture(&mut c, &pane, "qwen", "idle", None);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "qwen", "working", Some("esc to cancel"));
    let d = pending_decision(&mut c, &pane);
    // Qwen Code waits for its PermissionRequest hook before it draws its own
    // prompt: while signaltty holds the question, its screen says working.
    capture(&mut c, &pane, "qwen", "hook-running", None);
    assert!(str_field(&d, "id").starts_with("permission_"), "{d}");
    assert!(
        str_field(&d, "prompt").starts_with("Allow run_shell_command?"),
        "{d}"
    );
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["lifecycle"], "blocked");
    assert_eq!(p["pane"]["attention"], "permission_required");
    assert_eq!(p["pane"]["agent"]["kind"], "generic", "{p}");
    super::allow_once_and_finish(&rig, &mut c, &pane, &d);
    capture(&mut c, &pane, "qwen", "done", Some("done: wrote out.txt"));
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["last_message"], "done: wrote out.txt");
    let session = str_field(&p["pane"]["agent"], "agent_session_id").to_owned();
    assert_eq!(
        p["pane"]["agent"]["resume_argv"],
        json!([qwen_argv()[0], "--resume", session]),
        "{p}"
    );
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    // Every state after the start came from a hook, read as Claude's.
    let sources: Vec<String> = rig
        .watch
        .lifecycle(&pane)
        .into_iter()
        .skip_while(|(_, name, _)| name != "working")
        .map(|(_, _, source)| source)
        .collect();
    assert!(
        sources
            .iter()
            .all(|s| s.starts_with("hook:generic:") || s == "answer"),
        "{sources:?}"
    );
}

/// Deny from signaltty reaches Qwen Code through its waiting hook: the tool
/// never runs, the turn ends.
#[test]
fn qwen_denied_from_signaltty_does_not_run_the_tool() {
    let rig = qwen_rig();
    denied_tool_does_not_run(&rig, "qwen", qwen_argv(), HINT);
}

/// Without its hooks Qwen Code is read from its screen alone (the bundled
/// rules): its title says it responds, then that a tool waits for
/// confirmation, and its own prompt is answered in the terminal.
#[test]
fn qwen_without_hooks_is_read_from_its_screen() {
    let rig = qwen_rig();
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, qwen_argv());
    wait_ready(&mut c, &pane, HINT);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required");
    // "1. Yes, allow once" is preselected.
    wait_screen(&mut c, &pane, "Yes, allow once");
    capture(&mut c, &pane, "qwen", "blocked", Some("Waiting for user"));
    super::enter_allows_and_the_turn_ends_done(&rig, &mut c, &pane);
}

/// `qwen --resume <id>` after a server crash continues the conversation.
#[test]
fn qwen_resumed_after_a_server_crash_continues_the_same_conversation() {
    resumed_agent_continues(
        qwen_rig(),
        "qwen",
        qwen_argv(),
        HINT,
        Allow::FromSignaltty,
        |_, _| {},
    );
}
