//! Generic programs whose hooks are a builtin agent's (Qwen Code speaks
//! Claude Code's, Kilo Code OpenCode's): their hooks report as `generic`, the
//! bundled manifest of the pane's program names the vocabulary that reads
//! them, and the pane stays a generic one with the program's resume command.

use super::super::*;
use crate::domain::state::tests::pane;
use serde_json::json;
use signaltty_model::agents::AgentSet;

/// A tracker for a generic pane running `argv`, with the bundled manifests.
fn tracker(argv: &[&str]) -> AgentTracker {
    let mut p = pane(AgentKind::Generic);
    p.argv = argv.iter().map(|a| (*a).to_owned()).collect();
    let rules = AgentRules::new(AgentSet::bundled_only());
    AgentTracker::with_rules(p, rules, Duration::from_secs(10))
}

fn hook(t: &mut AgentTracker, event: &str, payload: Value) -> Vec<Effect> {
    let decision = (event == "PermissionRequest").then(|| {
        crate::domain::state::decision::NativeRequest::parse(AgentKind::Claude, &payload)
            .map(|r| r.decision("permission_1".into(), true, Timestamp::now()))
            .unwrap_or_else(|| panic!("a native payload"))
    });
    let report = HookReport {
        kind: AgentKind::Generic,
        agent: "generic".into(),
        event: event.to_owned(),
        payload,
        message: None,
        title: None,
        severity: Severity::Info,
        decision,
    };
    let outcome = t.on_hook(report, &"");
    assert!(outcome.reply.accepted, "{event}: {:?}", outcome.reply);
    outcome.effects
}

/// The titles of the notifications `effects` create.
fn notified(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Publish(events) => Some(events.iter().filter_map(|e| match e {
                Event::NotificationCreated { notification, .. } => Some(notification.title.clone()),
                _ => None,
            })),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn qwen_codes_hooks_are_read_as_claude_codes_on_a_generic_pane() {
    let mut t = tracker(&["/opt/qwen/bin/qwen"]);
    let session = json!({"session_id": "s1"});
    hook(&mut t, "SessionStart", session.clone());
    let p = t.pane();
    assert_eq!(p.lifecycle, Lifecycle::Idle);
    assert_eq!(p.agent.kind, AgentKind::Generic, "it stays generic");
    assert_eq!(p.agent.agent_session_id.as_deref(), Some("s1"));
    assert_eq!(
        p.agent.resume_argv,
        Some(vec![
            "/opt/qwen/bin/qwen".to_owned(),
            "--resume".to_owned(),
            "s1".to_owned()
        ])
    );
    hook(&mut t, "UserPromptSubmit", session.clone());
    assert_eq!(t.pane().lifecycle, Lifecycle::Working);
    let asked = hook(
        &mut t,
        "PermissionRequest",
        json!({"session_id": "s1", "tool_name": "run_shell_command",
               "tool_input": {"command": "echo hello > out.txt"}}),
    );
    assert_eq!(t.pane().lifecycle, Lifecycle::Blocked);
    assert_eq!(t.pane().attention, Attention::PermissionRequired);
    assert_eq!(notified(&asked), ["Qwen Code needs approval"]);
    assert!(t.pane().pending_decision.is_some());
    // Qwen Code starts the model again after the tool with an empty prompt.
    hook(
        &mut t,
        "UserPromptSubmit",
        json!({"session_id": "s1", "prompt": ""}),
    );
    assert_eq!(t.pane().lifecycle, Lifecycle::Working);
    let done = hook(
        &mut t,
        "Stop",
        json!({"session_id": "s1", "last_assistant_message": "done: wrote out.txt"}),
    );
    assert_eq!(t.pane().lifecycle, Lifecycle::Done);
    assert_eq!(t.pane().attention, Attention::Unread);
    assert_eq!(
        t.pane().last_message.as_deref(),
        Some("done: wrote out.txt")
    );
    assert_eq!(notified(&done), ["Qwen Code turn complete"]);
}

#[test]
fn kilo_codes_plugin_events_are_read_as_opencodes_on_a_generic_pane() {
    let mut t = tracker(&["kilo"]);
    hook(&mut t, "session.created", json!({"session_id": "ses_1"}));
    assert_eq!(t.pane().lifecycle, Lifecycle::Idle);
    hook(
        &mut t,
        "session.status",
        json!({"session_id": "ses_1", "status": "busy"}),
    );
    assert_eq!(t.pane().lifecycle, Lifecycle::Working);
    hook(
        &mut t,
        "permission.asked",
        json!({"session_id": "ses_1", "id": "per_1"}),
    );
    assert_eq!(t.pane().lifecycle, Lifecycle::Blocked);
    hook(
        &mut t,
        "permission.replied",
        json!({"session_id": "ses_1", "reply": "once"}),
    );
    assert_eq!(t.pane().lifecycle, Lifecycle::Working);
    let idle = hook(&mut t, "session.idle", json!({"session_id": "ses_1"}));
    assert_eq!(t.pane().lifecycle, Lifecycle::Done);
    assert_eq!(notified(&idle), ["Kilo Code session idle"]);
    let p = t.pane();
    assert_eq!(p.agent.kind, AgentKind::Generic);
    assert_eq!(
        p.agent.resume_argv,
        Some(vec![
            "kilo".to_owned(),
            "--session".to_owned(),
            "ses_1".to_owned()
        ])
    );
}

#[test]
fn the_same_hooks_from_another_program_change_nothing() {
    let mut t = tracker(&["bash"]);
    hook(&mut t, "SessionStart", json!({"session_id": "s1"}));
    hook(&mut t, "UserPromptSubmit", json!({"session_id": "s1"}));
    assert_eq!(t.pane().lifecycle, Lifecycle::Unknown);
    assert_eq!(t.pane().agent.agent_session_id.as_deref(), Some("s1"));
    assert_eq!(t.pane().agent.resume_argv, None);
}
