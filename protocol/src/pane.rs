//! Panes on the wire (docs/objects.md#pane): the pane object with its size, its
//! agent and its lifecycle and attention states. The `pane.*` params and
//! results (docs/methods.md#panes) are in `methods.rs`.

use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod ask;
mod methods;
#[cfg(test)]
mod tests;

pub use ask::{AskOutcome, DEFAULT_ASK_TIMEOUT_MS, PaneAskParams, PaneAskResult};

pub use methods::{
    DetachedResult, Integration, MAX_INPUT_B64, MAX_READ_LINES, PaneAttachParams, PaneAttachResult,
    PaneClearResult, PaneCloseParams, PaneGetResult, PaneInputParams, PaneInputResult,
    PaneLaunchResult, PaneMoveParams, PaneReadParams, PaneReadResult, PaneRenameParams,
    PaneResizeParams, PaneResult, PaneSignalParams, PaneSpawnParams, PaneSplitParams,
    PaneSwapParams, PaneTarget, PaneWaitForOutputParams, PaneWaitForOutputResult, ReadMode,
    SentResult, TabsResult,
};

/// A pane: one PTY and its process, or a tombstone after exit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pane {
    /// `pane_…`, stable across resume and restart.
    pub id: PaneId,
    /// The owning workspace.
    pub workspace_id: WorkspaceId,
    /// The tab it is shown in.
    pub tab_id: TabId,
    /// Unique address set by `pane.rename`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Basename of `argv[0]`, then OSC titles.
    pub title: String,
    /// Launch directory.
    pub cwd: String,
    /// Launch command.
    pub argv: Vec<String>,
    /// Last arbitrated size.
    pub pty_size: PtySize,
    /// Whether a process runs.
    pub live: LiveState,
    /// How the pane came to be as it is after a restart.
    pub restore_state: RestoreState,
    /// Agent identity.
    pub agent: AgentInfo,
    /// What the pane is doing.
    pub lifecycle: Lifecycle,
    /// The lifecycle before the latest change.
    pub last_lifecycle: Lifecycle,
    /// When `lifecycle` last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle_since: Option<Timestamp>,
    /// Seconds of the most recent `working` stretch, set when leaving `working`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run_secs: Option<i64>,
    /// Whether a person needs to look.
    pub attention: Attention,
    /// When attention was last raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention_since: Option<Timestamp>,
    /// While attention is `rate_limited`: when the agent said its usage
    /// limit resets, if it said so in words signaltty reads
    /// (docs/states.md#usage-limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<Timestamp>,
    /// Latest explicit message (never scraped screen text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// Creation time.
    pub created_at: Timestamp,
    /// Output, hooks, notifications or state changes.
    pub last_activity_at: Timestamp,
    /// The last acknowledgment (`mark_seen`, attach, answer, clear).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen_at: Option<Timestamp>,
    /// Lineage: the spawning pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_pane_id: Option<PaneId>,
    /// Lineage: the root of the spawning chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_pane_id: Option<PaneId>,
    /// Human label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Relation to the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<Relationship>,
    /// Owning task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The question waiting for an answer, if any (docs/objects.md#decision).
    /// Boxed, as the hibernation record: most panes have neither, and the
    /// server keeps a pane object for each of a thousand panes twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_decision: Option<Box<crate::state::Decision>>,
    /// When and why the pane was hibernated, while it is
    /// (docs/restore.md#hibernation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernation: Option<Box<Hibernation>>,
}

/// A hibernated pane's record: when its agent was stopped, after how long
/// idle, and why (docs/restore.md#hibernation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hibernation {
    /// When the agent was stopped.
    pub at: Timestamp,
    /// The workspace's idle time that was reached, in seconds.
    pub after_s: u64,
    /// Why, in words.
    pub reason: String,
}

/// Terminal size in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtySize {
    /// Columns, 20–500.
    pub cols: u16,
    /// Rows, 5–200.
    pub rows: u16,
}

impl PtySize {
    /// The size at spawn when none is asked for.
    pub const DEFAULT: PtySize = PtySize { cols: 80, rows: 24 };

    /// Clamps a requested size into 20–500 × 5–200.
    pub fn clamped(cols: u16, rows: u16) -> PtySize {
        PtySize {
            cols: cols.clamp(20, 500),
            rows: rows.clamp(5, 200),
        }
    }
}

/// `{"state":"live"}` or `{"state":"exited","code":…}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LiveState {
    /// The child runs.
    Live,
    /// The child exited with `code` (128 + signal when killed; null when unknown).
    Exited {
        /// Exit code.
        code: Option<i32>,
    },
}

/// The restore state of a pane (docs/objects.md#restore-state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RestoreState {
    /// Child running, PTY attached.
    Live,
    /// Rebuilt after a restart, no process, no resume command.
    Restored,
    /// Like `Restored`, with an adapter resume command.
    Resumable,
    /// The process ended.
    Exited,
    /// An idle agent stopped by signaltty to free its memory; its exact
    /// session is resumed by the next prompt, input or attach
    /// (docs/restore.md#hibernation).
    Hibernated,
}

/// Agent identity of a pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// The kind.
    pub kind: AgentKind,
    /// Native session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session_id: Option<String>,
    /// Official resume command for that session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_argv: Option<Vec<String>>,
    /// Model, when an adapter knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `OPENCODE_CONFIG_DIR` from the spawn env.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_env: Option<BTreeMap<String, String>>,
    /// The running agent's version, from its package's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether the agent's rules were checked on that version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fidelity: Option<Fidelity>,
}

/// Whether a pane's state is read by rules checked on its agent's version
/// (docs/agents.md#checked-versions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fidelity {
    /// The version is one the manifest names, or older than its newest.
    Checked,
    /// Newer than every version the rules were checked on: the state is the
    /// best reading of rules that may no longer fit.
    Unverified,
}

/// Agent kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// OpenAI Codex CLI.
    Codex,
    /// Claude Code.
    Claude,
    /// OpenCode.
    Opencode,
    /// Cursor Agent.
    Cursor,
    /// Pi.
    Pi,
    /// Gemini CLI.
    Gemini,
    /// Any other program.
    Generic,
    /// No agent.
    None,
}

impl AgentKind {
    /// Every kind, in declaration order.
    pub const ALL: [AgentKind; 8] = [
        AgentKind::Codex,
        AgentKind::Claude,
        AgentKind::Opencode,
        AgentKind::Cursor,
        AgentKind::Pi,
        AgentKind::Gemini,
        AgentKind::Generic,
        AgentKind::None,
    ];

    /// The kind's wire name (its serde spelling): also the `--agent` of its
    /// hooks and the agent argument of `signaltty integration`.
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Codex => "codex",
            AgentKind::Claude => "claude",
            AgentKind::Opencode => "opencode",
            AgentKind::Cursor => "cursor",
            AgentKind::Pi => "pi",
            AgentKind::Gemini => "gemini",
            AgentKind::Generic => "generic",
            AgentKind::None => "none",
        }
    }

    /// Parses an agent kind name; `None` for an unknown one.
    pub fn parse(name: &str) -> Option<AgentKind> {
        serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
    }

    /// Whether this kind is an agent (not `generic` or `none`).
    pub fn is_agent(self) -> bool {
        !matches!(self, AgentKind::Generic | AgentKind::None)
    }
}

/// What a pane is doing (docs/states.md#lifecycle-states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// Not known yet.
    Unknown,
    /// Busy.
    Working,
    /// Waiting on a person.
    Blocked,
    /// Finished a turn.
    Done,
    /// Ready and idle.
    Idle,
    /// Failed.
    Failed,
    /// The agent process exited.
    Exited,
}

/// Whether a person needs to look (docs/states.md#attention-states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attention {
    /// Nothing to see.
    None,
    /// Something new.
    Unread,
    /// Asks a question.
    InputRequired,
    /// Asks permission.
    PermissionRequired,
    /// A warning.
    Warning,
    /// The agent stopped at its plan's usage limit and waits for the reset
    /// (docs/states.md#usage-limits).
    RateLimited,
    /// An error.
    Error,
}

impl Lifecycle {
    /// Every lifecycle, in the order of docs/states.md#lifecycle-states.
    pub const ALL: [Lifecycle; 7] = [
        Lifecycle::Unknown,
        Lifecycle::Working,
        Lifecycle::Blocked,
        Lifecycle::Done,
        Lifecycle::Idle,
        Lifecycle::Failed,
        Lifecycle::Exited,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Lifecycle::Unknown => "unknown",
            Lifecycle::Working => "working",
            Lifecycle::Blocked => "blocked",
            Lifecycle::Done => "done",
            Lifecycle::Idle => "idle",
            Lifecycle::Failed => "failed",
            Lifecycle::Exited => "exited",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Lifecycle> {
        Lifecycle::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

impl Attention {
    /// Every attention value, lowest severity first (docs/states.md#attention-states).
    pub const ALL: [Attention; 7] = [
        Attention::None,
        Attention::Unread,
        Attention::Warning,
        Attention::RateLimited,
        Attention::InputRequired,
        Attention::PermissionRequired,
        Attention::Error,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Attention::None => "none",
            Attention::Unread => "unread",
            Attention::InputRequired => "input_required",
            Attention::PermissionRequired => "permission_required",
            Attention::Warning => "warning",
            Attention::RateLimited => "rate_limited",
            Attention::Error => "error",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Attention> {
        Attention::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// 0 (`none`) to 6 (`error`): `error > permission_required >
    /// input_required > rate_limited > warning > unread > none`.
    pub fn severity(self) -> u8 {
        match self {
            Attention::None => 0,
            Attention::Unread => 1,
            Attention::Warning => 2,
            Attention::RateLimited => 3,
            Attention::InputRequired => 4,
            Attention::PermissionRequired => 5,
            Attention::Error => 6,
        }
    }
}

/// Relation to a parent pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relationship {
    /// A fork of the parent.
    Fork,
    /// A sub-agent of the parent.
    Subagent,
}

pub use crate::ids::PaneRef;
