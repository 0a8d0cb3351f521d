//! The pure state engine against docs/states.md#attention-states,
//! docs/states.md#when-the-process-exits and the checks of
//! docs/states.md#how-to-test-it that need no server. The hook table, the
//! screen rules, decisions, waits and the hook vocabulary have files of their
//! own.

mod decisions;
mod master_table;
mod screen_rules;
mod vocabulary;
mod waits;

use super::*;
use signaltty_protocol::pane::{
    AgentInfo, AgentKind, Attention, Lifecycle, LiveState, Pane, PtySize, RestoreState,
};
use signaltty_protocol::state::Severity;
use signaltty_protocol::{Event, PaneId, TabId, Timestamp, WorkspaceId};

pub(crate) fn pane(kind: AgentKind) -> Pane {
    let t = Timestamp::from_unix_millis(1_000_000);
    Pane {
        id: PaneId("pane_1".into()),
        workspace_id: WorkspaceId("ws_1".into()),
        tab_id: TabId("tab_1".into()),
        name: None,
        title: "sh".into(),
        cwd: "/".into(),
        argv: vec!["sh".into()],
        pty_size: PtySize::DEFAULT,
        live: LiveState::Live,
        restore_state: RestoreState::Live,
        agent: AgentInfo {
            kind,
            agent_session_id: None,
            resume_argv: None,
            model: None,
            config_env: None,
            version: None,
            fidelity: None,
        },
        lifecycle: Lifecycle::Unknown,
        last_lifecycle: Lifecycle::Unknown,
        lifecycle_since: Some(t.clone()),
        last_run_secs: None,
        attention: Attention::None,
        attention_since: None,
        resets_at: None,
        last_message: None,
        created_at: t.clone(),
        last_activity_at: t,
        last_seen_at: None,
        parent_pane_id: None,
        root_pane_id: None,
        label: None,
        relationship: None,
        task_id: None,
        pending_decision: None,
        hibernation: None,
    }
}

fn at(secs: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_000_000 + secs * 1000)
}

fn names(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(Event::name).collect()
}

#[test]
fn setting_the_same_lifecycle_emits_nothing_and_a_change_carries_prev() {
    let mut p = pane(AgentKind::Claude);
    let mut axes = Axes::new(&mut p, at(1));
    assert!(axes.set_lifecycle(Lifecycle::Working, "hook:claude:UserPromptSubmit"));
    assert!(!axes.set_lifecycle(Lifecycle::Working, "hook:claude:PreToolUse"));
    let events = axes.into_events();
    assert_eq!(names(&events), ["agent.working"]);

    let mut axes = Axes::new(&mut p, at(75));
    axes.set_lifecycle(Lifecycle::Done, "hook:claude:Stop");
    let events = axes.into_events();
    match &events[0] {
        Event::AgentDone {
            lifecycle,
            prev,
            source,
            pane,
            ..
        } => {
            assert_eq!((*lifecycle, *prev), (Lifecycle::Done, Lifecycle::Working));
            assert_eq!(source, "hook:claude:Stop");
            assert_eq!(pane.last_lifecycle, Lifecycle::Working);
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(p.last_run_secs, Some(74), "leaving working records the run");
    assert_eq!(p.lifecycle_since, Some(at(75)));
}

#[test]
fn raise_creates_then_updates_and_never_lowers() {
    let mut p = pane(AgentKind::Generic);
    let mut axes = Axes::new(&mut p, at(1));
    assert!(axes.raise(Attention::Unread));
    assert!(axes.raise(Attention::Error));
    assert!(!axes.raise(Attention::Unread));
    assert!(!axes.raise(Attention::Error));
    let events = axes.into_events();
    assert_eq!(names(&events), ["attention.created", "attention.updated"]);
    match &events[1] {
        Event::AttentionUpdated {
            attention, prev, ..
        } => {
            assert_eq!((*attention, *prev), (Attention::Error, Attention::Unread));
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(p.attention, Attention::Error);
    assert_eq!(p.attention_since, Some(at(1)));
}

#[test]
fn mark_seen_clears_unless_a_decision_is_pending() {
    let mut p = pane(AgentKind::Claude);
    let mut axes = Axes::new(&mut p, at(1));
    axes.raise(Attention::PermissionRequired);
    assert!(
        !axes.acknowledge("mark_seen", true),
        "a pending decision keeps attention"
    );
    assert_eq!(axes.pane.attention, Attention::PermissionRequired);
    assert_eq!(axes.pane.last_seen_at, Some(at(1)));
    assert!(axes.acknowledge("mark_seen", false));
    assert!(
        !axes.acknowledge("mark_seen", false),
        "already none: no event"
    );
    let events = axes.into_events();
    assert_eq!(names(&events), ["attention.created", "attention.cleared"]);
    match &events[1] {
        Event::AttentionCleared { reason, pane, .. } => {
            assert_eq!(reason, "mark_seen");
            assert_eq!(pane.attention, Attention::None);
            assert_eq!(pane.attention_since, None);
        },
        other => panic!("{other:?}"),
    }
}

/// The exit attention rules (docs/states.md#when-the-process-exits).
#[test]
fn exit_lowers_questions_keeps_reviewed_turns_quiet_and_raises_otherwise() {
    // A blocked pane with an open question: the question becomes unread.
    let mut p = pane(AgentKind::Claude);
    p.lifecycle = Lifecycle::Blocked;
    p.attention = Attention::PermissionRequired;
    let mut axes = Axes::new(&mut p, at(1));
    axes.exit(Some(0));
    let events = axes.into_events();
    assert_eq!(names(&events), ["agent.exited", "attention.updated"]);
    assert_eq!(p.attention, Attention::Unread);
    assert_eq!(p.last_lifecycle, Lifecycle::Blocked);

    // A reviewed done pane stays quiet.
    let mut p = pane(AgentKind::Claude);
    p.lifecycle = Lifecycle::Done;
    let mut axes = Axes::new(&mut p, at(1));
    axes.exit(Some(0));
    assert_eq!(names(&axes.into_events()), ["agent.exited"]);
    assert_eq!(p.attention, Attention::None);

    // A working pane exits: unread.
    let mut p = pane(AgentKind::Codex);
    p.lifecycle = Lifecycle::Working;
    let mut axes = Axes::new(&mut p, at(1));
    axes.exit(None);
    assert_eq!(
        names(&axes.into_events()),
        ["agent.exited", "attention.created"]
    );
    assert_eq!(p.attention, Attention::Unread);
}

/// A pane with no agent ends `done` or `failed`
/// (docs/states.md#when-the-process-exits).
#[test]
fn a_pane_with_no_agent_ends_done_or_failed_by_its_exit_code() {
    for (kind, code, expected) in [
        (AgentKind::Generic, Some(0), Lifecycle::Done),
        (AgentKind::Generic, Some(1), Lifecycle::Failed),
        (AgentKind::None, Some(137), Lifecycle::Failed),
        (AgentKind::Generic, None, Lifecycle::Failed),
        (AgentKind::Pi, Some(0), Lifecycle::Exited),
    ] {
        let mut p = pane(kind);
        Axes::new(&mut p, at(1)).exit(code);
        assert_eq!(p.lifecycle, expected, "{kind:?} {code:?}");
        assert_eq!(p.attention, Attention::Unread);
    }
}

#[test]
fn a_notification_sets_the_message_by_the_notify_rule_and_raises_by_severity() {
    let mut p = pane(AgentKind::Generic);
    let now = at(3);
    let long = "x".repeat(400);
    let draft = |title, body, severity, source: &str| Draft {
        title,
        draft_title: None,
        body,
        severity,
        source: source.to_owned(),
    };
    let explicit = NewNotification::new(
        "notif_1".into(),
        &p,
        draft(Some("Build"), &long, Severity::Warning, "cli"),
        now.clone(),
    );
    let mut axes = Axes::new(&mut p, now.clone());
    axes.notify(explicit);
    let events = axes.into_events();
    assert_eq!(
        names(&events),
        ["notification.created", "attention.created"]
    );
    let message = p.last_message.clone().unwrap_or_default();
    assert!(message.starts_with("Build: xxx"), "{message}");
    assert!(message.ends_with('…'));
    assert_eq!(message.chars().count(), "Build: ".len() + 300 + 1);
    assert_eq!(p.attention, Attention::Warning);

    // No explicit title: the body alone; an empty body keeps the message.
    let osc = NewNotification::new(
        "n2".into(),
        &p,
        draft(None, "done \x1b[31mnow\x1b[0m", Severity::Info, "osc9"),
        now.clone(),
    );
    assert_eq!(osc.notification.title, "signaltty");
    assert_eq!(osc.last_message(Some("old")), Some("done now".into()));
    let empty = NewNotification::new(
        "n3".into(),
        &p,
        draft(Some("T"), "  ", Severity::Info, "cli"),
        now,
    );
    assert_eq!(empty.notification.body, None);
    assert_eq!(empty.last_message(Some("old")), None);
    assert_eq!(empty.last_message(None), Some("T".into()));
}

/// docs/states.md#turns: `agent.working` from `blocked` continues the turn;
/// from any other state it starts one.
#[test]
fn working_starts_a_turn_unless_it_resumes_from_blocked() {
    for prev in Lifecycle::ALL {
        let mut p = pane(AgentKind::Claude);
        p.lifecycle = prev;
        let mut axes = Axes::new(&mut p, at(1));
        axes.set_lifecycle(Lifecycle::Working, "hook:claude:UserPromptSubmit");
        let events = axes.into_events();
        let starts = events.iter().any(crate::domain::state::starts_turn);
        let expected = !matches!(prev, Lifecycle::Blocked | Lifecycle::Working);
        assert_eq!(starts, expected, "from {prev:?}");
    }
}

/// docs/agents.md#how-a-manifest-overlays-an-adapter: an overlay's hook fields
/// lay over the adapter's decision, its session key and resume template win,
/// unmapped hooks fall through.
#[test]
fn a_manifest_overlay_overrides_field_by_field() {
    use crate::domain::state::apply::{Applied, HookInput, apply_hook};
    use serde_json::json;
    use signaltty_model::agents::manifest::Manifest;
    let m = Manifest::parse(
        "wrap.toml",
        "[agent]\nkind = \"codex\"\n[session]\nkey = \"thread\"\nresume = [\"cx\", \"--resume\", \"{session_id}\"]\n[lifecycle.Stop]\nattention = \"warning\"\n[lifecycle.FutureHook]\nlifecycle = \"blocked\"\nmessage = \"future\"\n",
        false,
    )
    .expect("valid");
    let mut p = pane(AgentKind::Generic);
    p.lifecycle = Lifecycle::Working;
    let payload = json!({"thread": "t-9", "last_assistant_message": "ok"});
    let input = |event: &'static str| HookInput {
        kind: AgentKind::Codex,
        agent: "codex",
        event,
        payload: &payload,
        message: None,
        title: None,
        severity: Severity::Info,
        decision: None,
        notification_id: "n".into(),
        overlay: Some(&m),
    };
    assert!(matches!(
        apply_hook(&mut p, &input("Stop"), at(1)),
        Applied::Accepted(_)
    ));
    assert_eq!(
        p.lifecycle,
        Lifecycle::Done,
        "lifecycle falls through to the adapter"
    );
    assert_eq!(
        p.attention,
        Attention::Warning,
        "attention from the overlay"
    );
    assert_eq!(p.agent.agent_session_id.as_deref(), Some("t-9"));
    assert_eq!(
        p.agent.resume_argv,
        Some(vec!["cx".into(), "--resume".into(), "t-9".into()])
    );
    assert!(matches!(
        apply_hook(&mut p, &input("FutureHook"), at(2)),
        Applied::Accepted(_)
    ));
    assert_eq!(
        (p.lifecycle, p.last_message.as_deref()),
        (Lifecycle::Blocked, Some("future"))
    );
}

#[test]
fn reading_a_pane_at_its_usage_limit_keeps_the_wait() {
    // docs/states.md#usage-limits: the wait is a state, not news.
    let mut p = pane(AgentKind::Claude);
    let mut axes = Axes::new(&mut p, at(1));
    axes.rate_limit(Some(at(9)), "screen:limit");
    assert!(!axes.acknowledge("mark_seen", false));
    assert_eq!(axes.pane.attention, Attention::RateLimited);
    assert_eq!(axes.pane.resets_at, Some(at(9)));
    // A question outranks the wait, and the reset time goes with it.
    axes.raise(Attention::InputRequired);
    assert_eq!(axes.pane.resets_at, None);
}
