//! AgentTracker tests: the rules that were only tested end to end, as plain
//! functions. Timers are never waited for: a test fires the timer the tracker
//! asked for by handing it back to `on_timer`.

mod vocabulary;

use super::screen::{DISMISS_SETTLE, SCREEN_TICK};
use super::*;
use crate::domain::state::tests::pane;
use serde_json::json;
use signaltty_model::agents::AgentSet;
use signaltty_model::agents::manifest::Manifest;

/// Three plain rules for Claude panes: a question, a spinner and a prompt.
const RULES: &str = r#"
[agent]
kind = "claude"

[[screen]]
id = "asks"
state = "blocked"
priority = 300
region = "screen"
regex = ['Do you want to proceed\?']

[[screen]]
id = "spins"
state = "working"
priority = 200
region = "screen"
regex = ['esc to interrupt']

[[screen]]
id = "title_spins"
state = "working"
priority = 150
region = "title"
regex = ['^⠋ ']

[[screen]]
id = "prompt"
state = "idle"
priority = 100
region = "screen"
regex = ['❯']
"#;

const QUESTION: &str = "Bash(rm -rf build)\nDo you want to proceed?\n❯ 1. Yes";
const SPINNER: &str = "✻ Cogitating… (esc to interrupt)\n❯";
const PROMPT: &str = "● Done.\n❯ ";

const APPROVAL_WAIT: Duration = Duration::from_secs(10);

pub(super) fn rules() -> AgentRules {
    let manifest = Manifest::parse("test.toml", RULES, false).expect("the test rules parse");
    AgentRules::new(AgentSet {
        user: vec![manifest],
        ..AgentSet::default()
    })
}

/// A tracker for a fresh process of `kind`, with the screen it shows.
pub(super) struct Harness {
    pub(super) tracker: AgentTracker,
    output_offset: u64,
    screen: String,
}

impl Harness {
    pub(super) fn new(kind: AgentKind) -> Harness {
        Harness {
            tracker: AgentTracker::with_rules(pane(kind), rules(), APPROVAL_WAIT),
            output_offset: 0,
            screen: String::new(),
        }
    }

    /// The process prints `screen` (it replaces what was shown).
    fn show(&mut self, screen: &str) -> Vec<Effect> {
        self.screen = screen.to_owned();
        self.output_offset += screen.len() as u64;
        self.tracker.on_output(self.output_offset);
        self.tracker.on_screen(&self.screen)
    }

    /// `timer` fires.
    fn fire(&mut self, timer: Timer) -> Vec<Effect> {
        self.tracker.on_timer(timer, &self.screen)
    }

    /// The process prints `screen` and the screen tick comes.
    fn show_and_tick(&mut self, screen: &str) -> Vec<Effect> {
        self.show(screen);
        self.fire(Timer::ScreenTick)
    }

    pub(super) fn hook(&mut self, event: &str, payload: Value) -> HookOutcome {
        let kind = self.tracker.pane().agent.kind;
        let agent = serde_json::to_value(kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let report = HookReport {
            kind,
            agent,
            event: event.to_owned(),
            payload,
            message: None,
            title: None,
            severity: Severity::Info,
            decision: None,
        };
        self.tracker.on_hook(report, &self.screen)
    }

    pub(super) fn lifecycle(&self) -> Lifecycle {
        self.tracker.pane().lifecycle
    }

    fn attention(&self) -> Attention {
        self.tracker.pane().attention
    }
}

/// The names of the events `effects` publish, in order.
fn published(effects: &[Effect]) -> Vec<&'static str> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Publish(events) => Some(events.iter().map(Event::name)),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The timers `effects` arm, with their durations.
fn armed(effects: &[Effect]) -> Vec<(Timer, Duration)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Arm { timer, after } => Some((*timer, *after)),
            _ => None,
        })
        .collect()
}

fn cancelled(effects: &[Effect]) -> Vec<Timer> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Cancel(timer) => Some(*timer),
            _ => None,
        })
        .collect()
}

/// The `attention.cleared` reasons `effects` publish.
fn cleared_reasons(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Publish(events) => Some(events.iter().filter_map(|e| match e {
                Event::AttentionCleared { reason, .. } => Some(reason.clone()),
                _ => None,
            })),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The settle timer an idle reading armed.
fn settle_timer(effects: &[Effect]) -> Timer {
    match armed(effects).as_slice() {
        [(timer @ Timer::Settle(_), after)] => {
            assert_eq!(*after, DISMISS_SETTLE);
            *timer
        },
        other => panic!("an idle reading arms one settle check, not {other:?}"),
    }
}

/// A Claude pane a hook left blocked on a question that is on screen.
fn blocked_on_a_question() -> Harness {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({}));
    let outcome = h.hook(
        "Notification",
        json!({"notification_type": "question", "message": "Pick one"}),
    );
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    assert_eq!(h.attention(), Attention::InputRequired);
    assert_eq!(
        armed(&outcome.effects),
        [(Timer::ScreenTick, SCREEN_TICK)],
        "a hook that blocks the pane has its screen watched"
    );
    h.fire(Timer::ScreenTick);
    h.show_and_tick(QUESTION);
    h
}

#[test]
fn a_hooked_process_ignores_the_screen_rules() {
    let mut h = Harness::new(AgentKind::Claude);
    let outcome = h.hook("UserPromptSubmit", json!({}));
    assert!(outcome.reply.accepted);
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    assert!(h.tracker.hooked());
    assert!(
        armed(&h.show(PROMPT)).is_empty(),
        "no screen tick is armed for a hooked, working pane"
    );
    let effects = h.fire(Timer::ScreenTick);
    assert!(published(&effects).is_empty(), "{effects:?}");
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}

#[test]
fn a_screen_raised_input_required_is_withdrawn_by_the_first_hook() {
    let mut h = Harness::new(AgentKind::Claude);
    let effects = h.show_and_tick(QUESTION);
    assert_eq!(
        published(&effects),
        ["agent.blocked", "attention.created"],
        "the screen alone blocks an unhooked pane"
    );
    assert_eq!(h.attention(), Attention::InputRequired);
    let outcome = h.hook("SessionStart", json!({"session_id": "s1"}));
    assert_eq!(cleared_reasons(&outcome.effects), ["screen"]);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    assert_eq!(
        outcome.effects.last(),
        Some(&Effect::CheckRoute),
        "the answer route is checked after every hook"
    );
}

#[test]
fn a_dropped_hook_leaves_the_screen_in_charge() {
    let mut h = Harness::new(AgentKind::Claude);
    h.show_and_tick(QUESTION);
    let outcome = h.hook("NoSuchHook", json!({}));
    assert_eq!(outcome.reply.reason.as_deref(), Some("unrecognized_hook"));
    assert!(!h.tracker.hooked());
    assert_eq!(h.attention(), Attention::InputRequired);
}

#[test]
fn a_question_dismissed_on_screen_unblocks_the_pane_after_the_settle_time() {
    let mut h = blocked_on_a_question();
    let timer = settle_timer(&h.show_and_tick(PROMPT));
    assert_eq!(h.lifecycle(), Lifecycle::Blocked, "idle must hold first");
    let effects = h.fire(timer);
    assert_eq!(published(&effects), ["agent.idle", "attention.cleared"]);
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(
        h.tracker
            .evidence()
            .lifecycle
            .as_ref()
            .map(|o| o.source.as_str()),
        Some("screen:prompt")
    );
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
    assert_eq!(
        h.tracker
            .evidence()
            .lifecycle
            .as_ref()
            .map(|o| o.source.as_str()),
        Some("screen:title_spins")
    );
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

#[test]
fn a_cursor_tool_call_without_its_post_hook_is_taken_as_waiting_for_approval() {
    let mut h = Harness::new(AgentKind::Cursor);
    h.hook("beforeSubmitPrompt", json!({}));
    let outcome = h.hook(
        "preToolUse",
        json!({"tool_use_id": "call_1", "tool_name": "Shell"}),
    );
    let [(timer @ Timer::Approval(_), after)] = armed(&outcome.effects)[..] else {
        panic!("preToolUse arms one approval timer: {:?}", outcome.effects);
    };
    assert_eq!(after, APPROVAL_WAIT);
    assert_eq!(h.lifecycle(), Lifecycle::Working);

    let effects = h.fire(timer);
    assert_eq!(published(&effects), ["agent.blocked", "attention.created"]);
    assert_eq!(h.attention(), Attention::PermissionRequired);
    assert_eq!(
        h.tracker.pane().last_message.as_deref(),
        Some("waiting for approval: Shell")
    );

    let outcome = h.hook("postToolUse", json!({"tool_use_id": "call_1"}));
    assert_eq!(
        published(&outcome.effects),
        ["agent.working", "attention.cleared"]
    );
    assert_eq!(cleared_reasons(&outcome.effects), ["approval_resolved"]);
    let sources: Vec<&str> = outcome
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Publish(events) => Some(events.iter().filter_map(|e| match e {
                Event::AgentWorking { source, .. } => Some(source.as_str()),
                _ => None,
            })),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(sources, ["hook:cursor:approval_resolved"]);
}

#[test]
fn a_cursor_post_hook_in_time_cancels_the_approval_timer() {
    let mut h = Harness::new(AgentKind::Cursor);
    let outcome = h.hook("preToolUse", json!({"tool_use_id": "call_1"}));
    let [(timer, _)] = armed(&outcome.effects)[..] else {
        panic!("one timer: {:?}", outcome.effects);
    };
    let outcome = h.hook("postToolUse", json!({"tool_use_id": "call_1"}));
    assert_eq!(cancelled(&outcome.effects), [timer]);
    assert!(
        published(&h.fire(timer)).is_empty(),
        "a timer that fires late anyway finds no call"
    );
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}

#[test]
fn the_end_of_a_cursor_run_forgets_its_calls() {
    let mut h = Harness::new(AgentKind::Cursor);
    let outcome = h.hook("preToolUse", json!({"tool_use_id": "call_1"}));
    let [(timer, _)] = armed(&outcome.effects)[..] else {
        panic!("one timer: {:?}", outcome.effects);
    };
    let outcome = h.hook("stop", json!({}));
    assert_eq!(cancelled(&outcome.effects), [timer]);
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert!(published(&h.fire(timer)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Done);
}

#[test]
fn a_session_end_after_a_reviewed_turn_changes_nothing() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({}));
    h.hook("Stop", json!({"last_assistant_message": "fixed"}));
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(h.attention(), Attention::Unread);
    h.tracker.with_axes("mark_seen", |axes| {
        axes.acknowledge("mark_seen", false);
    });
    let outcome = h.hook("SessionEnd", json!({}));
    assert!(outcome.reply.accepted);
    assert!(
        published(&outcome.effects).is_empty(),
        "{:?}",
        outcome.effects
    );
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(h.attention(), Attention::None);
}

#[test]
fn a_worker_its_task_closed_exits_without_asking_for_a_look() {
    let mut h = blocked_on_a_question();
    let names: Vec<&str> = h.tracker.on_task_closed().iter().map(Event::name).collect();
    assert_eq!(names, ["attention.cleared"]);
    assert_eq!(h.attention(), Attention::None);
    assert_eq!(
        published(&h.tracker.on_exit(Some(143))),
        ["pane.exited", "agent.exited"],
        "no attention raised by the exit"
    );
    assert_eq!(h.attention(), Attention::None);
}

#[test]
fn the_exit_publishes_pane_exited_then_the_state_events_in_one_batch() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({}));
    let effects = h.tracker.on_exit(Some(0));
    assert!(
        matches!(effects.as_slice(), [Effect::Publish(_), Effect::CheckRoute]),
        "one batch, then the route check: {effects:?}"
    );
    assert_eq!(
        published(&effects),
        ["pane.exited", "agent.exited", "attention.created"]
    );
    assert_eq!(h.tracker.process(), Process::Gone);
    assert!(
        armed(&h.show(PROMPT)).is_empty(),
        "an exited pane is not judged"
    );
}

#[test]
fn a_resumed_process_starts_unhooked_and_unknown() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({}));
    h.tracker.on_exit(Some(0));
    h.tracker.pane_mut().title = "⠇ Create out.txt | work".into();
    let effects = h
        .tracker
        .on_process_started(&["/opt/bin/claude".to_owned()]);
    assert_eq!(published(&effects), ["agent.unknown"]);
    assert_eq!(
        h.tracker.pane().title,
        "claude",
        "the old process's spinner title is not the new one's"
    );
    assert_eq!(armed(&effects), [(Timer::ScreenTick, SCREEN_TICK)]);
    assert!(!h.tracker.hooked());
    assert_eq!(h.tracker.process(), Process::Live);
}

#[test]
fn the_process_refresh_promotes_a_generic_pane_and_follows_its_cwd() {
    let mut h = Harness::new(AgentKind::None);
    let effects = h.tracker.on_process(ProcessReport {
        name: "sh".into(),
        new_cwd: Some("/tmp".into()),
        hint: Some("claude".into()),
    });
    assert_eq!(published(&effects), ["pane.updated"]);
    assert_eq!(h.tracker.pane().agent.kind, AgentKind::Claude);
    assert_eq!(h.tracker.pane().cwd, "/tmp");
}

#[test]
fn replaced_rules_are_seen_by_the_next_evaluation() {
    let rules = AgentRules::default();
    let mut tracker =
        AgentTracker::with_rules(pane(AgentKind::Claude), rules.clone(), APPROVAL_WAIT);
    tracker.on_output(1);
    assert!(
        published(&tracker.on_timer(Timer::ScreenTick, &PROMPT)).is_empty(),
        "no rules yet"
    );
    let manifest = Manifest::parse("test.toml", RULES, false).expect("the test rules parse");
    rules.replace(AgentSet {
        user: vec![manifest],
        ..AgentSet::default()
    });
    assert_eq!(
        armed(&tracker.on_rules_changed()),
        [(Timer::ScreenTick, SCREEN_TICK)]
    );
    assert_eq!(
        published(&tracker.on_timer(Timer::ScreenTick, &PROMPT)),
        ["agent.idle"]
    );
}
