//! A usage limit (docs/states.md#usage-limits): the agent's word that it
//! stopped at its plan's limit makes the pane `blocked` + `rate_limited`
//! with the reset time it gave, from the screen (hooked or not), from
//! Claude's `StopFailure`, or from the screen a turn-end hook leaves; the
//! agent at work again, a turn end or the exit ends the wait.

use super::*;
use signaltty_protocol::Timestamp;

/// The harness's rules, plus a usage-limit rule above all the others.
fn with_limits() -> Harness {
    let text = format!(
        "{RULES}
[[screen]]
id = \"limit\"
state = \"rate_limited\"
priority = 400
region = \"screen\"
regex = ['(?i)hit your (?:session |usage )?limit']
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

const LIMIT: &str = "● You've hit your session limit · resets in 2h 13m\n❯ ";
const LIMIT_NO_TIME: &str = "● You've hit your usage limit.\n❯ ";

/// Seconds from now to the pane's `resets_at`.
fn resets_in(h: &Harness) -> Option<i64> {
    let at = h.tracker.pane().resets_at.as_ref()?;
    at.seconds_since(&Timestamp::now())
}

fn assert_resets_in_2h13m(h: &Harness) {
    let secs = resets_in(h).expect("a reset time");
    assert!((7970..=7980).contains(&secs), "{secs}");
}

#[test]
fn an_unhooked_limit_on_screen_is_blocked_rate_limited_until_work_resumes() {
    let mut h = with_limits();
    h.show_and_tick(PROMPT);
    h.tracker.on_input(1);
    h.show_and_tick(SPINNER);
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    let effects = h.show_and_tick(LIMIT);
    assert_eq!(
        published(&effects),
        vec!["agent.blocked", "attention.created"]
    );
    assert_eq!(h.attention(), Attention::RateLimited);
    assert_eq!(h.lifecycle_source(), Some("screen:limit"));
    assert_resets_in_2h13m(&h);
    // The same limit read again keeps the first reading.
    assert!(published(&h.show_and_tick(&format!("{LIMIT}\n"))).is_empty());
    // The agent at work again ends the wait.
    let effects = h.show_and_tick(SPINNER);
    assert_eq!(
        published(&effects),
        vec!["agent.working", "attention.cleared"]
    );
    assert_eq!(cleared_reasons(&effects), vec!["limit_left".to_owned()]);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.tracker.pane().resets_at, None);
}

#[test]
fn a_limit_without_a_time_has_no_reset_time() {
    let mut h = with_limits();
    h.show_and_tick(SPINNER);
    h.show_and_tick(LIMIT_NO_TIME);
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    assert_eq!(h.attention(), Attention::RateLimited);
    assert_eq!(h.tracker.pane().resets_at, None);
}

#[test]
fn a_limit_on_the_screen_of_a_hooked_working_pane_is_read() {
    let mut h = with_limits();
    h.hook("UserPromptSubmit", json!({}));
    h.show_and_tick(SPINNER);
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    let effects = h.show_and_tick(LIMIT);
    assert_eq!(
        published(&effects),
        vec!["agent.blocked", "attention.created"]
    );
    assert_eq!(h.attention(), Attention::RateLimited);
    assert_resets_in_2h13m(&h);
    // The next prompt's hook ends the wait.
    h.hook("UserPromptSubmit", json!({}));
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.tracker.pane().resets_at, None);
}

#[test]
fn claudes_stop_failure_for_its_rate_limit_is_rate_limited() {
    let mut h = with_limits();
    h.hook("UserPromptSubmit", json!({}));
    let outcome = h.hook(
        "StopFailure",
        json!({
            "hook_event_name": "StopFailure",
            "error": "rate_limit",
            "last_assistant_message": "You've hit your session limit · resets in 2h 13m",
        }),
    );
    assert_eq!(outcome.reply.lifecycle, Some(Lifecycle::Blocked));
    assert_eq!(outcome.reply.attention, Some(Attention::RateLimited));
    assert_resets_in_2h13m(&h);
    assert_eq!(
        h.tracker.pane().last_message.as_deref(),
        Some("You've hit your session limit · resets in 2h 13m")
    );
    // Any other failure is still a failure.
    h.hook("UserPromptSubmit", json!({}));
    h.hook("StopFailure", json!({"error": "server_error"}));
    assert_eq!(h.lifecycle(), Lifecycle::Failed);
    assert_eq!(h.attention(), Attention::Error);
}

#[test]
fn a_turn_end_hook_over_a_limit_on_screen_is_rate_limited() {
    let mut h = with_limits();
    h.hook("UserPromptSubmit", json!({}));
    h.show(LIMIT);
    let outcome = h.hook("Stop", json!({"last_assistant_message": "…"}));
    assert_eq!(outcome.reply.lifecycle, Some(Lifecycle::Blocked));
    assert_eq!(outcome.reply.attention, Some(Attention::RateLimited));
    assert_resets_in_2h13m(&h);
}

#[test]
fn the_exit_of_a_rate_limited_pane_ends_the_wait() {
    let mut h = with_limits();
    h.show_and_tick(SPINNER);
    h.show_and_tick(LIMIT);
    assert_eq!(h.attention(), Attention::RateLimited);
    let effects = h.tracker.on_exit(Some(0));
    assert_eq!(cleared_reasons(&effects), vec!["limit_left".to_owned()]);
    assert_eq!(h.lifecycle(), Lifecycle::Exited);
    assert_eq!(h.attention(), Attention::Unread);
    assert_eq!(h.tracker.pane().resets_at, None);
}

#[test]
fn a_hooked_pane_at_its_limit_works_again_when_its_screen_does() {
    let mut h = with_limits();
    h.hook("UserPromptSubmit", json!({}));
    h.hook(
        "StopFailure",
        json!({"error": "rate_limit", "last_assistant_message": "You've hit your session limit"}),
    );
    assert_eq!(h.attention(), Attention::RateLimited);
    // The limit on screen changes nothing; a spinner in the title alone
    // neither.
    assert!(published(&h.show_and_tick(LIMIT_NO_TIME)).is_empty());
    h.tracker.pane_mut().title = "⠋ Claude Code".into();
    assert!(published(&h.show_and_tick(PROMPT)).is_empty());
    assert_eq!(h.attention(), Attention::RateLimited);
    h.tracker.pane_mut().title = "Claude Code".into();
    // The agent at work on its screen: the wait is over.
    let effects = h.show_and_tick(SPINNER);
    assert_eq!(
        published(&effects),
        vec!["agent.working", "attention.cleared"]
    );
    assert_eq!(cleared_reasons(&effects), vec!["limit_left".to_owned()]);
    assert_eq!(h.lifecycle_source(), Some("screen:spins"));
}

#[test]
fn a_new_question_after_the_limit_is_a_turn_taken_then_blocked_again() {
    let mut h = with_limits();
    h.hook("UserPromptSubmit", json!({}));
    h.hook("StopFailure", json!({"error": "rate_limit"}));
    assert_eq!(h.attention(), Attention::RateLimited);
    // Continued in its own dialog, the agent asks for a tool with no hook in
    // between.
    let outcome = h.hook("PermissionRequest", json!({"tool_name": "Bash"}));
    assert_eq!(
        published(&outcome.effects),
        vec![
            "agent.working",
            "attention.cleared",
            "agent.blocked",
            "attention.created",
            "notification.created"
        ]
    );
    assert_eq!(h.attention(), Attention::PermissionRequired);
    assert_eq!(h.tracker.pane().resets_at, None);
}
