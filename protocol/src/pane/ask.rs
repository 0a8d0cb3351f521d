//! `pane.ask` (docs/methods.md#paneask, docs/ask.md): a prompt submitted
//! through the same gate as `pane.submit`, then the turn waited for and
//! what the agent answered in it.

use crate::ids::{PaneId, PaneRef};
use crate::pane::{Attention, Lifecycle};
use crate::state::Decision;
use serde::{Deserialize, Serialize};

/// The default time `pane.ask` waits, in milliseconds (10 minutes).
pub const DEFAULT_ASK_TIMEOUT_MS: u64 = 600_000;

/// `pane.ask` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneAskParams {
    /// The pane.
    pub pane_id: PaneRef,
    /// The prompt, as `pane.submit` takes it.
    pub text: String,
    /// How long to wait in all (a busy pane first, then the turn); default
    /// 600 000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Refuse a busy pane (`AGENT_BUSY`) instead of waiting for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_if_idle: Option<bool>,
}

/// How the asked turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskOutcome {
    /// The agent finished its turn: `answer` is what it said.
    Done,
    /// The agent asks something (a permission or a question): `decision`.
    Blocked,
    /// The turn failed, or the agent's process exited.
    Failed,
    /// The turn was interrupted (the pane went back to idle without a
    /// finished turn).
    Interrupted,
    /// The time ran out: the pane stayed busy (nothing was submitted), or the
    /// turn goes on.
    Timeout,
}

/// `pane.ask` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneAskResult {
    /// How the turn ended.
    pub outcome: AskOutcome,
    /// The pane.
    pub pane_id: PaneId,
    /// Whether the prompt was submitted (false only for a timeout while the
    /// pane stayed busy).
    pub submitted: bool,
    /// What the agent answered in the turn, when it ended `done`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Where `answer` came from: `hook` (the agent's own turn-end report) or
    /// `screen` (the turn's text on the screen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_source: Option<String>,
    /// The pane's last message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// The question, when `blocked` with a pending decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// Lifecycle when the answer was made.
    pub lifecycle: Lifecycle,
    /// Attention when the answer was made.
    pub attention: Attention,
}
