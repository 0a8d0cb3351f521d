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

/// An agent that prints for 20 s while no rule but the catch-all matches
/// (a release that renamed its working sign) reads `unknown`, not idle or
/// done; once its output stops, the catch-all's idle applies again
/// (docs/screen-rules.md#when-no-sign-matches).
/// A Claude pane with a working sign and the catch-all only.
fn sign_and_catch_all() -> Harness {
    let manifest = Manifest::parse(
        "catch-all.toml",
        "[agent]\nkind = \"claude\"\n[[screen]]\nid = \"busy\"\nstate = \"working\"\nregex = ['esc to interrupt']\n[[screen]]\nid = \"idle_fallback\"\nstate = \"idle\"\npriority = -1000\nregex = ['']\n",
        false,
    )
    .expect("parses");
    let mut h = Harness::new(AgentKind::Claude);
    h.tracker = AgentTracker::with_rules(
        pane(AgentKind::Claude),
        AgentRules::new(AgentSet {
            user: vec![manifest],
            ..AgentSet::default()
        }),
        APPROVAL_WAIT,
    );
    h
}

/// A long turn whose working sign showed until it ended is a finished turn:
/// only output with no sign for 20 s is unknown (found by the screen
/// latency bench: OpenCode's prompt is read by its catch-all alone).
#[test]
fn a_long_turn_that_showed_its_sign_to_the_end_is_done() {
    let mut h = sign_and_catch_all();
    h.show_and_tick("> ");
    h.tracker.on_input(6);
    for frame in 0..60 {
        h.clock += Duration::from_millis(500);
        h.show(&format!("✻ Thinking {frame} (esc to interrupt)"));
        h.fire(Timer::ScreenTick);
    }
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    h.clock += Duration::from_millis(500);
    assert_eq!(
        published(&h.show_and_tick("● Done.\n> ")),
        ["agent.done", "attention.created"]
    );
}

#[test]
fn long_output_that_no_sign_matches_is_unknown_until_it_stops() {
    let mut h = sign_and_catch_all();
    assert_eq!(published(&h.show_and_tick("> ")), ["agent.idle"]);
    h.tracker.on_input(6);
    // Output for 19.5 s since the prompt was first read by the fallback
    // alone, a tick every half second: the fallback's idle.
    let mut frame = 0;
    let mut tick = |h: &mut Harness, step: Duration| {
        frame += 1;
        h.clock += step;
        h.show(&format!("Renamed sign {frame}\n> "));
        h.clock += Duration::from_millis(100);
        h.fire(Timer::ScreenTick)
    };
    for _ in 0..39 {
        assert!(published(&tick(&mut h, Duration::from_millis(400))).is_empty());
    }
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    // 20 s of looks that found no sign: unknown, and a look again armed
    // though nothing more prints.
    let effects = tick(&mut h, Duration::from_millis(400));
    assert_eq!(published(&effects), ["agent.unknown"]);
    assert_eq!(h.lifecycle(), Lifecycle::Unknown);
    assert_eq!(
        armed(&effects),
        [(Timer::ScreenTick, Duration::from_millis(1500))]
    );
    assert_eq!(h.lifecycle_source(), Some("screen:no_sign"));
    // Still printing: still unknown, nothing new published.
    assert!(published(&tick(&mut h, Duration::from_millis(400))).is_empty());
    // A working sign is read as working at once.
    h.clock += Duration::from_millis(400);
    assert_eq!(
        published(&h.show_and_tick("✻ Thinking (esc to interrupt)")),
        ["agent.working"]
    );
    // Long output with no sign again, then the output stops: the look again
    // after the pause reads the fallback's idle (the turn's end).
    for _ in 0..42 {
        tick(&mut h, Duration::from_millis(400));
    }
    assert_eq!(h.lifecycle(), Lifecycle::Unknown);
    h.clock += Duration::from_millis(1500);
    assert_eq!(published(&h.fire(Timer::ScreenTick)), ["agent.idle"]);
}
