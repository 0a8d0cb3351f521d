//! Tests of a pane's pending decision
//! (docs/decisions.md#every-way-a-decision-ends, the decision rows of
//! docs/states.md#master-transition-table): how a permission request sets it
//! and each way it ends.

use super::*;
use crate::domain::state::apply::{Applied, HookInput, apply_hook};
use crate::domain::state::decision::NativeRequest;
use serde_json::{Value, json};
use signaltty_protocol::state::{Decision, DecisionOption};

fn decision(id: &str) -> Decision {
    Decision {
        id: id.into(),
        prompt: "Proceed?".into(),
        options: vec![
            DecisionOption {
                id: "yes".into(),
                label: "Yes".into(),
            },
            DecisionOption {
                id: "no".into(),
                label: "No".into(),
            },
        ],
        answerable: true,
        received_at: at(1),
    }
}

fn hook(
    p: &mut Pane,
    agent: &str,
    event: &str,
    payload: &Value,
    d: Option<&Decision>,
) -> Vec<Event> {
    let input = HookInput {
        kind: AgentKind::parse(agent).expect("a kind"),
        agent,
        event,
        payload,
        message: None,
        title: None,
        severity: Severity::Info,
        decision: d,
        notification_id: "n".into(),
        overlay: None,
    };
    match apply_hook(p, &input, at(5)) {
        Applied::Accepted(events) => events,
        Applied::Dropped(why) => panic!("{event} dropped: {why}"),
    }
}

fn pending(p: &Pane) -> Option<&str> {
    p.pending_decision.as_ref().map(|d| d.id.as_str())
}

/// Issue 16: leaving a question withdraws its attention, except while the
/// question is still pending as a decision and the agent does not work
/// again (a turn end never drops an unanswered decision).
#[test]
fn a_turn_end_keeps_the_attention_of_a_still_pending_decision() {
    let mut p = pane(AgentKind::Claude);
    let d = decision("ask_1");
    hook(
        &mut p,
        "claude",
        "PermissionRequest",
        &json!({"session_id": "s"}),
        Some(&d),
    );
    assert_eq!(p.attention, Attention::PermissionRequired);
    hook(&mut p, "claude", "Stop", &json!({"session_id": "s"}), None);
    assert_eq!(
        (p.lifecycle, p.attention, pending(&p)),
        (
            Lifecycle::Done,
            Attention::PermissionRequired,
            Some("ask_1")
        )
    );
    // Working again: the agent moved on, decision and attention both go.
    hook(
        &mut p,
        "claude",
        "UserPromptSubmit",
        &json!({"session_id": "s"}),
        None,
    );
    assert_eq!((p.attention, pending(&p)), (Attention::None, None));
}

#[test]
fn a_permission_request_sets_the_decision_and_a_second_supersedes_it_in_one_event() {
    let mut p = pane(AgentKind::Claude);
    p.lifecycle = Lifecycle::Working;
    let payload = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let Some(request) = NativeRequest::parse(AgentKind::Claude, &payload) else {
        panic!("valid payload");
    };
    let first = request.decision("permission_1".into(), false, at(1));
    let events = hook(
        &mut p,
        "claude",
        "PermissionRequest",
        &payload,
        Some(&first),
    );
    assert_eq!(
        (p.lifecycle, p.attention),
        (Lifecycle::Blocked, Attention::PermissionRequired)
    );
    assert_eq!(pending(&p), Some("permission_1"));
    // The adapter's message wins over the prompt (H8); the prompt is in the decision.
    assert!(p.last_message.is_some());
    match events.iter().find(|e| e.name() == "decision.created") {
        Some(Event::DecisionCreated {
            prev,
            decision,
            pane,
            ..
        }) => {
            assert_eq!(*prev, None);
            assert_eq!(decision.id, "permission_1");
            assert_eq!(pending(pane), Some("permission_1"));
        },
        other => panic!("{other:?}"),
    }
    let second = decision("d2");
    let events = hook(&mut p, "claude", "Notification", &json!({}), Some(&second));
    let created: Vec<_> = events
        .iter()
        .filter(|e| e.name().starts_with("decision."))
        .collect();
    assert_eq!(created.len(), 1, "one event for a supersede: {created:?}");
    match created[0] {
        Event::DecisionCreated { prev, .. } => {
            assert_eq!(prev.as_deref(), Some("permission_1"))
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(pending(&p), Some("d2"));
}

#[test]
fn a_submitted_prompt_clears_the_decision_with_attention_cleared() {
    let mut p = pane(AgentKind::Claude);
    (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::PermissionRequired);
    p.pending_decision = Some(Box::new(decision("d1")));
    let events = hook(&mut p, "claude", "UserPromptSubmit", &json!({}), None);
    assert_eq!(pending(&p), None);
    let cleared = events.iter().find_map(|e| match e {
        Event::DecisionCleared {
            decision_id,
            reason,
            ..
        } => Some((decision_id.as_str(), reason.as_str())),
        _ => None,
    });
    assert_eq!(cleared, Some(("d1", "attention_cleared")));
}

#[test]
fn going_back_to_work_moves_on_while_a_turn_end_or_tool_traffic_keeps_it() {
    // Codex tool traffic from idle moves the pane to working: moved on.
    let mut p = pane(AgentKind::Codex);
    p.lifecycle = Lifecycle::Idle;
    p.pending_decision = Some(Box::new(decision("d1")));
    let events = hook(&mut p, "codex", "PreToolUse", &json!({}), None);
    assert_eq!(p.lifecycle, Lifecycle::Working);
    assert!(
        events.iter().any(|e| matches!(e,
            Event::DecisionCleared { reason, .. } if reason == "moved_on")),
        "{events:?}"
    );
    // A turn end keeps an unanswered decision.
    let mut p = pane(AgentKind::Claude);
    (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::PermissionRequired);
    p.pending_decision = Some(Box::new(decision("d1")));
    hook(&mut p, "claude", "Stop", &json!({}), None);
    assert_eq!(p.lifecycle, Lifecycle::Done);
    assert_eq!(pending(&p), Some("d1"), "a turn end never drops it");
    // Tool traffic on a blocked pane changes nothing (H4).
    let mut p = pane(AgentKind::Codex);
    (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::PermissionRequired);
    p.pending_decision = Some(Box::new(decision("d1")));
    let events = hook(&mut p, "codex", "PostToolUse", &json!({}), None);
    assert_eq!(p.lifecycle, Lifecycle::Blocked);
    assert_eq!(pending(&p), Some("d1"));
    assert!(!events.iter().any(|e| e.name().starts_with("decision.")));
}

#[test]
fn answering_consumes_once_and_acknowledges() {
    let mut p = pane(AgentKind::Codex);
    (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::InputRequired);
    p.pending_decision = Some(Box::new(decision("d1")));
    let mut axes = Axes::new(&mut p, at(2));
    assert!(axes.consume_decision("other", "yes").is_none());
    assert!(axes.consume_decision("d1", "yes").is_some());
    assert!(
        axes.consume_decision("d1", "yes").is_none(),
        "a second answer finds nothing"
    );
    let events = axes.into_events();
    assert_eq!(names(&events), ["decision.answered", "attention.cleared"]);
    match &events[1] {
        Event::AttentionCleared { reason, .. } => assert_eq!(reason, "decision_answer"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p.lifecycle,
        Lifecycle::Blocked,
        "only a delivered answer moves it"
    );
}

#[test]
fn exit_clears_the_decision_after_the_attention_event() {
    let mut p = pane(AgentKind::Claude);
    (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::PermissionRequired);
    p.pending_decision = Some(Box::new(decision("d1")));
    let mut axes = Axes::new(&mut p, at(3));
    axes.exit(Some(0));
    let events = axes.into_events();
    assert_eq!(
        names(&events),
        ["agent.exited", "attention.updated", "decision.cleared"]
    );
    match &events[2] {
        Event::DecisionCleared { reason, .. } => assert_eq!(reason, "pane_exited"),
        other => panic!("{other:?}"),
    }
}
