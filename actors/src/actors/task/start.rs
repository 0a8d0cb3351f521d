//! A task's start, in its own actor: docs/tasks.md#the-start-steps-in-order
//! from step 5 on. The route made steps 1–4 (the checks, the key, the
//! worker's program, the cap) and hands over the cap's slot and the key in a
//! [`StartTicket`]; this actor makes the checkout, commits its record, and
//! places its worker ([`super::place`]), then types the first prompt
//! ([`super::prompt`]).
//!
//! `task.created` is sent as soon as the record exists and is not waited for
//! before the workspace is asked for: the Supervisor sequences it first, and
//! the reply waits for `task.updated`, which the journal makes durable after
//! it. The ticket is settled once `task.created` is durable, so the slot and
//! the key are given back exactly when the task is committed (or the start
//! failed before), as docs/tasks.md#the-parallel-task-cap says.
//!
//! ```text
//!   blocking: checkout (TaskGit) + the workspace's directory ─► record
//!     ├─ task.created ─────────── durable: ticket → StartEnded
//!     └─ place: parent · workspace (+ tab) · tab · worker
//!          ├─ ok: task.updated {pane_id, worker_pid} ─ reply ─ first prompt
//!          └─ failed {stage, error} ─ blocking: unlock ─ error {task_id, stage}
//! ```

use super::place::{self, Dir, Stage, Worker};
use super::prompt::FirstPrompt;
use super::{Answer, TaskActor};
use crate::actors::services::StartEnded;
use crate::actors::workspace::Launched;
use crate::domain::task::contract::{PromptFacts, compose_prompt};
use crate::domain::task::machine::TaskMachine;
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::git::task_start::{Checkout, Plan, short_id};
use actix::prelude::*;
use serde_json::json;
use signaltty_protocol::pane::Relationship;
use signaltty_protocol::task::{Disposition, Task, TaskStartParams, TaskStartResult, TaskState};
use signaltty_protocol::{ContextId, TaskId, Timestamp};
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

/// A start's slot of the cap and its idempotency key, from the route's
/// checks until its task is committed or it fails
/// (docs/tasks.md#the-parallel-task-cap, docs/tasks.md#repeated-starts).
/// Told to the Supervisor once: committed, or dropped (the start failed
/// before its task was committed, or never ran): then the Supervisor also
/// forgets the task's actor.
pub struct StartTicket {
    tell: Option<Recipient<StartEnded>>,
    task: TaskId,
    key: Option<String>,
    slot: bool,
}

impl StartTicket {
    /// The hold of the start of `task`, with its key, told to `tell`.
    pub fn new(tell: Recipient<StartEnded>, task: TaskId, key: Option<String>) -> StartTicket {
        StartTicket {
            tell: Some(tell),
            task,
            key,
            slot: true,
        }
    }

    /// The hold of a start that queues its task: a key, no slot of the cap
    /// (docs/tasks.md#the-task-queue).
    pub fn queued(tell: Recipient<StartEnded>, task: TaskId, key: Option<String>) -> StartTicket {
        let mut ticket = StartTicket::new(tell, task, key);
        ticket.slot = false;
        ticket
    }

    fn end(&mut self, committed: bool) {
        if let Some(tell) = self.tell.take() {
            tell.do_send(StartEnded {
                task: self.task.clone(),
                key: self.key.take(),
                committed,
                slot: self.slot,
            });
        }
    }

    /// `task.created` is durable.
    pub(super) fn committed(mut self) {
        self.end(true);
    }
}

impl Drop for StartTicket {
    fn drop(&mut self) {
        self.end(false);
    }
}

/// Starts the task from step 5 on: replies with the task (`pending`) and
/// its worker pane once `task.updated` is published; an error before the
/// checkout leaves nothing, one after it a `failed` task with `{task_id,
/// stage}` in the error's details.
#[derive(Message)]
#[rtype(result = "Result<TaskStartResult, Error>")]
pub struct Start {
    /// The cap's slot and the key.
    pub ticket: StartTicket,
    /// What git makes.
    pub plan: Plan,
    /// The request.
    pub params: TaskStartParams,
    /// The worker's program.
    pub argv: Vec<String>,
    /// The agent the task records.
    pub agent: Option<String>,
}

type Fut<T> = Pin<Box<dyn ActorFuture<TaskActor, Output = Result<T, Error>>>>;

fn done<T: 'static>(r: Result<T, Error>) -> Fut<T> {
    Box::pin(actix::fut::ready(r))
}

impl Handler<Start> for TaskActor {
    type Result = ResponseActFuture<Self, Result<TaskStartResult, Error>>;

    fn handle(&mut self, msg: Start, _ctx: &mut Self::Context) -> Self::Result {
        let Start {
            ticket,
            plan,
            params,
            argv,
            agent,
        } = msg;
        let (os, checkouts) = (self.kit.os.clone(), self.kit.checkouts.clone());
        // Steps 5–8, and what opening a workspace in the checkout reads of
        // it, on one blocking thread.
        let prepared = actix_rt::task::spawn_blocking(move || {
            let checkout = os.task_git.prepare(&plan)?;
            let dir = place::read_dir(&os, &checkouts, &checkout.path);
            Ok::<_, Error>((checkout, dir))
        });
        Box::pin(
            actix::fut::wrap_future(prepared).then(move |prepared, act: &mut TaskActor, _| {
                let prepared = prepared
                    .map_err(|e| Error::Internal(format!("the checkout step stopped: {e}")))
                    .and_then(|r| r);
                match prepared {
                    Ok((checkout, dir)) => act.commit(ticket, params, argv, agent, checkout, dir),
                    // A queued task's record exists: it fails, and stays.
                    Err(e) if act.queued() => act.queued_start_failed(ticket, e),
                    // Nothing was made: the slot and the key go back.
                    Err(e) => {
                        drop(ticket);
                        done(Err(e))
                    },
                }
            }),
        )
    }
}

impl TaskActor {
    /// Step 9, the record and `task.created`, then steps 10–14.
    fn commit(
        &mut self,
        ticket: StartTicket,
        p: TaskStartParams,
        argv: Vec<String>,
        agent: Option<String>,
        checkout: Checkout,
        dir: Dir,
    ) -> Fut<TaskStartResult> {
        let fresh = record(&self.id, &p, &argv, agent.clone(), &checkout);
        // A queued task's record moves on; any other is created now.
        let (created, task) = match self.machine.as_mut() {
            Some(m) => match m.start_queued(fresh, Timestamp::now()) {
                Ok(event) => (event, m.task().clone()),
                Err(e) => return done(Err(super::refused(e))),
            },
            None => {
                let machine = TaskMachine::new(fresh);
                let event = machine.created();
                let task = machine.task().clone();
                self.machine = Some(machine);
                (event, task)
            },
        };
        let published = self.publish(vec![created]);
        let committed = async move {
            let published = published.await;
            if published.is_ok() {
                ticket.committed();
            }
            published
        };
        let worker = Worker {
            task: task.id.clone(),
            label: task.label.clone(),
            checkout: task.worktree_path.clone(),
            relationship: task.relationship,
            argv,
            agent,
            parent: p.parent_pane_id.clone(),
        };
        let placed = place::place(self.kit.services.clone(), worker, dir);
        let prompt = first_prompt(&p, &task);
        let both = futures_util::future::join(committed, placed);
        Box::pin(actix::fut::wrap_future(both).then(
            move |(created, placed), act: &mut TaskActor, _| match (created, placed) {
                (Err(e), _) => done(Err(e)),
                (Ok(_), Err((stage, e))) => act.failed_at(stage, e),
                (Ok(_), Ok(launched)) => act.worker_started(launched, prompt),
            },
        ))
    }

    /// Step 14: `pane_id` and `worker_pid` recorded, the reply, and the
    /// first prompt in the background.
    fn worker_started(&mut self, launched: Launched, prompt: FirstPrompt) -> Fut<TaskStartResult> {
        let set = self.machine().map(|m| {
            m.set_worker(
                launched.pane.id.clone(),
                Some(launched.pid),
                Timestamp::now(),
            )
        });
        let published: Answer<Task> = match set {
            Ok(event) => self.publish(vec![event]),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        };
        let pane = launched.pane;
        Box::pin(
            actix::fut::wrap_future(published).map(move |r, act: &mut TaskActor, ctx| {
                if r.is_ok() {
                    act.begin_prompt(prompt, pane.id.clone(), ctx);
                }
                r.map(|task| TaskStartResult {
                    task,
                    pane: Some(pane),
                })
            }),
        )
    }

    /// A start that failed at `stage` (docs/tasks.md#when-a-start-fails):
    /// the task `failed {stage, error}`, its checkout unlocked and kept, and
    /// the error with `{task_id, stage}`.
    fn failed_at(&mut self, stage: Stage, e: Error) -> Fut<TaskStartResult> {
        let reason = json!({"stage": stage.as_str(), "error": e.to_string()});
        let e = e.with_details(json!({"task_id": self.id, "stage": stage.as_str()}));
        let paths = self.task().map(|t| {
            (
                PathBuf::from(&t.source_repo),
                PathBuf::from(&t.worktree_path),
            )
        });
        let moved = self.transition(TaskState::Failed, Some(reason));
        let git = self.kit.os.task_git.clone();
        Box::pin(actix::fut::wrap_future(async move {
            if let Err(why) = moved.await {
                log::warn!("a failed task start could not be recorded: {why}");
            }
            if let Ok((repo, path)) = paths {
                let _ = actix_rt::task::spawn_blocking(move || git.unlock(&repo, &path)).await;
            }
            Err(e)
        }))
    }
}

/// The task record of step 9, `pending`: the start's record with its
/// checkout.
fn record(
    id: &TaskId,
    p: &TaskStartParams,
    argv: &[String],
    agent: Option<String>,
    checkout: &Checkout,
) -> Task {
    Task {
        source_repo: checkout.repo.to_string_lossy().into_owned(),
        target_branch: checkout.target_branch.clone(),
        worktree_path: checkout.path.to_string_lossy().into_owned(),
        branch: checkout.branch.clone(),
        preexisting_branch: checkout.preexisting_branch,
        base_sha: checkout.base_sha.clone(),
        ..start_record(id, p, argv, agent, TaskState::Pending, Timestamp::now())
    }
}

/// What a start asked for as a task record in `state`, created at `at`,
/// before any checkout exists (`queued` waits with this much).
pub(super) fn start_record(
    id: &TaskId,
    p: &TaskStartParams,
    argv: &[String],
    agent: Option<String>,
    state: TaskState,
    at: Timestamp,
) -> Task {
    let label = p
        .label
        .clone()
        .unwrap_or_else(|| format!("worker-{}", short_id(id)));
    Task {
        id: id.clone(),
        context_id: p
            .context_id
            .clone()
            .unwrap_or_else(|| ContextId::from_random(random_u128())),
        parent_task_id: None,
        pane_id: None,
        parent_pane_id: None,
        root_pane_id: None,
        relationship: p.relationship.unwrap_or(Relationship::Subagent),
        label,
        contract: p.contract.clone(),
        agent,
        source_repo: p.repo.clone(),
        target_branch: None,
        worktree_path: String::new(),
        branch: String::new(),
        preexisting_branch: false,
        base_ref: p.base_ref.clone().unwrap_or_else(|| "HEAD".to_owned()),
        base_sha: String::new(),
        state,
        result: None,
        disposition: Disposition::default(),
        pr: None,
        status_reason: None,
        finish_error: None,
        worker_pid: None,
        worker_cmd: Some(argv.to_vec()),
        client_request_id: p.client_request_id.clone(),
        after: p.after.clone().unwrap_or_default(),
        queued_start: None,
        queue_position: None,
        created_at: at.clone(),
        updated_at: at,
    }
}

/// The first prompt of `task` (docs/tasks.md#the-first-prompt), with the
/// start's timings.
fn first_prompt(p: &TaskStartParams, task: &Task) -> FirstPrompt {
    let facts = PromptFacts {
        task: &task.id,
        branch: &task.branch,
        base_sha: &task.base_sha,
    };
    FirstPrompt {
        text: compose_prompt(facts, &task.contract),
        ready_timeout: Duration::from_secs(p.ready_timeout_s.unwrap_or(30)),
        stall: Duration::from_secs(p.stall_timeout_s.unwrap_or(5)),
        delay: Duration::from_millis(p.submit_delay_ms.unwrap_or(300)),
    }
}
