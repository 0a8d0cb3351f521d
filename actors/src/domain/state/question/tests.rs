//! Tests of the question watch: when the screen takes a pane out of a hook's
//! `blocked`, and when it must not.

use super::*;
use ScreenState::{Blocked, Hold, Idle, Working};

#[test]
fn a_title_spinner_leaves_only_if_it_holds_through_the_settle() {
    let mut w = seen();
    let TickStep::Settle(token) = w.title_working_tick(true) else {
        panic!("a title-only working sign must settle first");
    };
    // A second title reading while the check is pending changes nothing.
    assert_eq!(w.title_working_tick(true), TickStep::Stay);
    assert_eq!(
        w.settle(token, true, Some(Working)),
        SettleStep::LeaveForWorking
    );

    // The agent's hook came first (Codex's `Interrupt` after Esc): stale.
    let mut w = seen();
    let TickStep::Settle(token) = w.title_working_tick(true) else {
        panic!("settle");
    };
    w.hook_while_blocked();
    assert_eq!(w.settle(token, true, Some(Working)), SettleStep::Stale);

    // Not seen, or a reporter waits: nothing.
    assert_eq!(
        QuestionWatch::default().title_working_tick(true),
        TickStep::Stay
    );
    assert_eq!(seen().title_working_tick(false), TickStep::Stay);
}

fn seen() -> QuestionWatch {
    let mut w = QuestionWatch::default();
    w.output_reading(Some(Blocked));
    assert!(w.seen());
    w
}

/// An idle reading after the question: the token of the check it schedules.
fn settle_on_idle(w: &mut QuestionWatch) -> u64 {
    match w.tick(Idle, true) {
        TickStep::Settle(token) => token,
        other => panic!("an idle reading schedules a check, not {other:?}"),
    }
}

#[test]
fn a_question_never_recognised_is_never_left_by_the_screen() {
    let mut w = QuestionWatch::default();
    w.output_reading(Some(Idle));
    w.output_reading(None);
    assert_eq!(w.tick(Idle, true), TickStep::Stay);
    assert_eq!(w.tick(Working, true), TickStep::Stay);
    assert!(!w.seen());
}

#[test]
fn working_after_the_question_leaves_at_once() {
    let mut w = seen();
    assert_eq!(w.tick(Working, true), TickStep::LeaveForWorking);
}

#[test]
fn a_waiting_reporter_keeps_the_pane_blocked() {
    let mut w = seen();
    assert_eq!(w.tick(Working, false), TickStep::Stay);
    assert_eq!(w.tick(Idle, false), TickStep::Stay);
}

#[test]
fn idle_must_hold_through_its_settle_check() {
    let mut w = seen();
    let token = settle_on_idle(&mut w);
    // A second idle tick does not schedule another.
    assert_eq!(w.tick(Idle, true), TickStep::Stay);
    assert_eq!(w.settle(token, true, Some(Idle)), SettleStep::LeaveForIdle);
    // Fired once, the check is spent.
    assert_eq!(w.settle(token, true, Some(Idle)), SettleStep::Stale);
}

#[test]
fn a_hook_meanwhile_makes_the_check_stale() {
    let mut w = seen();
    let token = settle_on_idle(&mut w);
    w.hook_while_blocked();
    assert_eq!(w.settle(token, true, Some(Idle)), SettleStep::Stale);
    assert!(w.seen(), "the question is still the one on screen");
}

#[test]
fn the_question_back_on_screen_cancels_the_check_and_a_later_one_is_its_own() {
    let mut w = seen();
    let first = settle_on_idle(&mut w);
    assert_eq!(w.tick(Blocked, true), TickStep::Stay);
    let second = settle_on_idle(&mut w);
    assert_ne!(first, second);
    assert_eq!(w.settle(first, true, Some(Idle)), SettleStep::Stale);
    assert_eq!(w.settle(second, true, Some(Idle)), SettleStep::LeaveForIdle);
}

#[test]
fn a_screen_that_moved_on_is_looked_at_again() {
    let mut w = seen();
    let token = settle_on_idle(&mut w);
    assert_eq!(w.settle(token, true, Some(Hold)), SettleStep::LookAgain);
}

#[test]
fn a_decision_answerable_again_makes_the_check_stale() {
    let mut w = seen();
    let token = settle_on_idle(&mut w);
    assert_eq!(w.settle(token, false, Some(Idle)), SettleStep::Stale);
}

#[test]
fn a_native_question_that_ended_hands_over_to_the_screen() {
    let mut w = QuestionWatch::default();
    assert_eq!(w.tick(Idle, true), TickStep::Stay);
    w.native_question_ended();
    let token = settle_on_idle(&mut w);
    assert_eq!(w.settle(token, true, Some(Idle)), SettleStep::LeaveForIdle);
    // The agent asking in its own UI instead keeps the pane blocked.
    let mut w = QuestionWatch::default();
    w.native_question_ended();
    assert_eq!(w.tick(Blocked, true), TickStep::Stay);
}

#[test]
fn reset_forgets_the_question() {
    let mut w = seen();
    w.reset();
    assert_eq!(w.tick(Working, true), TickStep::Stay);
}
