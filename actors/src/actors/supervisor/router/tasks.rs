//! Routing of `task.*` (tasks.md §2, §8, §9): the start pipeline — checks,
//! idempotency, the cap, the checkout (off the event loop), the commit of
//! the task, then its workspace, tab and worker pane — and the reads,
//! reports and cancels, each served by the task's actor or the projection.
//!
//! ```text
//!   task.start ─ checks ─ key? ─ cap ─┬─ blocking: base, branch, checkout
//!                                     ▼
//!        task.created (pending) ─ workspace ─ tab ─ pane.spawn ─ task.updated
//!                 │ any failure from here: failed {stage, error}, unlocked
//! ```

use super::{Cx, OnHost, Reply, Routed, fail, ready};
use crate::actors::task::{Report, SetWorker, TaskActor, Transition};
use crate::actors::workspace::CreateTab;
use crate::domain::task::contract::check_contract;
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::git::task_start::{self as start, Checkout, Plan};
use actix::prelude::*;
use serde_json::json;
use signaltty_protocol::pane::{AgentKind, PaneSignalParams, PaneSpawnParams, Relationship};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::task::{
    Disposition, Task, TaskListParams, TaskListResult, TaskReportParams, TaskResultReply,
    TaskStartParams, TaskStartResult, TaskState, TaskTarget,
};
use signaltty_protocol::workspace::Workspace;
use signaltty_protocol::{ContextId, PaneId, TabId, TaskId, Timestamp, WorkspaceRef};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often a start whose idempotency key is being started looks again.
const KEY_RETRY: Duration = Duration::from_millis(20);

/// The most tasks `task.list` returns.
const MAX_LIST: usize = 1000;

/// `task.get`.
pub fn get(cx: &Cx<'_>, id: &TaskId) -> Result<TaskResultReply, Error> {
    cx.events
        .projection()
        .task(id)
        .map(|t| TaskResultReply { task: t.clone() })
        .ok_or_else(|| Error::NoSuchTask(id.0.clone()))
}

/// `task.list`: filtered, ordered by creation, then cut to `limit`.
pub fn list(cx: &Cx<'_>, p: &TaskListParams) -> Result<TaskListResult, Error> {
    let limit = p.limit.unwrap_or(100);
    if limit == 0 || limit > MAX_LIST {
        return Err(Error::BadParams(format!("limit must be 1 to {MAX_LIST}")));
    }
    let tasks = cx
        .events
        .projection()
        .tasks()
        .into_iter()
        .filter(|t| p.context_id.as_ref().is_none_or(|c| &t.context_id == c))
        .filter(|t| p.state.is_none_or(|s| t.state == s))
        .take(limit)
        .cloned()
        .collect();
    Ok(TaskListResult { tasks })
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

/// `task.report` (tasks.md §8).
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
    Box::pin(
        async move { actor.send(Report(p)).await? }
            .on_host()
            .map(|r, _, _| Reply::of(r.map(|task| TaskResultReply { task }))),
    )
}

/// `task.cancel` (tasks.md §9): canceled first, so the worker's exit cannot
/// fail it, then the worker's process group is sent SIGTERM. The pane stays
/// as a readable tombstone; the checkout and branch stay for inspection.
pub fn cancel(cx: &mut Cx<'_>, p: TaskTarget) -> Routed {
    let Some(actor) = cx.tasks.get(&p.task_id).cloned() else {
        return fail(Err(Error::NoSuchTask(p.task_id.0)));
    };
    let moved = async move {
        actor
            .send(Transition {
                to: TaskState::Canceled,
                reason: None,
            })
            .await?
    };
    Box::pin(moved.on_host().then(|r, act, _| {
        let task = match r {
            Ok(task) => task,
            Err(e) => return super::fail(Err(e)),
        };
        let Some(pane) = task.pane_id.clone() else {
            return ready(Ok(TaskResultReply { task }));
        };
        let cx = &mut act.cx();
        close_worker(cx, &pane);
        let live = cx
            .events
            .projection()
            .pane(&pane)
            .is_some_and(|p| p.live == signaltty_protocol::pane::LiveState::Live);
        if !live {
            return ready(Ok(TaskResultReply { task }));
        }
        let stop = super::panes::signal(
            cx,
            PaneSignalParams {
                pane_id: pane.into(),
                signal: SignalName::Term,
                group: Some(true),
            },
        );
        Box::pin(stop.map(move |stopped, _, _| {
            if let Err(e) = stopped.result {
                log::warn!("task.cancel {}: cannot stop the worker: {e}", task.id);
            }
            Reply::of(Ok(TaskResultReply { task }))
        }))
    }))
}

/// A worker closed by its task (cancel, finish): its attention cleared
/// (`task_closed`) and its decision dropped; the pane stays as a tombstone.
pub(super) fn close_worker(cx: &Cx<'_>, pane: &PaneId) {
    if let Some(entry) = cx.registry.pane_by_id(pane) {
        entry.addr.do_send(crate::actors::pane::TaskClosed);
    }
}

/// A start that passed the checks needing no filesystem.
struct Go {
    id: TaskId,
    p: TaskStartParams,
    argv: Vec<String>,
    agent: Option<String>,
    key: Option<String>,
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

/// Steps 1–3 of tasks.md §2.2 and the idempotency lookup.
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

/// The first built-in binary of an agent kind (tasks.md §2.2 step 3).
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

/// `task.start` (tasks.md §2).
pub fn start(cx: &mut Cx<'_>, p: TaskStartParams) -> Routed {
    if cx.shutting_down {
        return fail(Err(Error::ShuttingDown));
    }
    let go = match check_start(cx, p.clone()) {
        Ok(Checked::Existing(result)) => return ready(Ok(*result)),
        Ok(Checked::Wait) => {
            // Another start holds the key: once it commits, this one finds
            // its task (tasks.md §2.8).
            return Box::pin(
                actix_rt::time::sleep(KEY_RETRY)
                    .on_host()
                    .then(move |(), act, _| start(&mut act.cx(), p)),
            );
        },
        Ok(Checked::Go(go)) => *go,
        Err(e) => return fail(Err(e)),
    };
    let active = cx
        .events
        .projection()
        .tasks()
        .iter()
        .filter(|t| !t.state.is_terminal())
        .count();
    let cap = cx.config.limits.max_parallel_tasks;
    if let Err(reached) = cx.tasks.reserve(active, cap) {
        if let Some(key) = &go.key {
            cx.tasks.free_key(key);
        }
        let e = Error::RateLimited(format!(
            "{} task(s) running or starting; at most {cap} at once",
            reached.0
        ))
        .with_details(json!({"active_tasks": reached.0, "max_parallel_tasks": cap}));
        return fail(Err(e));
    }
    let plan = Plan {
        task: go.id.clone(),
        repo: PathBuf::from(&go.p.repo),
        base_ref: go.p.base_ref.clone().unwrap_or_else(|| "HEAD".to_owned()),
        fetch_first: go.p.fetch_first.unwrap_or(false),
        branch: go.p.branch.clone(),
        label: go.p.label.clone(),
        path: go.p.path.as_ref().map(PathBuf::from),
        data_dir: cx.config.data_dir.clone(),
        contract: go.p.contract.clone(),
        checkouts: Some(cx.checkouts.clone()),
    };
    let prepared = actix_rt::task::spawn_blocking(move || start::prepare(&plan));
    Box::pin(prepared.on_host().then(move |prepared, act, ctx| {
        let publisher = ctx.address().recipient();
        let cx = &mut act.cx();
        let checkout = prepared
            .map_err(|e| Error::Internal(format!("the checkout step stopped: {e}")))
            .and_then(|r| r);
        match checkout {
            Ok(checkout) => commit(cx, publisher, go, checkout),
            Err(e) => {
                cx.tasks.release();
                if let Some(key) = &go.key {
                    cx.tasks.free_key(key);
                }
                fail(Err(e))
            },
        }
    }))
}

/// Step 9: the task record, its actor, and `task.created`; then the rest.
fn commit(
    cx: &mut Cx<'_>,
    publisher: Recipient<crate::actors::publish::Publish>,
    go: Go,
    checkout: Checkout,
) -> Routed {
    let now = Timestamp::now();
    let short = start::short_id(&go.id);
    let label =
        go.p.label
            .clone()
            .unwrap_or_else(|| format!("worker-{short}"));
    let task = Task {
        id: go.id.clone(),
        context_id: go
            .p
            .context_id
            .clone()
            .unwrap_or_else(|| ContextId::from_random(random_u128())),
        parent_task_id: None,
        pane_id: None,
        parent_pane_id: None,
        root_pane_id: None,
        relationship: go.p.relationship.unwrap_or(Relationship::Subagent),
        label,
        contract: go.p.contract.clone(),
        agent: go.agent.clone(),
        source_repo: checkout.repo.to_string_lossy().into_owned(),
        target_branch: checkout.target_branch.clone(),
        worktree_path: checkout.path.to_string_lossy().into_owned(),
        branch: checkout.branch.clone(),
        preexisting_branch: checkout.preexisting_branch,
        base_ref: go.p.base_ref.clone().unwrap_or_else(|| "HEAD".to_owned()),
        base_sha: checkout.base_sha.clone(),
        state: TaskState::Pending,
        result: None,
        disposition: Disposition::default(),
        pr: None,
        status_reason: None,
        finish_error: None,
        worker_pid: None,
        worker_cmd: Some(go.argv.clone()),
        client_request_id: go.key.clone(),
        created_at: now.clone(),
        updated_at: now,
    };
    let machine = crate::domain::task::machine::TaskMachine::new(task.clone());
    let created = machine.created();
    let publish = cx.events.publish(vec![created]);
    let actor = TaskActor::new(task.clone(), publisher).start();
    cx.tasks.insert(task.id.clone(), actor);
    Box::pin(publish.on_host().then(move |published, act, _| {
        let cx = &mut act.cx();
        // Committed (or not): the slot and the key are given back either way.
        cx.tasks.release();
        if let Some(key) = &go.key {
            cx.tasks.free_key(key);
        }
        match super::flatten(published) {
            Ok(_) => place(cx, go, task, checkout),
            Err(e) => fail(Err(e)),
        }
    }))
}

/// Where a start failed after the checkout existed (tasks.md §2.5).
#[derive(Debug, Clone, Copy)]
enum Stage {
    Parent,
    Workspace,
    Tab,
    Spawn,
}

impl Stage {
    fn as_str(self) -> &'static str {
        match self {
            Stage::Parent => "parent",
            Stage::Workspace => "workspace",
            Stage::Tab => "tab",
            Stage::Spawn => "spawn",
        }
    }
}

/// Records a start that failed at `stage`: the task `failed {stage, error}`,
/// its checkout unlocked and kept, and the error with `{task_id, stage}`.
fn failed_at(cx: &mut Cx<'_>, task: &Task, stage: Stage, e: Error) -> Routed {
    let reason = json!({"stage": stage.as_str(), "error": e.to_string()});
    let details = json!({"task_id": task.id, "stage": stage.as_str()});
    let e = e.with_details(details);
    let actor = cx.tasks.get(&task.id).cloned();
    let (repo, path) = (
        PathBuf::from(&task.source_repo),
        PathBuf::from(&task.worktree_path),
    );
    let recorded = async move {
        if let Some(actor) = actor {
            let moved = actor
                .send(Transition {
                    to: TaskState::Failed,
                    reason: Some(reason),
                })
                .await;
            if let Ok(Err(why)) | Err(why) = moved.map_err(Error::from) {
                log::warn!("a failed task start could not be recorded: {why}");
            }
        }
        let _ = actix_rt::task::spawn_blocking(move || start::unlock(&repo, &path)).await;
    };
    Box::pin(recorded.on_host().map(move |(), _, _| Reply::error(e)))
}

/// Steps 10–14: parent, workspace, tab, worker pane.
fn place(cx: &mut Cx<'_>, go: Go, task: Task, checkout: Checkout) -> Routed {
    // Step 10: the parent.
    let parent = match &go.p.parent_pane_id {
        Some(r) => match cx.registry.resolve(r) {
            Ok(id) => Some(id),
            Err(e) => return failed_at(cx, &task, Stage::Parent, e),
        },
        None => None,
    };
    // Step 11: a workspace rooted at the checkout, else a new one.
    let path = checkout.path.to_string_lossy().into_owned();
    let existing = cx
        .events
        .projection()
        .workspaces()
        .into_iter()
        .find(|w| Path::new(&w.cwd) == checkout.path.as_path());
    let opened: std::pin::Pin<Box<dyn std::future::Future<Output = Result<Workspace, Error>>>> =
        match (existing, cx.me.clone()) {
            (Some(w), _) => Box::pin(std::future::ready(Ok(w))),
            (None, None) => Box::pin(std::future::ready(Err(Error::Internal(
                "the Supervisor is not running".into(),
            )))),
            // The checkout was just cut: its dirty check comes after the reply.
            (None, Some(me)) => match super::validate_name(&task.label) {
                Ok(name) => Box::pin(super::workspaces::open(
                    me.recipient(),
                    cx.config.os.clone(),
                    cx.checkouts.clone(),
                    name,
                    PathBuf::from(path),
                    super::DirtyCheck::Later,
                )),
                Err(e) => Box::pin(std::future::ready(Err(e))),
            },
        };
    Box::pin(opened.on_host().then(move |opened, act, _| {
        let cx = &mut act.cx();
        let workspace = match opened {
            Ok(w) => w,
            Err(e) => return failed_at(cx, &task, Stage::Workspace, e),
        };
        // Step 12: its active tab if empty, else a new `task` tab.
        let empty_active = workspace.active_tab_id.clone().filter(|tab| {
            cx.events
                .projection()
                .tab(tab)
                .is_some_and(|t| t.layout.is_none())
        });
        let Some(addr) = cx.registry.workspace_addr(&workspace.id) else {
            let gone = Error::NoSuchWorkspace(WorkspaceRef(workspace.id.0.clone()));
            return failed_at(cx, &task, Stage::Workspace, gone);
        };
        let tab: std::pin::Pin<Box<dyn std::future::Future<Output = Result<TabId, Error>>>> =
            match empty_active {
                Some(tab) => Box::pin(std::future::ready(Ok(tab))),
                None => {
                    let new = super::tabs::new_tab(workspace.id.clone(), "task".into());
                    let created = super::ask(addr, CreateTab { tab: new });
                    Box::pin(async move { created.await.map(|tab| tab.id) })
                },
            };
        Box::pin(tab.on_host().then(move |tab, act, _| {
            let cx = &mut act.cx();
            let tab = match tab {
                Ok(tab) => tab,
                Err(e) => return failed_at(cx, &task, Stage::Tab, e),
            };
            spawn_worker(cx, go, task, workspace.id, tab, parent)
        }))
    }))
}

/// The background first prompt of a started task (tasks.md §3).
fn first_prompt(go: &Go, task: &Task, pane: &PaneId) -> super::task_prompt::FirstPrompt {
    use crate::domain::task::contract::{PromptFacts, compose_prompt};
    let facts = PromptFacts {
        task: &task.id,
        branch: &task.branch,
        base_sha: &task.base_sha,
    };
    super::task_prompt::FirstPrompt {
        task: task.id.clone(),
        pane: pane.clone(),
        text: compose_prompt(facts, &task.contract),
        ready_timeout: Duration::from_secs(go.p.ready_timeout_s.unwrap_or(30)),
        stall: Duration::from_secs(go.p.stall_timeout_s.unwrap_or(5)),
        delay: Duration::from_millis(go.p.submit_delay_ms.unwrap_or(300)),
    }
}

/// Steps 13–14: the worker pane, then `pane_id` and `worker_pid` recorded.
fn spawn_worker(
    cx: &mut Cx<'_>,
    go: Go,
    task: Task,
    workspace: signaltty_protocol::WorkspaceId,
    tab: signaltty_protocol::TabId,
    parent: Option<PaneId>,
) -> Routed {
    let mut env = std::collections::BTreeMap::new();
    env.insert("SIGNALTTY_TASK".to_owned(), task.id.0.clone());
    if let Some(parent) = &parent {
        env.insert("SIGNALTTY_PARENT_PANE".to_owned(), parent.0.clone());
    }
    let mut spawn = PaneSpawnParams::new(WorkspaceRef(workspace.0), go.argv.clone());
    spawn.tab_id = Some(tab);
    spawn.cwd = Some(task.worktree_path.clone());
    spawn.env = Some(env);
    spawn.agent_hint = go.agent.clone();
    spawn.parent_pane_id = parent.map(Into::into);
    spawn.label = Some(task.label.clone());
    spawn.relationship = Some(task.relationship);
    spawn.task_id = Some(task.id.0.clone());
    let spawned = super::spawns::start(cx, spawn);
    Box::pin(spawned.on_host().then(move |launched, act, _| {
        let cx = &mut act.cx();
        let (pane, pid) = match launched {
            Ok(launched) => (launched.pane, Some(launched.pid)),
            Err(e) => return failed_at(cx, &task, Stage::Spawn, e),
        };
        let Some(actor) = cx.tasks.get(&task.id).cloned() else {
            return fail(Err(Error::Internal("the task's actor is gone".into())));
        };
        let id = pane.id.clone();
        let set = async move { actor.send(SetWorker { pane: id, pid }).await? };
        Box::pin(set.on_host().map(move |r, _, ctx| {
            if r.is_ok() {
                super::task_prompt::begin(ctx, first_prompt(&go, &task, &pane.id));
            }
            Reply::of(r.map(|task| TaskStartResult {
                task,
                pane: Some(pane),
            }))
        }))
    }))
}
