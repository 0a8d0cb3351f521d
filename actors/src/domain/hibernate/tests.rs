//! Tests of the hibernation rules: each rule that keeps a pane awake, the
//! idle time, and the adapters' stops.

use super::*;
use signaltty_protocol::state::Decision;

const AFTER: Duration = Duration::from_secs(30);

/// A live, idle Claude pane with a session and its resume command.
fn idle() -> Pane {
    let mut p = crate::domain::state::tests::pane(AgentKind::Claude);
    p.live = LiveState::Live;
    p.lifecycle = Lifecycle::Idle;
    p.attention = Attention::None;
    p.agent.agent_session_id = Some("s1".into());
    p.agent.resume_argv = Some(vec!["claude".into(), "--resume".into(), "s1".into()]);
    p
}

fn quiet(for_s: u64) -> Facts {
    Facts {
        after: AFTER,
        quiet_for: Duration::from_secs(for_s),
        ..Facts::default()
    }
}

#[test]
fn an_idle_agent_with_a_session_is_due_once_quiet_for_the_workspaces_time() {
    assert_eq!(verdict(&idle(), &quiet(30)), Verdict::Due);
    assert_eq!(verdict(&idle(), &quiet(31)), Verdict::Due);
    assert_eq!(
        verdict(&idle(), &quiet(10)),
        Verdict::Wait(Duration::from_secs(20))
    );
    let mut done = idle();
    done.lifecycle = Lifecycle::Done;
    assert_eq!(verdict(&done, &quiet(30)), Verdict::Due);
}

#[test]
fn a_workspace_with_hibernation_off_never_hibernates() {
    let f = Facts {
        after: Duration::ZERO,
        quiet_for: Duration::from_secs(1_000_000),
        ..Facts::default()
    };
    assert_eq!(verdict(&idle(), &f), Verdict::Off);
}

#[test]
fn a_working_or_blocked_or_unknown_agent_is_kept_awake() {
    for (lifecycle, keep) in [
        (Lifecycle::Working, Keep::Working),
        (Lifecycle::Blocked, Keep::Blocked),
        (Lifecycle::Unknown, Keep::NotIdle(Lifecycle::Unknown)),
        (Lifecycle::Failed, Keep::NotIdle(Lifecycle::Failed)),
    ] {
        let mut p = idle();
        p.lifecycle = lifecycle;
        assert_eq!(verdict(&p, &quiet(3600)), Verdict::Never(keep));
    }
}

#[test]
fn a_pending_decision_or_unseen_attention_keeps_it_awake() {
    let mut p = idle();
    p.pending_decision = Some(Box::new(Decision {
        id: "d1".into(),
        prompt: "allow?".into(),
        options: Vec::new(),
        answerable: true,
        received_at: signaltty_protocol::Timestamp::now(),
    }));
    assert_eq!(verdict(&p, &quiet(3600)), Verdict::Never(Keep::Decision));
    let mut p = idle();
    p.lifecycle = Lifecycle::Done;
    p.attention = Attention::Unread;
    assert_eq!(
        verdict(&p, &quiet(3600)),
        Verdict::Never(Keep::Attention(Attention::Unread))
    );
}

#[test]
fn a_viewer_unsent_input_or_a_waiting_task_keeps_it_awake() {
    let cases = [
        (
            Facts {
                viewer: true,
                ..quiet(3600)
            },
            Keep::Viewer,
        ),
        (
            Facts {
                unsent_input: true,
                ..quiet(3600)
            },
            Keep::UnsentInput,
        ),
        (
            Facts {
                task_waits: true,
                ..quiet(3600)
            },
            Keep::TaskWaits,
        ),
    ];
    for (facts, keep) in cases {
        assert_eq!(verdict(&idle(), &facts), Verdict::Never(keep));
    }
}

#[test]
fn no_session_or_no_exact_resume_command_or_no_process_keeps_it_awake() {
    let mut p = idle();
    p.agent.agent_session_id = None;
    assert_eq!(verdict(&p, &quiet(3600)), Verdict::Never(Keep::NoSession));
    let mut p = idle();
    p.agent.resume_argv = None;
    assert_eq!(verdict(&p, &quiet(3600)), Verdict::Never(Keep::NoSession));
    let mut p = idle();
    p.live = LiveState::Exited { code: Some(0) };
    assert_eq!(verdict(&p, &quiet(3600)), Verdict::Never(Keep::NotLive));
}

#[test]
fn every_rule_says_itself_in_words() {
    assert_eq!(Keep::Viewer.words(), "a viewer is attached");
    assert!(
        Keep::NotIdle(Lifecycle::Unknown)
            .words()
            .contains("unknown")
    );
    assert!(reason(&idle(), AFTER).contains("idle for 30 s"));
    assert!(reason(&idle(), AFTER).contains("session s1"));
}

#[test]
fn interactive_agents_quit_on_two_ctrl_c_and_others_get_sigterm() {
    let claude = stop_recipe(AgentKind::Claude);
    assert_eq!(claude.keys, &[b"\x03" as &[u8], b"\x03"]);
    assert_eq!(claude.signal, None);
    assert_eq!(stop_recipe(AgentKind::Codex).keys.len(), 2);
    let generic = stop_recipe(AgentKind::Generic);
    assert!(generic.keys.is_empty());
    assert_eq!(generic.signal, Some(SignalName::Term));
}

#[test]
fn typed_text_is_unsent_until_enter_ctrl_c_or_ctrl_u() {
    assert!(leaves_unsent(false, b"hello"));
    assert!(!leaves_unsent(false, b"hello\r"));
    assert!(!leaves_unsent(true, b"\n"));
    assert!(!leaves_unsent(true, b"\x03"));
    assert!(!leaves_unsent(true, b"\x15"));
    assert!(leaves_unsent(false, b"a\rb"));
}

#[test]
fn escape_sequences_and_control_keys_leave_the_input_box_as_it_was() {
    assert!(!leaves_unsent(false, b"\x1b[A\x1b[B\x1bOC"));
    assert!(leaves_unsent(true, b"\x1b[1;5D"));
    assert!(!leaves_unsent(false, b"\x1b[200~\x1b[201~"));
    assert!(leaves_unsent(false, b"\x1b[200~pasted\x1b[201~"));
    assert!(!leaves_unsent(false, b"\x7f\x08"));
}
