//! `worktree.*` params and results (docs/methods.md#worktrees,
//! docs/worktrees.md#the-worktree-commands): git
//! checkouts of a source workspace's repository, queried live from git and
//! never stored in the snapshot.

use crate::ids::{WorkspaceId, WorkspaceRef};
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};

/// `worktree.list` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeListParams {
    /// The source workspace (id or handle): git runs in its cwd.
    pub workspace_id: WorkspaceRef,
}

/// `worktree.create` params: a new checkout on a new branch at the source HEAD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeCreateParams {
    /// The source workspace (id or handle).
    pub workspace_id: WorkspaceRef,
    /// The new checkout's absolute path; it must not exist, its parent must.
    pub path: String,
    /// The new branch, created at the source HEAD.
    pub branch: String,
    /// The new workspace's name (default: the branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `worktree.open` params: a workspace for an already registered checkout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeOpenParams {
    /// The source workspace (id or handle).
    pub workspace_id: WorkspaceRef,
    /// The checkout's absolute path.
    pub path: String,
    /// The workspace's name (default: the branch, else the directory name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `worktree.remove` params: a non-force removal; the branch is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeRemoveParams {
    /// The source workspace (id or handle).
    pub workspace_id: WorkspaceRef,
    /// The checkout's absolute path.
    pub path: String,
}

/// One registration of the source repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Worktree {
    /// The checkout's path as git records it.
    pub path: String,
    /// Its branch (absent when detached or bare).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Its HEAD commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The main worktree (git's first entry).
    pub main: bool,
    /// A bare repository.
    pub bare: bool,
    /// Locked (with or without a reason).
    pub locked: bool,
    /// Prunable (with or without a reason).
    pub prunable: bool,
    /// The open workspace whose canonical cwd is this checkout, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
}

/// `worktree.list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeListResult {
    /// Every registration, the main worktree first.
    pub worktrees: Vec<Worktree>,
}

/// `worktree.create` and `worktree.open` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeBindResult {
    /// The workspace rooted at the checkout.
    pub workspace: Workspace,
    /// The checkout's absolute path.
    pub path: String,
    /// An open workspace was returned rather than a new one created.
    pub reused: bool,
}

/// `worktree.remove` result: always `removed: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorktreeRemoveResult {
    /// Always `true`.
    pub removed: bool,
    /// The removed checkout's path.
    pub path: String,
}

/// What a `worktree.changed` event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeOperation {
    /// A checkout was created.
    Create,
    /// A checkout was newly associated with a workspace.
    Open,
    /// A checkout was removed.
    Remove,
}

#[cfg(test)]
mod tests;
