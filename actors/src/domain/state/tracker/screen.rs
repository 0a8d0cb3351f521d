//! Screen rules in the tracker (docs/screen-rules.md#when-screen-rules-run): a
//! live pane whose process has sent no hook is classified from its screen and
//! title by the rules that apply to its kind and program, `SCREEN_TICK` after
//! its screen, rules, kind or program change (and every tick while output keeps
//! coming). An idle pane costs no wake-ups. A hooked pane is watched only while
//! a hook keeps it blocked: the question watch (`state/question.rs`) says when
//! the screen shows its question dismissed or answered. `pane.explain` shows
//! the same evaluation without applying it.

use super::{AgentTracker, Effect, PendingSettle, ScreenSeen, Timer};
use crate::domain::state::apply::apply_screen_seen;
use crate::domain::state::question::{SettleStep, TickStep};
use serde_json::json;
use signaltty_model::agents::RuleSource;
use signaltty_model::agents::screen::{ScreenState, View, classify};
use signaltty_protocol::pane::Lifecycle;
use signaltty_protocol::state::{AxisEvidence, PaneExplainResult};
use std::time::Duration;

/// The screen the rules read: the pane's terminal, or a test's text.
pub trait Screen {
    /// The visible screen as text, one line per row.
    fn text(&self) -> String;

    /// Its columns, when known (a line this wide is cut by the right edge);
    /// else the widest line's are taken.
    fn width(&self) -> Option<usize> {
        None
    }
}

impl Screen for String {
    fn text(&self) -> String {
        self.clone()
    }
}

impl Screen for &str {
    fn text(&self) -> String {
        (*self).to_owned()
    }
}

/// The source of an `unknown` reading: output ran long and no sign matched.
pub const NO_SIGN: &str = "screen:no_sign";

/// How long after a change a pane is classified from its screen.
pub const SCREEN_TICK: Duration = Duration::from_millis(500);

/// How long a hook-blocked pane's screen must read idle, with no hook, after
/// its question went away, before the question counts as dismissed: an
/// answered question whose turn ends at once reads idle too, until the
/// agent's turn-end hook arrives.
pub const DISMISS_SETTLE: Duration = Duration::from_millis(1500);

/// The rule that won an evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Winner {
    /// Its index among the applicable rules.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// What it says.
    pub state: ScreenState,
    /// It looks only at the terminal title.
    pub title_only: bool,
    /// It matches every screen: no sign matched.
    pub catch_all: bool,
}

/// What the rules say about the pane now.
#[derive(Debug)]
pub struct Evaluation {
    /// Where the applicable rules come from.
    pub source: RuleSource,
    /// `{id, state, region, matched, priority}` per applicable rule (explain only).
    pub rules: Vec<serde_json::Value>,
    /// The winner, if a rule matched.
    pub winner: Option<Winner>,
    /// The text of the winner's region (explain only).
    pub winner_text: Option<String>,
}

/// Whether an evaluation is for `pane.explain` (with every rule's verdict
/// and the winner's region text) or only for its winner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The winner only.
    Winner,
    /// Everything `pane.explain` shows.
    Explain,
}

impl AgentTracker {
    /// The rules' view of `text`, the screen `width` columns wide when
    /// known, with the pane's title.
    pub(super) fn view<'a>(&'a self, text: &'a str, width: Option<usize>) -> View<'a> {
        match width {
            Some(width) => View::with_width(text, &self.pane.title, width),
            None => View::new(text, &self.pane.title),
        }
    }

    /// Evaluates the applicable rules against `screen` and the pane's title.
    pub fn evaluate_screen(&self, screen: &dyn Screen, detail: Detail) -> Evaluation {
        let set = self.rules.current();
        let (source, rules) = set.rules_for(self.pane.agent.kind, &self.process_name);
        if rules.is_empty() {
            return Evaluation {
                source,
                rules: Vec::new(),
                winner: None,
                winner_text: None,
            };
        }
        let text = screen.text();
        let view = self.view(&text, screen.width());
        let winner = classify(&rules, &view).map(|index| Winner {
            index,
            id: rules[index].id.clone(),
            state: rules[index].state,
            title_only: rules[index].region == signaltty_model::agents::screen::Region::Title,
            catch_all: rules[index].is_catch_all(),
        });
        let explain = detail == Detail::Explain;
        let winner_text = if explain {
            winner
                .as_ref()
                .map(|w| view.region(rules[w.index].region, rules[w.index].lines))
        } else {
            None
        };
        let rules = if explain {
            rules
                .iter()
                .map(|r| {
                    json!({
                        "id": r.id,
                        "state": r.state.as_str(),
                        "region": r.region_label(),
                        "priority": r.priority,
                        "matched": r.matches(&view),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        Evaluation {
            source,
            rules,
            winner,
            winner_text,
        }
    }

    /// What the winning rule says, if any.
    pub(super) fn reading(&self, screen: &dyn Screen) -> Option<ScreenState> {
        self.evaluate_screen(screen, Detail::Winner)
            .winner
            .map(|w| w.state)
    }

    /// Asks for one evaluation `SCREEN_TICK` from now, unless one is already
    /// armed or the rules cannot apply (no process, or it is hooked).
    pub(super) fn arm_screen(&mut self, effects: &mut Vec<Effect>) {
        if self.screen_armed || !self.live() || !self.screen_applies() {
            return;
        }
        self.screen_armed = true;
        effects.push(Effect::Arm {
            timer: Timer::ScreenTick,
            after: SCREEN_TICK,
        });
    }

    /// Whether the rules, kind or program changed since the last evaluation.
    pub(super) fn screen_context_changed(&self) -> bool {
        self.screen_seen.as_ref().is_none_or(|seen| {
            seen.rules_generation != self.rules.generation()
                || seen.kind != self.pane.agent.kind
                || seen.program != self.process_name
        })
    }

    /// Whether screen rules look at this pane now: its process sent no hook,
    /// or a hook left it blocked (the one state an agent may leave without a
    /// hook: a question dismissed with Esc fires none).
    fn screen_applies(&mut self) -> bool {
        !self.hooked
            || self.pane.lifecycle == Lifecycle::Blocked
            || (self.pane.lifecycle == Lifecycle::Working && self.reads_interrupts())
    }

    /// One tick: classify and apply, for a live pane the rules look at. A
    /// pane whose screen, rules, kind and program are as at its last tick is
    /// not evaluated again: the answer would be the same, and applying it
    /// twice changes nothing.
    pub(super) fn screen_tick(
        &mut self,
        screen: &dyn Screen,
        now: std::time::Instant,
        effects: &mut Vec<Effect>,
    ) {
        if !self.live() || !self.screen_applies() {
            return;
        }
        let seen = ScreenSeen {
            output_offset: self.output_offset,
            rules_generation: self.rules.generation(),
            kind: self.pane.agent.kind,
            program: self.process_name.clone(),
        };
        if self.screen_seen.as_ref() == Some(&seen) {
            return;
        }
        self.screen_seen = Some(seen);
        let Some(winner) = self.evaluate_screen(screen, Detail::Winner).winner else {
            return;
        };
        if self.hooked && self.pane.lifecycle == Lifecycle::Working {
            self.hooked_working_tick(&winner, screen, effects);
            return;
        }
        if self.hooked {
            self.hooked_blocked_tick(&winner, effects);
            return;
        }
        if self.printing.no_sign_for_long(winner.catch_all, now) {
            self.no_sign_while_printing(effects);
            return;
        }
        if winner.state == ScreenState::RateLimited {
            self.apply_limit(screen, effects);
            return;
        }
        let winner = self.put_back(winner, screen);
        self.apply_winner(&winner, effects);
    }

    /// What the winning rule does (docs/screen-rules.md#what-the-winning-rule-does).
    fn apply_winner(&mut self, winner: &Winner, effects: &mut Vec<Effect>) {
        let events = self.stretch.batch(&mut self.pane, |pane, now| {
            apply_screen_seen(
                pane,
                winner.state,
                &winner.id,
                &mut self.screen_raised,
                self.typed,
                self.worked_since_blocked,
                now,
            )
        });
        if self.pane.lifecycle != Lifecycle::Blocked {
            self.worked_since_blocked = false;
        }
        if !events.is_empty() {
            self.note_evidence(&format!("screen:{}", winner.id), &events);
            effects.push(Effect::Publish(events));
        }
    }

    /// The agent has printed for `UNKNOWN_AFTER` and no rule but the catch-all
    /// matches: its state is not known, whatever the fallback says
    /// (docs/screen-rules.md#when-no-sign-matches). The screen is looked at
    /// again soon, so that the end of the output is read even when nothing
    /// more is printed.
    fn no_sign_while_printing(&mut self, effects: &mut Vec<Effect>) {
        let events = self.with_axes(NO_SIGN, |axes| {
            axes.set_lifecycle(Lifecycle::Unknown, NO_SIGN);
        });
        if !events.is_empty() {
            effects.push(Effect::Publish(events));
        }
        self.screen_seen = None;
        self.screen_armed = true;
        effects.push(Effect::Arm {
            timer: Timer::ScreenTick,
            after: super::printing::UNKNOWN_RECHECK,
        });
    }

    /// A hook left the pane blocked and its question has not been recognised
    /// on screen yet: look now, on every output batch, rather than at the next
    /// tick, since a person may dismiss the question sooner than a tick. This
    /// stops as soon as the question is seen (or the pane leaves `blocked`).
    pub(super) fn look_for_question(&mut self, screen: &dyn Screen) {
        if !self.hooked || self.question.seen() || self.pane.lifecycle != Lifecycle::Blocked {
            return;
        }
        let reading = self.reading(screen);
        self.question.output_reading(reading);
    }

    /// An unhooked pane the screen left blocked: every screen change is read
    /// (not only the tick's), and a working reading is remembered until the
    /// screen shows a question again. An answered question whose turn ends
    /// before the next tick then reads as a finished turn, not as a dismissed
    /// question (`apply_screen_seen`). A blocked pane draws little: this costs
    /// one evaluation per output batch only while it waits.
    pub(super) fn watch_blocked_turn(&mut self, screen: &dyn Screen) {
        if self.hooked || !self.live() || self.pane.lifecycle != Lifecycle::Blocked {
            return;
        }
        match self.reading(screen) {
            Some(ScreenState::Working) => self.worked_since_blocked = true,
            Some(ScreenState::Blocked) => self.worked_since_blocked = false,
            _ => {},
        }
    }

    /// A tick on a pane that a hook left blocked: the question watch decides.
    /// A working sign on the screen leaves at once; idle, or a working sign
    /// only in the title, leaves only after `DISMISS_SETTLE` with no hook in
    /// between.
    fn hooked_blocked_tick(&mut self, winner: &Winner, effects: &mut Vec<Effect>) {
        // A wait at the usage limit is no question: the agent at work again
        // on its screen ends it, its title alone does not (Gemini's says
        // "Working…" under its limit dialog) (docs/states.md#usage-limits).
        if self.pane.attention == signaltty_protocol::pane::Attention::RateLimited {
            if winner.state == ScreenState::Working && !winner.title_only {
                let source = format!("screen:{}", winner.id);
                let events = self.with_axes(&source, |axes| {
                    axes.set_lifecycle(Lifecycle::Working, &source);
                });
                if !events.is_empty() {
                    effects.push(Effect::Publish(events));
                }
            }
            return;
        }
        let may_leave = self.may_leave_question();
        let step = if winner.state == ScreenState::Working && winner.title_only {
            self.question.title_working_tick(may_leave)
        } else {
            self.question.tick(winner.state, may_leave)
        };
        match step {
            TickStep::Stay => {},
            TickStep::LeaveForWorking => {
                self.leave_question(Lifecycle::Working, &winner.id, effects)
            },
            TickStep::Settle(token) => {
                self.settle = Some(PendingSettle {
                    token,
                    rule: winner.id.clone(),
                });
                effects.push(Effect::Arm {
                    timer: Timer::Settle(token),
                    after: DISMISS_SETTLE,
                });
            },
        }
    }

    /// The settle check `token` fired: a screen still idle means the question
    /// was dismissed, one still working that it was answered.
    pub(super) fn on_settle(&mut self, token: u64, screen: &dyn Screen, effects: &mut Vec<Effect>) {
        let reading = self.reading(screen);
        let may_leave = self.may_leave_question();
        let to = match self.question.settle(token, may_leave, reading) {
            SettleStep::Stale => return,
            SettleStep::LeaveForIdle => Lifecycle::Idle,
            SettleStep::LeaveForWorking => Lifecycle::Working,
            SettleStep::LookAgain => {
                self.screen_seen = None;
                self.arm_screen(effects);
                return;
            },
        };
        let rule = match self.settle.take() {
            Some(pending) if pending.token == token => pending.rule,
            // The watch and this record are set together; a mismatch
            // would be a bug, and the source then names no rule.
            _ => String::new(),
        };
        self.leave_question(to, &rule, effects);
    }

    /// Whether the screen may take the pane out of a hook's `blocked`: it is
    /// hooked and blocked, and no reporter waits for the answer.
    fn may_leave_question(&self) -> bool {
        self.hooked
            && self.pane.lifecycle == Lifecycle::Blocked
            && self
                .pane
                .pending_decision
                .as_ref()
                .is_none_or(|d| !d.answerable)
    }

    fn leave_question(&mut self, to: Lifecycle, rule: &str, effects: &mut Vec<Effect>) {
        let source = format!("screen:{rule}");
        let events = self.with_axes(&source, |axes| {
            axes.clear_decision("moved_on");
            axes.set_lifecycle(to, &source);
            axes.clear("screen");
        });
        self.question.reset();
        if !events.is_empty() {
            effects.push(Effect::Publish(events));
        }
    }

    /// `pane.explain`: the process, hook and screen-rule status, and the
    /// evidence behind each axis. Read-only.
    pub fn explain(&self, screen: &dyn Screen) -> PaneExplainResult {
        let state = &self.pane;
        let axis =
            |value: &str, evidence: &Option<super::Observed>, hints: Vec<String>| AxisEvidence {
                state: value.to_owned(),
                source: evidence.as_ref().map(|o| o.source.clone()),
                since: evidence.as_ref().map(|o| o.at.clone()),
                changes_with: hints,
            };
        let live = self.live();
        let eval = self.evaluate_screen(screen, Detail::Explain);
        let classifies = live && !self.hooked && !eval.rules.is_empty();
        PaneExplainResult {
            kind: state.agent.kind,
            process: self.process_name.clone(),
            source: eval.source.as_str().into(),
            live,
            hooked: self.hooked,
            classifies,
            matched: eval.winner.as_ref().map(|w| {
                let no_sign = state.lifecycle == Lifecycle::Unknown
                    && self.evidence.lifecycle.as_ref().is_some_and(|o| o.source == NO_SIGN);
                let reason = if w.catch_all && no_sign {
                    "the agent has printed for a long time and no working, blocked or hold sign matched: its state is unknown, not idle"
                } else if w.catch_all {
                    "no working, blocked or hold sign matched: a known agent reads as idle"
                } else {
                    "the highest-priority rule that matched"
                };
                json!({
                    "id": w.id,
                    "state": w.state.as_str(),
                    "index": w.index,
                    "region_text": eval.winner_text,
                    "reason": reason,
                })
            }),
            rules: eval.rules,
            lifecycle: axis(
                state.lifecycle.as_str(),
                &self.evidence.lifecycle,
                crate::domain::state::explain::lifecycle_hints(state, live, self.hooked),
            ),
            attention: axis(
                state.attention.as_str(),
                &self.evidence.attention,
                crate::domain::state::explain::attention_hints(state, self.decision_pending()),
            ),
            // The router adds it: the workspace's setting is not the pane's.
            hibernation: None,
            version: state.agent.kind.is_agent().then(|| self.version_explain()),
        }
    }
}
