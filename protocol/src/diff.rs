//! Diffs on the wire (docs/methods.md#workspacediff, docs/diffs.md): the params and
//! results of `workspace.diff`, `workspace.file_diff` and
//! `workspace.refresh_git`, and the shapes `task.diff`/`task.file_diff` share.

use crate::ids::{PaneId, WorkspaceId, WorkspaceRef};
use crate::time::Timestamp;
use serde::{Deserialize, Deserializer, Serialize};

/// What a diff compares against (docs/diffs.md#turn-baselines).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffScope {
    /// The checkout (staged, unstaged, untracked) against `HEAD`, or the empty
    /// tree before the first commit.
    #[default]
    Head,
    /// A fresh tree of the checkout against the baseline tree captured when the
    /// workspace's latest turn started.
    Turn,
}

/// `workspace.diff` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceDiffParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// `head` (default) or `turn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<DiffScope>,
}

/// `workspace.file_diff` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceFileDiffParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
    /// One literal path relative to the checkout root.
    pub path: String,
    /// `head` (default) or `turn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<DiffScope>,
}

/// `workspace.refresh_git` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceRefreshGitParams {
    /// Id or handle.
    pub workspace_id: WorkspaceRef,
}

/// One changed file of a diff summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStat {
    /// Relative to the checkout root, literal.
    pub path: String,
    /// Lines added (0 for binary files).
    pub added: u64,
    /// Lines removed (0 for binary files).
    pub removed: u64,
    /// Not tracked by git (neither in the base nor in the index).
    pub untracked: bool,
    /// Git counts it as binary (or, for tasks, it could not be read as text).
    pub binary: bool,
}

/// The totals of one directory: the files whose parent it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirStat {
    /// The parent directory, `.` for the root.
    pub dir: String,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
}

/// The turn a `scope:"turn"` summary compares against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRef {
    /// The pane whose agent started the turn.
    pub pane_id: PaneId,
    /// When the turn started.
    pub started_at: Timestamp,
}

/// `workspace.diff` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceDiffResult {
    /// Canonical id.
    pub workspace_id: WorkspaceId,
    /// Echo of the scope.
    pub scope: DiffScope,
    /// The current branch, absent on a detached HEAD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Per-file counts, by path.
    pub files: Vec<FileStat>,
    /// Per-directory totals, by directory.
    pub dirs: Vec<DirStat>,
    /// Lines added in all.
    pub added: u64,
    /// Lines removed in all.
    pub removed: u64,
    /// Only with `scope:"turn"`: the turn, or `null` when there is no baseline.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub turn: Option<Option<TurnRef>>,
}

/// A field that is present (even as `null`) is `Some`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// `workspace.file_diff` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceFileDiffResult {
    /// Canonical id.
    pub workspace_id: WorkspaceId,
    /// Echo of the path.
    pub path: String,
    /// The file is untracked (shown as all additions).
    pub untracked: bool,
    /// What the diff shows.
    pub content: FileContent,
}

/// The content of one file's diff, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileContent {
    /// A textual patch.
    Text {
        /// The hunks, in file order.
        hunks: Vec<Hunk>,
        /// Lines were cut at the 10 000 line limit.
        truncated: bool,
        /// Why there are no hunks (metadata-only change, empty file), or other
        /// literal display text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notice: Option<String>,
    },
    /// A binary change.
    Binary {},
    /// No change.
    Unchanged {},
    /// Cannot be shown; `reason` is literal display text.
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// One hunk of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    /// First line in the old file.
    pub old_start: u64,
    /// Lines of the old file in the hunk.
    pub old_count: u64,
    /// First line in the new file.
    pub new_start: u64,
    /// Lines of the new file in the hunk.
    pub new_count: u64,
    /// The text after the second `@@`, trimmed of its leading space.
    pub heading: String,
    /// The lines.
    pub lines: Vec<DiffLine>,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    /// What the line is.
    pub kind: LineKind,
    /// Literal text without the leading marker or the newline.
    pub text: String,
    /// Its number in the old file, `null` for additions.
    pub old_line: Option<u64>,
    /// Its number in the new file, `null` for removals.
    pub new_line: Option<u64>,
}

/// The kind of a hunk line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// Unchanged.
    Context,
    /// Only in the new file.
    Added,
    /// Only in the old file.
    Removed,
    /// `\ No newline at end of file` after the line before it.
    NoNewline,
}

/// What merging a task's committed branch tip into its target would do
/// (docs/diffs.md#task-diffs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergePreview {
    /// The target branch or commit.
    pub target: String,
    /// The merge would succeed without conflicts.
    pub clean: bool,
    /// The conflicted paths.
    pub conflicted: Vec<String>,
}

#[cfg(test)]
mod tests;
