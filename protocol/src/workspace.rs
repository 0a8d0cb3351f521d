//! Workspaces and tabs on the wire (docs/objects.md#workspace, docs/objects.md#tab)
//! and the `workspace.*` params and results (docs/methods.md#workspaces).

use crate::ids::{PaneId, TabId, WorkspaceId, WorkspaceRef};
use crate::signal::SignalName;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// A workspace: a repo, project or investigation with a default cwd for new panes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workspace {
    /// `ws_…`.
    pub id: WorkspaceId,
    /// Editable, non-unique label.
    pub name: String,
    /// Immutable unique slug derived from the name at create.
    pub handle: String,
    /// Default directory for new panes.
    pub cwd: String,
    /// Cached git facts about `cwd`.
    pub git: GitInfo,
    /// Tab ids in order.
    pub tabs: Vec<TabId>,
    /// The last active tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_tab_id: Option<TabId>,
    /// Opt-in automatic resume at server start.
    #[serde(default)]
    pub auto_resume: bool,
    /// Idle agents are hibernated after this many seconds; 0: never; absent:
    /// the server's default (`hibernate.after_s`, docs/restore.md#hibernation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernate_after_s: Option<u64>,
    /// Opt-in: a pane at its usage limit gets its continue prompt once the
    /// limit resets (docs/states.md#auto-continue).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto_continue: bool,
    /// The prompt auto-continue types, instead of the agent's own
    /// (`continue_prompt` in its manifest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_continue_prompt: Option<String>,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// A cheap cache of git facts about a workspace's cwd; never a full git client.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GitInfo {
    /// The checkout's top directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// The checkout's directory name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The checked-out branch, absent on a detached HEAD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// HEAD is detached.
    #[serde(default)]
    pub detached: bool,
    /// The tree has uncommitted changes (absent when not known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
}

/// A tab: one layout tree of panes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tab {
    /// `tab_…`.
    pub id: TabId,
    /// The owning workspace.
    pub workspace_id: WorkspaceId,
    /// Display title.
    pub title: String,
    /// The layout, `null` for an empty tab.
    pub layout: Option<Layout>,
    /// The last focused or created pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_pane_id: Option<PaneId>,
    /// Creation time.
    pub created_at: Timestamp,
}

/// A layout node: a pane leaf or a binary split (docs/objects.md#layout).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Layout {
    /// A leaf holding one pane.
    Pane {
        /// The pane shown here.
        pane_id: PaneId,
    },
    /// Two nodes side by side (`right`) or stacked (`down`).
    Split {
        /// Split direction.
        dir: SplitDir,
        /// Share of `first`, within [0.05, 0.95].
        ratio: f32,
        /// Left or top.
        first: Box<Layout>,
        /// Right or bottom.
        second: Box<Layout>,
    },
}

/// The direction of a split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitDir {
    /// Side by side: `first` left, `second` right.
    Right,
    /// Stacked: `first` top, `second` bottom.
    Down,
}

/// `workspace.create` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceCreateParams {
    /// Label; default `"workspace"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Default directory for new panes; must exist. Default `$HOME` (or `/tmp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// `workspace.list` takes no params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceListParams {}

/// `workspace.get` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceGetParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
}

/// `workspace.rename` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceRenameParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// The new label; the handle does not change.
    pub name: String,
}

/// `workspace.set_auto_resume` params: whether the workspace's resumable
/// agents start again by themselves when the server restarts
/// (docs/restore.md#auto-resume; off by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceSetAutoResumeParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// On or off.
    pub auto_resume: bool,
}

/// `workspace.set_hibernate` params: after how long idle the workspace's
/// agents are hibernated (docs/restore.md#hibernation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceSetHibernateParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// Seconds idle, at most a week; 0 turns hibernation off.
    pub after_s: u64,
}

/// `workspace.set_auto_continue` params: whether a pane of the workspace
/// that waits at its usage limit is given its continue prompt once the limit
/// resets (docs/states.md#auto-continue; off by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceSetAutoContinueParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// On or off.
    pub enabled: bool,
    /// The prompt to type; absent: the agent's own (`continue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// `workspace.close` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceCloseParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// Signal sent to each live child; default `TERM`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<SignalName>,
}

/// `{workspace}`: the result of `workspace.create` and `workspace.rename`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceResult {
    /// The affected workspace.
    pub workspace: Workspace,
}

/// `workspace.list` result, ordered by `created_at`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceListResult {
    /// Every workspace.
    pub workspaces: Vec<Workspace>,
}

/// `workspace.get` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceGetResult {
    /// The workspace.
    pub workspace: Workspace,
    /// Its tabs, in `workspace.tabs` order.
    pub tabs: Vec<Tab>,
    /// Panes reachable from the tabs' layouts, in tab and layout order.
    pub panes: Vec<crate::pane::Pane>,
}

/// `{closed: true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClosedResult {
    /// Always `true`.
    pub closed: bool,
}
