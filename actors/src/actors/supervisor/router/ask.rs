//! `pane.ask` (docs/ask.md, docs/methods.md#paneask): a busy pane waited for
//! (or refused with `only_if_idle`), the prompt submitted through
//! `pane.submit`'s gate, the turn's end waited for after the baseline taken
//! before the paste, then the answer read. Every step after the first
//! asks the Supervisor again by typed message; none blocks it.
//!
//! ```text
//!   check ─ busy? ─(wait idle|done|failed|exited)─ SubmitFor ─ taken:
//!     blocked ─────────────────────────────────────────────┐
//!     working ─ wait done|blocked|failed|idle|exited after ─┴─ ViewPane ─ ReadPane(screen) ─ answer
//! ```

use super::{Cx, Routed, answer, fail};
use crate::actors::pane::ReadPane;
use crate::actors::services::{EventAt, RegisterWait, SubmitFor, ViewPane};
use crate::actors::supervisor::Supervisor;
use crate::domain::ask;
use crate::domain::state::progress::Outcome;
use crate::domain::waits::Wanted;
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use signaltty_protocol::pane::{
    AskOutcome, DEFAULT_ASK_TIMEOUT_MS, Lifecycle, LiveState, PaneAskParams, PaneAskResult,
    ReadMode,
};
use signaltty_protocol::state::{PaneSubmitParams, WaitBaseline};
use signaltty_protocol::{PaneId, PaneRef, Seq};
use std::time::{Duration, Instant};

/// The outcomes that end an asked turn.
const TURN_ENDS: [Lifecycle; 5] = [
    Lifecycle::Done,
    Lifecycle::Blocked,
    Lifecycle::Failed,
    Lifecycle::Idle,
    Lifecycle::Exited,
];

/// The outcomes that end a busy pane's turn before the prompt goes in.
const FREE: [Lifecycle; 4] = [
    Lifecycle::Idle,
    Lifecycle::Done,
    Lifecycle::Failed,
    Lifecycle::Exited,
];

/// `pane.ask`.
pub fn ask(cx: &mut Cx<'_>, conn: ConnId, p: PaneAskParams) -> Routed {
    match prepare(cx, &p) {
        Ok((id, busy, timeout, me)) => answer(run(me, conn, id, p, busy, Instant::now() + timeout)),
        Err(e) => fail(Err(e)),
    }
}

type Prepared = (PaneId, bool, Duration, Addr<Supervisor>);

/// The checks made before anything is written: the prompt, the pane, a
/// busy pane under `only_if_idle`, the timeout.
fn prepare(cx: &Cx<'_>, p: &PaneAskParams) -> Result<Prepared, Error> {
    super::submit::check(&submit_params(&p.pane_id, &p.text))?;
    let timeout = Duration::from_millis(p.timeout_ms.unwrap_or(DEFAULT_ASK_TIMEOUT_MS));
    if Instant::now().checked_add(timeout).is_none() {
        return Err(Error::BadParams("timeout_ms is too large".into()));
    }
    let id = cx.registry.resolve(&p.pane_id)?;
    let pane = cx
        .events
        .projection()
        .pane(&id)
        .ok_or_else(|| Error::NoSuchPane(id.0.clone()))?;
    // A hibernated agent is woken by the submit (docs/restore.md#waking-up).
    if pane.live != LiveState::Live && !super::wake::hibernated(cx, &id) {
        return Err(Error::PaneExited {
            pane: id.0.clone(),
            written: None,
        });
    }
    let busy = matches!(pane.lifecycle, Lifecycle::Working | Lifecycle::Blocked);
    if busy && p.only_if_idle == Some(true) {
        return Err(Error::AgentBusy {
            why: format!(
                "pane {id} is {}: only_if_idle refuses a busy pane",
                pane.lifecycle.as_str()
            ),
            details: Some(serde_json::json!({"lifecycle": pane.lifecycle})),
        });
    }
    let me = cx
        .me
        .clone()
        .ok_or_else(|| Error::Internal("the Supervisor is not running".into()))?;
    Ok((id, busy, timeout, me))
}

fn submit_params(pane: &PaneRef, text: &str) -> PaneSubmitParams {
    PaneSubmitParams {
        pane_id: pane.clone(),
        text: text.to_owned(),
        submit_delay_ms: None,
        stall_timeout_s: None,
    }
}

/// How a wait of the ask ended.
enum Waited {
    /// At the transition numbered this.
    Met(u64),
    OutOfTime,
}

/// Waits for one of `until` on `pane` (after `after`, if given) until
/// `deadline`.
async fn wait(
    me: &Addr<Supervisor>,
    conn: ConnId,
    pane: &PaneId,
    until: &[Lifecycle],
    after: Option<WaitBaseline>,
    deadline: Instant,
) -> Result<Waited, Error> {
    let wanted = Wanted {
        pane: pane.clone(),
        until: until
            .iter()
            .map(|l| (l.as_str().to_owned(), Outcome::Lifecycle(*l)))
            .collect(),
        after,
    };
    let answered = me.send(RegisterWait { conn, wanted }).await?;
    match tokio::time::timeout_at(deadline.into(), answered).await {
        Ok(Ok(result)) => result.map(|r| Waited::Met(r.transition_seq)),
        Ok(Err(_)) => Err(Error::ShuttingDown),
        Err(_) => Ok(Waited::OutOfTime),
    }
}

async fn run(
    me: Addr<Supervisor>,
    conn: ConnId,
    id: PaneId,
    p: PaneAskParams,
    busy: bool,
    deadline: Instant,
) -> Result<PaneAskResult, Error> {
    if busy && let Waited::OutOfTime = wait(&me, conn, &id, &FREE, None, deadline).await? {
        return view(&me, &id, &p.text, None, false).await;
    }
    let (taken, baseline) = me
        .send(SubmitFor {
            conn,
            params: submit_params(&PaneRef(id.0.clone()), &p.text),
        })
        .await??;
    let mut ended_at = None;
    if taken.outcome != Lifecycle::Blocked.as_str()
        && let Waited::Met(seq) = wait(&me, conn, &id, &TURN_ENDS, baseline, deadline).await?
    {
        ended_at = Some(Seq(seq));
    }
    view(&me, &id, &p.text, ended_at, true).await
}

/// The result, from the pane as it is now: its outcome, and the answer of a
/// finished turn.
async fn view(
    me: &Addr<Supervisor>,
    id: &PaneId,
    prompt: &str,
    ended_at: Option<Seq>,
    submitted: bool,
) -> Result<PaneAskResult, Error> {
    let view = me.send(ViewPane(id.clone())).await?;
    let pane = view.pane.ok_or_else(|| Error::NoSuchPane(id.0.clone()))?;
    let outcome = if submitted {
        ask::outcome(pane.lifecycle)
    } else {
        AskOutcome::Timeout
    };
    let (mut answer, mut source) = (None, None);
    if outcome == AskOutcome::Done {
        let ended_by = match ended_at {
            Some(seq) => me.send(EventAt(seq)).await.ok().flatten(),
            None => None,
        };
        if let Some(text) = ended_by.as_ref().and_then(ask::reported) {
            (answer, source) = (Some(text), Some("hook".to_owned()));
        } else if let Some(addr) = &view.addr {
            let screen = addr
                .send(ReadPane {
                    mode: ReadMode::Screen,
                    lines: 5000,
                    after_seq: 0,
                    strip_ansi: true,
                })
                .await;
            if let Ok(Ok(read)) = screen
                && let Some(text) = ask::on_screen(&read.text, prompt)
            {
                (answer, source) = (Some(text), Some("screen".to_owned()));
            }
        }
    }
    Ok(PaneAskResult {
        outcome,
        pane_id: pane.id.clone(),
        submitted,
        answer,
        answer_source: source,
        last_message: pane.last_message.clone(),
        decision: (outcome == AskOutcome::Blocked)
            .then(|| pane.pending_decision.clone().map(|d| *d))
            .flatten(),
        lifecycle: pane.lifecycle,
        attention: pane.attention,
    })
}
