//! A pane no hook reports on, read from its screen alone: a boot spinner, a
//! finished turn, questions answered or dismissed between two ticks, and a
//! screen judged once.

use super::*;

#[test]
fn the_boot_spinner_of_a_fresh_agent_is_not_a_turn() {
    let mut h = Harness::new(AgentKind::Claude);
    assert_eq!(published(&h.show_and_tick(SPINNER)), ["agent.working"]);
    assert_eq!(published(&h.show_and_tick(PROMPT)), ["agent.idle"]);
    assert_eq!(h.attention(), Attention::None, "nothing to read");
}

#[test]
fn a_prompted_agent_that_stops_working_is_done_and_unread() {
    let mut h = Harness::new(AgentKind::Claude);
    h.tracker.on_input(6);
    h.show_and_tick(SPINNER);
    assert_eq!(
        published(&h.show_and_tick(PROMPT)),
        ["agent.done", "attention.created"]
    );
    assert_eq!(h.attention(), Attention::Unread);
}

/// An unhooked pane blocked by its screen, after a prompt was typed.
fn blocked_on_screen() -> Harness {
    let mut h = Harness::new(AgentKind::Claude);
    h.tracker.on_input(6);
    h.show_and_tick(SPINNER);
    h.show_and_tick(QUESTION);
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    assert_eq!(h.attention(), Attention::InputRequired);
    h
}

#[test]
fn an_answered_question_whose_turn_ends_between_two_ticks_is_a_finished_turn() {
    let mut h = blocked_on_screen();
    // Answered: the agent works and finishes before the next tick.
    h.show(SPINNER);
    let effects = h.show_and_tick(PROMPT);
    assert_eq!(
        published(&effects),
        ["attention.cleared", "agent.done", "attention.created"]
    );
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(h.attention(), Attention::Unread);
    // The next question starts afresh: dismissed, it reads idle.
    h.show_and_tick(SPINNER);
    h.show_and_tick(QUESTION);
    let effects = h.show_and_tick(PROMPT);
    assert_eq!(published(&effects), ["attention.cleared", "agent.idle"]);
}

#[test]
fn a_startup_question_answered_before_the_agent_was_ready_is_no_turn() {
    // Codex's hook trust gate on a resumed process: unknown → blocked, the
    // answer typed, the session loads (spinner), then the prompt.
    let mut h = Harness::new(AgentKind::Claude);
    h.show_and_tick(QUESTION);
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    h.tracker.on_input(1);
    h.show(SPINNER);
    let effects = h.show_and_tick(PROMPT);
    assert_eq!(published(&effects), ["attention.cleared", "agent.idle"]);
    assert_eq!(h.attention(), Attention::None);
}

#[test]
fn a_question_dismissed_on_screen_reads_idle_even_after_it_was_asked_again() {
    let mut h = blocked_on_screen();
    assert_eq!(
        published(&h.show_and_tick(PROMPT)),
        ["attention.cleared", "agent.idle"],
        "dismissed: nothing ran, nothing to read"
    );
    // Answered, worked, and asked a second question, all between ticks:
    // dismissing that one is not a finished turn.
    let mut h = blocked_on_screen();
    h.show(SPINNER);
    h.show(QUESTION);
    let effects = h.show_and_tick(PROMPT);
    assert_eq!(published(&effects), ["attention.cleared", "agent.idle"]);
}

#[test]
fn the_same_screen_is_not_judged_twice() {
    let mut h = Harness::new(AgentKind::Claude);
    h.show_and_tick(PROMPT);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    // The rules would say the same: nothing is evaluated, nothing armed.
    assert!(h.fire(Timer::ScreenTick).is_empty());
}
