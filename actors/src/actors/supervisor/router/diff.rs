//! `workspace.diff`, `workspace.file_diff` (docs/diffs.md) and
//! `workspace.refresh_git` (docs/methods.md#workspacerefresh_git). The reads
//! run git on a blocking thread (`git/diff/`) and publish nothing; the refresh
//! recomputes the git cache off the event loop and hands it to the Workspace
//! actor, which publishes `workspace.updated` (and `git.branch_changed`).

use super::{Cx, Routed, answer, fail};
use crate::actors::workspace::Refresh;
use crate::error::Error;
use crate::os::git::diff::{self, Base, DiffError};
use signaltty_protocol::diff::{
    DiffScope, TurnRef, WorkspaceDiffParams, WorkspaceDiffResult, WorkspaceFileDiffParams,
    WorkspaceFileDiffResult, WorkspaceRefreshGitParams,
};
use signaltty_protocol::workspace::WorkspaceResult;
use signaltty_protocol::{WorkspaceId, WorkspaceRef};
use std::path::{Path, PathBuf};

/// The wire error of a diff read.
pub fn diff_error(e: DiffError) -> Error {
    match e {
        DiffError::BadParams(why) => Error::BadParams(why),
        DiffError::Io(why) => Error::Io {
            what: "diff".to_owned(),
            source: std::io::Error::other(why),
        },
        DiffError::Timeout(why) => Error::Timeout {
            what: why,
            written: None,
        },
    }
}

/// The id and cwd of a workspace.
fn resolve(cx: &Cx<'_>, r: &WorkspaceRef) -> Result<(WorkspaceId, PathBuf), Error> {
    let (id, _) = cx.registry.workspace(r)?;
    let cwd = cx
        .events
        .projection()
        .workspace(&id)
        .map(|w| PathBuf::from(&w.cwd))
        .ok_or_else(|| Error::NoSuchWorkspace(r.clone()))?;
    Ok((id, cwd))
}

/// A turn read's baseline: `Ok(None)` without one, the tree, or the error of
/// the capture that failed when the turn started.
type Baseline = Option<(TurnRef, Result<String, String>)>;

fn baseline(cx: &Cx<'_>, id: &WorkspaceId) -> Baseline {
    cx.turns.get(id).map(|b| {
        (
            TurnRef {
                pane_id: b.pane.clone(),
                started_at: b.started_at.clone(),
            },
            b.tree.clone(),
        )
    })
}

/// The baseline tree, or the read's error when its capture failed.
fn baseline_tree(tree: Result<String, String>) -> Result<String, DiffError> {
    tree.map_err(|why| DiffError::Io(format!("the turn baseline could not be captured: {why}")))
}

/// Runs `work` on a blocking thread; a thread that could not run is `IO_ERROR`.
async fn off_loop<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, DiffError> + Send + 'static,
) -> Result<T, Error> {
    match actix_rt::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(diff_error),
        Err(e) => Err(Error::Io {
            what: "diff".to_owned(),
            source: std::io::Error::other(e.to_string()),
        }),
    }
}

/// `workspace.diff`.
pub fn summary(cx: &mut Cx<'_>, p: WorkspaceDiffParams) -> Routed {
    let (id, cwd) = match resolve(cx, &p.workspace_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let scope = p.scope.unwrap_or_default();
    let turn = match scope {
        DiffScope::Head => None,
        DiffScope::Turn => Some(baseline(cx, &id)),
    };
    let work = move || -> Result<WorkspaceDiffResult, DiffError> {
        let branch = crate::os::git::probe(&cwd).branch;
        let (summary, turn) = match turn {
            None => (diff::head_summary(&cwd)?, None),
            Some(None) => {
                check_checkout(&cwd)?;
                (diff::Summary::default(), Some(None))
            },
            Some(Some((turn, tree))) => (
                diff::turn_summary(&cwd, &baseline_tree(tree)?)?,
                Some(Some(turn)),
            ),
        };
        Ok(WorkspaceDiffResult {
            workspace_id: id,
            scope,
            branch,
            files: summary.files,
            dirs: summary.dirs,
            added: summary.added,
            removed: summary.removed,
            turn,
        })
    };
    answer(off_loop(work))
}

/// Not a checkout is `BAD_PARAMS` even when there is nothing to compare.
fn check_checkout(cwd: &Path) -> Result<(), DiffError> {
    match crate::os::git::probe(cwd).root {
        Some(_) => Ok(()),
        None => Err(DiffError::BadParams(format!(
            "{} is not in a git checkout",
            cwd.display()
        ))),
    }
}

/// `workspace.file_diff`: bounded by the 8 s server deadline as a whole, the
/// capture of a turn's fresh tree included.
pub fn file(cx: &mut Cx<'_>, p: WorkspaceFileDiffParams) -> Routed {
    // A bad path is refused before anything runs.
    if let Err(e) = diff::validate_path(&p.path) {
        return fail(Err(diff_error(e)));
    }
    let (id, cwd) = match resolve(cx, &p.workspace_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let base = match p.scope.unwrap_or_default() {
        DiffScope::Head => Ok(Base::Head),
        DiffScope::Turn => match baseline(cx, &id) {
            Some((_, tree)) => Err(tree),
            None => {
                return fail(Err(Error::BadParams(
                    "the workspace has no turn baseline (no turn started since the server started)"
                        .to_owned(),
                )));
            },
        },
    };
    let path = p.path;
    let work = {
        let path = path.clone();
        move || -> Result<diff::FileDiff, DiffError> {
            let base = match base {
                Ok(base) => base,
                Err(tree) => Base::Turn(baseline_tree(tree)?),
            };
            diff::file_diff(&cwd, &path, &base)
        }
    };
    let bounded = async move {
        match tokio::time::timeout(diff::FILE_DIFF_DEADLINE, off_loop(work)).await {
            Ok(result) => result,
            Err(_) => Err(diff_error(DiffError::Timeout(format!(
                "the file diff took longer than {} s",
                diff::FILE_DIFF_DEADLINE.as_secs()
            )))),
        }
    };
    answer(async move {
        bounded.await.map(|d| WorkspaceFileDiffResult {
            workspace_id: id,
            path,
            untracked: d.untracked,
            content: d.content,
        })
    })
}

/// `workspace.refresh_git`: recomputes the git cache (branch, `dirty`) and
/// publishes `workspace.updated`, plus `git.branch_changed` when the branch
/// moved.
pub fn refresh_git(cx: &mut Cx<'_>, p: WorkspaceRefreshGitParams) -> Routed {
    let (id, cwd) = match resolve(cx, &p.workspace_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let Some(addr) = cx.registry.workspace_addr(&id) else {
        return fail(Err(Error::NoSuchWorkspace(p.workspace_id)));
    };
    let work =
        crate::actors::workspace::refresh_git(addr, cx.config.os.clone(), cwd, Refresh::Always);
    answer(async move { work.await.map(|workspace| WorkspaceResult { workspace }) })
}

/// `task.diff` (docs/diffs.md#task-diffs): the task's checkout against its
/// base, with the merge preview into its target.
pub fn task_summary(cx: &mut Cx<'_>, p: signaltty_protocol::task::TaskTarget) -> Routed {
    let Some(task) = cx.events.projection().task(&p.task_id).cloned() else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    let target = task
        .disposition
        .target_ref
        .clone()
        .or_else(|| task.target_branch.clone())
        .unwrap_or_else(|| task.base_sha.clone());
    let read = actix_rt::task::spawn_blocking(move || {
        let worktree = Path::new(&task.worktree_path);
        diff::task_summary(worktree, &task.base_sha, &task.branch, &target)
            .map(|s| signaltty_protocol::task::TaskDiffResult {
                task_id: task.id.clone(),
                base_sha: task.base_sha.clone(),
                branch: task.branch.clone(),
                files: s.summary.files,
                dirs: s.summary.dirs,
                added: s.summary.added,
                removed: s.summary.removed,
                merge_preview: s.merge_preview,
            })
            .map_err(diff_error)
    });
    answer(async move {
        read.await
            .map_err(|e| Error::Internal(format!("the diff stopped: {e}")))
            .and_then(|r| r)
    })
}

/// `task.file_diff`: one file of the task's checkout against its base.
pub fn task_file(cx: &mut Cx<'_>, p: signaltty_protocol::task::TaskFileDiffParams) -> Routed {
    let Some(task) = cx.events.projection().task(&p.task_id).cloned() else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    let read = actix_rt::task::spawn_blocking(move || {
        let worktree = Path::new(&task.worktree_path);
        diff::file_diff(worktree, &p.path, &Base::Rev(task.base_sha.clone()))
            .map(|d| signaltty_protocol::task::TaskFileDiffResult {
                task_id: task.id.clone(),
                path: p.path.clone(),
                untracked: d.untracked,
                content: d.content,
            })
            .map_err(diff_error)
    });
    answer(async move {
        read.await
            .map_err(|e| Error::Internal(format!("the diff stopped: {e}")))
            .and_then(|r| r)
    })
}
