//! `wait` (spec/ipc.md §8.8, lifecycle.md §8): checked on arrival, then after
//! every batch of published events until it is satisfied, fails, times out, or
//! its connection goes away. The Supervisor holds the pending waits; the checks
//! read the projection, so a baseline from `pane.get` and the transitions are
//! numbered by the same seqs.

use super::{Routed, ready};
use crate::error::Error;
use crate::state::progress::{Outcome, Satisfied, WaitError, evaluate};
use crate::supervisor::{ConnId, Reply, Supervisor};
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::state::{WaitBaseline, WaitParams, WaitResult};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// A wait's default timeout, in seconds.
pub const DEFAULT_TIMEOUT_S: u64 = 3600;

/// What a wait waits for.
struct Wanted {
    pane: PaneId,
    until: Vec<(String, Outcome)>,
    after: Option<WaitBaseline>,
}

/// A wait the Supervisor checks after every published batch.
pub struct PendingWait {
    /// The connection it belongs to: its going away cancels the wait.
    pub conn: ConnId,
    wanted: Wanted,
    done: oneshot::Sender<Result<WaitResult, Error>>,
}

/// `wait`.
pub fn wait(sup: &mut Supervisor, conn: ConnId, p: WaitParams) -> Routed {
    let (wanted, timeout) = match prepare(sup, p) {
        Ok(prepared) => prepared,
        Err(e) => return ready::<WaitResult>(Err(e)),
    };
    if let Some(result) = check(sup, &wanted) {
        return ready(result);
    }
    let (done, answered) = oneshot::channel();
    sup.waits.push(PendingWait { conn, wanted, done });
    Box::pin(
        async move {
            match tokio::time::timeout(timeout, answered).await {
                Ok(Ok(result)) => result,
                // The Supervisor dropped the wait: it is stopping.
                Ok(Err(_)) => Err(Error::ShuttingDown),
                Err(_) => Err(Error::Timeout {
                    what: "waiting for the pane's state".into(),
                    written: None,
                }),
            }
        }
        .into_actor(sup)
        .map(|result, _, _| Reply::of(result)),
    )
}

/// Waits for one of `until` on `pane` after `after` (or now, without a
/// baseline), checked at once and after every published batch; the receiver
/// gets the answer. Dropping the receiver abandons the wait.
pub fn register(
    sup: &mut Supervisor,
    conn: ConnId,
    pane: PaneId,
    until: Vec<(String, Outcome)>,
    after: Option<WaitBaseline>,
) -> oneshot::Receiver<Result<WaitResult, Error>> {
    let wanted = Wanted { pane, until, after };
    let (done, answered) = oneshot::channel();
    match check(sup, &wanted) {
        Some(result) => {
            let _ = done.send(result);
        },
        None => sup.waits.push(PendingWait { conn, wanted, done }),
    }
    answered
}

/// Checks every pending wait against the projection, answering those that are
/// settled. Called after each batch of published events.
pub fn check_pending(sup: &mut Supervisor) {
    if sup.waits.is_empty() {
        return;
    }
    for pending in std::mem::take(&mut sup.waits) {
        if pending.done.is_closed() {
            // Timed out or its connection went away.
            continue;
        }
        match check(sup, &pending.wanted) {
            Some(result) => {
                let _ = pending.done.send(result);
            },
            None => sup.waits.push(pending),
        }
    }
}

/// The up-front checks of spec/ipc.md `wait`: outcomes, pane, baseline, timeout.
fn prepare(sup: &Supervisor, p: WaitParams) -> Result<(Wanted, Duration), Error> {
    let names = p.until.outcomes();
    if names.is_empty() {
        return Err(Error::BadParams(
            "until must name at least one outcome".into(),
        ));
    }
    let until = names
        .into_iter()
        .map(|name| match Outcome::parse(&name) {
            Some(outcome) => Ok((name, outcome)),
            None => Err(Error::BadParams(format!(
                "until: unknown outcome {name:?} (a lifecycle, an attention, seen, attention_cleared or exited)"
            ))),
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let timeout = Duration::from_secs(p.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S));
    if Instant::now().checked_add(timeout).is_none() {
        return Err(Error::BadParams("timeout_s is too large".into()));
    }
    let pane = sup.resolve_pane_ref(&p.pane_id)?;
    if let Some(after) = &p.after {
        if after.pane_id != pane {
            return Err(Error::BadParams(format!(
                "after.pane_id {} is not the pane waited on ({pane})",
                after.pane_id
            )));
        }
        if after.process_instance.is_empty() {
            return Err(Error::BadParams("after.process_instance is empty".into()));
        }
    }
    Ok((
        Wanted {
            pane,
            until,
            after: p.after,
        },
        timeout,
    ))
}

/// The answer to a wait now, or `None` while it has to wait.
fn check(sup: &Supervisor, wanted: &Wanted) -> Option<Result<WaitResult, Error>> {
    let pane = sup.projection.pane(&wanted.pane);
    let progress = sup.projection.progress(&wanted.pane);
    match evaluate(pane, progress, &wanted.until, wanted.after.as_ref()) {
        Ok(None) => None,
        Ok(Some(Satisfied {
            outcome,
            transition_seq,
        })) => pane.map(|pane| {
            Ok(WaitResult {
                satisfied: true,
                outcome,
                transition_seq,
                lifecycle: pane.lifecycle,
                attention: pane.attention,
            })
        }),
        Err(WaitError::NoSuchPane) => Some(Err(Error::NoSuchPane(wanted.pane.0.clone()))),
        Err(WaitError::IdentityChanged(why)) => Some(Err(Error::IdentityChanged(why.into()))),
        Err(WaitError::Ahead) => Some(Err(Error::BadParams(
            "the baseline is ahead of the pane: pass the wait_baseline of pane.get unchanged"
                .into(),
        ))),
    }
}
