//! Tasks (docs/objects.md#task, docs/tasks.md#what-a-task-is): one orchestrated worker, an
//! agent pane in its own git worktree cut from a recorded base, driven by a
//! contract, reporting a structured result, finished by an explicit merge or
//! discard. States follow A2A; terminal states never change.

use crate::ids::{ContextId, PaneId, PaneRef, TaskId};
use crate::pane::{Pane, Relationship};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod conflict;

/// The longest objective, in bytes (docs/tasks.md#the-contract).
pub const MAX_OBJECTIVE_BYTES: usize = 32 * 1024;
/// The longest result summary, in bytes (docs/tasks.md#results).
pub const MAX_SUMMARY_BYTES: usize = 8 * 1024;
/// The most artifacts a result lists.
pub const MAX_ARTIFACTS: usize = 32;

/// A task's state (docs/objects.md#task-states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Waiting in the queue: for its `after` tasks to complete, or for a
    /// slot of the parallel cap (docs/tasks.md#the-task-queue). No checkout yet.
    Queued,
    /// Started; its worker has not taken the first prompt yet.
    Pending,
    /// The worker works on it.
    Working,
    /// It needs someone: a decision, a turn ended without a report, a stall.
    InputRequired,
    /// Reported done.
    Completed,
    /// Failed (start, worker death, restart, or reported).
    Failed,
    /// Canceled by a client.
    Canceled,
    /// Reported done but not meeting the acceptance criteria.
    Rejected,
}

impl TaskState {
    /// Every state, in the order of the table of docs/objects.md#task-states.
    pub const ALL: [TaskState; 8] = [
        TaskState::Queued,
        TaskState::Pending,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::Pending => "pending",
            TaskState::Working => "working",
            TaskState::InputRequired => "input_required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::Rejected => "rejected",
        }
    }

    /// The state named `name`, if any.
    pub fn parse(name: &str) -> Option<TaskState> {
        TaskState::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Completed, failed, canceled or rejected: it never changes again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Whether the table of docs/objects.md#task-states allows `self → to`.
    pub fn may_become(self, to: TaskState) -> bool {
        match self {
            TaskState::Queued => matches!(
                to,
                TaskState::Pending | TaskState::Failed | TaskState::Canceled
            ),
            TaskState::Pending => !matches!(to, TaskState::Queued | TaskState::Pending),
            TaskState::Working => !matches!(
                to,
                TaskState::Queued | TaskState::Pending | TaskState::Working
            ),
            TaskState::InputRequired => !matches!(
                to,
                TaskState::Queued | TaskState::Pending | TaskState::InputRequired
            ),
            _ => false,
        }
    }
}

/// What the worker is asked to do (docs/tasks.md#the-contract).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contract {
    /// Required: 1 byte to 32 KiB, not blank.
    pub objective: String,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<String>,
    /// One line each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance_criteria: Option<Vec<String>>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_format: Option<String>,
}

/// What a worker may report (docs/objects.md#task-fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// Done.
    Completed,
    /// Could not be done.
    Failed,
    /// Done, but it does not meet the acceptance criteria.
    Rejected,
}

impl ResultStatus {
    /// The task state a report of this status leads to.
    pub fn state(self) -> TaskState {
        match self {
            ResultStatus::Completed => TaskState::Completed,
            ResultStatus::Failed => TaskState::Failed,
            ResultStatus::Rejected => TaskState::Rejected,
        }
    }
}

/// A file or object the result points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    /// Its name.
    pub name: String,
    /// Where it is.
    pub path: String,
    /// Its version, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The worker's structured result, set once by `task.report`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    /// What it says of the work.
    pub status: ResultStatus,
    /// 1 byte to 8 KiB.
    pub summary: String,
    /// At most 32.
    #[serde(default)]
    pub artifacts: Vec<Artifact>,
    /// Free-form evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Value>,
    /// When it was reported.
    pub reported_at: Timestamp,
}

/// The review outcome of a task, independent of its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Not finished yet.
    #[default]
    None,
    /// Merged into its target.
    Merged,
    /// Thrown away.
    Discarded,
}

/// How `task.finish` ended a task (docs/objects.md#task-fields).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Disposition {
    /// `none` until finished.
    #[serde(default)]
    pub outcome: Outcome,
    /// The branch merged into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ref: Option<String>,
    /// The merge commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_sha: Option<String>,
    /// Whether the task branch was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_deleted: Option<bool>,
    /// When.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
}

/// A task (docs/objects.md#task-fields). Every field added later must default, so
/// older snapshots load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// `task_…`.
    pub id: TaskId,
    /// The collaboration group.
    pub context_id: ContextId,
    /// Reserved, always unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_task_id: Option<TaskId>,
    /// The worker pane, once spawned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneId>,
    /// Lineage: the pane that asked for the work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_pane_id: Option<PaneId>,
    /// Lineage: the root of the parent's tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_pane_id: Option<PaneId>,
    /// `subagent` unless asked.
    pub relationship: Relationship,
    /// Default `worker-<short id>`.
    pub label: String,
    /// What to do.
    pub contract: Contract,
    /// The agent kind name asked for or detected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The repository the worktree was cut from.
    pub source_repo: String,
    /// The source repository's branch at start (unset on a detached HEAD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_branch: Option<String>,
    /// The task's checkout.
    pub worktree_path: String,
    /// The task's branch.
    pub branch: String,
    /// The branch existed before the start: never deleted automatically.
    #[serde(default)]
    pub preexisting_branch: bool,
    /// The base as asked for.
    pub base_ref: String,
    /// The base resolved to a full commit id.
    pub base_sha: String,
    /// Its state.
    pub state: TaskState,
    /// The worker's report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<TaskResult>,
    /// How it was finished.
    #[serde(default)]
    pub disposition: Disposition,
    /// A forge pull request (not built).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr: Option<Value>,
    /// The evidence for the current state (docs/objects.md#status-reasons).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<Value>,
    /// Why the last finish did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_error: Option<Value>,
    /// The worker's pid at spawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_pid: Option<u32>,
    /// The worker's argv.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_cmd: Option<Vec<String>>,
    /// The idempotency key it was started with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_request_id: Option<String>,
    /// The tasks that must complete before it starts
    /// (docs/tasks.md#the-task-queue).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<TaskId>,
    /// While `queued`: the start it runs when its turn comes (cleared when
    /// it starts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_start: Option<Box<TaskStartParams>>,
    /// While `queued`: its place in the queue, from 1. Filled in by reads
    /// (`task.get`, `task.list`, `task.start`), never journaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_position: Option<usize>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// `task.start` params (docs/tasks.md#start-parameters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStartParams {
    /// Absolute path of a git repository.
    pub repo: String,
    /// What to do.
    pub contract: Contract,
    /// An agent kind name; required unless `argv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The worker command; required unless `agent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// Also names the default branch and workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Lineage parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_pane_id: Option<PaneRef>,
    /// The context to join; default a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<ContextId>,
    /// Relation to the parent; default `subagent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<Relationship>,
    /// Idempotency key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_request_id: Option<String>,
    /// Default `HEAD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_ref: Option<String>,
    /// `git fetch origin` first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch_first: Option<bool>,
    /// Default `signaltty/<label>-<short>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Default: docs/worktrees.md#where-task-checkouts-live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Background ready wait, default 30 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_timeout_s: Option<u64>,
    /// Activity gate, default 5 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_timeout_s: Option<u64>,
    /// Paste → Enter delay, default 300 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_delay_ms: Option<u64>,
    /// Start only once these tasks are `completed`
    /// (docs/tasks.md#the-task-queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<TaskId>>,
    /// Queue the start when the parallel cap is reached (the default), or
    /// refuse it with `RATE_LIMITED` (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<bool>,
}

/// `task.start`'s result: the task (at `pending`) and its worker pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStartResult {
    /// The task.
    pub task: Task,
    /// Its worker pane (`null` if it no longer exists).
    pub pane: Option<Pane>,
}

/// `{task_id}` params (`task.get`, `task.cancel`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskTarget {
    /// The task.
    pub task_id: TaskId,
}

/// `{task}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResultReply {
    /// The task.
    pub task: Task,
    /// `task.get`: the conflict radar's collisions of the task
    /// (docs/tasks.md#conflict-radar).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<conflict::TaskConflict>,
}

/// `task.list` params.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskListParams {
    /// Only this context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<ContextId>,
    /// Only this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<TaskState>,
    /// At most this many (default 100, max 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `task.list`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskListResult {
    /// Ordered by `created_at`.
    pub tasks: Vec<Task>,
    /// The conflict radar's collisions involving the listed tasks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<conflict::TaskConflict>,
}

/// `task.wait` params (docs/tasks.md#waiting-for-tasks): exactly one of `task_id`/`context_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskWaitParams {
    /// One task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    /// Every task of a context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<ContextId>,
    /// Task states, `terminal` or `settled` (the default); one or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Value>,
    /// Default 3600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

/// `task.wait`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskWaitResult {
    /// Always true (a wait that is not satisfied fails).
    pub satisfied: bool,
    /// The task, or every task of the context.
    pub tasks: Vec<Task>,
}

/// `task.finish` params (docs/tasks.md#finishing-a-task).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskFinishParams {
    /// The task.
    pub task_id: TaskId,
    /// `merge` or `discard`.
    pub mode: String,
    /// The branch to merge into; default the task's `target_branch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ref: Option<String>,
    /// Delete the task branch (merge default true, discard default false;
    /// a pre-existing branch never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_branch: Option<bool>,
    /// Merge even with uncommitted changes in the checkout (they are lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_dirty: Option<bool>,
}

/// A merge's target and commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeDone {
    /// The branch merged into.
    pub target: String,
    /// The merge commit.
    pub sha: String,
}

/// `task.finish`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskFinishResult {
    /// The task, with its disposition.
    pub task: Task,
    /// The merge, for a merged task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeDone>,
    /// What the cleanup could not do (the finish still succeeded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup_error: Option<String>,
    /// After a merge: the other watched tasks that now conflict with the
    /// target branch (docs/tasks.md#conflict-radar).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<conflict::TaskConflict>,
}

/// `task.file_diff` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskFileDiffParams {
    /// The task.
    pub task_id: TaskId,
    /// One literal path relative to the checkout root.
    pub path: String,
}

/// `task.diff`'s result (docs/diffs.md#task-diffs): the task's checkout against its
/// recorded base, committed work included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDiffResult {
    /// The task.
    pub task_id: TaskId,
    /// Its base.
    pub base_sha: String,
    /// Its branch.
    pub branch: String,
    /// Every changed file (untracked ones counted as additions).
    pub files: Vec<crate::diff::FileStat>,
    /// Totals per directory.
    pub dirs: Vec<crate::diff::DirStat>,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// Merging the branch tip into the target; `null` when git cannot tell.
    pub merge_preview: Option<crate::diff::MergePreview>,
}

/// `task.file_diff`'s result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskFileDiffResult {
    /// The task.
    pub task_id: TaskId,
    /// Echo of the path.
    pub path: String,
    /// The file is untracked.
    pub untracked: bool,
    /// What the diff shows.
    pub content: crate::diff::FileContent,
}

/// `task.report` params (docs/tasks.md#reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskReportParams {
    /// The task; else the task whose worker is `pane_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    /// The worker pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneRef>,
    /// What the work came to.
    pub status: ResultStatus,
    /// 1 byte to 8 KiB.
    pub summary: String,
    /// At most 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// Free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Value>,
}

#[cfg(test)]
mod tests;
