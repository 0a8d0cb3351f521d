//! An interrupted turn (docs/screen-rules.md#an-interrupted-turn-is-idle):
//! the agent's own "Interrupted" makes the pane idle with nothing to read,
//! also while hooks keep it working; nothing else on a hooked pane's screen
//! moves it.

use super::*;
use signaltty_protocol::pane::Fidelity;

/// The harness's rules, plus Claude's word for an interrupted turn.
fn with_interrupts() -> Harness {
    let mut h = with_interrupts_unversioned();
    h.tracker.pane_mut().agent.fidelity = Some(Fidelity::Checked);
    h
}

/// As `with_interrupts`, its version not yet known; the rules were checked
/// on 1.0.0 of the package `claude-pkg`.
fn with_interrupts_unversioned() -> Harness {
    let rules = RULES.replacen(
        "kind = \"claude\"",
        "kind = \"claude\"\npackages = [\"claude-pkg\"]\nchecked_versions = [\"1.0.0\"]",
        1,
    );
    let text = format!(
        "{rules}
[[screen]]
id = \"interrupted\"
state = \"interrupted\"
priority = 250
region = \"screen\"
regex = ['Interrupted · What should Claude do instead']
"
    );
    let manifest = Manifest::parse("test.toml", &text, false).expect("the test rules parse");
    let rules = AgentRules::new(AgentSet {
        user: vec![manifest],
        ..AgentSet::default()
    });
    let mut h = Harness::new(AgentKind::Claude);
    h.tracker = AgentTracker::with_rules(pane(AgentKind::Claude), rules, APPROVAL_WAIT);
    h
}

/// The one check an idle reading arms.
fn interrupt_check(effects: &[Effect]) -> Timer {
    match armed(effects).as_slice() {
        [(timer @ Timer::Interrupt(_), after)] => {
            assert_eq!(*after, DISMISS_SETTLE);
            *timer
        },
        other => panic!("an idle reading arms one check, not {other:?}"),
    }
}

const INTERRUPTED: &str = "❯ Create out.txt\n  ⎿  Interrupted · What should Claude do instead?\n❯ ";

#[test]
fn a_hooked_turn_the_agent_says_was_interrupted_is_idle() {
    let mut h = with_interrupts();
    let outcome = h.hook("UserPromptSubmit", json!({}));
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    // While the hooks keep it working, the screen is still looked at.
    assert_eq!(
        armed(&outcome.effects),
        vec![(Timer::ScreenTick, SCREEN_TICK)]
    );
    h.show(SPINNER);
    // A working screen changes nothing: the hooks decide.
    let effects = h.fire(Timer::ScreenTick);
    assert!(published(&effects).is_empty(), "{effects:?}");
    // A prompt only arms a check; the spinner back cancels it.
    let effects = h.show_and_tick(PROMPT);
    assert!(published(&effects).is_empty(), "{effects:?}");
    let check = interrupt_check(&effects);
    h.show_and_tick(SPINNER);
    assert!(published(&h.fire(check)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    // The agent's own word ends the turn at once.
    let effects = h.show_and_tick(INTERRUPTED);
    assert_eq!(published(&effects), vec!["agent.idle"]);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    assert_eq!(h.attention(), Attention::None);
    // Idle and hooked: the screen is not looked at again until the next turn.
    assert!(armed(&h.show(INTERRUPTED)).is_empty());
    h.hook("UserPromptSubmit", json!({}));
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}

#[test]
fn an_unhooked_interrupted_turn_is_idle_not_done() {
    let mut h = with_interrupts();
    h.show_and_tick(PROMPT);
    h.tracker.on_input(1);
    h.show_and_tick(SPINNER);
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    let effects = h.show_and_tick(INTERRUPTED);
    assert_eq!(published(&effects), vec!["agent.idle"]);
    assert_eq!(h.attention(), Attention::None);
    // Without the agent's word, the same prompt ends a turn with a result.
    h.show_and_tick(SPINNER);
    h.show_and_tick(PROMPT);
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(h.attention(), Attention::Unread);
}

#[test]
fn esc_at_a_hooked_question_that_says_interrupted_leaves_it_idle() {
    let mut h = with_interrupts();
    h.hook("UserPromptSubmit", json!({}));
    h.hook("PermissionRequest", json!({"tool_name": "Bash"}));
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    h.show_and_tick(QUESTION);
    let effects = h.show_and_tick(INTERRUPTED);
    let settle = settle_timer(&effects);
    let effects = h.fire(settle);
    assert!(published(&effects).contains(&"agent.idle"), "{effects:?}");
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
}

/// Interrupted before it answered, Claude puts the prompt back and says
/// nothing: a prompt that stays for the settle time with no hook ends the
/// turn; a hook in between keeps it.
#[test]
fn a_hooked_turn_whose_prompt_comes_back_and_stays_is_idle() {
    let mut h = with_interrupts();
    h.hook("UserPromptSubmit", json!({}));
    let check = interrupt_check(&h.show_and_tick(PROMPT));
    h.hook("PreToolUse", json!({"tool_name": "Bash"}));
    assert!(published(&h.fire(check)).is_empty(), "a hook came between");
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    h.show_and_tick(SPINNER);
    let check = interrupt_check(&h.show_and_tick(PROMPT));
    assert_eq!(published(&h.fire(check)), vec!["agent.idle"]);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.lifecycle_source(), Some("screen:prompt"));
}

/// Without an `interrupted` rule the agent's screen is not trusted to show
/// every working moment: its hooks alone decide.
#[test]
fn without_an_interrupted_rule_a_hooked_working_pane_is_not_looked_at() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({}));
    assert!(armed(&h.show(PROMPT)).is_empty());
}

/// On a version the rules were not checked on (or one not known), an idle
/// screen leaves the hooks' working alone; the agent's own word still counts.
#[test]
fn off_a_checked_version_only_the_agents_word_ends_a_hooked_turn() {
    for fidelity in [Some(Fidelity::Unverified), None] {
        let mut h = with_interrupts();
        h.tracker.pane_mut().agent.fidelity = fidelity;
        h.hook("UserPromptSubmit", json!({}));
        let effects = h.show_and_tick(PROMPT);
        assert!(armed(&effects).is_empty(), "{fidelity:?}: {effects:?}");
        assert_eq!(h.lifecycle(), Lifecycle::Working);
        assert_eq!(published(&h.show_and_tick(INTERRUPTED)), vec!["agent.idle"]);
    }
}

/// A hook that leaves the turn working right after the interrupt (Qwen
/// Code's idle Notification) cancels the check; the screen, unchanged since,
/// is read again and a new check ends the turn.
#[test]
fn a_hook_that_leaves_the_turn_working_has_the_screen_read_again() {
    let mut h = with_interrupts();
    h.hook("UserPromptSubmit", json!({}));
    let check = interrupt_check(&h.show_and_tick(PROMPT));
    let outcome = h.hook(
        "Notification",
        json!({"notification_type": "idle_prompt", "message": "waiting for your input"}),
    );
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    assert_eq!(
        armed(&outcome.effects),
        vec![(Timer::ScreenTick, SCREEN_TICK)]
    );
    assert!(published(&h.fire(check)).is_empty(), "a hook came between");
    let check = interrupt_check(&h.fire(Timer::ScreenTick));
    assert_eq!(published(&h.fire(check)), vec!["agent.idle"]);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
}

/// Interrupted before the process refresh learned the version: the idle
/// screen waits, and the version, once known to be checked, has the same
/// screen read again.
#[test]
fn a_version_learned_later_reads_the_unchanged_screen_again() {
    let mut h = with_interrupts_unversioned();
    h.hook("UserPromptSubmit", json!({}));
    assert!(armed(&h.show_and_tick(PROMPT)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    let effects = h.tracker.on_process(ProcessReport {
        name: "claude".into(),
        new_cwd: None,
        hint: None,
        packages: vec![("claude-pkg".into(), "1.0.0".into())],
    });
    assert_eq!(h.tracker.pane().agent.fidelity, Some(Fidelity::Checked));
    assert_eq!(armed(&effects), vec![(Timer::ScreenTick, SCREEN_TICK)]);
    let check = interrupt_check(&h.fire(Timer::ScreenTick));
    assert_eq!(published(&h.fire(check)), vec!["agent.idle"]);
}

/// A turn-end hook for a turn the screen says was interrupted (Gemini CLI
/// fires AfterAgent for a cancelled turn): `idle` at once, nothing to read,
/// no notification.
#[test]
fn a_turn_end_hook_over_the_agents_word_ends_the_turn_idle() {
    let mut h = with_interrupts();
    h.hook("UserPromptSubmit", json!({}));
    h.show(INTERRUPTED);
    let outcome = h.hook("Stop", json!({"last_assistant_message": ""}));
    assert_eq!(published(&outcome.effects), vec!["agent.idle"]);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    assert_eq!(h.attention(), Attention::None);
}

/// The agent's word drawn a moment after its turn-end hook: the second look
/// takes the unread result back. A turn that ended with an answer keeps it.
#[test]
fn the_agents_word_after_the_turn_end_hook_takes_the_result_back() {
    let mut h = with_interrupts();
    h.hook("UserPromptSubmit", json!({}));
    h.show(SPINNER);
    let outcome = h.hook("Stop", json!({}));
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    let check = interrupt_check(&outcome.effects);
    h.show(INTERRUPTED);
    assert_eq!(
        published(&h.fire(check)),
        vec!["attention.cleared", "agent.idle"]
    );
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.lifecycle_source(), Some("screen:interrupted"));

    h.hook("UserPromptSubmit", json!({}));
    h.show(SPINNER);
    let check = interrupt_check(&h.hook("Stop", json!({})).effects);
    h.show(PROMPT);
    assert!(published(&h.fire(check)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(h.attention(), Attention::Unread);
}

/// From the screen alone: a frame without the agent's word ended the turn
/// `done`; the word, drawn next, makes it `idle` with nothing to read.
#[test]
fn an_unhooked_turn_read_done_then_interrupted_is_idle() {
    let mut h = with_interrupts();
    h.show_and_tick(PROMPT);
    h.tracker.on_input(1);
    h.show_and_tick(SPINNER);
    h.show_and_tick(PROMPT);
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(
        published(&h.show_and_tick(INTERRUPTED)),
        vec!["attention.cleared", "agent.idle"]
    );
    assert_eq!(h.attention(), Attention::None);
}

/// The prompt `pane.submit` pasted, back in the prompt box at the turn's
/// end: taken back before any answer, read from the screen alone as `idle`.
/// A turn that ends with the box empty, or with other text in it, is done.
#[test]
fn a_submitted_prompt_put_back_in_the_box_is_an_interrupted_turn() {
    const PUT_BACK: &str = "────\n❯ Create out.txt containing hello\n────\n  ? for shortcuts";
    const OTHER: &str = "● Done.\n────\n❯ Try \"fix lint errors\"\n────\n  ? for shortcuts";
    let mut h = Harness::new(AgentKind::Claude);
    h.show_and_tick(PROMPT);
    h.tracker.on_submitted("Create out.txt containing hello\n");
    h.tracker.on_input(1);
    h.show_and_tick(SPINNER);
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    assert_eq!(published(&h.show_and_tick(PUT_BACK)), vec!["agent.idle"]);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.lifecycle_source(), Some("screen:prompt_put_back"));

    for end in [PROMPT, OTHER] {
        h.tracker.on_submitted("Create out.txt containing hello");
        h.show_and_tick(SPINNER);
        h.show_and_tick(end);
        assert_eq!(h.lifecycle(), Lifecycle::Done, "{end}");
        assert_eq!(h.attention(), Attention::Unread);
    }
}

#[test]
fn only_a_prompt_long_enough_to_tell_is_looked_for() {
    use crate::domain::state::tracker::put_back::prompt_start;
    assert_eq!(prompt_start("\n  hi\n"), None);
    assert_eq!(
        prompt_start("\n  fix the build\nplease").as_deref(),
        Some("fix the build")
    );
    let long = "x".repeat(100);
    assert_eq!(prompt_start(&long).map(|s| s.len()), Some(40));
}

/// The same prompt typed key by key through `pane.input` (an attached
/// terminal), with a backspace and a bracketed paste in it.
#[test]
fn a_typed_prompt_put_back_in_the_box_is_an_interrupted_turn() {
    const PUT_BACK: &str = "────\n❯ Create out.txt containing hello\n────\n  ? for shortcuts";
    let mut h = Harness::new(AgentKind::Claude);
    h.show_and_tick(PROMPT);
    for keys in [
        "Create",
        " out.txx",
        "\x7f",
        "t",
        "\x1b[200~ containing hello\x1b[201~",
    ] {
        h.tracker.on_input(keys.len());
        h.tracker.on_keys(keys.as_bytes());
    }
    h.tracker.on_keys(b"\r");
    h.show_and_tick(SPINNER);
    // Esc, a key of its own, does not swallow what is typed next.
    h.tracker.on_keys(b"\x1b");
    assert_eq!(published(&h.show_and_tick(PUT_BACK)), vec!["agent.idle"]);
    assert_eq!(h.lifecycle_source(), Some("screen:prompt_put_back"));

    // A line edited with the cursor keys is not known: looked for, it could
    // match text that is not the prompt.
    h.tracker
        .on_keys(b"Create out.txt\x1b[Dx containing hello\r");
    h.show_and_tick(SPINNER);
    h.show_and_tick(PUT_BACK);
    assert_eq!(h.lifecycle(), Lifecycle::Done);
}
