//! `task.finish` in the task's own actor (docs/tasks.md#finishing-a-task):
//! merge or discard, under the checkout's path lock, in an order a crash can
//! interrupt anywhere and the next finish completes
//! (docs/tasks.md#if-the-server-dies-during-a-finish): the worker stopped,
//! the merge (idempotent: a merged branch is "already up to date"), the
//! checkout removed, the branch deleted, the workspaces rooted there closed,
//! and only then the disposition recorded. Git and the file system are
//! asked through the seams ([`TaskGit`](crate::os::seams::TaskGit),
//! [`Workbench`](crate::os::seams::Workbench)) on blocking threads.
//!
//! ```text
//!   lock path ─ LivePanes ─ re-read ─ finished? ── cleanup only, recorded merge
//!      │ merge: completed? target? · blocking: panes inside? · discard: canceled
//!      ▼
//!   stop worker ─ blocking: merge → cleanup ─ CloseWorkspacesAt ─ disposition
//! ```

use super::stop::stop_worker;
use super::{Answer, TaskActor};
use crate::actors::services::{CloseWorkspacesAt, LivePanes};
use crate::domain::worktrees::PathLock;
use crate::error::Error;
use crate::os::git::task_finish::{Cleaned, MergeJob};
use crate::os::occupants::LivePane;
use crate::os::seams::Workbench;
use actix::prelude::*;
use serde_json::{Value, json};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::task::{
    Disposition, MergeDone, Outcome as Finished, Task, TaskFinishParams, TaskFinishResult,
    TaskState,
};
use signaltty_protocol::{PaneId, Timestamp};
use std::path::{Path, PathBuf};
use std::pin::Pin;

/// How a task is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Merged into its target.
    Merge,
    /// Thrown away.
    Discard,
}

/// `task.finish` of this task, its mode already parsed.
#[derive(Message)]
#[rtype(result = "Result<TaskFinishResult, Error>")]
pub struct FinishTask {
    /// The request.
    pub p: TaskFinishParams,
    /// Its mode.
    pub mode: Mode,
}

type Fut<T> = Pin<Box<dyn ActorFuture<TaskActor, Output = Result<T, Error>>>>;

fn done<T: 'static>(r: Result<T, Error>) -> Fut<T> {
    Box::pin(actix::fut::ready(r))
}

/// A finish under way: its request and the path lock, held to the reply.
struct Job {
    p: TaskFinishParams,
    mode: Mode,
    _lock: PathLock,
}

impl Handler<FinishTask> for TaskActor {
    type Result = ResponseActFuture<Self, Result<TaskFinishResult, Error>>;

    fn handle(&mut self, msg: FinishTask, _ctx: &mut Self::Context) -> Self::Result {
        let key = match self.task() {
            Ok(task) => PathBuf::from(&task.worktree_path),
            Err(e) => return done(Err(e)),
        };
        let checkouts = self.kit.checkouts.clone();
        let live = self.kit.services.live_panes.clone();
        // Step 2: the lock, then what the checks read, read under it.
        let locked = async move {
            let lock = checkouts.lock_path(key).await;
            let panes = live.send(LivePanes).await.unwrap_or_default();
            (lock, panes)
        };
        Box::pin(actix::fut::wrap_future(locked).then(
            move |(lock, panes), act: &mut TaskActor, _| {
                let job = Job {
                    p: msg.p,
                    mode: msg.mode,
                    _lock: lock,
                };
                act.locked(job, panes)
            },
        ))
    }
}

/// Step 5: a live pane other than the worker inside the checkout.
fn foreign(
    bench: &dyn Workbench,
    path: &Path,
    panes: &[LivePane],
    worker: Option<&PaneId>,
) -> Option<Error> {
    let (canonical, inside) = bench.panes_inside(path, panes, worker);
    (!inside.is_empty()).then(|| Error::PanesInside {
        path: canonical.display().to_string(),
        panes: inside.into_iter().map(|p| p.0).collect(),
    })
}

/// The merge's target: `target_ref`, else the branch recorded at start.
fn target(p: &TaskFinishParams, task: &Task) -> Result<String, Error> {
    if task.state != TaskState::Completed {
        return Err(Error::BadParams(format!(
            "only a completed task can be merged; this one is {}",
            task.state.as_str()
        ))
        .with_details(json!({"state": task.state})));
    }
    p.target_ref
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .or_else(|| task.target_branch.clone())
        .ok_or_else(|| {
            Error::BadParams(
                "the task started on a detached HEAD: an explicit target_ref is required".into(),
            )
        })
}

impl TaskActor {
    /// Steps 3–6, under the lock, on the task as it is now.
    fn locked(&mut self, job: Job, panes: Vec<LivePane>) -> Fut<TaskFinishResult> {
        let task = match self.task() {
            Ok(task) => task.clone(),
            Err(e) => return done(Err(e)),
        };
        if task.disposition.outcome != Finished::None {
            return self.cleanup_only(job, task, panes);
        }
        let target = match job.mode {
            Mode::Merge => match target(&job.p, &task) {
                Ok(t) => Some(t),
                Err(e) => return done(Err(e)),
            },
            Mode::Discard => None,
        };
        let bench = self.kit.os.workbench.clone();
        let (path, worker) = (PathBuf::from(&task.worktree_path), task.pane_id.clone());
        // The foreign-pane check reads the file system: off the event loop.
        let checked = actix_rt::task::spawn_blocking(move || {
            foreign(&*bench, &path, &panes, worker.as_ref())
        });
        Box::pin(
            actix::fut::wrap_future(checked).then(move |inside, act: &mut TaskActor, _| {
                let inside = inside
                    .map_err(|e| Error::Internal(format!("the pane check stopped: {e}")))
                    .and_then(|inside| inside.map_or(Ok(()), Err));
                if let Err(e) = inside {
                    return done(Err(e));
                }
                // Step 6, discard: canceled first, so the worker's exit cannot
                // fail it.
                let canceled: Option<Answer<Task>> = (job.mode == Mode::Discard
                    && !task.state.is_terminal())
                .then(|| act.transition(TaskState::Canceled, None));
                let services = act.kit.services.clone();
                let worker = task.pane_id.clone();
                let stopped = async move {
                    if let Some(canceled) = canceled {
                        canceled.await?;
                    }
                    // Step 7.
                    stop_worker(services, worker).await;
                    Ok::<(), Error>(())
                };
                Box::pin(
                    actix::fut::wrap_future(stopped).then(
                        move |r, act: &mut TaskActor, _| match r {
                            Ok(()) => act.git_steps(job, task, target),
                            Err(e) => done(Err(e)),
                        },
                    ),
                )
            }),
        )
    }

    /// Steps 8–15: the merge (merge mode), the cleanup, the workspaces
    /// closed; then the record.
    fn git_steps(&mut self, job: Job, task: Task, target: Option<String>) -> Fut<TaskFinishResult> {
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
            deadline: self.kit.merge_timeout,
        });
        let git = self.kit.os.task_git.clone();
        let branch = task.branch.clone();
        let work = actix_rt::task::spawn_blocking(move || {
            let merged = merge.as_ref().map(|m| {
                git.merge(m).map(|sha| MergeDone {
                    target: m.target.clone(),
                    sha,
                })
            });
            match merged {
                Some(Err(e)) => Err(e),
                merged => {
                    let cleaned = git.cleanup(&repo, &path, delete.then_some(branch.as_str()));
                    Ok((merged.and_then(Result::ok), cleaned))
                },
            }
        });
        let close = self.kit.services.close_at.clone();
        let rooted = PathBuf::from(&task.worktree_path);
        let steps = async move {
            let done = work
                .await
                .map_err(|e| Error::Internal(format!("the finish step stopped: {e}")))
                .and_then(|r| r)?;
            // Step 15: the workspaces rooted at the removed checkout.
            let _ = close
                .send(CloseWorkspacesAt {
                    path: rooted,
                    signal: SignalName::Term,
                })
                .await;
            Ok(done)
        };
        Box::pin(actix::fut::wrap_future(steps).then(
            move |done, act: &mut TaskActor, _| match done {
                Err(e) => act.conflicted(e),
                Ok((merged, cleaned)) => act.record(job, merged, cleaned),
            },
        ))
    }

    /// A merge that did not happen: a conflict keeps its files in
    /// `finish_error` (the task stays finishable); the error is the reply.
    fn conflicted(&mut self, e: Error) -> Fut<TaskFinishResult> {
        let stored = match &e {
            Error::Detailed { details, .. } if details.get("conflicted").is_some() => {
                details.clone()
            },
            _ => return done(Err(e)),
        };
        let kept = self.set_finish_error(Some(stored));
        Box::pin(actix::fut::wrap_future(async move {
            let _ = kept.await;
            Err(e)
        }))
    }

    /// Step 16: the disposition recorded, and the reply.
    fn record(
        &mut self,
        job: Job,
        merged: Option<MergeDone>,
        cleaned: Cleaned,
    ) -> Fut<TaskFinishResult> {
        let disposition = Disposition {
            outcome: match job.mode {
                Mode::Merge => Finished::Merged,
                Mode::Discard => Finished::Discarded,
            },
            target_ref: merged.as_ref().map(|m| m.target.clone()),
            merged_sha: merged.as_ref().map(|m| m.sha.clone()),
            branch_deleted: Some(cleaned.branch_deleted),
            at: Some(Timestamp::now()),
        };
        let finish_error = cleaned.error.as_ref().map(|e| json!({"cleanup_error": e}));
        let recorded = self.machine().and_then(|m| {
            m.finish(disposition, finish_error, Timestamp::now())
                .map_err(super::refused)
        });
        let published: Answer<Task> = match recorded {
            Ok(event) => self.publish(vec![event]),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        };
        Box::pin(actix::fut::wrap_future(async move {
            let task = published.await;
            drop(job);
            task.map(|task| TaskFinishResult {
                task,
                merge: merged,
                cleanup_error: cleaned.error,
                conflicts: Vec::new(),
            })
        }))
    }

    /// Replaces the finish error and publishes it.
    fn set_finish_error(&mut self, finish_error: Option<Value>) -> Answer<Task> {
        match self.machine() {
            Ok(m) => {
                let event = m.set_finish_error(finish_error, Timestamp::now());
                self.publish(vec![event])
            },
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// docs/tasks.md#finishing-again: while the checkout exists, only the
    /// cleanup is retried (never a second merge); once it is gone,
    /// `BAD_PARAMS`.
    fn cleanup_only(
        &mut self,
        job: Job,
        task: Task,
        panes: Vec<LivePane>,
    ) -> Fut<TaskFinishResult> {
        let outcome = if task.disposition.outcome == Finished::Merged {
            "merged"
        } else {
            "discarded"
        };
        let (git, bench) = (self.kit.os.task_git.clone(), self.kit.os.workbench.clone());
        let repo = PathBuf::from(&task.source_repo);
        let path = PathBuf::from(&task.worktree_path);
        let worker = task.pane_id.clone();
        // The checks and the cleanup read the file system: off the event loop.
        let work = actix_rt::task::spawn_blocking(move || {
            if !bench.exists(&path) {
                return Err(Error::BadParams(format!(
                    "the task was {outcome} already and its checkout is gone"
                )));
            }
            if let Some(e) = foreign(&*bench, &path, &panes, worker.as_ref()) {
                return Err(e);
            }
            Ok(git.cleanup(&repo, &path, None))
        });
        let merge = match (&task.disposition.target_ref, &task.disposition.merged_sha) {
            (Some(target), Some(sha)) => Some(MergeDone {
                target: target.clone(),
                sha: sha.clone(),
            }),
            _ => None,
        };
        Box::pin(
            actix::fut::wrap_future(work).then(move |cleaned, act: &mut TaskActor, _| {
                let cleaned = match cleaned {
                    Ok(Ok(cleaned)) => cleaned,
                    Ok(Err(e)) => return done(Err(e)),
                    Err(e) => Cleaned {
                        branch_deleted: false,
                        error: Some(format!("the cleanup stopped: {e}")),
                    },
                };
                let finish_error = cleaned.error.as_ref().map(|e| json!({"cleanup_error": e}));
                let published = act.set_finish_error(finish_error);
                Box::pin(actix::fut::wrap_future(async move {
                    let task = published.await;
                    drop(job);
                    task.map(|task| TaskFinishResult {
                        task,
                        merge,
                        cleanup_error: cleaned.error,
                        conflicts: Vec::new(),
                    })
                }))
            }),
        )
    }
}
