//! A turn interrupted in the agent's own terminal
//! (docs/screen-rules.md#an-interrupted-turn-is-idle). Agents fire no hook
//! for Esc mid-turn, so a pane their hooks made `working` would stay so until
//! the next prompt. For an agent whose rules can say so (a rule with `state =
//! "interrupted"`), the screen of a hooked, working pane is looked at: the
//! agent's own word ends the turn at once; on a version the rules were
//! checked on, an idle reading that holds for `DISMISS_SETTLE` with no hook
//! in between ends it too (Claude, interrupted before it answered, puts the
//! prompt back and says nothing). Either way the pane is `idle`, with
//! nothing to read.

use super::screen::{DISMISS_SETTLE, Winner};
use super::{AgentTracker, Effect, Timer};
use crate::domain::state::apply::CheckedHook;
use signaltty_model::agents::screen::ScreenState;
use signaltty_protocol::pane::{AgentKind, Attention, Fidelity, Lifecycle};

/// The pending check of an idle reading on a hooked, working pane.
#[derive(Debug, Default)]
pub(super) struct InterruptWatch {
    /// The check's token and the rule that read idle.
    pending: Option<(u64, String)>,
    /// The pending second look at a turn a hook ended `done`.
    turn_end: Option<u64>,
    checks: u64,
    /// Whether the pane's rules read interrupts, for the rules generation,
    /// kind and program it was worked out for: asked on every output batch
    /// of a hooked, working pane.
    reads: Option<(u64, AgentKind, String, bool)>,
}

impl InterruptWatch {
    /// A hook came, or the screen read something else: no check stands.
    pub(super) fn cancel(&mut self) {
        self.pending = None;
        self.turn_end = None;
    }

    fn token(&mut self) -> u64 {
        self.checks += 1;
        self.checks
    }
}

impl AgentTracker {
    /// Whether a rule for this pane reads an interrupted turn or a usage
    /// limit: the agent's word that a hooked turn stopped.
    pub(super) fn reads_interrupts(&mut self) -> bool {
        let generation = self.rules.generation();
        let kind = self.pane.agent.kind;
        if let Some((g, k, program, reads)) = &self.interrupt.reads
            && (*g, *k) == (generation, kind)
            && *program == self.process_name
        {
            return *reads;
        }
        let rules = self.rules.current();
        let (_, applicable) = rules.rules_for(kind, &self.process_name);
        let reads = applicable
            .iter()
            .any(|r| matches!(r.state, ScreenState::Interrupted | ScreenState::RateLimited));
        self.interrupt.reads = Some((generation, kind, self.process_name.clone(), reads));
        reads
    }

    /// The running agent's version is one its rules were checked on.
    fn checked_version(&self) -> bool {
        self.pane.agent.fidelity == Some(Fidelity::Checked)
    }

    /// A tick on a pane its hooks keep working: only the agent's word that
    /// the turn was interrupted, or an idle screen that stays so, moves it.
    pub(super) fn hooked_working_tick(
        &mut self,
        winner: &Winner,
        screen: &dyn super::Screen,
        effects: &mut Vec<Effect>,
    ) {
        match winner.state {
            // The agent stopped at its usage limit and fired no hook for it
            // (docs/screen-rules.md#a-usage-limit-is-rate-limited).
            ScreenState::RateLimited => {
                self.interrupt.cancel();
                self.apply_limit(screen, effects);
            },
            ScreenState::Interrupted => {
                self.interrupt.cancel();
                self.end_interrupted_turn(&winner.id, effects);
            },
            // An idle screen overrides hooks only on a version the rules
            // were checked on: there, a working turn always shows a sign.
            ScreenState::Idle if self.interrupt.pending.is_none() && self.checked_version() => {
                let token = self.interrupt.token();
                self.interrupt.pending = Some((token, winner.id.clone()));
                effects.push(Effect::Arm {
                    timer: Timer::Interrupt(token),
                    after: DISMISS_SETTLE,
                });
            },
            ScreenState::Idle => {},
            ScreenState::Working | ScreenState::Blocked | ScreenState::Hold => {
                self.interrupt.cancel()
            },
        }
    }

    /// A hook that ends the turn `done` while the screen says it was
    /// interrupted (Gemini CLI fires AfterAgent for a cancelled turn).
    pub(super) fn turn_end_reads_interrupted(
        &mut self,
        checked: &CheckedHook<'_, '_>,
        screen: &dyn super::Screen,
    ) -> bool {
        checked.ends_turn_done() && self.reads_interrupts() && self.interrupted_by(screen).is_some()
    }

    /// The rule that says the agent's word for an interrupted turn is on
    /// the screen, if one does. Asked once a hook has ended the turn, so a
    /// working sign that lags (Gemini's title) does not outrank it.
    fn interrupted_by(&self, screen: &dyn super::Screen) -> Option<String> {
        let set = self.rules.current();
        let (_, rules) = set.rules_for(self.pane.agent.kind, &self.process_name);
        let text = screen.text();
        let view = self.view(&text, screen.width());
        rules
            .iter()
            .filter(|r| r.state == ScreenState::Interrupted && r.matches(&view))
            .max_by_key(|r| r.priority)
            .map(|r| r.id.clone())
    }

    /// A hook just ended the turn `done`: the agent may say it was
    /// interrupted a moment after its hook fired, so the screen is looked at
    /// again once it has had `DISMISS_SETTLE` to draw it.
    pub(super) fn check_turn_end_later(&mut self, effects: &mut Vec<Effect>) {
        if !self.reads_interrupts() {
            return;
        }
        let token = self.interrupt.token();
        self.interrupt.turn_end = Some(token);
        effects.push(Effect::Arm {
            timer: Timer::Interrupt(token),
            after: DISMISS_SETTLE,
        });
    }

    /// The check `token` fired: a pane still hooked and working, with no hook
    /// since and a screen that still reads idle, was interrupted; a turn a
    /// hook ended `done`, unread still and no hook since, whose screen says
    /// it was interrupted, has nothing to read.
    pub(super) fn on_interrupt_settle(
        &mut self,
        token: u64,
        screen: &dyn super::Screen,
        effects: &mut Vec<Effect>,
    ) {
        if self.interrupt.turn_end == Some(token) {
            self.interrupt.turn_end = None;
            if self.pane.lifecycle == Lifecycle::Done
                && self.pane.attention == Attention::Unread
                && self.live()
                && let Some(rule) = self.interrupted_by(screen)
            {
                self.end_interrupted_turn(&rule, effects);
            }
            return;
        }
        let Some((pending, rule)) = self.interrupt.pending.take() else {
            return;
        };
        if pending != token
            || !self.hooked
            || !self.live()
            || self.pane.lifecycle != Lifecycle::Working
        {
            return;
        }
        if matches!(
            self.reading(screen),
            Some(ScreenState::Idle | ScreenState::Interrupted)
        ) {
            self.end_interrupted_turn(&rule, effects);
        }
    }

    fn end_interrupted_turn(&mut self, rule: &str, effects: &mut Vec<Effect>) {
        let source = format!("screen:{rule}");
        let events = self.with_axes(&source, |axes| {
            if axes.pane.attention == Attention::Unread {
                axes.clear("interrupted");
            }
            axes.set_lifecycle(Lifecycle::Idle, &source);
        });
        if !events.is_empty() {
            effects.push(Effect::Publish(events));
        }
    }
}
