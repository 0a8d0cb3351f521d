//! The question watch: how the screen takes a pane out of a hook's `blocked`
//! (docs/agents.md, "A question dismissed in the terminal unblocks a hooked
//! pane"). Esc at an agent's question fires no hook, so while a hook keeps a
//! pane blocked its screen rules keep looking. Pure: the Pane actor feeds it
//! readings and carries out what it answers.

use signaltty_model::agents::screen::ScreenState;

/// What one watched pane has seen since a hook blocked it.
#[derive(Debug, Default)]
pub struct QuestionWatch {
    /// The rules have recognised the question on screen.
    seen: bool,
    /// The settle check scheduled for an idle reading, by number.
    pending: Option<u64>,
    /// Settle checks scheduled so far.
    checks: u64,
}

/// What a tick's reading asks of the pane.
#[derive(Debug, PartialEq, Eq)]
pub enum TickStep {
    /// Nothing.
    Stay,
    /// The agent works again: the question was answered in the terminal.
    LeaveForWorking,
    /// The screen reads idle: check again after the settle time, with this
    /// token, before calling the question dismissed.
    Settle(u64),
}

/// What a settle check asks of the pane.
#[derive(Debug, PartialEq, Eq)]
pub enum SettleStep {
    /// A newer check, a hook or a new question made this one stale.
    Stale,
    /// Still idle: the question was dismissed.
    LeaveForIdle,
    /// A working sign held through the settle time with no hook: the question
    /// was answered in the terminal.
    LeaveForWorking,
    /// The screen moved on meanwhile: evaluate it again at the next tick.
    LookAgain,
}

impl QuestionWatch {
    /// Forgets everything: a new question, leaving `blocked`, a new process.
    pub fn reset(&mut self) {
        self.seen = false;
        self.pending = None;
    }

    /// Whether the question has been recognised on screen.
    pub fn seen(&self) -> bool {
        self.seen
    }

    /// A reading taken on output, before the question was seen: a person
    /// may dismiss it sooner than a tick comes.
    pub fn output_reading(&mut self, reading: Option<ScreenState>) {
        if reading == Some(ScreenState::Blocked) {
            self.seen = true;
        }
    }

    /// The question signaltty held for a waiting reporter ended unanswered
    /// (the reporter's connection closed: the agent gave up waiting, or timed
    /// out and asks in its own UI). No question of the agent's may ever have
    /// been on screen (Codex shows "Running hook" meanwhile), so from here
    /// the screen decides: its own question keeps the pane blocked, working
    /// or a settled idle takes it out.
    pub fn native_question_ended(&mut self) {
        self.seen = true;
        self.pending = None;
    }

    /// A hook arrived and the pane is still blocked: a pending settle check
    /// is stale (the agent is talking again), the question stays seen.
    pub fn hook_while_blocked(&mut self) {
        self.pending = None;
    }

    /// A tick's reading. `may_leave`: a hook keeps the pane blocked and no
    /// reporter waits for its answer (such a decision keeps it blocked).
    pub fn tick(&mut self, reading: ScreenState, may_leave: bool) -> TickStep {
        match reading {
            ScreenState::Blocked => {
                self.seen = true;
                self.pending = None;
                TickStep::Stay
            },
            _ if !(self.seen && may_leave) => TickStep::Stay,
            ScreenState::Working => TickStep::LeaveForWorking,
            ScreenState::Idle | ScreenState::Interrupted if self.pending.is_none() => {
                self.checks += 1;
                self.pending = Some(self.checks);
                TickStep::Settle(self.checks)
            },
            ScreenState::Idle
            | ScreenState::Interrupted
            | ScreenState::Hold
            | ScreenState::RateLimited => TickStep::Stay,
        }
    }

    /// A tick whose only working sign is the terminal title (a spinner).
    /// A title can lag the screen: Codex keeps its spinner for a moment after
    /// Esc at its question, before its `Interrupt` hook says the turn ended.
    /// So it leaves only if it still reads working after the settle time with
    /// no hook in between, as an idle reading does.
    pub fn title_working_tick(&mut self, may_leave: bool) -> TickStep {
        if !(self.seen && may_leave) || self.pending.is_some() {
            return TickStep::Stay;
        }
        self.checks += 1;
        self.pending = Some(self.checks);
        TickStep::Settle(self.checks)
    }

    /// The settle check `token` fired; `reading` is the screen now.
    pub fn settle(
        &mut self,
        token: u64,
        may_leave: bool,
        reading: Option<ScreenState>,
    ) -> SettleStep {
        if self.pending != Some(token) {
            return SettleStep::Stale;
        }
        self.pending = None;
        if !(self.seen && may_leave) {
            return SettleStep::Stale;
        }
        match reading {
            Some(ScreenState::Idle | ScreenState::Interrupted) => SettleStep::LeaveForIdle,
            Some(ScreenState::Working) => SettleStep::LeaveForWorking,
            _ => SettleStep::LookAgain,
        }
    }
}

#[cfg(test)]
mod tests;
