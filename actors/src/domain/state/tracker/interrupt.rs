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
use signaltty_model::agents::screen::ScreenState;
use signaltty_protocol::pane::{AgentKind, Fidelity, Lifecycle};

/// The pending check of an idle reading on a hooked, working pane.
#[derive(Debug, Default)]
pub(super) struct InterruptWatch {
    /// The check's token and the rule that read idle.
    pending: Option<(u64, String)>,
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
    }
}

impl AgentTracker {
    /// Whether a rule for this pane reads an interrupted turn.
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
            .any(|r| r.state == ScreenState::Interrupted);
        self.interrupt.reads = Some((generation, kind, self.process_name.clone(), reads));
        reads
    }

    /// The running agent's version is one its rules were checked on.
    fn checked_version(&self) -> bool {
        self.pane.agent.fidelity == Some(Fidelity::Checked)
    }

    /// A tick on a pane its hooks keep working: only the agent's word that
    /// the turn was interrupted, or an idle screen that stays so, moves it.
    pub(super) fn hooked_working_tick(&mut self, winner: &Winner, effects: &mut Vec<Effect>) {
        match winner.state {
            ScreenState::Interrupted => {
                self.interrupt.cancel();
                self.end_interrupted_turn(&winner.id, effects);
            },
            // An idle screen overrides hooks only on a version the rules
            // were checked on: there, a working turn always shows a sign.
            ScreenState::Idle if self.interrupt.pending.is_none() && self.checked_version() => {
                self.interrupt.checks += 1;
                let token = self.interrupt.checks;
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

    /// The check `token` fired: a pane still hooked and working, with no hook
    /// since and a screen that still reads idle, was interrupted.
    pub(super) fn on_interrupt_settle(
        &mut self,
        token: u64,
        screen: &dyn super::Screen,
        effects: &mut Vec<Effect>,
    ) {
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
            axes.set_lifecycle(Lifecycle::Idle, &source);
        });
        if !events.is_empty() {
            effects.push(Effect::Publish(events));
        }
    }
}
