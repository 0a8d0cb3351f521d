//! Routing of `task.*` (docs/tasks.md): what is the Supervisor's of each
//! request — the checks that need no file system, the idempotency key
//! looked up in the projection, the cap through the task book — then the
//! task's own actor does the rest: a start's checkout, record, workspace,
//! tab, worker and first prompt (`actors/task/start.rs`), a report, a
//! cancel and a finish. Reads come from the projection.
//!
//! ```text
//!   task.start ─ checks ─ key? ─ worker ─ cap ─ TaskActor (in the book) ─Start─►
//!        (a key held by another start: StartTask again after 20 ms)
//! ```

use super::{Cx, Routed, answer, fail, task_queue};
use crate::actors::services::StartTask;
use crate::actors::task::{Cancel, FinishTask, Mode, Report, Start, StartTicket, TaskActor};
use crate::domain::registry::by_prefix;
use crate::domain::task::contract::check_contract;
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::git::task_start::Plan;
use actix::prelude::*;
use serde_json::json;
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::task::{
    TaskFinishParams, TaskListParams, TaskListResult, TaskReportParams, TaskResultReply,
    TaskStartParams, TaskStartResult, TaskTarget,
};
use signaltty_protocol::{Method, TaskId};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

/// How often a start whose idempotency key is being started looks again.
const KEY_RETRY: Duration = Duration::from_millis(20);

/// The most tasks `task.list` returns.
const MAX_LIST: usize = 1000;

/// Spells out in full the task id a `task.*` request names in a shortened
/// form (docs/objects.md#shortened-ids), so each route looks up one exact
/// id; an id no task has is left as it is, for the route to refuse.
pub fn full_ids(cx: &Cx<'_>, method: &mut Method) -> Result<(), Error> {
    let id = match method {
        Method::TaskGet(p) | Method::TaskDiff(p) | Method::TaskCancel(p) => &mut p.task_id,
        Method::TaskFinish(p) => &mut p.task_id,
        Method::TaskFileDiff(p) => &mut p.task_id,
        Method::TaskWait(p) => match &mut p.task_id {
            Some(id) => id,
            None => return Ok(()),
        },
        Method::TaskReport(p) => match &mut p.task_id {
            Some(id) => id,
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    let projection = cx.events.projection();
    if projection.task(id).is_some() {
        return Ok(());
    }
    let ids = projection.task_ids().map(|t| t.0.as_str());
    if let Some(full) = by_prefix(ids, &id.0, TaskId::PREFIX, "tasks")? {
        *id = TaskId(full.to_string());
    }
    Ok(())
}

/// `task.get`.
pub fn get(cx: &Cx<'_>, id: &TaskId) -> Result<TaskResultReply, Error> {
    let projection = cx.events.projection();
    let task = projection
        .task(id)
        .ok_or_else(|| Error::NoSuchTask(id.0.clone()))?;
    let mut placed = [task.clone()];
    task_queue::place_all(cx, &mut placed);
    let [task] = placed;
    Ok(TaskResultReply {
        task,
        conflicts: projection
            .conflicts()
            .filter(|c| c.involves(id))
            .cloned()
            .collect(),
    })
}

/// `task.list`: filtered, ordered by creation, then cut to `limit`.
pub fn list(cx: &Cx<'_>, p: &TaskListParams) -> Result<TaskListResult, Error> {
    let limit = p.limit.unwrap_or(100);
    if limit == 0 || limit > MAX_LIST {
        return Err(Error::BadParams(format!("limit must be 1 to {MAX_LIST}")));
    }
    let projection = cx.events.projection();
    let mut tasks: Vec<signaltty_protocol::task::Task> = projection
        .tasks()
        .into_iter()
        .filter(|t| p.context_id.as_ref().is_none_or(|c| &t.context_id == c))
        .filter(|t| p.state.is_none_or(|s| t.state == s))
        .take(limit)
        .cloned()
        .collect();
    task_queue::place_all(cx, &mut tasks);
    let conflicts = projection
        .conflicts()
        .filter(|c| tasks.iter().any(|t| c.involves(&t.id)))
        .cloned()
        .collect();
    Ok(TaskListResult { tasks, conflicts })
}

/// The task a report is for: `task_id`, else the one whose worker is `pane_id`.
fn report_target(cx: &Cx<'_>, p: &TaskReportParams) -> Result<TaskId, Error> {
    if let Some(id) = &p.task_id {
        return Ok(id.clone());
    }
    let Some(pane) = &p.pane_id else {
        return Err(Error::BadParams(
            "task.report needs task_id or pane_id".into(),
        ));
    };
    let pane = cx.registry.resolve(pane)?;
    cx.events
        .projection()
        .task_of_pane(&pane)
        .map(|t| t.id.clone())
        .ok_or_else(|| Error::NoSuchTask(format!("(no task has pane {pane} as its worker)")))
}

/// `task.report` (docs/tasks.md#reports).
pub fn report(cx: &mut Cx<'_>, p: TaskReportParams) -> Routed {
    let id = match report_target(cx, &p) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
    };
    if let Err(why) = crate::domain::task::contract::check_report(&p) {
        return fail(Err(Error::BadParams(why)));
    }
    let Some(actor) = cx.tasks.get(&id).cloned() else {
        return fail(Err(Error::NoSuchTask(id.0)));
    };
    answer(async move {
        let task = actor.send(Report(p)).await??;
        Ok(TaskResultReply {
            task,
            conflicts: Vec::new(),
        })
    })
}

/// `task.cancel` (docs/tasks.md#cancelling-a-task), in the task's actor.
pub fn cancel(cx: &mut Cx<'_>, p: TaskTarget) -> Routed {
    let Some(actor) = cx.tasks.get(&p.task_id).cloned() else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    answer(async move {
        let task = actor.send(Cancel).await??;
        Ok(TaskResultReply {
            task,
            conflicts: Vec::new(),
        })
    })
}

/// `task.finish` (docs/tasks.md#finishing-a-task): the mode and the task
/// checked here, the rest in the task's actor.
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
    // A task that never left the queue has no checkout to merge or discard
    // (docs/tasks.md#the-task-queue).
    if let Some(task) = cx.events.projection().task(&p.task_id)
        && task.worktree_path.is_empty()
    {
        return fail(Err(Error::BadParams(format!(
            "task {} never started (it is {}): it has no checkout to finish; cancel it instead",
            task.id,
            task.state.as_str()
        ))
        .with_details(json!({"state": task.state}))));
    }
    let actor = cx
        .events
        .projection()
        .task(&p.task_id)
        .and_then(|task| cx.tasks.get(&task.id).cloned());
    let Some(actor) = actor else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    let radar = cx.radar.clone();
    answer(async move {
        let mut done = actor.send(FinishTask { p, mode }).await??;
        if let (Some(radar), Some(_)) = (radar, &done.merge) {
            done.conflicts = super::conflicts::after_merge(&radar, &done.task).await;
        }
        Ok(done)
    })
}

/// What git makes for the start of task `id` asked by `p`.
pub(super) fn plan_for(cx: &Cx<'_>, id: &TaskId, p: &TaskStartParams) -> Plan {
    Plan {
        task: id.clone(),
        repo: PathBuf::from(&p.repo),
        base_ref: p.base_ref.clone().unwrap_or_else(|| "HEAD".to_owned()),
        fetch_first: p.fetch_first.unwrap_or(false),
        branch: p.branch.clone(),
        label: p.label.clone(),
        path: p.path.as_ref().map(PathBuf::from),
        data_dir: cx.config.data_dir.clone(),
        contract: p.contract.clone(),
        checkouts: Some(cx.checkouts.clone()),
    }
}

/// A start that passed the checks needing no filesystem.
pub(super) struct Go {
    pub(super) id: TaskId,
    pub(super) p: TaskStartParams,
    pub(super) argv: Vec<String>,
    pub(super) agent: Option<String>,
    pub(super) key: Option<String>,
}

/// What the first checks decided.
enum Checked {
    /// A task with this key exists: reply with it.
    Existing(Box<TaskStartResult>),
    /// A start with this key is under way: look again shortly.
    Wait,
    /// Go on.
    Go(Box<Go>),
}

/// Steps 1–3 of docs/tasks.md#the-start-steps-in-order and the
/// idempotency lookup.
fn check_start(cx: &mut Cx<'_>, p: TaskStartParams) -> Result<Checked, Error> {
    check_contract(&p.contract).map_err(Error::BadParams)?;
    if !Path::new(&p.repo).is_absolute() {
        return Err(Error::BadParams(format!(
            "repo {} is not an absolute path",
            p.repo
        )));
    }
    if let Some(path) = &p.path
        && !Path::new(path).is_absolute()
    {
        return Err(Error::BadParams(format!(
            "path {path} is not an absolute path"
        )));
    }
    if let Some(key) = &p.client_request_id {
        if key.is_empty() {
            return Err(Error::BadParams(
                "client_request_id must not be empty".into(),
            ));
        }
        let existing = cx
            .events
            .projection()
            .tasks()
            .into_iter()
            .find(|t| t.client_request_id.as_deref() == Some(key))
            .cloned();
        if let Some(task) = existing {
            let pane = task
                .pane_id
                .as_ref()
                .and_then(|id| cx.events.projection().pane(id))
                .cloned();
            return Ok(Checked::Existing(Box::new(TaskStartResult { task, pane })));
        }
        if !cx.tasks.claim_key(key) {
            return Ok(Checked::Wait);
        }
    }
    let resolved = resolve_worker(&p);
    let (argv, agent) = match resolved {
        Ok(r) => r,
        Err(e) => {
            if let Some(key) = &p.client_request_id {
                cx.tasks.free_key(key);
            }
            return Err(e);
        },
    };
    Ok(Checked::Go(Box::new(Go {
        id: TaskId::from_random(random_u128()),
        key: p.client_request_id.clone(),
        p,
        argv,
        agent,
    })))
}

/// Step 3: the worker's argv and the task's agent name.
fn resolve_worker(p: &TaskStartParams) -> Result<(Vec<String>, Option<String>), Error> {
    let kind = match &p.agent {
        Some(name) => Some(
            AgentKind::parse(name)
                .ok_or_else(|| Error::BadParams(format!("unknown agent {name:?}")))?,
        ),
        None => None,
    };
    match (&p.argv, kind) {
        (Some(argv), _) if argv.is_empty() || argv[0].is_empty() => {
            Err(Error::BadParams("argv must name a program".into()))
        },
        (Some(argv), Some(_)) => Ok((argv.clone(), p.agent.clone())),
        (Some(argv), None) => {
            let detected = crate::domain::launch::detect_kind(argv);
            let agent = (!matches!(detected, AgentKind::Generic | AgentKind::None))
                .then(|| detected.name().to_owned());
            Ok((argv.clone(), agent))
        },
        (None, Some(kind)) => match default_binary(kind) {
            Some(bin) => Ok((vec![bin.to_owned()], p.agent.clone())),
            None => Err(Error::BadParams(format!(
                "agent {} has no interactive default program: specify argv",
                kind.name()
            ))),
        },
        (None, None) => Err(Error::BadParams("task.start needs agent or argv".into())),
    }
}

/// The first built-in binary of an agent kind
/// (docs/tasks.md#the-start-steps-in-order, step 3).
fn default_binary(kind: AgentKind) -> Option<&'static str> {
    match kind {
        AgentKind::Codex => Some("codex"),
        AgentKind::Claude => Some("claude"),
        AgentKind::Opencode => Some("opencode"),
        AgentKind::Cursor => Some("cursor-agent"),
        AgentKind::Pi => Some("pi"),
        AgentKind::Gemini => Some("gemini"),
        _ => None,
    }
}

/// A typed answer that comes later.
pub(super) type Answer<T> = Pin<Box<dyn Future<Output = Result<T, Error>>>>;

pub(super) fn now<T: 'static>(r: Result<T, Error>) -> Answer<T> {
    Box::pin(std::future::ready(r))
}

/// `task.start` (docs/tasks.md#starting-a-task).
pub fn start(cx: &mut Cx<'_>, p: TaskStartParams) -> Routed {
    answer(begin(cx, p))
}

/// Steps 1–4 of docs/tasks.md#the-start-steps-in-order, then the task's
/// actor, registered in the book, is asked to start: it holds the cap's
/// slot and the key ([`StartTicket`]) until its task is committed.
pub(super) fn begin(cx: &mut Cx<'_>, p: TaskStartParams) -> Answer<TaskStartResult> {
    if cx.shutting_down {
        return now(Err(Error::ShuttingDown));
    }
    let mut go = match check_start(cx, p.clone()) {
        Ok(Checked::Existing(result)) => return now(Ok(*result)),
        Ok(Checked::Wait) => {
            // Another start holds the key: once it commits, this one finds
            // its task (docs/tasks.md#repeated-starts).
            let me = cx.me.clone();
            return Box::pin(async move {
                actix_rt::time::sleep(KEY_RETRY).await;
                match me {
                    Some(me) => me.send(StartTask(p)).await?,
                    None => Err(Error::ShuttingDown),
                }
            });
        },
        Ok(Checked::Go(go)) => *go,
        Err(e) => return now(Err(e)),
    };
    let free_key = |cx: &mut Cx<'_>| {
        if let Some(key) = &go.key {
            cx.tasks.free_key(key);
        }
    };
    let Some(me) = cx.me.clone() else {
        free_key(cx);
        return now(Err(Error::Internal("the Supervisor is not running".into())));
    };
    let (wait, active) = match task_queue::must_wait(cx, &mut go.p) {
        Ok(w) => w,
        Err(e) => {
            free_key(cx);
            return now(Err(e));
        },
    };
    let cap = cx.config.limits.max_parallel_tasks;
    let refuse = |busy: usize| {
        Error::RateLimited(format!(
            "{busy} task(s) running or starting; at most {cap} at once"
        ))
        .with_details(json!({"active_tasks": busy, "max_parallel_tasks": cap}))
    };
    let queue = go.p.queue != Some(false);
    match wait {
        // Behind the queue: queued, or refused when the request says so.
        task_queue::Wait::Queue if queue => return task_queue::enqueue(cx, &me, go),
        task_queue::Wait::Queue => {
            free_key(cx);
            return now(Err(refuse(active + cx.tasks.starting())));
        },
        task_queue::Wait::After => return task_queue::enqueue(cx, &me, go),
        task_queue::Wait::No => {},
    }
    if let Err(reached) = cx.tasks.reserve(active, cap) {
        if queue {
            return task_queue::enqueue(cx, &me, go);
        }
        free_key(cx);
        return now(Err(refuse(reached.0)));
    }
    let plan = plan_for(cx, &go.id, &go.p);
    let kit = super::super::tasks::kit(&me, cx.config, cx.checkouts);
    let actor = TaskActor::starting(go.id.clone(), kit).start();
    cx.tasks.insert(go.id.clone(), actor.clone());
    let ticket = StartTicket::new(me.recipient(), go.id, go.key);
    let started = actor.send(Start {
        ticket,
        plan,
        params: go.p,
        argv: go.argv,
        agent: go.agent,
    });
    Box::pin(async move { started.await? })
}
