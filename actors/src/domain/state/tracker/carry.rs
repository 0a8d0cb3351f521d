//! What of an `AgentTracker` crosses an in-place upgrade (docs/upgrade.md):
//! the evidence flags that decide which rules may move the pane. The pane
//! object travels beside it; timers, the question watch, the last screen
//! evaluation and Cursor's tool calls start afresh in the new binary (the
//! first screen tick re-reads the screen, which crossed the upgrade whole).

use super::{AgentTracker, Evidence, Observed};
use serde::{Deserialize, Serialize};
use signaltty_protocol::Timestamp;

/// A tracker's evidence, serialisable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Carry {
    /// The process has sent a hook: screen rules stay off it.
    pub hooked: bool,
    /// The pane's `input_required` was raised by a screen rule.
    pub screen_raised: bool,
    /// Input was written to the process since it started.
    pub typed: bool,
    /// The pane's task closed it.
    pub task_closed: bool,
    /// Unhooked and blocked, and the screen read working since.
    pub worked_since_blocked: bool,
    /// Cumulative output bytes as the tracker last saw them.
    pub output_offset: u64,
    /// What last moved the lifecycle, and when.
    pub lifecycle_by: Option<(String, Timestamp)>,
    /// What last moved attention, and when.
    pub attention_by: Option<(String, Timestamp)>,
}

fn pair(o: &Option<Observed>) -> Option<(String, Timestamp)> {
    o.as_ref().map(|o| (o.source.clone(), o.at.clone()))
}

fn observed(p: Option<(String, Timestamp)>) -> Option<Observed> {
    p.map(|(source, at)| Observed { source, at })
}

impl AgentTracker {
    /// The evidence to hand over with the pane object.
    pub fn carry(&self) -> Carry {
        Carry {
            hooked: self.hooked,
            screen_raised: self.screen_raised,
            typed: self.typed,
            task_closed: self.task_closed,
            worked_since_blocked: self.worked_since_blocked,
            output_offset: self.output_offset,
            lifecycle_by: pair(&self.evidence.lifecycle),
            attention_by: pair(&self.evidence.attention),
        }
    }

    /// This new tracker continues a pane handed over by an upgrade: its pane
    /// object is the one handed over (lifecycle, attention, decision), and
    /// `carry` its evidence.
    pub fn with_carry(self, carry: Carry) -> AgentTracker {
        let mut tracker = self;
        tracker.hooked = carry.hooked;
        tracker.screen_raised = carry.screen_raised;
        tracker.typed = carry.typed;
        tracker.task_closed = carry.task_closed;
        tracker.worked_since_blocked = carry.worked_since_blocked;
        tracker.output_offset = carry.output_offset;
        tracker.evidence = Evidence {
            lifecycle: observed(carry.lifecycle_by),
            attention: observed(carry.attention_by),
        };
        tracker
    }
}

#[cfg(test)]
mod tests;
