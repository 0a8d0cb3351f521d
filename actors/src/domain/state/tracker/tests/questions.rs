//! A hooked pane blocked on a question on screen: when the screen takes it out
//! of `blocked`, after the settle time or at once, and what a hook or an answer
//! meanwhile keeps.

use super::*;

#[test]
fn a_question_dismissed_on_screen_unblocks_the_pane_after_the_settle_time() {
    let mut h = blocked_on_a_question();
    let timer = settle_timer(&h.show_and_tick(PROMPT));
    assert_eq!(h.lifecycle(), Lifecycle::Blocked, "idle must hold first");
    let effects = h.fire(timer);
    assert_eq!(published(&effects), ["agent.idle", "attention.cleared"]);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.lifecycle_source(), Some("screen:prompt"));
}

#[test]
fn a_hook_during_the_settle_time_keeps_the_question() {
    let mut h = blocked_on_a_question();
    let timer = settle_timer(&h.show_and_tick(PROMPT));
    let outcome = h.hook("PreToolUse", json!({"tool_name": "Bash"}));
    assert!(outcome.reply.accepted);
    assert!(published(&h.fire(timer)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
}

#[test]
fn an_answer_during_the_settle_time_keeps_the_turn() {
    let mut h = blocked_on_a_question();
    let timer = settle_timer(&h.show_and_tick(PROMPT));
    let events = h.tracker.on_answer_delivered();
    assert_eq!(
        events.iter().map(Event::name).collect::<Vec<_>>(),
        ["agent.working"]
    );
    assert!(published(&h.fire(timer)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}

#[test]
fn working_on_screen_after_the_question_unblocks_at_once() {
    let mut h = blocked_on_a_question();
    let effects = h.show_and_tick(SPINNER);
    assert_eq!(published(&effects), ["agent.working", "attention.cleared"]);
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}

#[test]
fn a_spinner_only_in_the_title_unblocks_only_if_it_holds_through_the_settle_time() {
    let mut h = blocked_on_a_question();
    h.tracker.pane_mut().title = "⠋ Claude".to_owned();
    let timer = settle_timer(&h.show_and_tick(PROMPT));
    assert_eq!(
        h.lifecycle(),
        Lifecycle::Blocked,
        "a title can lag the screen"
    );
    assert_eq!(
        published(&h.fire(timer)),
        ["agent.working", "attention.cleared"]
    );
    assert_eq!(h.lifecycle_source(), Some("screen:title_spins"));
}

#[test]
fn a_title_spinner_then_the_turn_end_hook_goes_straight_to_idle() {
    // Esc at Codex's question: its spinner stays in the title for a moment,
    // then its `Interrupt` hook ends the turn. Never blocked → working → idle.
    let mut h = blocked_on_a_question();
    h.tracker.pane_mut().title = "⠋ Claude".to_owned();
    let timer = settle_timer(&h.show_and_tick(PROMPT));
    let outcome = h.hook("Stop", json!({}));
    assert!(outcome.reply.accepted);
    assert!(!published(&h.fire(timer)).contains(&"agent.working"));
    assert_ne!(h.lifecycle(), Lifecycle::Working);
}
