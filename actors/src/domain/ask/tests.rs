//! The asked turn's outcome and answer.

use super::*;

#[test]
fn each_end_of_a_turn_has_its_outcome() {
    assert_eq!(outcome(Lifecycle::Done), AskOutcome::Done);
    assert_eq!(outcome(Lifecycle::Blocked), AskOutcome::Blocked);
    assert_eq!(outcome(Lifecycle::Failed), AskOutcome::Failed);
    assert_eq!(outcome(Lifecycle::Exited), AskOutcome::Failed);
    assert_eq!(outcome(Lifecycle::Idle), AskOutcome::Interrupted);
    assert_eq!(outcome(Lifecycle::Working), AskOutcome::Timeout);
}

#[test]
fn the_text_of_the_hook_that_ended_the_turn_is_the_answer() {
    let ended = |source: &str, message: serde_json::Value| serde_json::json!({"source": source, "pane": {"last_message": message}});
    let hook = "hook:claude:Stop";
    assert_eq!(
        reported(&ended(hook, " 42\n".into())).as_deref(),
        Some("42")
    );
    assert_eq!(
        reported(&ended(hook, "turn complete".into())),
        None,
        "no text"
    );
    assert_eq!(reported(&ended(hook, "  ".into())), None);
    assert_eq!(reported(&ended(hook, serde_json::Value::Null)), None);
    assert_eq!(
        reported(&ended("screen:idle", "42".into())),
        None,
        "not a hook's"
    );
    assert_eq!(reported(&serde_json::Value::Null), None, "no event");
}

#[test]
fn the_screen_answer_is_below_the_prompt_and_above_the_input_box() {
    let screen = "old answer\n> what is six times seven\n* Thinking...\n\n⏺ It is 42.\n  Checked twice.\n\n╭──────────╮\n│ >        │\n╰──────────╯\n  ? for shortcuts\n";
    assert_eq!(
        on_screen(screen, "what is six times seven").as_deref(),
        Some("* Thinking...\n\n⏺ It is 42.\n  Checked twice.")
    );
    // The last echo counts; a bare prompt line ends it too; an answer that
    // quotes the prompt is not its echo.
    let screen = "ask me\nfirst\n› ask me\nsecond, as in \"ask me\"\n> \n";
    assert_eq!(
        on_screen(screen, "ask me").as_deref(),
        Some("second, as in \"ask me\"")
    );
    // A box line before any text is skipped, not the end.
    let screen = "ask\n──────\nthe text\n──────\n";
    assert_eq!(on_screen(screen, "ask").as_deref(), Some("the text"));
}

#[test]
fn no_echo_or_nothing_below_it_is_no_answer() {
    assert_eq!(on_screen("nothing here\n", "the prompt"), None);
    assert_eq!(on_screen("the prompt\n\n> \n", "the prompt"), None);
    assert_eq!(on_screen("x\n", "   \n"), None);
    // A long prompt is found by its first 40 characters.
    let long = "a".repeat(100);
    let screen = format!("{}\nanswer\n", &long[..60]);
    assert_eq!(on_screen(&screen, &long).as_deref(), Some("answer"));
}
