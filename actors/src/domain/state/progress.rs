//! The per-pane progress record and the evaluation of `wait` against it
//! (docs/states.md#waiting-on-states). Runtime only: the projection keeps one
//! record per pane, updated from the events it applies, so a baseline taken
//! from `pane.get` and every later transition are numbered by the same seqs.

use signaltty_protocol::pane::{Attention, Lifecycle, LiveState, Pane};
use signaltty_protocol::state::WaitBaseline;
use std::collections::HashMap;

/// The record of one pane's process (docs/states.md#the-progress-record).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub process_instance: String,
    pub session_generation: u64,
    session: Option<String>,
    pub lifecycle_seq: u64,
    pub attention_seq: u64,
    /// State name → seq of the last time the pane entered it.
    transitions: HashMap<&'static str, u64>,
}

impl Progress {
    /// The record of a process started at `seq` (spawn, split, resume, server
    /// start), with the pane's current states entered at that seq.
    pub fn start(process_instance: String, seq: u64, pane: &Pane) -> Progress {
        let mut transitions = HashMap::new();
        transitions.insert(pane.lifecycle.as_str(), seq);
        transitions.insert(pane.attention.as_str(), seq);
        Progress {
            process_instance,
            session_generation: 0,
            session: pane.agent.agent_session_id.clone(),
            lifecycle_seq: seq,
            attention_seq: seq,
            transitions,
        }
    }

    /// The pane entered `lifecycle` at `seq`.
    pub fn lifecycle(&mut self, lifecycle: Lifecycle, seq: u64) {
        self.lifecycle_seq = seq;
        self.transitions.insert(lifecycle.as_str(), seq);
    }

    /// The pane's attention became `attention` at `seq` (`none` for a clear).
    pub fn attention(&mut self, attention: Attention, seq: u64) {
        self.attention_seq = seq;
        self.transitions.insert(attention.as_str(), seq);
    }

    /// The pane's child exited (`pane.exited` at `seq`).
    pub fn exited(&mut self, seq: u64) {
        self.lifecycle(Lifecycle::Exited, seq);
    }

    /// The pane's session id is now `id`: replacing a known id by another one
    /// (even an earlier one) counts a new generation; the first discovery does not.
    pub fn session(&mut self, id: Option<&str>) {
        if let (Some(old), Some(new)) = (self.session.as_deref(), id)
            && old != new
        {
            self.session_generation += 1;
        }
        if id.is_some() {
            self.session = id.map(str::to_owned);
        }
    }

    /// The `wait_baseline` of `pane.get` (docs/states.md#the-wait-baseline).
    pub fn baseline(&self, pane: &Pane) -> WaitBaseline {
        WaitBaseline {
            pane_id: pane.id.clone(),
            process_instance: self.process_instance.clone(),
            agent_session_id: pane.agent.agent_session_id.clone(),
            session_generation: self.session_generation,
            lifecycle_seq: self.lifecycle_seq,
            attention_seq: self.attention_seq,
        }
    }

    fn entered(&self, key: &str) -> u64 {
        self.transitions.get(key).copied().unwrap_or(0)
    }
}

/// One `wait.until` alternative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Lifecycle(Lifecycle),
    Attention(Attention),
    /// `seen` and `attention_cleared`: attention `none`.
    Seen,
}

impl Outcome {
    /// Parses an outcome name (docs/methods.md#wait); `exited` is the
    /// lifecycle.
    pub fn parse(name: &str) -> Option<Outcome> {
        if name == "seen" || name == "attention_cleared" {
            return Some(Outcome::Seen);
        }
        Lifecycle::parse(name)
            .map(Outcome::Lifecycle)
            .or_else(|| Attention::parse(name).map(Outcome::Attention))
    }

    /// The transition key and whether it is on the attention axis.
    fn key(self) -> (&'static str, bool) {
        match self {
            Outcome::Lifecycle(l) => (l.as_str(), false),
            Outcome::Attention(a) => (a.as_str(), true),
            Outcome::Seen => (Attention::None.as_str(), true),
        }
    }

    /// Whether the pane is in this state now
    /// (docs/states.md#waiting-on-the-current-state).
    fn holds(self, pane: &Pane) -> bool {
        match self {
            Outcome::Lifecycle(Lifecycle::Exited) => {
                matches!(pane.live, LiveState::Exited { .. }) || pane.lifecycle == Lifecycle::Exited
            },
            Outcome::Lifecycle(l) => pane.lifecycle == l,
            Outcome::Attention(a) => pane.attention == a,
            Outcome::Seen => pane.attention == Attention::None,
        }
    }
}

/// Why a wait cannot succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitError {
    NoSuchPane,
    IdentityChanged(&'static str),
    /// The baseline is ahead of the pane: malformed.
    Ahead,
}

/// A satisfied wait: the outcome (as the caller wrote it) and the seq of the
/// transition that satisfied it (0 for a current-state match with none recorded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Satisfied {
    pub outcome: String,
    pub transition_seq: u64,
}

/// Checks a wait once (docs/states.md#waiting-after-a-baseline,
/// docs/states.md#waiting-on-the-current-state). `Ok(None)`: not yet.
pub fn evaluate(
    pane: Option<&Pane>,
    progress: Option<&Progress>,
    until: &[(String, Outcome)],
    after: Option<&WaitBaseline>,
) -> Result<Option<Satisfied>, WaitError> {
    let pane = pane.ok_or(WaitError::NoSuchPane)?;
    let Some(after) = after else {
        return Ok(until
            .iter()
            .find(|(_, o)| o.holds(pane))
            .map(|(name, o)| Satisfied {
                outcome: name.clone(),
                transition_seq: progress.map_or(0, |p| p.entered(o.key().0)),
            }));
    };
    let progress = progress.ok_or(WaitError::IdentityChanged("the pane has no process record"))?;
    if after.process_instance != progress.process_instance {
        return Err(WaitError::IdentityChanged(
            "the pane's process was replaced",
        ));
    }
    if after.session_generation != progress.session_generation {
        return Err(WaitError::IdentityChanged("the agent session was replaced"));
    }
    if let Some(session) = &after.agent_session_id
        && pane.agent.agent_session_id.as_ref() != Some(session)
    {
        return Err(WaitError::IdentityChanged("the agent session id differs"));
    }
    if after.lifecycle_seq > progress.lifecycle_seq || after.attention_seq > progress.attention_seq
    {
        return Err(WaitError::Ahead);
    }
    Ok(until.iter().find_map(|(name, outcome)| {
        let (key, attention_axis) = outcome.key();
        let threshold = if attention_axis {
            after.attention_seq
        } else {
            after.lifecycle_seq
        };
        let t = progress.entered(key);
        (t > threshold).then(|| Satisfied {
            outcome: name.clone(),
            transition_seq: t,
        })
    }))
}
