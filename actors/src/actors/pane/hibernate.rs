//! Hibernation on the Pane actor (docs/restore.md#hibernation): the last
//! check of the rules in the pane's own turn (its viewers, its unsent input,
//! its last touch), the adapter's stop, and the exit that follows taken as a
//! hibernation rather than an exit: the terminal, its history and the agent
//! state stay, `restore_state` reads `HIBERNATED` and `pane.hibernated` is
//! published. The next `pane.resume` (a wake) starts the exact session again.

use super::{Pane, SignalTarget};
use crate::actors::publish::Publish;
use crate::domain::hibernate::{self, Facts, Verdict};
use actix::prelude::*;
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::Hibernation;
use signaltty_protocol::state::HibernationExplain;
use std::time::{Duration, Instant};

/// Hibernates the pane when the rules allow it in this turn. Replies whether
/// the stop began; the pane reads `HIBERNATED` once the agent has exited.
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct Hibernate {
    /// The workspace's idle time.
    pub after: Duration,
    /// How long the Supervisor has seen the pane quiet.
    pub quiet_for: Duration,
    /// A task that is not terminal has this pane as its worker.
    pub task_waits: bool,
}

/// A stop under way: the record the pane will carry, and the stop's timers.
#[derive(Debug)]
pub(super) struct Stopping {
    record: Hibernation,
    timers: Vec<SpawnHandle>,
}

impl Handler<Hibernate> for Pane {
    type Result = bool;

    fn handle(&mut self, msg: Hibernate, ctx: &mut Self::Context) -> bool {
        if self.stopping.is_some()
            || self.pty.is_none()
            || self.route.is_some()
            || self.handing.is_some()
        {
            return false;
        }
        let facts = Facts {
            after: msg.after,
            quiet_for: msg.quiet_for.min(self.touched.elapsed()),
            viewer: self.terminal_attached(),
            unsent_input: self.unsent,
            task_waits: msg.task_waits,
        };
        if hibernate::verdict(self.state(), &facts) != Verdict::Due {
            return false;
        }
        let record = Hibernation {
            at: Timestamp::now(),
            after_s: msg.after.as_secs(),
            reason: hibernate::reason(self.state(), msg.after),
        };
        log::info!("pane {}: hibernating: {}", self.state().id, record.reason);
        let recipe = hibernate::stop_recipe(self.state().agent.kind);
        let mut timers = Vec::new();
        let mut at = Duration::ZERO;
        for key in recipe.keys {
            timers.push(ctx.run_later(at, move |pane, ctx| pane.type_stop_key(key, ctx)));
            at += recipe.gap;
        }
        if let Some(signal) = recipe.signal {
            self.signal_group(super::process::to_nix(signal));
        }
        // An agent that does not quit is asked harder, then killed: the
        // session it saved so far is what its resume finds.
        use nix::sys::signal::Signal;
        timers.push(ctx.run_later(at + recipe.grace, |pane, _| {
            pane.signal_group(Signal::SIGTERM)
        }));
        timers.push(ctx.run_later(at + recipe.grace * 2, |pane, _| {
            pane.signal_group(Signal::SIGKILL)
        }));
        self.stopping = Some(Box::new(Stopping { record, timers }));
        true
    }
}

impl Pane {
    /// The hibernation part of `pane.explain`: the record of a hibernated
    /// pane, else the rules judged now with what the pane knows.
    pub(super) fn explain_hibernation(&mut self, ask: &Hibernate) -> HibernationExplain {
        let after_s = ask.after.as_secs();
        let explained = |state: &str, reason: String, at: Option<Timestamp>| HibernationExplain {
            state: state.to_owned(),
            reason,
            at,
            after_s,
        };
        if let Some(record) = &self.state().hibernation {
            return HibernationExplain {
                state: "hibernated".into(),
                reason: record.reason.clone(),
                at: Some(record.at.clone()),
                after_s: record.after_s,
            };
        }
        if let Some(stopping) = &self.stopping {
            let r = &stopping.record;
            return explained("stopping", r.reason.clone(), Some(r.at.clone()));
        }
        let facts = Facts {
            after: ask.after,
            quiet_for: ask.quiet_for.min(self.touched.elapsed()),
            viewer: self.terminal_attached(),
            unsent_input: self.unsent,
            task_waits: ask.task_waits,
        };
        match hibernate::verdict(self.state(), &facts) {
            Verdict::Off => explained("off", "its workspace does not hibernate".into(), None),
            Verdict::Due => explained("due", "idle long enough: at the next check".into(), None),
            Verdict::Wait(left) => {
                let at = std::time::SystemTime::now() + left;
                explained(
                    "waiting",
                    format!("hibernates after {} s more of quiet", left.as_secs()),
                    Some(Timestamp::from_system_time(at)),
                )
            },
            Verdict::Never(keep) => explained("never", keep.words(), None),
        }
    }

    /// Whether a stop is under way: input and prompts wait for the wake.
    pub(super) fn hibernating(&self) -> bool {
        self.stopping.is_some()
    }

    fn type_stop_key(&mut self, key: &'static [u8], ctx: &mut Context<Self>) {
        let Some(pty) = self.pty.as_ref() else {
            return;
        };
        let written = self.write_bound(pty.as_ref(), key.to_vec());
        ctx.spawn(actix::fut::wrap_future(async move {
            drop(written.await);
        }));
    }

    fn signal_group(&self, signal: nix::sys::signal::Signal) {
        if let Some(pty) = &self.pty
            && let Err(e) = pty.signal(signal, SignalTarget::Group)
        {
            log::debug!("pane {}: {signal} for hibernation: {e}", self.state().id);
        }
    }

    /// The agent exited while it was being stopped: the pane is hibernated.
    /// Returns `false` when no stop was under way (an ordinary exit).
    pub(super) fn hibernated(&mut self, code: Option<i32>, ctx: &mut Context<Self>) -> bool {
        let Some(stopping) = self.stopping.take() else {
            return false;
        };
        for timer in stopping.timers {
            ctx.cancel_future(timer);
        }
        let events = self.tracker.on_hibernated(code, stopping.record);
        self.events.do_send(Publish::new(events));
        true
    }

    /// Input was written (`pane.input`): whether it leaves typed text
    /// without its Enter, and the pane's last touch.
    pub(super) fn on_typed(&mut self, bytes: &[u8]) {
        self.unsent = hibernate::leaves_unsent(self.unsent, bytes);
        self.touched = Instant::now();
    }

    /// A prompt was sent with its Enter: nothing typed waits, and the quiet
    /// starts again.
    pub(super) fn sent_prompt(&mut self) {
        self.unsent = false;
        self.touched = Instant::now();
    }

    /// A viewer came or went: the quiet starts again.
    pub(super) fn touch(&mut self) {
        self.touched = Instant::now();
    }

    /// A new process runs: nothing typed, nothing stopping.
    pub(super) fn reset_hibernation(&mut self, ctx: &mut Context<Self>) {
        if let Some(stopping) = self.stopping.take() {
            for timer in stopping.timers {
                ctx.cancel_future(timer);
            }
        }
        self.unsent = false;
        self.touched = Instant::now();
        self.tracker.pane_mut().hibernation = None;
    }
}

#[cfg(test)]
mod tests;
