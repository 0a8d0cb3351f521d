//! AgentTracker tests: the rules that were only tested end to end, as plain
//! functions. Timers are never waited for: a test fires the timer the tracker
//! asked for by handing it back to `on_timer`. This file holds the harness, hooks
//! against the screen, and the process's exit, resume and refresh; questions,
//! unhooked panes, Cursor's approvals, the hook vocabulary and generated hook
//! payloads have files of their own.

mod approval;
mod generated;
mod interrupts;
mod limits;
mod questions;
mod sessions;
mod subagents;
mod unhooked;
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
    /// The monotonic clock the tracker is told, moved by hand.
    pub(super) clock: std::time::Instant,
}

impl Harness {
    pub(super) fn new(kind: AgentKind) -> Harness {
        Harness {
            tracker: AgentTracker::with_rules(pane(kind), rules(), APPROVAL_WAIT),
            output_offset: 0,
            screen: String::new(),
            clock: std::time::Instant::now(),
        }
    }

    /// The process prints `screen` (it replaces what was shown).
    fn show(&mut self, screen: &str) -> Vec<Effect> {
        self.screen = screen.to_owned();
        self.output_offset += screen.len() as u64;
        self.tracker.on_output(self.output_offset, self.clock);
        self.tracker.on_screen(&self.screen)
    }

    /// `timer` fires.
    fn fire(&mut self, timer: Timer) -> Vec<Effect> {
        self.tracker.on_timer(timer, &self.screen, self.clock)
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

    /// The evidence that last moved the lifecycle (`screen:<rule>`, …).
    fn lifecycle_source(&self) -> Option<&str> {
        self.tracker
            .evidence()
            .lifecycle
            .as_ref()
            .map(|o| o.source.as_str())
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
        packages: Vec::new(),
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
    let now = std::time::Instant::now();
    tracker.on_output(1, now);
    assert!(
        published(&tracker.on_timer(Timer::ScreenTick, &PROMPT, now)).is_empty(),
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
        published(&tracker.on_timer(Timer::ScreenTick, &PROMPT, now)),
        ["agent.idle"]
    );
}
