//! Screen rules on the Pane actor (spec/agents.md §13.6–§13.9): a live pane
//! whose process has sent no hook is classified from its screen and title by the
//! rules that apply to its kind and program, 500 ms after its screen, rules,
//! kind or program change (and every 500 ms while output keeps coming). An idle
//! pane costs no wake-ups. `pane.explain` shows the same evaluation without
//! applying it. A hooked pane is watched only while a hook keeps it blocked:
//! the question watch (`state/question.rs`) says when the screen shows its
//! question dismissed or answered.

use super::Pane;
use crate::agents::screen::{ScreenState, View, classify};
use crate::agents::{self, RuleSource};
use crate::state::apply::apply_screen;
use crate::supervisor::Publish;
use actix::prelude::*;
use serde_json::json;
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::Lifecycle;
use std::time::Duration;

/// How long after a change a pane is classified from its screen.
pub const SCREEN_TICK: Duration = Duration::from_millis(500);

/// How long a hook-blocked pane's screen must read idle, with no hook, after
/// its question went away, before the question counts as dismissed: an
/// answered question whose turn ends at once reads idle too, until the
/// agent's turn-end hook arrives.
pub const DISMISS_SETTLE: Duration = Duration::from_millis(1500);

/// The active rule set changed (`agents.reload`): evaluate again.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct RulesChanged;

impl Handler<RulesChanged> for Pane {
    type Result = ();

    fn handle(&mut self, _msg: RulesChanged, ctx: &mut Self::Context) {
        self.arm_screen(ctx);
    }
}

/// What the rules say about the pane now.
pub struct Evaluation {
    pub source: RuleSource,
    /// `{id, state, region, matched, priority}` per applicable rule.
    pub rules: Vec<serde_json::Value>,
    /// The winner: its index, id and state.
    pub winner: Option<(usize, String, agents::screen::ScreenState)>,
    /// The text of the winner's region (explain only).
    pub winner_text: Option<String>,
}

impl Pane {
    /// Evaluates the applicable rules against the current screen and title.
    pub(super) fn evaluate_screen(&self, explain: bool) -> Evaluation {
        let set = agents::active();
        let (source, rules) = set.rules_for(self.state.agent.kind, &self.process_name);
        if rules.is_empty() {
            return Evaluation {
                source,
                rules: Vec::new(),
                winner: None,
                winner_text: None,
            };
        }
        let screen = self.term.screen_text();
        let view = View::new(&screen, &self.state.title);
        let winner = classify(&rules, &view).map(|i| (i, rules[i].id.clone(), rules[i].state));
        let winner_text = if explain {
            winner
                .as_ref()
                .map(|(i, _, _)| view.region(rules[*i].region, rules[*i].lines))
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

    /// One tick: classify and apply, for a live pane whose process sent no hook.
    /// A pane whose screen, rules, kind and program are as at its last tick is
    /// not evaluated again: the answer would be the same, and applying it twice
    /// changes nothing.
    /// Schedules one evaluation `SCREEN_TICK` from now, unless one is already
    /// scheduled or the rules cannot apply (no process, or it is hooked).
    pub(super) fn arm_screen(&mut self, ctx: &mut Context<Self>) {
        if self.screen_armed || self.pty.is_none() || !self.screen_applies() {
            return;
        }
        self.screen_armed = true;
        ctx.run_later(SCREEN_TICK, |pane, ctx| {
            pane.screen_armed = false;
            pane.screen_tick(ctx);
        });
    }

    /// Whether the rules, kind or program changed since the last evaluation.
    pub(super) fn screen_context_changed(&self) -> bool {
        self.screen_seen
            .as_ref()
            .is_none_or(|(_, generation, kind, program)| {
                *generation != agents::generation()
                    || *kind != self.state.agent.kind
                    || *program != self.process_name
            })
    }

    /// Whether screen rules look at this pane now: its process sent no hook,
    /// or a hook left it blocked (the one state an agent may leave without a
    /// hook: a question dismissed with Esc fires none).
    fn screen_applies(&self) -> bool {
        !self.hooked || self.state.lifecycle == Lifecycle::Blocked
    }

    pub(super) fn screen_tick(&mut self, ctx: &mut Context<Self>) {
        if self.pty.is_none() || !self.screen_applies() {
            return;
        }
        let seen = (
            self.output_offset,
            agents::generation(),
            self.state.agent.kind,
            self.process_name.clone(),
        );
        if self.screen_seen.as_ref() == Some(&seen) {
            return;
        }
        self.screen_seen = Some(seen);
        let Some((_, id, state)) = self.evaluate_screen(false).winner else {
            return;
        };
        if self.hooked {
            self.hooked_blocked_tick(state, &id, ctx);
            return;
        }
        let mut raised = self.screen_raised;
        let events = apply_screen(
            &mut self.state,
            state,
            &id,
            &mut raised,
            self.typed,
            Timestamp::now(),
        );
        self.screen_raised = raised;
        if !events.is_empty() {
            self.note_evidence(&format!("screen:{id}"), &events);
            self.events.do_send(Publish { events });
        }
    }

    /// A hook left the pane blocked and its question has not been recognised
    /// on screen yet: look now, on every output batch, rather than at the next
    /// tick, since a person may dismiss the question sooner than a tick. This
    /// stops as soon as the question is seen (or the pane leaves `blocked`).
    pub(super) fn look_for_question(&mut self) {
        if !self.hooked || self.question.seen() || self.state.lifecycle != Lifecycle::Blocked {
            return;
        }
        let reading = self
            .evaluate_screen(false)
            .winner
            .map(|(_, _, state)| state);
        self.question.output_reading(reading);
    }

    /// A tick on a pane that a hook left blocked: the question watch
    /// (`state/question.rs`) decides; working leaves at once, idle only after
    /// `DISMISS_SETTLE` with no hook in between.
    fn hooked_blocked_tick(&mut self, state: ScreenState, rule: &str, ctx: &mut Context<Self>) {
        use crate::state::question::{SettleStep, TickStep};
        match self.question.tick(state, self.may_leave_question()) {
            TickStep::Stay => {},
            TickStep::LeaveForWorking => self.leave_question(Lifecycle::Working, rule),
            TickStep::Settle(token) => {
                let rule = rule.to_owned();
                ctx.run_later(DISMISS_SETTLE, move |pane, ctx| {
                    let reading = pane.evaluate_screen(false).winner.map(|(_, _, s)| s);
                    let may_leave = pane.may_leave_question();
                    match pane.question.settle(token, may_leave, reading) {
                        SettleStep::Stale => {},
                        SettleStep::LeaveForIdle => pane.leave_question(Lifecycle::Idle, &rule),
                        SettleStep::LookAgain => {
                            pane.screen_seen = None;
                            pane.arm_screen(ctx);
                        },
                    }
                });
            },
        }
    }

    /// Whether the screen may take the pane out of a hook's `blocked`: it is
    /// hooked and blocked, and no reporter waits for the answer.
    fn may_leave_question(&self) -> bool {
        self.hooked
            && self.state.lifecycle == Lifecycle::Blocked
            && self
                .state
                .pending_decision
                .as_ref()
                .is_none_or(|d| !d.answerable)
    }

    fn leave_question(&mut self, to: Lifecycle, rule: &str) {
        let source = format!("screen:{rule}");
        let events = self.with_axes(&source, |axes| {
            axes.clear_decision("moved_on");
            axes.set_lifecycle(to, &source);
            axes.clear("screen");
        });
        self.question.reset();
        if !events.is_empty() {
            self.note_evidence(&source, &events);
            self.events.do_send(Publish { events });
        }
    }
}
