//! Panes on the wire (docs/objects.md#pane) and the `pane.*` params and results
//! (docs/methods.md#panes).

use crate::WorkspaceRef;
use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::signal::SignalName;
use crate::time::Timestamp;
use crate::workspace::SplitDir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_decision: Option<crate::state::Decision>,
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
    pub const ALL: [Attention; 6] = [
        Attention::None,
        Attention::Unread,
        Attention::Warning,
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
            Attention::Error => "error",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Attention> {
        Attention::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// 0 (`none`) to 5 (`error`): `error > permission_required > input_required >
    /// warning > unread > none`.
    pub fn severity(self) -> u8 {
        match self {
            Attention::None => 0,
            Attention::Unread => 1,
            Attention::Warning => 2,
            Attention::InputRequired => 3,
            Attention::PermissionRequired => 4,
            Attention::Error => 5,
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

/// `pane.spawn` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSpawnParams {
    /// Workspace id or handle.
    pub workspace_id: WorkspaceRef,
    /// An empty tab of that workspace; default the active tab, else a new `agents` tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Launch directory; default the workspace cwd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The command; non-empty.
    pub argv: Vec<String>,
    /// Per-pane environment overrides (filtered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Columns; default 80, clamped 20–500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u16>,
    /// Rows; default 24, clamped 5–200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u16>,
    /// Agent kind name; an unknown one gives `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_hint: Option<String>,
    /// Lineage parent (pane ref).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_pane_id: Option<PaneRef>,
    /// Human label (≤ 128 chars).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Relation to the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<Relationship>,
    /// Owning task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}

impl PaneSpawnParams {
    /// A spawn of `argv` in a workspace with every optional param left out.
    pub fn new(workspace_id: WorkspaceRef, argv: Vec<String>) -> PaneSpawnParams {
        PaneSpawnParams {
            workspace_id,
            tab_id: None,
            cwd: None,
            argv,
            env: None,
            cols: None,
            rows: None,
            agent_hint: None,
            parent_pane_id: None,
            label: None,
            relationship: None,
            task_id: None,
        }
    }
}

/// `pane.split` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSplitParams {
    /// The pane to split (id or name).
    pub pane_id: PaneRef,
    /// `right` (default) or `down`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<SplitDir>,
    /// Default the user shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// Default the split pane's cwd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Per-pane environment overrides, as `pane.spawn`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
}

/// Params naming just a pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneTarget {
    /// Pane id or name.
    pub pane_id: PaneRef,
}

/// `pane.input` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneInputParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// Raw bytes, standard base64.
    pub data_b64: String,
}

/// `pane.resize` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneResizeParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// Columns, clamped 20–500.
    pub cols: u16,
    /// Rows, clamped 5–200.
    pub rows: u16,
}

/// `pane.signal` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSignalParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// An allowed signal.
    pub signal: SignalName,
    /// Signal the child's process group instead of the child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<bool>,
}

/// `pane.close` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneCloseParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// Default `TERM`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<SignalName>,
}

/// How `pane.read` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadMode {
    /// The visible grid.
    Screen,
    /// The last lines of the rendered ring.
    #[default]
    Tail,
    /// Incremental cursor read of the ring.
    Rendered,
}

/// `pane.read` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneReadParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// Default `tail`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ReadMode>,
    /// Default 200, capped at 5000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    /// Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strip_ansi: Option<bool>,
    /// `rendered` only; default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
}

/// `pane.read` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneReadResult {
    /// Lines joined with `\n`.
    pub text: String,
    /// More lines matched than were returned.
    pub truncated: bool,
    /// `rendered`: seq of the first returned line (the head when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// `rendered`: the head; pass it back as `after_seq`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_seq: Option<u64>,
    /// `rendered`: the cursor is no longer valid; re-read from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<bool>,
}

/// `{pane}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneResult {
    /// The pane.
    pub pane: Pane,
}

/// What launching a supported agent did to its hook configuration
/// (docs/methods.md#the-integration-object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Integration {
    /// The agent configured.
    pub agent: String,
    /// `configured`, `disabled` or `error`.
    pub status: String,
    /// Whether files were written.
    pub changed: bool,
    /// The config file touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Text clients must show when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// `pane.spawn`, `pane.split` and `pane.resume` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneLaunchResult {
    /// The pane.
    pub pane: Pane,
    /// Present only for direct launches of a supported agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integration: Option<Integration>,
}

/// `pane.get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneGetResult {
    /// The pane.
    pub pane: Pane,
    /// Wait baseline (docs/states.md#the-wait-baseline); null when the pane has no
    /// process record.
    pub wait_baseline: Option<crate::state::WaitBaseline>,
}

/// `pane.input` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneInputResult {
    /// Bytes the PTY accepted.
    pub written: u64,
}

/// `{sent: true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentResult {
    /// Always true.
    pub sent: bool,
}

/// The most base64 text `pane.input` takes.
pub const MAX_INPUT_B64: usize = 1024 * 1024;
/// The most lines a read returns.
pub const MAX_READ_LINES: u64 = 5000;

/// `pane.attach` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneAttachParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// With `rows`: resize to the viewer's terminal first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u16>,
    /// With `cols`: resize to the viewer's terminal first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u16>,
    /// Acknowledge reading (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_seen: Option<bool>,
    /// Our extension: a watch-only viewer (a preview). It receives the
    /// snapshot and `pty.data` like any viewer, but it is not a terminal the
    /// program talks to: the pane keeps answering the program's terminal
    /// queries itself while only watchers are attached (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<bool>,
}

/// `pane.attach` result: the screen to start from and the offset it covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneAttachResult {
    /// Replayable VT bytes that reproduce the screen, base64.
    pub snapshot_b64: String,
    /// The pane's cumulative output offset covered by the snapshot.
    pub output_offset: u64,
    /// The pane's size.
    pub size: PtySize,
    /// Whether a process runs.
    pub live: LiveState,
    /// Restore state.
    pub restore_state: RestoreState,
    /// Lifecycle.
    pub lifecycle: Lifecycle,
    /// Attention.
    pub attention: Attention,
}

/// `{detached: true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetachedResult {
    /// Always true.
    pub detached: bool,
}

/// `pane.rename` params. `name` must be present; `null` clears it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneRenameParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// The new name (`[a-z][a-z0-9_-]*`, ≤ 32 bytes), or `null` to clear; absent
    /// is an error.
    #[serde(default, deserialize_with = "present_or_null")]
    pub name: Option<Option<String>>,
}

/// Tells a present `null` (`Some(None)`) from an absent field (`None`).
fn present_or_null<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// `pane.clear` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneClearResult {
    /// Always true.
    pub cleared: bool,
    /// The output offset at which every view cleared.
    pub output_offset: u64,
}

/// `pane.wait_for_output` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneWaitForOutputParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// Substring (or regex) a line must contain.
    #[serde(rename = "match")]
    pub pattern: String,
    /// Treat `match` as a regex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<bool>,
    /// As `pane.read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ReadMode>,
    /// As `pane.read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    /// As `pane.read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strip_ansi: Option<bool>,
    /// `rendered` only: lines after this cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    /// Default 3600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

/// `pane.wait_for_output` result: the matching line and the final read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneWaitForOutputResult {
    /// The first matching line.
    pub matched_line: String,
    /// The final read.
    #[serde(flatten)]
    pub read: PaneReadResult,
}

/// `pane.swap` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSwapParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// The pane to trade places with.
    pub target_pane_id: PaneRef,
}

/// `pane.move` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneMoveParams {
    /// Pane id or name.
    pub pane_id: PaneRef,
    /// The pane to split with the moved one.
    pub target_pane_id: PaneRef,
    /// `right` (default) or `down`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<SplitDir>,
}

/// `{tabs}`: the tabs a rearrangement touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabsResult {
    /// The touched tabs.
    pub tabs: Vec<crate::workspace::Tab>,
}

#[cfg(test)]
mod tests;
