//! `task.finish` (tasks.md §10): merge or discard, under the checkout's path
//! lock, in an order a crash can interrupt anywhere and the next finish
//! completes: the worker stopped, the merge (idempotent: a merged branch is
//! "already up to date"), the checkout removed, the branch deleted, the
//! workspaces rooted there closed, and only then the disposition recorded.
//!
//! ```text
//!   lock path ─ re-read ─ finished? ── cleanup only, recorded merge
//!      │ merge: completed? target? · panes inside? · discard: cancel
//!      ▼
//!   stop worker ─ blocking: merge → cleanup ─ close workspaces ─ disposition
//! ```

use super::wait::register;
use super::{Cx, OnHost, Reply, Routed, fail};
use crate::actors::supervisor::Supervisor;
use crate::actors::task::{Finish, SetFinishError, TaskActor, Transition};
use crate::domain::state::Outcome;
use crate::domain::worktrees::PathLock;
use crate::error::Error;
use crate::os::git::task_finish::{self as finish, MergeJob};
use crate::os::occupants::{self, Depth, LivePane};
use actix::prelude::*;
use serde_json::json;
use signaltty_protocol::pane::{Lifecycle, LiveState, PaneSignalParams};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::task::{
    Disposition, MergeDone, Outcome as Finished, Task, TaskFinishParams, TaskFinishResult,
    TaskState,
};
use signaltty_protocol::{PaneId, Timestamp, WorkspaceRef};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a stopped worker gets to exit before it is killed, and again
/// after the kill.
const STOP_GRACE: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Merge,
    Discard,
}

/// A finish under way: its params, the task's actor and the path lock.
struct Job {
    p: TaskFinishParams,
    mode: Mode,
    actor: Addr<TaskActor>,
    _lock: PathLock,
}

/// `task.finish`.
pub fn finish(cx: &mut Cx<'_>, p: TaskFinishParams) -> Routed {
    let mode = match p.mode.as_str() {
        "merge" => Mode::Merge,
        "discard" => Mode::Discard,
        other => {
            return fail(Err(Error::BadParams(format!(
                "mode must be merge or discard, not {other:?}"
            ))));
        },
    };
    let Some(task) = cx.events.projection().task(&p.task_id).cloned() else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    let Some(actor) = cx.tasks.get(&task.id).cloned() else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    let checkouts = cx.checkouts.clone();
    let key = PathBuf::from(&task.worktree_path);
    Box::pin(
        async move { checkouts.lock_path(key).await }
            .on_host()
            .then(move |lock, act, _| {
                let job = Job {
                    p,
                    mode,
                    actor,
                    _lock: lock,
                };
                locked(&mut act.cx(), job)
            }),
    )
}

/// The live panes, for the foreign-pane check.
fn live_panes(cx: &Cx<'_>) -> Vec<LivePane> {
    cx.registry
        .panes()
        .filter_map(|entry| {
            let pane = cx.events.projection().pane(&entry.id)?;
            (pane.live == LiveState::Live).then(|| LivePane {
                id: entry.id.clone(),
                pid: entry.pid,
                cwd: pane.cwd.clone(),
            })
        })
        .collect()
}

/// Common steps 2–4 and each mode's checks, under the lock.
fn locked(cx: &mut Cx<'_>, job: Job) -> Routed {
    // Re-read: another finish may have run while this one waited.
    let Some(task) = cx.events.projection().task(&job.p.task_id).cloned() else {
        return fail(Err(Error::NoSuchTask(job.p.task_id.0.clone())));
    };
    let path = PathBuf::from(&task.worktree_path);
    let panes = live_panes(cx);
    let recorded = task.disposition.outcome != Finished::None;
    if recorded {
        return cleanup_only(job, task, path, panes);
    }
    let target = if job.mode == Mode::Merge {
        if task.state != TaskState::Completed {
            let e = Error::BadParams(format!(
                "only a completed task can be merged; this one is {}",
                task.state.as_str()
            ))
            .with_details(json!({"state": task.state}));
            return fail(Err(e));
        }
        let target = job
            .p
            .target_ref
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .or_else(|| task.target_branch.clone());
        match target {
            Some(t) => Some(t),
            None => {
                return fail(Err(Error::BadParams(
                    "the task started on a detached HEAD: an explicit target_ref is required"
                        .into(),
                )));
            },
        }
    } else {
        None
    };
    // Discard: canceled first, so the worker's exit cannot fail it.
    let cancel =
        (job.mode == Mode::Discard && !task.state.is_terminal()).then(|| job.actor.clone());
    let worker = task.pane_id.clone();
    let canceled = async move {
        // The foreign-pane check reads the filesystem: off the event loop.
        let inside =
            actix_rt::task::spawn_blocking(move || foreign(&path, &panes, worker.as_ref()))
                .await
                .map_err(|e| Error::Internal(format!("the pane check stopped: {e}")))?;
        if let Some(e) = inside {
            return Err(e);
        }
        if let Some(actor) = cancel {
            actor
                .send(Transition {
                    to: TaskState::Canceled,
                    reason: None,
                })
                .await??;
        }
        Ok::<(), Error>(())
    };
    Box::pin(canceled.on_host().then(move |r, act, _| match r {
        Err(e) => fail(Err(e)),
        Ok(()) => {
            let cx = &mut act.cx();
            let stop = stop_worker(cx, task.pane_id.clone());
            Box::pin(stop.then(move |(), act, _| git_steps(&mut act.cx(), job, task, target)))
        },
    }))
}

/// Step 4: a live pane other than the worker inside the checkout.
fn foreign(path: &Path, panes: &[LivePane], worker: Option<&PaneId>) -> Option<Error> {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let inside = occupants::inside(&canonical, panes, worker, Depth::PaneCwd);
    (!inside.is_empty()).then(|| Error::PanesInside {
        path: canonical.display().to_string(),
        panes: inside.iter().map(|o| o.pane.0.clone()).collect(),
    })
}

type Step = std::pin::Pin<Box<dyn ActorFuture<Supervisor, Output = ()>>>;

/// Step 5: SIGTERM to the worker's process group, SIGKILL after a grace,
/// until its exit is seen.
fn stop_worker(cx: &mut Cx<'_>, pane: Option<PaneId>) -> Step {
    let Some(pane) = pane else {
        return Box::pin(actix::fut::ready(()));
    };
    super::tasks::close_worker(cx, &pane);
    let live = cx
        .events
        .projection()
        .pane(&pane)
        .is_some_and(|p| p.live == LiveState::Live);
    if !live {
        return Box::pin(actix::fut::ready(()));
    }
    signal_and_wait(cx, pane, SignalName::Term, true)
}

fn signal_and_wait(cx: &mut Cx<'_>, pane: PaneId, signal: SignalName, again: bool) -> Step {
    let exited = register(
        cx,
        super::task_prompt::SERVER_CONN,
        pane.clone(),
        vec![("exited".into(), Outcome::Lifecycle(Lifecycle::Exited))],
        None,
    );
    let sent = super::panes::signal(
        cx,
        PaneSignalParams {
            pane_id: pane.clone().into(),
            signal,
            group: Some(true),
        },
    );
    Box::pin(sent.then(move |_, _, _| {
        async move { tokio::time::timeout(STOP_GRACE, exited).await.is_ok() }
            .on_host()
            .then(move |gone, act, _| -> Step {
                if gone || !again {
                    Box::pin(actix::fut::ready(()))
                } else {
                    signal_and_wait(&mut act.cx(), pane, SignalName::Kill, false)
                }
            })
    }))
}

/// The merge (merge mode), the cleanup, then the record.
fn git_steps(cx: &mut Cx<'_>, job: Job, task: Task, target: Option<String>) -> Routed {
    let repo = PathBuf::from(&task.source_repo);
    let path = PathBuf::from(&task.worktree_path);
    let delete = match job.mode {
        Mode::Merge => job.p.delete_branch.unwrap_or(true),
        Mode::Discard => job.p.delete_branch.unwrap_or(false),
    } && !task.preexisting_branch;
    let merge = target.map(|target| MergeJob {
        repo: repo.clone(),
        worktree: path.clone(),
        branch: task.branch.clone(),
        target,
        ignore_dirty: job.p.ignore_dirty.unwrap_or(false),
        deadline: cx.config.limits.merge_timeout,
    });
    let branch = task.branch.clone();
    let work = actix_rt::task::spawn_blocking(move || {
        let merged = merge.as_ref().map(|m| {
            finish::merge(m).map(|sha| MergeDone {
                target: m.target.clone(),
                sha,
            })
        });
        match merged {
            Some(Err(e)) => Err(e),
            merged => {
                let cleaned = finish::cleanup(&repo, &path, delete.then_some(branch.as_str()));
                Ok((merged.and_then(Result::ok), cleaned))
            },
        }
    });
    Box::pin(work.on_host().then(move |done, act, _| {
        let done = done
            .map_err(|e| Error::Internal(format!("the finish step stopped: {e}")))
            .and_then(|r| r);
        match done {
            Err(e) => conflicted(job, e),
            Ok((merged, cleaned)) => {
                let cx = &mut act.cx();
                let close = close_workspaces(cx, &task.worktree_path);
                Box::pin(close.then(move |(), _, _| record(job, merged, cleaned)))
            },
        }
    }))
}

/// A merge that did not happen: a conflict keeps its files in
/// `finish_error` (the task stays finishable); the error is the reply.
fn conflicted(job: Job, e: Error) -> Routed {
    let stored = match &e {
        Error::Detailed { details, .. } if details.get("conflicted").is_some() => {
            Some(details.clone())
        },
        _ => None,
    };
    let Some(stored) = stored else {
        return fail(Err(e));
    };
    let actor = job.actor.clone();
    Box::pin(
        async move {
            let _ = actor.send(SetFinishError(Some(stored))).await;
        }
        .on_host()
        .map(move |(), _, _| Reply::error(e)),
    )
}

/// Step 6: the workspaces rooted at the removed checkout are closed.
fn close_workspaces(cx: &mut Cx<'_>, path: &str) -> Step {
    let rooted: Vec<WorkspaceRef> = cx
        .events
        .projection()
        .workspaces()
        .into_iter()
        .filter(|w| Path::new(&w.cwd) == Path::new(path))
        .map(|w| WorkspaceRef(w.id.0))
        .collect();
    let mut step: Step = Box::pin(actix::fut::ready(()));
    for ws in rooted {
        step = Box::pin(step.then(move |(), act: &mut Supervisor, _| {
            let closed = super::workspaces::close(&mut act.cx(), &ws, Some(SignalName::Term));
            closed.map(|_, _, _| ())
        }));
    }
    step
}

/// Records the disposition and replies.
fn record(job: Job, merged: Option<MergeDone>, cleaned: finish::Cleaned) -> Routed {
    let disposition = Disposition {
        outcome: if job.mode == Mode::Merge {
            Finished::Merged
        } else {
            Finished::Discarded
        },
        target_ref: merged.as_ref().map(|m| m.target.clone()),
        merged_sha: merged.as_ref().map(|m| m.sha.clone()),
        branch_deleted: Some(cleaned.branch_deleted),
        at: Some(Timestamp::now()),
    };
    let finish_error = cleaned.error.as_ref().map(|e| json!({"cleanup_error": e}));
    let actor = job.actor.clone();
    Box::pin(
        async move {
            actor
                .send(Finish {
                    disposition,
                    finish_error,
                })
                .await?
        }
        .on_host()
        .map(move |r, _, _| {
            let _job = job;
            Reply::of(r.map(|task| TaskFinishResult {
                task,
                merge: merged,
                cleanup_error: cleaned.error,
            }))
        }),
    )
}

/// A finished task asked again: while its checkout exists, only the cleanup
/// is retried (never a second merge); once it is gone, `BAD_PARAMS`.
fn cleanup_only(job: Job, task: Task, path: PathBuf, panes: Vec<LivePane>) -> Routed {
    let outcome = if task.disposition.outcome == Finished::Merged {
        "merged"
    } else {
        "discarded"
    };
    let repo = PathBuf::from(&task.source_repo);
    let worker = task.pane_id.clone();
    // The checks and the cleanup read the filesystem: off the event loop.
    let work = actix_rt::task::spawn_blocking(move || {
        if !path.exists() {
            return Err(Error::BadParams(format!(
                "the task was {outcome} already and its checkout is gone"
            )));
        }
        if let Some(e) = foreign(&path, &panes, worker.as_ref()) {
            return Err(e);
        }
        Ok(finish::cleanup(&repo, &path, None))
    });
    Box::pin(work.on_host().then(move |cleaned, _, _| {
        let cleaned = match cleaned {
            Ok(Ok(cleaned)) => cleaned,
            Ok(Err(e)) => return fail(Err(e)),
            Err(e) => finish::Cleaned {
                branch_deleted: false,
                error: Some(format!("the cleanup stopped: {e}")),
            },
        };
        let finish_error = cleaned.error.as_ref().map(|e| json!({"cleanup_error": e}));
        let merge = match (&task.disposition.target_ref, &task.disposition.merged_sha) {
            (Some(target), Some(sha)) => Some(MergeDone {
                target: target.clone(),
                sha: sha.clone(),
            }),
            _ => None,
        };
        let actor = job.actor.clone();
        Box::pin(
            async move { actor.send(SetFinishError(finish_error)).await? }
                .on_host()
                .map(move |r, _, _| {
                    let _job = job;
                    Reply::of(r.map(|task| TaskFinishResult {
                        task,
                        merge,
                        cleanup_error: cleaned.error,
                    }))
                }),
        )
    }))
}
