//! A task's first prompt (tasks.md §3), owned by the server: it runs on the
//! Supervisor after `task.start` has answered, survives the caller's
//! disconnect, and stops as soon as the task leaves `pending`.
//!
//! ```text
//!   every 50 ms: task not pending → stop · pane gone/exited → failed
//!                idle or done → submit · deadline → failed {screen_tail}
//!   submit: baseline, paste, delay, re-checked Enter, activity gate
//!           (one Enter retry) → working | input_required | failed
//! ```

use super::submit::{activity_gate, pane_task};
use super::{Cx, OnHost, Reply};
use crate::actors::pane::{SubmitEnter, SubmitPaste};
use crate::actors::supervisor::Supervisor;
use crate::actors::task::Transition;
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use serde_json::{Value, json};
use signaltty_protocol::pane::{Lifecycle, LiveState, ReadMode};
use signaltty_protocol::task::TaskState;
use signaltty_protocol::{PaneId, TaskId};
use std::time::{Duration, Instant};

/// The connection the server's own waits are filed under: no client has it,
/// so none of them is ever cancelled by a client going away.
pub const SERVER_CONN: ConnId = ConnId(u64::MAX);

/// How often the ready wait looks.
const READY_POLL: Duration = Duration::from_millis(50);

/// How many screen lines a ready timeout keeps.
const SCREEN_TAIL_LINES: usize = 20;

/// What the first prompt needs.
#[derive(Debug, Clone)]
pub struct FirstPrompt {
    /// The task.
    pub task: TaskId,
    /// Its worker.
    pub pane: PaneId,
    /// The composed prompt.
    pub text: String,
    /// How long the worker may take to be ready.
    pub ready_timeout: Duration,
    /// The activity gate.
    pub stall: Duration,
    /// Paste → Enter.
    pub delay: Duration,
}

/// Where the ready wait is.
enum Ready {
    Stop,
    Go,
    Fail(Value),
    Again,
}

fn ready_state(cx: &Cx<'_>, p: &FirstPrompt) -> Ready {
    let projection = cx.events.projection();
    if projection
        .task(&p.task)
        .is_none_or(|t| t.state != TaskState::Pending)
    {
        return Ready::Stop;
    }
    match projection.pane(&p.pane) {
        None => Ready::Fail(json!({"stage": "ready_timeout", "error": "pane missing"})),
        Some(pane) if pane.live != LiveState::Live || pane.lifecycle == Lifecycle::Exited => {
            Ready::Fail(json!({"stage": "ready_timeout", "error": "pane exited"}))
        },
        Some(pane)
            if matches!(pane.lifecycle, Lifecycle::Idle | Lifecycle::Done) && settled(pane) =>
        {
            Ready::Go
        },
        Some(_) => Ready::Again,
    }
}

/// How long an idle worker's screen must have been quiet before the prompt
/// is typed into it.
const QUIET: i64 = 500;

/// How long an idle worker is waited for to go quiet at most: an agent whose
/// idle screen animates is typed into after this.
const IDLE_AT_MOST: i64 = 3000;

/// Whether an idle worker is ready to be typed into: its screen quiet for
/// `QUIET` (no output, no hook), or idle for `IDLE_AT_MOST` whatever it
/// draws. A screen rule can read a booting agent as idle before its input
/// box reads keys (Codex's idle fallback matches any screen); a prompt pasted
/// then is lost.
fn settled(pane: &signaltty_protocol::pane::Pane) -> bool {
    let Some(now) = signaltty_protocol::Timestamp::now().unix_millis() else {
        return true;
    };
    let since = |t: Option<&signaltty_protocol::Timestamp>| {
        t.and_then(|t| t.unix_millis())
            .map_or(i64::MAX, |t| now.saturating_sub(t))
    };
    since(Some(&pane.last_activity_at)) >= QUIET
        || since(pane.lifecycle_since.as_ref()) >= IDLE_AT_MOST
}

/// Starts the first prompt of a task on the host.
pub fn begin(ctx: &mut Context<Supervisor>, p: FirstPrompt) {
    let deadline = Instant::now() + p.ready_timeout;
    ctx.spawn(wait_ready(p, deadline));
}

type Step = std::pin::Pin<Box<dyn ActorFuture<Supervisor, Output = ()>>>;

fn wait_ready(p: FirstPrompt, deadline: Instant) -> Step {
    Box::pin(
        actix_rt::time::sleep(READY_POLL)
            .on_host()
            .then(move |(), act, _| -> Step {
                let cx = &mut act.cx();
                match ready_state(cx, &p) {
                    Ready::Stop => Box::pin(actix::fut::ready(())),
                    Ready::Fail(reason) => settle(cx, &p.task, TaskState::Failed, reason),
                    Ready::Go => submit(cx, p),
                    Ready::Again if Instant::now() < deadline => wait_ready(p, deadline),
                    Ready::Again => timed_out(cx, p),
                }
            }),
    )
}

/// Moves the task, unless it has moved on meanwhile (a report, a cancel).
fn settle(cx: &mut Cx<'_>, task: &TaskId, to: TaskState, reason: Value) -> Step {
    let Some(actor) = cx.tasks.get(task).cloned() else {
        return Box::pin(actix::fut::ready(()));
    };
    let reason = (!reason.is_null()).then_some(reason);
    let task = task.clone();
    Box::pin(
        async move {
            let moved = actor.send(Transition { to, reason }).await;
            if let Ok(Err(e)) | Err(e) = moved.map_err(Error::from) {
                log::debug!("task {task}: the first prompt's outcome was not recorded: {e}");
            }
        }
        .on_host(),
    )
}

/// The deadline passed: failed, with the screen's last lines.
fn timed_out(cx: &mut Cx<'_>, p: FirstPrompt) -> Step {
    let read = cx.registry.pane(&p.pane).map(|entry| {
        super::ask(
            entry.addr,
            crate::actors::pane::ReadPane {
                mode: ReadMode::Screen,
                lines: 200,
                after_seq: 0,
                strip_ansi: true,
            },
        )
    });
    let read = async move {
        match read {
            Ok(read) => read.await.map(|r| r.text).unwrap_or_default(),
            Err(_) => String::new(),
        }
    };
    Box::pin(read.on_host().then(move |text: String, act, _| {
        let mut lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let keep = lines.len().saturating_sub(SCREEN_TAIL_LINES);
        lines.drain(..keep);
        let reason = json!({"stage": "ready_timeout", "screen_tail": lines.join("\n")});
        settle(&mut act.cx(), &p.task, TaskState::Failed, reason)
    }))
}

/// §3.2–§3.3: the gate, and the task moved by its outcome.
fn submit(cx: &mut Cx<'_>, p: FirstPrompt) -> Step {
    let addr = match cx.registry.pane(&p.pane) {
        Ok(entry) => entry.addr.clone(),
        Err(_) => {
            let reason = json!({"stage": "ready_timeout", "error": "pane missing"});
            return settle(cx, &p.task, TaskState::Failed, reason);
        },
    };
    let baseline = cx.events.projection().pane(&p.pane).and_then(|pane| {
        cx.events
            .projection()
            .progress(&p.pane)
            .map(|pr| pr.baseline(pane))
    });
    let (text, delay, pane) = (p.text.clone(), p.delay, addr.clone());
    let typed = async move {
        // Refused before the paste: `Err(Before)`; after it: `Err(After)`.
        pane.send(SubmitPaste { text })
            .await
            .map_err(Error::from)
            .and_then(|r| r)
            .map_err(Typed::Before)?;
        tokio::time::sleep(delay).await;
        pane.send(SubmitEnter)
            .await
            .map_err(Error::from)
            .and_then(|r| r)
            .map_err(Typed::After)
    };
    Box::pin(typed.on_host().then(move |typed, act, _| -> Step {
        let cx = &mut act.cx();
        match typed {
            Err(Typed::Before(e)) => {
                let reason = json!({"stage": "submit_refused", "error": e.to_string(), "code": e.code()});
                settle(cx, &p.task, TaskState::Failed, reason)
            },
            Err(Typed::After(e)) => {
                // The paste is in, the Enter withheld: a decision took the
                // box. Asked of the pane itself: the projection may not have
                // the decision yet.
                let busy = matches!(e, Error::AgentBusy { .. });
                let asked = async move { addr.send(crate::actors::pane::GetPane).await.ok() };
                Box::pin(asked.on_host().then(move |state, act, _| -> Step {
                    let cx = &mut act.cx();
                    let decision = state
                        .and_then(|s| s.pending_decision.map(|d| d.id))
                        .or_else(|| pending_decision(cx, &p.pane));
                    let reason = match decision {
                        Some(id) => json!({"reason": "decision_required", "decision_id": id}),
                        None if busy => {
                            json!({"reason": "submit_unconfirmed", "stage": "delayed_enter"})
                        },
                        None => {
                            let reason = json!({"stage": "submit_refused", "error": e.to_string(), "code": e.code()});
                            return settle(cx, &p.task, TaskState::Failed, reason);
                        },
                    };
                    settle(cx, &p.task, TaskState::InputRequired, reason)
                }))
            },
            Ok(()) => {
                let gate = activity_gate(cx, SERVER_CONN, p.pane.clone(), addr, baseline, p.stall);
                Box::pin(gate.then(move |reply, act, _| outcome(&mut act.cx(), &p, reply)))
            },
        }
    }))
}

/// Why the typing did not finish.
enum Typed {
    Before(Error),
    After(Error),
}

fn pending_decision(cx: &Cx<'_>, pane: &PaneId) -> Option<String> {
    cx.events
        .projection()
        .pane(pane)
        .and_then(|p| p.pending_decision.as_ref())
        .map(|d| d.id.clone())
}

/// The gate's result as the task's next state (§3.3).
fn outcome(cx: &mut Cx<'_>, p: &FirstPrompt, reply: Reply) -> Step {
    match reply.result {
        Ok(_) => {
            // Taken: working, unless a decision or a finished turn already
            // says it waits for someone.
            let pane = cx.events.projection().pane(&p.pane).cloned();
            let reason = match &pane {
                Some(pane) if pane.pending_decision.is_some() => {
                    let id = pane.pending_decision.as_ref().map(|d| d.id.clone());
                    Some(json!({"reason": "decision_required", "decision_id": id}))
                },
                Some(pane)
                    if pane.lifecycle == Lifecycle::Done
                        && pane_task(cx, &p.pane).is_some_and(|t| t.result.is_none()) =>
                {
                    Some(
                        json!({"reason": "turn_ended_without_report", "last_message": pane.last_message}),
                    )
                },
                _ => None,
            };
            match reason {
                Some(reason) => settle(cx, &p.task, TaskState::InputRequired, reason),
                None => settle(cx, &p.task, TaskState::Working, Value::Null),
            }
        },
        Err(Error::Stalled { .. }) => settle(
            cx,
            &p.task,
            TaskState::InputRequired,
            json!({"reason": "submit_unconfirmed", "stage": "activity_gate"}),
        ),
        // The pane exited meanwhile: its exit fails the task (§6.4).
        Err(Error::PaneExited { .. }) => Box::pin(actix::fut::ready(())),
        Err(e) => {
            let reason =
                json!({"stage": "submit_refused", "error": e.to_string(), "code": e.code()});
            settle(cx, &p.task, TaskState::Failed, reason)
        },
    }
}
