//! Tests of applying the screen's verdict to a pane
//! (docs/screen-rules.md#what-the-winning-rule-does,
//! docs/screen-rules.md#withdrawing-a-screen-question): turns the screen starts
//! and ends, and the questions it raises and withdraws.

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
