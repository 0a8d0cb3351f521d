//! A task's first prompt (docs/tasks.md#the-first-prompt), typed by its Task
//! actor once `task.start` has answered: it survives the caller's
//! disconnect and stops as soon as the task leaves `pending`. Readiness is
//! read from the projection through [`ViewPane`] (the pane, its wait
//! baseline and its actor in one turn); the delivery is the one
//! `pane.submit` makes (`actors/submit.rs`).
//!
//! ```text
//!   every 50 ms: task not pending → stop · pane gone/exited → failed
//!                idle or done, settled → submit · deadline → failed {screen_tail}
//!   submit: baseline, paste, delay, re-checked Enter, activity gate
//!           (one Enter retry) → working | input_required | failed
//! ```

use super::TaskActor;
use crate::actors::pane::{GetPane, InputBoxNow, ReadPane};
use crate::actors::services::{PaneView, ViewPane};
use crate::actors::submit::{
    Gate, Moment, SERVER_CONN, Typed, activity_gate, input_box, settled, type_prompt,
};
use crate::domain::ages::Ages;
use crate::error::Error;
use actix::prelude::*;
use serde_json::{Value, json};
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{AgentKind, Lifecycle, LiveState, Pane, ReadMode};
use signaltty_protocol::state::PaneSubmitResult;
use signaltty_protocol::task::TaskState;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// How often the ready wait looks.
const READY_POLL: Duration = Duration::from_millis(50);

/// How many screen lines a ready timeout keeps.
const SCREEN_TAIL_LINES: usize = 20;

/// What the first prompt needs.
#[derive(Debug, Clone)]
pub(super) struct FirstPrompt {
    /// The composed prompt.
    pub(super) text: String,
    /// How long the worker may take to be ready.
    pub(super) ready_timeout: Duration,
    /// The activity gate.
    pub(super) stall: Duration,
    /// Paste → Enter.
    pub(super) delay: Duration,
}

/// A first prompt under way.
#[derive(Debug, Clone)]
struct Run {
    pane: PaneId,
    p: FirstPrompt,
    deadline: Instant,
    /// The task says already what it waits for.
    explained: bool,
    /// How long the pane has been quiet, and in its lifecycle.
    ages: Ages<Moment>,
}

type Step = Pin<Box<dyn ActorFuture<TaskActor, Output = ()>>>;

fn stop() -> Step {
    Box::pin(actix::fut::ready(()))
}

/// Where the ready wait is.
enum Ready {
    Go,
    Fail(Value),
    Again,
}

fn ready_state(view: &PaneView, input: InputBoxNow, ages: &mut Ages<Moment>) -> Ready {
    match &view.pane {
        None => Ready::Fail(json!({"stage": "ready_timeout", "error": "pane missing"})),
        Some(pane) if pane.live != LiveState::Live || pane.lifecycle == Lifecycle::Exited => {
            Ready::Fail(json!({"stage": "ready_timeout", "error": "pane exited"}))
        },
        Some(pane)
            if matches!(pane.lifecycle, Lifecycle::Idle | Lifecycle::Done)
                && settled(pane, ages, Instant::now(), input, false) =>
        {
            Ready::Go
        },
        Some(_) => Ready::Again,
    }
}

/// What a `pending` task says it waits for when its worker is a program
/// signaltty knows nothing about (no adapter: no hook, no built-in screen
/// rule), whose lifecycle is still `unknown`: such a worker is typed into
/// only if a screen rule of the user's reads it as idle, so without one the
/// task fails at its deadline, and a person reading the task should learn
/// that now rather than then.
fn never_ready(pane: &Pane) -> Option<Value> {
    if pane.agent.kind != AgentKind::Generic || pane.lifecycle != Lifecycle::Unknown {
        return None;
    }
    let program = pane.argv.first().map_or("the worker", String::as_str);
    Some(json!({
        "stage": "ready_wait",
        "waiting_for": "idle",
        "lifecycle": "unknown",
        "hint": format!(
            "{program} is not an agent signaltty knows: nothing tells when it is ready, \
             so the first prompt is typed only once a screen rule reads it as idle, and \
             the task fails after ready_timeout_s otherwise. Start a known agent \
             (--agent), add a screen rule for it, or have the worker run \
             `signaltty task report` itself"
        ),
    }))
}

/// How the delivery went.
enum Delivered {
    /// Refused before the paste.
    Refused(Error),
    /// The paste is in, the Enter withheld; the decision that took the box,
    /// if one did.
    Withheld {
        error: Error,
        decision: Option<String>,
    },
    /// The gate's result, and the pane after it.
    Gated(Result<PaneSubmitResult, Error>, Option<Box<Pane>>),
}

impl TaskActor {
    /// Starts the first prompt into `pane` (the task's worker).
    pub(super) fn begin_prompt(&mut self, p: FirstPrompt, pane: PaneId, ctx: &mut Context<Self>) {
        let deadline = Instant::now() + p.ready_timeout;
        ctx.spawn(self.wait_ready(Run {
            pane,
            p,
            deadline,
            explained: false,
            ages: Ages::default(),
        }));
    }

    fn wait_ready(&self, run: Run) -> Step {
        let view = self.kit.services.view_pane.clone();
        let pane = run.pane.clone();
        let looked = async move {
            actix_rt::time::sleep(READY_POLL).await;
            let view = view.send(ViewPane(pane)).await.ok()?;
            let input = input_box(view.addr.as_ref()).await;
            Some((view, input))
        };
        Box::pin(
            actix::fut::wrap_future(looked)
                .then(move |view, act: &mut TaskActor, _| act.looked(run, view)),
        )
    }

    fn looked(&mut self, run: Run, view: Option<(PaneView, InputBoxNow)>) -> Step {
        // A report, a cancel, a discard: the prompt is no longer wanted.
        let (true, Some((view, input))) = (self.pending(), view) else {
            return stop();
        };
        let mut run = run;
        match ready_state(&view, input, &mut run.ages) {
            Ready::Fail(reason) => self.settle(TaskState::Failed, reason),
            Ready::Go => self.submit(run, view),
            Ready::Again if Instant::now() < run.deadline => {
                if !run.explained
                    && let Some(reason) = view.pane.as_ref().and_then(never_ready)
                {
                    run.explained = true;
                    self.explain(reason);
                }
                self.wait_ready(run)
            },
            Ready::Again => self.timed_out(view),
        }
    }

    /// Moves the task, unless it has moved on meanwhile (a report, a cancel).
    fn settle(&mut self, to: TaskState, reason: Value) -> Step {
        let reason = (!reason.is_null()).then_some(reason);
        let moved = self.transition(to, reason);
        let task = self.id.clone();
        Box::pin(actix::fut::wrap_future(async move {
            if let Err(e) = moved.await {
                log::debug!("task {task}: the first prompt's outcome was not recorded: {e}");
            }
        }))
    }

    /// The deadline passed: failed, with the screen's last lines.
    fn timed_out(&mut self, view: PaneView) -> Step {
        let hint = view
            .pane
            .as_ref()
            .and_then(never_ready)
            .map(|r| r["hint"].clone());
        let read = async move {
            let Some(addr) = view.addr else {
                return String::new();
            };
            let read = addr.send(ReadPane {
                mode: ReadMode::Screen,
                lines: 200,
                after_seq: 0,
                strip_ansi: true,
            });
            match read.await {
                Ok(Ok(r)) => r.text,
                _ => String::new(),
            }
        };
        Box::pin(
            actix::fut::wrap_future(read).then(move |text: String, act: &mut TaskActor, _| {
                let mut lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                let keep = lines.len().saturating_sub(SCREEN_TAIL_LINES);
                lines.drain(..keep);
                let mut reason = json!({"stage": "ready_timeout", "screen_tail": lines.join("\n")});
                if let Some(hint) = hint {
                    reason["hint"] = hint;
                }
                act.settle(TaskState::Failed, reason)
            }),
        )
    }

    /// docs/tasks.md#delivering-the-prompt: the baseline (read with the
    /// readiness), the typing, the gate; then the task moved by the outcome.
    fn submit(&mut self, run: Run, view: PaneView) -> Step {
        let Some(addr) = view.addr else {
            let reason = json!({"stage": "ready_timeout", "error": "pane missing"});
            return self.settle(TaskState::Failed, reason);
        };
        let services = self.kit.services.clone();
        let gate = Gate {
            conn: SERVER_CONN,
            pane: run.pane.clone(),
            addr: addr.clone(),
            baseline: view.baseline,
            stall: run.p.stall,
            waits: services.waits.clone(),
            view: services.view_pane.clone(),
        };
        let pane = run.pane;
        let delivered = async move {
            match type_prompt(&addr, run.p.text, run.p.delay, Error::from).await {
                Err(Typed::Before(e)) => Delivered::Refused(e),
                Err(Typed::After(error)) => {
                    // A decision took the box. Asked of the pane itself: the
                    // projection may not have the decision yet.
                    let mut decision = addr
                        .send(GetPane)
                        .await
                        .ok()
                        .and_then(|s| s.pending_decision.map(|d| d.id));
                    if decision.is_none() {
                        decision = pane_now(&services, &pane)
                            .await
                            .and_then(|p| p.pending_decision.map(|d| d.id));
                    }
                    Delivered::Withheld { error, decision }
                },
                Ok(()) => {
                    let gated = activity_gate(gate).await;
                    let now = match &gated {
                        Ok(_) => pane_now(&services, &pane).await.map(Box::new),
                        Err(_) => None,
                    };
                    Delivered::Gated(gated, now)
                },
            }
        };
        Box::pin(
            actix::fut::wrap_future(delivered)
                .then(|delivered, act: &mut TaskActor, _| act.delivered(delivered)),
        )
    }

    /// docs/tasks.md#what-the-delivery-leads-to.
    fn delivered(&mut self, delivered: Delivered) -> Step {
        let refused = |e: &Error| json!({"stage": "submit_refused", "error": e.to_string(), "code": e.code()});
        let (to, reason) = match delivered {
            Delivered::Refused(e) => (TaskState::Failed, refused(&e)),
            Delivered::Withheld {
                decision: Some(id), ..
            } => (
                TaskState::InputRequired,
                json!({"reason": "decision_required", "decision_id": id}),
            ),
            Delivered::Withheld {
                error: Error::AgentBusy { .. },
                decision: None,
            } => (
                TaskState::InputRequired,
                json!({"reason": "submit_unconfirmed", "stage": "delayed_enter"}),
            ),
            Delivered::Withheld { error, .. } => (TaskState::Failed, refused(&error)),
            // Taken: working, unless a decision or a finished turn already
            // says it waits for someone.
            Delivered::Gated(Ok(_), pane) => match pane {
                Some(pane) if pane.pending_decision.is_some() => {
                    let id = pane.pending_decision.as_ref().map(|d| d.id.clone());
                    (
                        TaskState::InputRequired,
                        json!({"reason": "decision_required", "decision_id": id}),
                    )
                },
                Some(pane)
                    if pane.lifecycle == Lifecycle::Done
                        && self.task().is_ok_and(|t| t.result.is_none()) =>
                {
                    (
                        TaskState::InputRequired,
                        json!({"reason": "turn_ended_without_report", "last_message": pane.last_message}),
                    )
                },
                _ => (TaskState::Working, Value::Null),
            },
            Delivered::Gated(Err(Error::Stalled { .. }), _) => (
                TaskState::InputRequired,
                json!({"reason": "submit_unconfirmed", "stage": "activity_gate"}),
            ),
            // The pane exited meanwhile: its exit fails the task
            // (docs/tasks.md#when-the-worker-dies).
            Delivered::Gated(Err(Error::PaneExited { .. }), _) => return stop(),
            Delivered::Gated(Err(e), _) => (TaskState::Failed, refused(&e)),
        };
        self.settle(to, reason)
    }
}

/// The pane as the projection has it now.
async fn pane_now(services: &crate::actors::services::Services, pane: &PaneId) -> Option<Pane> {
    services
        .view_pane
        .send(ViewPane(pane.clone()))
        .await
        .ok()
        .and_then(|v| v.pane)
}
