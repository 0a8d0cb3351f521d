//! `pane.submit` (spec/ipc.md §8.5, lifecycle.md §8.5): validate, capture the
//! wait baseline, paste through the pane's gate, pause, send the re-checked
//! Enter, then hold the activity gate until the agent shows it took the prompt.

use super::Reply;
use super::wait::register;
use super::{Cx, OnHost, Routed, fail};
use crate::actors::pane::{Pane, SubmitEnter, SubmitPaste, SubmitRetry};
use crate::actors::supervisor::Supervisor;
use crate::domain::state::Outcome;
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::Lifecycle;
use signaltty_protocol::state::{PaneSubmitParams, PaneSubmitResult, WaitBaseline, WaitResult};
use signaltty_protocol::task::{Task, TaskState};
use std::time::{Duration, Instant};

/// The largest prompt, in bytes.
pub const MAX_TEXT_BYTES: usize = 32 * 1024;
/// Default pause between the paste and Enter.
pub const DEFAULT_DELAY_MS: u64 = 300;
/// Default activity-gate budget.
pub const DEFAULT_STALL_S: u64 = 5;

/// Step 1: the checks made before anything is written.
fn check(p: &PaneSubmitParams) -> Result<(Duration, Duration), Error> {
    if p.text.is_empty() || p.text.len() > MAX_TEXT_BYTES {
        return Err(Error::BadParams(format!(
            "text must be 1 to {MAX_TEXT_BYTES} bytes, not {}",
            p.text.len()
        )));
    }
    if p.text.contains("\x1b[200~") || p.text.contains("\x1b[201~") {
        return Err(Error::BadParams(
            "text contains a bracketed-paste marker (ESC[200~ or ESC[201~): refused whole".into(),
        ));
    }
    let delay = Duration::from_millis(p.submit_delay_ms.unwrap_or(DEFAULT_DELAY_MS));
    let stall = Duration::from_secs(p.stall_timeout_s.unwrap_or(DEFAULT_STALL_S));
    let now = Instant::now();
    if now.checked_add(stall).is_none() || now.checked_add(delay).is_none() {
        return Err(Error::BadParams(
            "stall_timeout_s or submit_delay_ms is too large".into(),
        ));
    }
    Ok((delay, stall))
}

/// The task whose worker `pane` is.
pub(super) fn pane_task<'c>(cx: &'c Cx<'_>, pane: &PaneId) -> Option<&'c Task> {
    cx.events.projection().task_of_pane(pane)
}

/// `pane.submit`.
pub fn submit(cx: &mut Cx<'_>, conn: ConnId, p: PaneSubmitParams) -> Routed {
    let (delay, stall) = match check(&p) {
        Ok(checked) => checked,
        Err(e) => return fail(Err(e)),
    };
    let (id, addr) = match cx.registry.pane(&p.pane_id) {
        Ok(entry) => (entry.id.clone(), entry.addr.clone()),
        Err(e) => return fail(Err(e)),
    };
    // A pending task's worker gets its first prompt from the server (tasks.md
    // §3); a prompt typed over it would race it.
    if pane_task(cx, &id).is_some_and(|t| t.state == TaskState::Pending) {
        return fail(Err(Error::AgentNotReady(
            "the pane's task is pending: the server is giving the worker its first prompt".into(),
        )));
    }
    // Step 3: the baseline, before the paste.
    let baseline = cx.events.projection().pane(&id).and_then(|pane| {
        cx.events
            .projection()
            .progress(&id)
            .map(|pr| pr.baseline(pane))
    });
    let gone = id.0.clone();
    let pane = addr.clone();
    let typed = async move {
        let lost = |_| Error::NoSuchPane(gone.clone());
        pane.send(SubmitPaste { text: p.text })
            .await
            .map_err(lost)??;
        tokio::time::sleep(delay).await;
        pane.send(SubmitEnter).await.map_err(lost)??;
        Ok::<(), Error>(())
    };
    Box::pin(typed.on_host().then(move |typed, act, _| match typed {
        Err(e) => fail(Err(e)),
        Ok(()) => {
            let gated = activity_gate(&mut act.cx(), conn, id.clone(), addr, baseline, stall);
            Box::pin(
                gated.then(move |reply, act: &mut Supervisor, _| {
                    resume_task(&mut act.cx(), &id, reply)
                }),
            )
        },
    }))
}

/// An accepted follow-up prompt resumes the worker's task from
/// `input_required` (tasks.md §3.4, ipc.md §8.5), then the reply goes out.
fn resume_task(cx: &mut Cx<'_>, pane: &PaneId, reply: Reply) -> Routed {
    let actor = pane_task(cx, pane)
        .filter(|t| t.state == TaskState::InputRequired && reply.result.is_ok())
        .and_then(|t| cx.tasks.get(&t.id).cloned());
    let Some(actor) = actor else {
        return Box::pin(actix::fut::ready(reply));
    };
    let resumed = async move {
        let moved = actor
            .send(crate::actors::task::Transition {
                to: TaskState::Working,
                reason: None,
            })
            .await;
        if let Ok(Err(e)) | Err(e) = moved.map_err(Error::from) {
            log::debug!("a follow-up prompt did not resume its task: {e}");
        }
    };
    Box::pin(resumed.on_host().map(move |(), _, _| reply))
}

/// The outcomes that show the prompt was taken (or that it never can be).
fn taken() -> Vec<(String, Outcome)> {
    [Lifecycle::Working, Lifecycle::Blocked, Lifecycle::Exited]
        .into_iter()
        .map(|l| (l.as_str().to_owned(), Outcome::Lifecycle(l)))
        .collect()
}

/// Step 7: a `working` or `blocked` transition newer than the baseline, with
/// one Enter retry halfway into an untouched input box.
pub(super) fn activity_gate(
    cx: &mut Cx<'_>,
    conn: ConnId,
    id: PaneId,
    addr: Addr<Pane>,
    baseline: Option<WaitBaseline>,
    stall: Duration,
) -> Routed {
    let mut first = register(cx, conn, id.clone(), taken(), baseline);
    let half = stall / 2;
    let waited = async move {
        if let Ok(settled) = tokio::time::timeout(half, &mut first).await {
            return Some(settled);
        }
        let _ = addr.send(SubmitRetry).await;
        tokio::time::timeout(stall - half, first).await.ok()
    };
    Box::pin(waited.on_host().map(move |settled, act, _| {
        let result = match settled {
            None => Err(stalled()),
            Some(Err(_)) => Err(Error::ShuttingDown),
            // A new agent session is activity too: judge the state now.
            Some(Ok(Err(Error::IdentityChanged(_)))) => {
                match act.cx().events.projection().pane(&id) {
                    Some(p) if matches!(p.lifecycle, Lifecycle::Working | Lifecycle::Blocked) => {
                        Ok(WaitResult {
                            satisfied: true,
                            outcome: p.lifecycle.as_str().to_owned(),
                            transition_seq: 0,
                            lifecycle: p.lifecycle,
                            attention: p.attention,
                        })
                    },
                    Some(_) => Err(stalled()),
                    None => Err(Error::NoSuchPane(id.0.clone())),
                }
            },
            Some(Ok(result)) => result,
        };
        to_reply(&id, result)
    }))
}

fn stalled() -> Error {
    Error::Stalled {
        what: "no working or blocked transition after Enter".into(),
        stage: "activity_gate",
    }
}

fn to_reply(id: &PaneId, result: Result<WaitResult, Error>) -> Reply {
    Reply::of(result.and_then(|w| {
        if w.outcome == Lifecycle::Exited.as_str() {
            return Err(Error::PaneExited {
                pane: id.0.clone(),
                written: None,
            });
        }
        Ok(PaneSubmitResult {
            submitted: true,
            outcome: w.outcome,
            transition_seq: w.transition_seq,
            lifecycle: w.lifecycle,
            attention: w.attention,
        })
    }))
}
