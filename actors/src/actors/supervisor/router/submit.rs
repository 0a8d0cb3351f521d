//! `pane.submit` (docs/methods.md#panesubmit,
//! docs/decisions.md#prompts-that-cannot-answer-a-question): validate,
//! capture the wait baseline, then the typing and the activity gate that a
//! task's first prompt shares (`actors/submit.rs`); an accepted follow-up
//! resumes the worker's task (docs/tasks.md#picking-up-again). A hibernated
//! pane is woken first (`wake.rs`).

use super::{Cx, Routed, answer, fail};
use crate::actors::submit::{Gate, activity_gate, type_prompt};
use crate::actors::task::FollowUp;
use crate::error::Error;
use crate::ids::ConnId;
use signaltty_protocol::state::{PaneSubmitParams, PaneSubmitResult, WaitBaseline};
use signaltty_protocol::task::TaskState;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// The largest prompt, in bytes.
pub const MAX_TEXT_BYTES: usize = 32 * 1024;
/// Default pause between the paste and Enter.
pub const DEFAULT_DELAY_MS: u64 = 300;
/// Default activity-gate budget.
pub const DEFAULT_STALL_S: u64 = 5;

/// Step 1: the checks made before anything is written.
pub(super) fn check(p: &PaneSubmitParams) -> Result<(Duration, Duration), Error> {
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

/// A submit under way: once the prompt is taken, the gate's result and the
/// wait baseline taken before the paste.
pub(crate) type Submitting =
    Pin<Box<dyn Future<Output = Result<(PaneSubmitResult, Option<WaitBaseline>), Error>>>>;

/// `pane.submit`.
pub fn submit(cx: &mut Cx<'_>, conn: ConnId, p: PaneSubmitParams) -> Routed {
    match submit_typed(cx, conn, p) {
        Ok(submitting) => answer(async move { submitting.await.map(|(taken, _)| taken) }),
        Err(e) => fail(Err(e)),
    }
}

/// `pane.submit`, typed: what `pane.ask` submits through
/// (docs/ask.md#how-it-works).
pub(crate) fn submit_typed(
    cx: &mut Cx<'_>,
    conn: ConnId,
    p: PaneSubmitParams,
) -> Result<Submitting, Error> {
    let (delay, stall) = check(&p)?;
    let (id, addr) = {
        let entry = cx.registry.pane(&p.pane_id)?;
        (entry.id.clone(), entry.addr.clone())
    };
    let task = cx.events.projection().task_of_pane(&id);
    // A pending task's worker gets its first prompt from the server
    // (docs/tasks.md#the-first-prompt); a prompt typed over it would race it.
    if task.is_some_and(|t| t.state == TaskState::Pending) {
        return Err(Error::AgentNotReady(
            "the pane's task is pending: the server is giving the worker its first prompt".into(),
        ));
    }
    let task = task.and_then(|t| cx.tasks.get(&t.id).cloned());
    // A hibernated agent is woken first and typed into once ready
    // (docs/restore.md#waking-up).
    let woken = if super::wake::hibernated(cx, &id) {
        Some(super::wake::wake_ready(cx, &id, "submit")?)
    } else {
        None
    };
    let Some(me) = cx.me.clone() else {
        return Err(Error::Internal("the Supervisor is not running".into()));
    };
    // Step 3: the baseline, before the paste.
    let baseline = cx.events.projection().pane(&id).and_then(|pane| {
        cx.events
            .projection()
            .progress(&id)
            .map(|pr| pr.baseline(pane))
    });
    let gone = id.0.clone();
    let mut gate = Gate {
        conn,
        pane: id,
        addr: addr.clone(),
        baseline,
        stall,
        waits: me.clone().recipient(),
        view: me.recipient(),
    };
    Ok(Box::pin(async move {
        if let Some(woken) = woken {
            // The baseline of the new process, taken once it is ready.
            gate.baseline = woken.await?.baseline;
        }
        type_prompt(&addr, p.text, delay, |_| Error::NoSuchPane(gone.clone()))
            .await
            .map_err(|typed| typed.into_error())?;
        let gate_baseline = gate.baseline.clone();
        let taken = activity_gate(gate).await?;
        // Accepted: a worker's task that needs input works again, then the
        // reply goes out.
        if let Some(task) = task {
            let _ = task.send(FollowUp).await;
        }
        Ok((taken, gate_baseline))
    }))
}
