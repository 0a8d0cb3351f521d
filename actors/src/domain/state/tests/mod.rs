//! The pure state engine against docs/states.md#attention-states,
//! docs/states.md#when-the-process-exits and the checks of
//! docs/states.md#how-to-test-it that need no server.

mod vocabulary;

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
        },
        lifecycle: Lifecycle::Unknown,
        last_lifecycle: Lifecycle::Unknown,
        lifecycle_since: Some(t.clone()),
        last_run_secs: None,
        attention: Attention::None,
        attention_since: None,
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

mod waits {
    use super::*;
    use crate::domain::state::progress::{Outcome, Progress, WaitError, evaluate};

    fn until(names: &[&str]) -> Vec<(String, Outcome)> {
        names
            .iter()
            .map(|n| (n.to_string(), Outcome::parse(n).expect("an outcome")))
            .collect()
    }

    /// Session generations (docs/states.md#the-progress-record).
    #[test]
    fn replacing_a_known_session_counts_generations_even_back_to_the_first() {
        let p = pane(AgentKind::Claude);
        let mut progress = Progress::start("i-1".into(), 5, &p);
        progress.session(Some("one"));
        assert_eq!(progress.session_generation, 0, "first discovery");
        let mut with_one = p.clone();
        with_one.agent.agent_session_id = Some("one".into());
        let at_zero = progress.baseline(&with_one);
        progress.session(Some("two"));
        progress.session(Some("two"));
        assert_eq!(progress.session_generation, 1);
        progress.session(Some("one"));
        assert_eq!(progress.session_generation, 2);
        assert_eq!(
            evaluate(
                Some(&with_one),
                Some(&progress),
                &until(&["done"]),
                Some(&at_zero)
            ),
            Err(WaitError::IdentityChanged("the agent session was replaced"))
        );
    }

    /// docs/states.md#waiting-after-a-baseline: an old `done` and a later
    /// attention change do not match; a `done` after the baseline matches
    /// although the pane is working again.
    #[test]
    fn a_match_needs_a_newer_transition_on_its_own_axis() {
        let mut p = pane(AgentKind::Claude);
        let mut progress = Progress::start("i-1".into(), 1, &p);
        p.lifecycle = Lifecycle::Done;
        progress.lifecycle(Lifecycle::Done, 2);
        let b = progress.baseline(&p);
        p.attention = Attention::Unread;
        progress.attention(Attention::Unread, 3);
        let done = until(&["done"]);
        assert_eq!(
            evaluate(Some(&p), Some(&progress), &done, Some(&b)),
            Ok(None)
        );
        progress.lifecycle(Lifecycle::Working, 4);
        progress.lifecycle(Lifecycle::Done, 5);
        progress.lifecycle(Lifecycle::Working, 6);
        p.lifecycle = Lifecycle::Working;
        let hit = evaluate(Some(&p), Some(&progress), &done, Some(&b))
            .expect("no error")
            .expect("satisfied");
        assert_eq!(hit.transition_seq, 5);
        // Without a baseline only the current state counts.
        assert_eq!(evaluate(Some(&p), Some(&progress), &done, None), Ok(None));
    }
}

/// The hook rows of docs/states.md#master-transition-table, with the exceptions
/// decided there, as one table: (agent, event, payload, from) → to. Every row
/// also checks that exactly the axes that moved emitted events.
mod master_table {
    use super::*;
    use crate::domain::state::apply::{Applied, HookInput, apply_hook};
    use serde_json::{Value, json};
    use signaltty_protocol::pane::Attention as A;
    use signaltty_protocol::pane::Lifecycle as L;

    struct Row {
        what: &'static str,
        agent: &'static str,
        event: &'static str,
        payload: Value,
        from: (L, A),
        to: (L, A),
    }

    fn row(
        what: &'static str,
        agent: &'static str,
        event: &'static str,
        payload: Value,
        from: (L, A),
        to: (L, A),
    ) -> Row {
        Row {
            what,
            agent,
            event,
            payload,
            from,
            to,
        }
    }

    fn rows() -> Vec<Row> {
        let s = json!({"session_id": "s"});
        let bg = json!({"session_id": "s", "background_tasks": [{"type": "subagent", "status": "running"}]});
        vec![
            row(
                "prompt clears attention",
                "claude",
                "UserPromptSubmit",
                s.clone(),
                (L::Done, A::Unread),
                (L::Working, A::None),
            ),
            row(
                "cursor prompt",
                "cursor",
                "beforeSubmitPrompt",
                json!({"conversation_id": "c"}),
                (L::Idle, A::Warning),
                (L::Working, A::None),
            ),
            row(
                "opencode busy",
                "opencode",
                "session.status",
                json!({"sessionID": "o", "status": "busy"}),
                (L::Done, A::Unread),
                (L::Working, A::None),
            ),
            row(
                "codex tool traffic",
                "codex",
                "PreToolUse",
                s.clone(),
                (L::Idle, A::None),
                (L::Working, A::None),
            ),
            row(
                "codex tool traffic while blocked",
                "codex",
                "PostToolUse",
                s.clone(),
                (L::Blocked, A::PermissionRequired),
                (L::Blocked, A::PermissionRequired),
            ),
            row(
                "cursor tool traffic while blocked",
                "cursor",
                "postToolUse",
                json!({"conversation_id": "c"}),
                (L::Blocked, A::PermissionRequired),
                (L::Blocked, A::PermissionRequired),
            ),
            row(
                "claude tool traffic",
                "claude",
                "PreToolUse",
                s.clone(),
                (L::Working, A::None),
                (L::Working, A::None),
            ),
            row(
                "claude permission",
                "claude",
                "PermissionRequest",
                json!({"session_id": "s", "tool_name": "Bash", "tool_input": {}}),
                (L::Working, A::None),
                (L::Blocked, A::PermissionRequired),
            ),
            row(
                "codex permission",
                "codex",
                "PermissionRequest",
                json!({"session_id": "s", "tool_name": "shell"}),
                (L::Working, A::None),
                (L::Blocked, A::PermissionRequired),
            ),
            row(
                "claude question",
                "claude",
                "Notification",
                json!({"session_id": "s", "notification_type": "agent_needs_input"}),
                (L::Working, A::None),
                (L::Blocked, A::InputRequired),
            ),
            row(
                "claude permission notification",
                "claude",
                "Notification",
                json!({"session_id": "s", "notification_type": "permission_prompt"}),
                (L::Working, A::None),
                (L::Blocked, A::PermissionRequired),
            ),
            row(
                "claude idle_prompt",
                "claude",
                "Notification",
                json!({"session_id": "s", "notification_type": "idle_prompt"}),
                (L::Done, A::Unread),
                (L::Done, A::Unread),
            ),
            row(
                "session start",
                "claude",
                "SessionStart",
                s.clone(),
                (L::Unknown, A::None),
                (L::Idle, A::None),
            ),
            row(
                "cursor session start",
                "cursor",
                "sessionStart",
                json!({"conversation_id": "c"}),
                (L::Unknown, A::None),
                (L::Idle, A::None),
            ),
            row(
                "opencode session created",
                "opencode",
                "session.created",
                json!({"sessionID": "o"}),
                (L::Unknown, A::None),
                (L::Idle, A::None),
            ),
            row(
                "claude turn end",
                "claude",
                "Stop",
                s.clone(),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "codex notify turn end",
                "codex",
                "agent-turn-complete",
                json!({"thread-id": "t"}),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "cursor turn end",
                "cursor",
                "stop",
                json!({"conversation_id": "c", "status": "completed"}),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "opencode idle",
                "opencode",
                "session.idle",
                json!({"sessionID": "o"}),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "claude stop with a running subagent",
                "claude",
                "Stop",
                bg,
                (L::Working, A::None),
                (L::Working, A::None),
            ),
            row(
                "cursor aborted",
                "cursor",
                "stop",
                json!({"conversation_id": "c", "status": "aborted"}),
                (L::Working, A::None),
                (L::Idle, A::None),
            ),
            row(
                "cursor error",
                "cursor",
                "stop",
                json!({"conversation_id": "c", "status": "error"}),
                (L::Working, A::None),
                (L::Failed, A::Error),
            ),
            row(
                "opencode idle after an error",
                "opencode",
                "session.idle",
                json!({"sessionID": "o"}),
                (L::Failed, A::Error),
                (L::Failed, A::Error),
            ),
            row(
                "opencode error",
                "opencode",
                "session.error",
                json!({"sessionID": "o", "message": "boom"}),
                (L::Working, A::None),
                (L::Failed, A::Error),
            ),
            row(
                "session end mid-turn",
                "claude",
                "SessionEnd",
                s.clone(),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "session end after review",
                "claude",
                "SessionEnd",
                s.clone(),
                (L::Done, A::None),
                (L::Done, A::None),
            ),
            row(
                "session end after a failure",
                "cursor",
                "sessionEnd",
                json!({"conversation_id": "c"}),
                (L::Failed, A::Error),
                (L::Failed, A::Error),
            ),
            // Issue 16 (unlike the reference design's row, which kept the
            // question's attention): the agent left its question, answered in
            // its own UI or dropped, so it is withdrawn; the turn end raises
            // unread.
            row(
                "a turn end after the question was left withdraws it",
                "claude",
                "Stop",
                s.clone(),
                (L::Blocked, A::PermissionRequired),
                (L::Done, A::Unread),
            ),
            row(
                "an interrupt at the question ends idle with the question withdrawn",
                "codex",
                "Interrupt",
                json!({"session_id": "c"}),
                (L::Blocked, A::PermissionRequired),
                (L::Idle, A::None),
            ),
            row(
                "opencode's permission.replied: answered in its own UI",
                "opencode",
                "permission.replied",
                json!({"sessionID": "o"}),
                (L::Blocked, A::PermissionRequired),
                (L::Working, A::None),
            ),
            row(
                "pi's extension: a turn starts",
                "pi",
                "agent_start",
                json!({"session_id": "p"}),
                (L::Idle, A::None),
                (L::Working, A::None),
            ),
            row(
                "pi's extension: the turn ends",
                "pi",
                "agent_end",
                json!({"session_id": "p"}),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "pi: unknown extension events change nothing",
                "pi",
                "message_update",
                json!({"session_id": "p"}),
                (L::Working, A::None),
                (L::Working, A::None),
            ),
            row(
                "gemini: a prompt starts a turn",
                "gemini",
                "BeforeAgent",
                json!({"session_id": "g"}),
                (L::Idle, A::None),
                (L::Working, A::None),
            ),
            row(
                "gemini: ToolPermission blocks",
                "gemini",
                "Notification",
                json!({"session_id": "g", "notification_type": "ToolPermission", "message": "Tool Confirm Shell Command requires execution"}),
                (L::Working, A::None),
                (L::Blocked, A::PermissionRequired),
            ),
            row(
                "gemini: AfterTool ends a permission wait",
                "gemini",
                "AfterTool",
                json!({"session_id": "g"}),
                (L::Blocked, A::PermissionRequired),
                (L::Working, A::None),
            ),
            row(
                "gemini: AfterTool outside a wait changes nothing",
                "gemini",
                "AfterTool",
                json!({"session_id": "g"}),
                (L::Working, A::None),
                (L::Working, A::None),
            ),
            row(
                "gemini: AfterAgent ends the turn",
                "gemini",
                "AfterAgent",
                json!({"session_id": "g", "prompt_response": "done: wrote out.txt"}),
                (L::Working, A::None),
                (L::Done, A::Unread),
            ),
            row(
                "generic hooks change no state",
                "generic",
                "Stop",
                s,
                (L::Working, A::None),
                (L::Working, A::None),
            ),
        ]
    }

    #[test]
    fn every_hook_row_of_the_master_table_holds() {
        for r in rows() {
            let mut p = pane(AgentKind::Generic);
            (p.lifecycle, p.attention) = r.from;
            let input = HookInput {
                kind: AgentKind::parse(r.agent).expect("a kind"),
                agent: r.agent,
                event: r.event,
                payload: &r.payload,
                message: None,
                title: None,
                severity: Severity::Info,
                decision: None,
                notification_id: "notif_x".into(),
                overlay: None,
            };
            let Applied::Accepted(events) = apply_hook(&mut p, &input, at(5)) else {
                panic!("{}: dropped", r.what);
            };
            assert_eq!((p.lifecycle, p.attention), r.to, "{}", r.what);
            let moved = events.iter().any(|e| e.name().starts_with("agent."));
            assert_eq!(
                moved,
                r.from.0 != r.to.0,
                "{}: agent.* iff the lifecycle moved",
                r.what
            );
            let raised = events.iter().any(|e| e.name().starts_with("attention."));
            assert_eq!(
                raised,
                r.from.1 != r.to.1,
                "{}: attention.* iff attention moved",
                r.what
            );
        }
    }

    #[test]
    fn drops_change_nothing() {
        let mut p = pane(AgentKind::Generic);
        let payload = json!({"agent": "codex"});
        let input = HookInput {
            kind: AgentKind::Claude,
            agent: "claude",
            event: "Stop",
            payload: &payload,
            message: None,
            title: None,
            severity: Severity::Info,
            decision: None,
            notification_id: "n".into(),
            overlay: None,
        };
        let before = p.clone();
        assert_eq!(
            apply_hook(&mut p, &input, at(1)),
            Applied::Dropped("harness_mismatch")
        );
        let empty = json!({});
        let unknown = HookInput {
            event: "Nope",
            payload: &empty,
            ..input
        };
        assert_eq!(
            apply_hook(&mut p, &unknown, at(1)),
            Applied::Dropped("unrecognized_hook")
        );
        assert_eq!(p, before);
    }
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

/// Screen rules applied (docs/screen-rules.md#what-the-winning-rule-does,
/// docs/screen-rules.md#withdrawing-a-screen-question).
mod screen_rules {
    use super::*;
    use crate::domain::state::apply::apply_screen;
    use signaltty_model::agents::screen::ScreenState;

    #[test]
    fn working_then_idle_ends_the_turn_and_blocked_raises_a_withdrawable_question() {
        let mut p = pane(AgentKind::Claude);
        let mut raised = false;
        apply_screen(
            &mut p,
            ScreenState::Working,
            "live_turn_working",
            &mut raised,
            true,
            at(1),
        );
        assert_eq!(
            (p.lifecycle, p.attention),
            (Lifecycle::Working, Attention::None)
        );
        let events = apply_screen(
            &mut p,
            ScreenState::Idle,
            "live_prompt_box",
            &mut raised,
            true,
            at(2),
        );
        assert_eq!(
            (p.lifecycle, p.attention),
            (Lifecycle::Done, Attention::Unread)
        );
        assert_eq!(names(&events), ["agent.done", "attention.created"]);

        let mut p = pane(AgentKind::Claude);
        p.lifecycle = Lifecycle::Working;
        apply_screen(
            &mut p,
            ScreenState::Blocked,
            "bash_permission_prompt",
            &mut raised,
            true,
            at(3),
        );
        assert_eq!(
            (p.lifecycle, p.attention, raised),
            (Lifecycle::Blocked, Attention::InputRequired, true)
        );
        // Idle after blocked: idle, and the screen's question withdrawn.
        let events = apply_screen(
            &mut p,
            ScreenState::Idle,
            "live_prompt_box",
            &mut raised,
            true,
            at(4),
        );
        assert_eq!(
            (p.lifecycle, p.attention, raised),
            (Lifecycle::Idle, Attention::None, false)
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::AttentionCleared { reason, .. } if reason == "screen"))
        );
        // Hold and an idle on a quiet pane change nothing.
        assert!(
            apply_screen(
                &mut p,
                ScreenState::Hold,
                "transcript_viewer",
                &mut raised,
                true,
                at(5)
            )
            .is_empty()
        );
        assert!(
            apply_screen(
                &mut p,
                ScreenState::Idle,
                "idle_fallback",
                &mut raised,
                true,
                at(6)
            )
            .is_empty()
        );
    }

    #[test]
    fn a_prompt_on_the_screen_of_a_fresh_agent_makes_it_idle_and_nothing_more() {
        let mut p = pane(AgentKind::Codex);
        assert_eq!(p.lifecycle, Lifecycle::Unknown);
        let mut raised = false;
        let events = apply_screen(
            &mut p,
            ScreenState::Idle,
            "idle_fallback",
            &mut raised,
            true,
            at(1),
        );
        assert_eq!(
            (p.lifecycle, p.attention, raised),
            (Lifecycle::Idle, Attention::None, false)
        );
        assert_eq!(names(&events), ["agent.idle"]);
    }

    #[test]
    fn work_before_the_agent_was_ready_ends_idle_unless_something_was_typed() {
        for (prompted, end) in [
            (false, (Lifecycle::Idle, Attention::None)),
            (true, (Lifecycle::Done, Attention::Unread)),
        ] {
            let mut p = pane(AgentKind::Codex);
            let mut raised = false;
            apply_screen(
                &mut p,
                ScreenState::Working,
                "osc_title_working",
                &mut raised,
                prompted,
                at(1),
            );
            assert_eq!(p.lifecycle, Lifecycle::Working);
            apply_screen(
                &mut p,
                ScreenState::Idle,
                "osc_title_idle",
                &mut raised,
                prompted,
                at(2),
            );
            assert_eq!((p.lifecycle, p.attention), end, "prompted: {prompted}");
        }
    }

    #[test]
    fn leaving_blocked_keeps_a_question_the_screen_did_not_raise() {
        let mut p = pane(AgentKind::Claude);
        p.lifecycle = Lifecycle::Blocked;
        p.attention = Attention::PermissionRequired;
        let mut raised = false;
        apply_screen(
            &mut p,
            ScreenState::Working,
            "live_turn_working",
            &mut raised,
            true,
            at(1),
        );
        assert_eq!(
            (p.lifecycle, p.attention),
            (Lifecycle::Working, Attention::PermissionRequired)
        );
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

/// Decisions on a pane (docs/decisions.md#every-way-a-decision-ends, the
/// decision rows of docs/states.md#master-transition-table).
mod decisions {
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
        let payload =
            json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
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
        p.pending_decision = Some(decision("d1"));
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
        p.pending_decision = Some(decision("d1"));
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
        p.pending_decision = Some(decision("d1"));
        hook(&mut p, "claude", "Stop", &json!({}), None);
        assert_eq!(p.lifecycle, Lifecycle::Done);
        assert_eq!(pending(&p), Some("d1"), "a turn end never drops it");
        // Tool traffic on a blocked pane changes nothing (H4).
        let mut p = pane(AgentKind::Codex);
        (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::PermissionRequired);
        p.pending_decision = Some(decision("d1"));
        let events = hook(&mut p, "codex", "PostToolUse", &json!({}), None);
        assert_eq!(p.lifecycle, Lifecycle::Blocked);
        assert_eq!(pending(&p), Some("d1"));
        assert!(!events.iter().any(|e| e.name().starts_with("decision.")));
    }

    #[test]
    fn answering_consumes_once_and_acknowledges() {
        let mut p = pane(AgentKind::Codex);
        (p.lifecycle, p.attention) = (Lifecycle::Blocked, Attention::InputRequired);
        p.pending_decision = Some(decision("d1"));
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
        p.pending_decision = Some(decision("d1"));
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
}
