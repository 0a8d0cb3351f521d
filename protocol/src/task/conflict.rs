//! The conflict radar's wire shapes (docs/tasks.md#conflict-radar): which
//! active tasks of a repository would conflict if merged together, or with
//! their target branch.

use crate::ids::{TaskId, WorkspaceRef};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// `task.conflicts` params: every repository's active tasks, or those of one
/// repository (`repo`, or the checkout of `workspace_id`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskConflictsParams {
    /// Only the tasks of the repository this workspace (id or handle) is
    /// rooted in: the repository itself or one of its tasks' checkouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceRef>,
    /// Only the tasks cut from this repository (an absolute path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
}

/// One collision (docs/objects.md#task-conflict): task `a` with task `b`, or
/// with its target branch when `b` is unset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskConflict {
    /// The source repository.
    pub repo: String,
    /// The first task (of a pair, the smaller id).
    pub a: TaskId,
    /// The second task; unset when `a` conflicts with its target branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<TaskId>,
    /// The target branch, for a conflict with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_branch: Option<String>,
    /// The conflicting paths, relative to the repository's top.
    pub paths: Vec<String>,
    /// When the radar first saw this collision.
    pub since: Timestamp,
}

impl TaskConflict {
    /// Whether `task` is one side of it.
    pub fn involves(&self, task: &TaskId) -> bool {
        &self.a == task || self.b.as_ref() == Some(task)
    }

    /// The other side seen from `task`: the other task, or `None` for the
    /// target branch.
    pub fn other(&self, task: &TaskId) -> Option<&TaskId> {
        if &self.a == task {
            self.b.as_ref()
        } else {
            Some(&self.a)
        }
    }
}

/// `task.conflicts`'s result.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskConflictsResult {
    /// The current collisions, ordered by repository, then `a`, then `b`
    /// (the target branch first).
    pub conflicts: Vec<TaskConflict>,
    /// Checks that could not run (a branch gone, git failing), one line each;
    /// their pairs keep their last result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// `task.conflict`'s `state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConflictState {
    /// A collision the radar had not seen.
    Appeared,
    /// A collision that is gone: the paths merge cleanly now, or one side
    /// finished or left the active tasks.
    Cleared,
}
