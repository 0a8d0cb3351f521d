//! Restore rules without files: the tombstone of docs/restore.md#tombstones.

use super::*;
use signaltty_protocol::pane::{AgentInfo, AgentKind, Attention, Lifecycle, PtySize};
use signaltty_protocol::{TabId, Timestamp, WorkspaceId};

fn pane(live: LiveState, restore_state: RestoreState, resume: Option<Vec<String>>) -> Pane {
    let now = Timestamp::from_unix_millis(0);
    Pane {
        id: PaneId::from_random(1),
        workspace_id: WorkspaceId::from_random(2),
        tab_id: TabId::from_random(3),
        name: Some("web".into()),
        title: "claude".into(),
        cwd: "/work".into(),
        argv: vec!["/usr/bin/claude".into()],
        pty_size: PtySize::clamped(100, 30),
        live,
        restore_state,
        agent: AgentInfo {
            kind: AgentKind::Claude,
            agent_session_id: resume.as_ref().map(|_| "s1".to_owned()),
            resume_argv: resume,
            model: None,
            config_env: None,
            version: None,
            fidelity: None,
        },
        lifecycle: Lifecycle::Done,
        last_lifecycle: Lifecycle::Working,
        lifecycle_since: Some(now.clone()),
        last_run_secs: None,
        attention: Attention::Unread,
        attention_since: Some(now.clone()),
        resets_at: None,
        last_message: Some("all tests pass".into()),
        created_at: now.clone(),
        last_activity_at: now,
        last_seen_at: None,
        relationship: None,
        parent_pane_id: None,
        root_pane_id: None,
        label: None,
        task_id: None,
        pending_decision: None,
        hibernation: None,
    }
}

#[test]
fn a_live_pane_with_a_resume_command_comes_back_resumable_with_an_unknown_exit_code() {
    let mut p = pane(
        LiveState::Live,
        RestoreState::Live,
        Some(vec!["claude".into(), "--resume".into(), "s1".into()]),
    );
    tombstone(&mut p);
    assert_eq!(p.live, LiveState::Exited { code: None });
    assert_eq!(p.restore_state, RestoreState::Resumable);
    // What the pane was doing is kept.
    assert_eq!(p.lifecycle, Lifecycle::Done);
    assert_eq!(p.attention, Attention::Unread);
    assert_eq!(p.last_message.as_deref(), Some("all tests pass"));
    assert_eq!(p.name.as_deref(), Some("web"));
}

#[test]
fn a_live_pane_without_a_resume_command_comes_back_restored() {
    let mut p = pane(LiveState::Live, RestoreState::Live, None);
    tombstone(&mut p);
    assert_eq!(p.restore_state, RestoreState::Restored);
}

#[test]
fn an_exited_pane_stays_exited_with_its_code() {
    let mut p = pane(
        LiveState::Exited { code: Some(3) },
        RestoreState::Exited,
        Some(vec!["claude".into()]),
    );
    tombstone(&mut p);
    assert_eq!(p.live, LiveState::Exited { code: Some(3) });
    assert_eq!(p.restore_state, RestoreState::Exited);
}

#[test]
fn a_tombstone_of_an_earlier_restart_comes_back_as_it_was() {
    let mut p = pane(
        LiveState::Exited { code: None },
        RestoreState::Resumable,
        Some(vec!["claude".into()]),
    );
    tombstone(&mut p);
    assert_eq!(p.restore_state, RestoreState::Resumable);
    let mut p = pane(
        LiveState::Exited { code: None },
        RestoreState::Restored,
        None,
    );
    tombstone(&mut p);
    assert_eq!(p.restore_state, RestoreState::Restored);
}

#[test]
fn a_hibernated_pane_stays_hibernated_with_its_exit_code() {
    let mut p = pane(
        LiveState::Exited { code: Some(130) },
        RestoreState::Hibernated,
        Some(vec!["claude".into(), "--resume".into(), "s1".into()]),
    );
    tombstone(&mut p);
    assert_eq!(p.restore_state, RestoreState::Hibernated);
    assert_eq!(p.live, LiveState::Exited { code: Some(130) });
}

#[test]
fn a_native_permission_decision_becomes_read_only_and_an_explicit_one_stays() {
    let decision = |id: &str| Decision {
        id: id.into(),
        prompt: "Allow Bash?".into(),
        options: Vec::new(),
        answerable: true,
        received_at: Timestamp::from_unix_millis(0),
    };
    let mut p = pane(LiveState::Live, RestoreState::Live, None);
    p.pending_decision = Some(Box::new(decision("permission_0123")));
    tombstone(&mut p);
    assert_eq!(
        p.pending_decision.as_ref().map(|d| d.answerable),
        Some(false)
    );
    let mut p = pane(LiveState::Live, RestoreState::Live, None);
    p.pending_decision = Some(Box::new(decision("ask_1")));
    tombstone(&mut p);
    assert_eq!(
        p.pending_decision.as_ref().map(|d| d.answerable),
        Some(true)
    );
}
