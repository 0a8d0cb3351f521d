//! The git part of `task.finish` (docs/tasks.md#finishing-a-task): the merge
//! with its pre-flight checks, deadline and abort, and the cleanup (guarded
//! removal, branch deletion). Blocking: call it on a blocking thread.
//!
//! ```text
//!   target checked out? · worktree clean? · target clean? · branch tip
//!     └─ git merge --no-ff (deadline) ── conflict → abort → MERGE_CONFLICT
//!                                     ── timeout  → kill, abort/reset → TIMEOUT
//!     └─ HEAD descends from the tip → sha
//! ```
//!
//! A merge run again after a crash between the merge and the recorded
//! disposition finds the branch merged already: git says "Already up to
//! date", makes no commit, and the same HEAD is recorded — never a second
//! merge.

use crate::error::Error;
use crate::os::git::worktree::{self, Untracked, git_error};
use crate::os::git::{Git, GitError};
use serde_json::json;
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A merge to make.
#[derive(Debug, Clone)]
pub struct MergeJob {
    /// The source repository (where the target branch is checked out).
    pub repo: PathBuf,
    /// The task's checkout.
    pub worktree: PathBuf,
    /// The task's branch.
    pub branch: String,
    /// The branch to merge into.
    pub target: String,
    /// Merge even with uncommitted changes in the checkout (they are lost).
    pub ignore_dirty: bool,
    /// How long the merge may take.
    pub deadline: Duration,
}

fn detailed(code: ErrorCode, message: String, details: serde_json::Value) -> Error {
    Error::Detailed {
        code,
        message,
        details,
    }
}

fn io(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Io {
        what: what.to_owned(),
        source: std::io::Error::other(e.to_string()),
    }
}

/// Merge steps 3–8; the merge commit's sha.
pub fn merge(job: &MergeJob) -> Result<String, Error> {
    let repo = Git::new(&job.repo);
    let actual = repo
        .text(&["branch", "--show-current"])
        .map_err(|e| io("git branch --show-current", e))?;
    if actual != job.target {
        return Err(detailed(
            ErrorCode::BadParams,
            format!(
                "{} has {actual:?} checked out, not the target {:?}: check the target out first",
                job.repo.display(),
                job.target
            ),
            json!({"expected": job.target, "actual": actual}),
        ));
    }
    // A checkout already gone (a finish that crashed after removing it) has
    // nothing left to lose.
    if !job.ignore_dirty && job.worktree.is_dir() {
        let dirty = worktree::is_dirty(&Git::new(&job.worktree), Untracked::All)
            .map_err(|e| io("git status in the task's checkout", e))?;
        if dirty {
            return Err(Error::BadParams(format!(
                "the task's checkout {} has uncommitted or untracked changes that a merge would lose: commit them, or pass ignore_dirty",
                job.worktree.display()
            )));
        }
    }
    let target_dirty = repo
        .ok(&["status", "--porcelain=v1", "--untracked-files=no"])
        .map_err(|e| io("git status in the source repository", e))?;
    if !target_dirty.stdout.is_empty() {
        return Err(Error::BadParams(format!(
            "{} has uncommitted changes: commit or stash them before merging",
            job.repo.display()
        )));
    }
    let tip = repo
        .text(&[
            "rev-parse",
            "--verify",
            &format!("refs/heads/{}", job.branch),
        ])
        .map_err(|e| io(&format!("the task branch {}", job.branch), e))?;
    let merged = repo.clone().deadline(job.deadline).run(&[
        "merge",
        "--no-ff",
        "--no-edit",
        "--",
        &job.branch,
    ]);
    match merged {
        Err(GitError::Timeout(_)) => {
            let (abort_ok, target_dirty) = abort(&repo);
            let details = json!({"abort_ok": abort_ok, "target_dirty": target_dirty});
            let code = if abort_ok && !target_dirty {
                ErrorCode::Timeout
            } else {
                ErrorCode::IoError
            };
            return Err(detailed(
                code,
                format!(
                    "git merge took longer than {} s and was stopped",
                    job.deadline.as_secs()
                ),
                details,
            ));
        },
        Err(e) => return Err(git_error("git merge", e)),
        Ok(out) if !out.status.success() => {
            let conflicted: Vec<String> = repo
                .text(&["diff", "--name-only", "--diff-filter=U"])
                .map(|t| t.lines().map(str::to_owned).collect())
                .unwrap_or_default();
            let (abort_ok, target_dirty) = abort(&repo);
            if conflicted.is_empty() {
                return Err(io("git merge", out.stderr_text()));
            }
            if !abort_ok || target_dirty {
                return Err(detailed(
                    ErrorCode::IoError,
                    "the merge conflicted and the target could not be restored".into(),
                    json!({"conflicted": conflicted, "target_dirty": target_dirty, "abort_ok": abort_ok}),
                ));
            }
            return Err(detailed(
                ErrorCode::MergeConflict,
                format!(
                    "merging {} conflicts in {} file(s)",
                    job.branch,
                    conflicted.len()
                ),
                json!({"conflicted": conflicted}),
            ));
        },
        Ok(_) => {},
    }
    let head = repo
        .text(&["rev-parse", "HEAD"])
        .map_err(|e| io("git rev-parse HEAD", e))?;
    let descends = repo
        .run(&["merge-base", "--is-ancestor", &tip, &head])
        .map_err(|e| io("git merge-base", e))?
        .status
        .success();
    if !descends {
        return Err(detailed(
            ErrorCode::IoError,
            "after the merge, HEAD does not contain the task branch's tip".into(),
            json!({"branch": job.branch, "tip": tip, "head": head}),
        ));
    }
    Ok(head)
}

/// `git merge --abort`, else `git reset --merge`: whether one worked, and
/// whether the target is still dirty after it.
fn abort(repo: &Git) -> (bool, bool) {
    let ok = |args: &[&str]| repo.run(args).is_ok_and(|o| o.status.success());
    let abort_ok = ok(&["merge", "--abort"]) || ok(&["reset", "--merge"]);
    let target_dirty = repo
        .ok(&["status", "--porcelain=v1", "--untracked-files=no"])
        .map_or(true, |o| !o.stdout.is_empty());
    (abort_ok, target_dirty)
}

/// What the cleanup did.
#[derive(Debug, Clone, Default)]
pub struct Cleaned {
    /// The branch was deleted.
    pub branch_deleted: bool,
    /// What went wrong, as one sentence.
    pub error: Option<String>,
}

/// Removes the task's checkout (docs/worktrees.md#removing-a-task-checkout)
/// and, when asked, its branch (`git branch -D`); failures become the cleanup
/// error, never a refusal.
pub fn cleanup(repo: &Path, worktree_path: &Path, delete_branch: Option<&str>) -> Cleaned {
    let git = Git::new(repo);
    let mut errors = Vec::new();
    if let Err(e) = worktree::remove_task_checkout(&git, worktree_path) {
        errors.push(e);
    }
    let mut branch_deleted = false;
    if let Some(branch) = delete_branch {
        match git.ok(&["branch", "-D", "--", branch]) {
            Ok(_) => branch_deleted = true,
            Err(e) => errors.push(format!("cannot delete branch {branch}: {e}")),
        }
    }
    Cleaned {
        branch_deleted,
        error: (!errors.is_empty()).then(|| errors.join("; ")),
    }
}
