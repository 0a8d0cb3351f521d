//! The params and results of the `pane.*` methods (docs/methods.md#panes), with
//! the limits on input and reads.

use super::{Attention, Lifecycle, LiveState, Pane, PtySize, Relationship, RestoreState};
use crate::WorkspaceRef;
use crate::ids::{PaneRef, TabId};
use crate::signal::SignalName;
use crate::workspace::SplitDir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_or_null"
    )]
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
