//! Waking a hibernated pane (docs/restore.md#waking-up): `pane.submit`,
//! `pane.input` and an interactive `pane.attach` on a `HIBERNATED` pane
//! resume its exact session through `pane.resume`'s own path, with
//! `pane.woke` in the same batch as `pane.created {resumed: true}`. A prompt
//! or input then waits for the agent to be ready the way a task's first
//! prompt does (idle or done, its screen settled) before it is typed.
//!
//! ```text
//!   HIBERNATED ─ resume (woke_by) ─► LIVE, unknown ─ … ─► idle, settled ─► typed
//! ```

use super::Cx;
use crate::actors::services::{PaneView, ViewPane};
use crate::actors::submit::{Moment, input_box, settled};
use crate::domain::ages::Ages;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{Lifecycle, LiveState, RestoreState};
use std::future::Future;
use std::time::{Duration, Instant};

/// How often the ready wait looks.
const READY_POLL: Duration = Duration::from_millis(20);

/// How long a woken agent may take to reach its prompt.
pub const WAKE_READY_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether the pane is hibernated now (from the projection).
pub(super) fn hibernated(cx: &Cx<'_>, id: &PaneId) -> bool {
    cx.events
        .projection()
        .pane(id)
        .is_some_and(|p| p.restore_state == RestoreState::Hibernated)
}

/// The resume of a hibernated pane, checked now: resolves once its new
/// process runs (or was already started by another wake).
pub(super) fn resume(
    cx: &mut Cx<'_>,
    id: &PaneId,
    by: &'static str,
) -> Result<impl Future<Output = Result<(), Error>> + 'static + use<>, Error> {
    let resumed = super::spawns::resume_pane(cx, &id.into(), Some(by))?;
    Ok(async move { resumed.await.map(drop) })
}

/// The resume, then the wait for the woken agent's prompt: resolves with the
/// pane's view (its baseline and actor, for the prompt's activity gate).
pub(super) fn wake_ready(
    cx: &mut Cx<'_>,
    id: &PaneId,
    by: &'static str,
) -> Result<impl Future<Output = Result<PaneView, Error>> + 'static + use<>, Error> {
    let Some(me) = cx.me.clone() else {
        return Err(Error::Internal("the Supervisor is not running".into()));
    };
    let resumed = resume(cx, id, by)?;
    let view = me.recipient::<ViewPane>();
    let id = id.clone();
    Ok(async move {
        resumed.await?;
        await_ready(view, id, WAKE_READY_TIMEOUT).await
    })
}

/// Waits until the pane is live and ready for a prompt (the first-prompt
/// gate's readiness); `PANE_EXITED` when it exits first, `AGENT_NOT_READY`
/// at the deadline.
pub async fn await_ready(
    view: Recipient<ViewPane>,
    pane: PaneId,
    within: Duration,
) -> Result<PaneView, Error> {
    let began = Instant::now();
    let deadline = began + within;
    let mut ages: Ages<Moment> = Ages::default();
    loop {
        let seen = view
            .send(ViewPane(pane.clone()))
            .await
            .map_err(|_| Error::ShuttingDown)?;
        match &seen.pane {
            None => return Err(Error::NoSuchPane(pane.0.clone())),
            Some(p) if p.live == LiveState::Live && p.lifecycle == Lifecycle::Exited => {
                return Err(Error::PaneExited {
                    pane: pane.0.clone(),
                    written: None,
                });
            },
            Some(p)
                if p.live == LiveState::Live
                    && matches!(p.lifecycle, Lifecycle::Idle | Lifecycle::Done) =>
            {
                let input = input_box(seen.addr.as_ref()).await;
                if settled(p, &mut ages, Instant::now(), input, true) {
                    log::debug!(
                        "wake: pane {pane} ready for its prompt after {} ms ({input:?})",
                        began.elapsed().as_millis()
                    );
                    return Ok(seen);
                }
            },
            Some(p) if p.live != LiveState::Live && p.restore_state != RestoreState::Hibernated => {
                return Err(Error::PaneExited {
                    pane: pane.0.clone(),
                    written: None,
                });
            },
            Some(_) => {},
        }
        if Instant::now() >= deadline {
            return Err(Error::AgentNotReady(format!(
                "pane {pane} was woken but its agent did not reach its prompt within {} s",
                within.as_secs()
            )));
        }
        actix_rt::time::sleep(READY_POLL).await;
    }
}
