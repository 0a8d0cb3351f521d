//! Tests of auto-resume: which panes start again after a restart, and in which
//! order.

use super::*;

fn pane(n: u128, lifecycle: Lifecycle, state: RestoreState, ms: i64) -> Pane {
    let mut p = crate::domain::state::tests::pane(signaltty_protocol::pane::AgentKind::Claude);
    p.id = PaneId::from_random(n);
    p.lifecycle = lifecycle;
    p.restore_state = state;
    p.agent.resume_argv = Some(vec!["claude".into(), "--resume".into(), format!("s{n}")]);
    p.created_at = signaltty_protocol::Timestamp::from_unix_millis(ms);
    p
}

#[test]
fn blocked_then_working_panes_resume_first_then_the_rest_in_creation_order() {
    let panes = vec![
        pane(1, Lifecycle::Done, RestoreState::Resumable, 1),
        pane(2, Lifecycle::Working, RestoreState::Resumable, 2),
        pane(3, Lifecycle::Idle, RestoreState::Resumable, 3),
        pane(4, Lifecycle::Blocked, RestoreState::Resumable, 4),
        pane(5, Lifecycle::Blocked, RestoreState::Restored, 5),
        pane(6, Lifecycle::Working, RestoreState::Resumable, 6),
    ];
    let ids = order(&panes, |p| p.id != PaneId::from_random(6));
    let expected: Vec<PaneId> = [4, 2, 1, 3].into_iter().map(PaneId::from_random).collect();
    assert_eq!(ids, expected);
}

#[test]
fn a_pane_without_an_adapter_command_is_never_auto_resumed() {
    let mut p = pane(1, Lifecycle::Blocked, RestoreState::Resumable, 1);
    p.agent.resume_argv = None;
    assert!(order(&[p], |_| true).is_empty());
}
