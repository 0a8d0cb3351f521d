//! Pending `wait`s (docs/methods.md#wait, docs/states.md#waiting-on-states):
//! each is checked when it arrives, then after every batch of published events,
//! until it is satisfied, fails, times out or its connection goes away. The
//! Sequencer owns the [`Waits`] and checks them once a batch is applied to the
//! projection, so a baseline read with `pane.get` and the transitions it waits
//! for are numbered by the same seqs.

use crate::domain::projection::Projection;
use crate::domain::state::progress::{Outcome, Satisfied, WaitError, evaluate};
use crate::error::Error;
use crate::ids::ConnId;
use signaltty_protocol::PaneId;
use signaltty_protocol::state::{WaitBaseline, WaitResult};
use tokio::sync::oneshot;

/// What a wait waits for.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// The pane waited on.
    pub pane: PaneId,
    /// The outcomes that end the wait, with the names the client wrote.
    pub until: Vec<(String, Outcome)>,
    /// The baseline the outcomes must come after (`None`: after now).
    pub after: Option<WaitBaseline>,
}

/// The answer a wait gets.
pub type WaitAnswer = oneshot::Receiver<Result<WaitResult, Error>>;

/// A wait not settled yet.
struct PendingWait {
    /// The connection it belongs to: its going away cancels the wait.
    conn: ConnId,
    wanted: Wanted,
    done: oneshot::Sender<Result<WaitResult, Error>>,
}

/// The pending waits.
#[derive(Default)]
pub struct Waits {
    pending: Vec<PendingWait>,
}

impl Waits {
    /// Checks `wanted` against `projection` now and, if it has to wait, keeps
    /// it. The receiver gets the answer; dropping it abandons the wait.
    pub fn register(
        &mut self,
        projection: &Projection,
        conn: ConnId,
        wanted: Wanted,
    ) -> WaitAnswer {
        let (done, answered) = oneshot::channel();
        match check(projection, &wanted) {
            Some(result) => {
                let _ = done.send(result);
            },
            None => self.pending.push(PendingWait { conn, wanted, done }),
        }
        answered
    }

    /// Answers every pending wait that `projection` settles; forgets those
    /// nobody waits for any more (timed out, or the connection went away).
    pub fn check_all(&mut self, projection: &Projection) {
        if self.pending.is_empty() {
            return;
        }
        for pending in std::mem::take(&mut self.pending) {
            if pending.done.is_closed() {
                continue;
            }
            match check(projection, &pending.wanted) {
                Some(result) => {
                    let _ = pending.done.send(result);
                },
                None => self.pending.push(pending),
            }
        }
    }

    /// A connection went away: its waits end (single-flight,
    /// docs/protocol.md#connection-rules).
    pub fn drop_conn(&mut self, conn: ConnId) {
        self.pending.retain(|w| w.conn != conn);
    }
}

/// The answer to a wait now, or `None` while it has to wait.
pub fn check(projection: &Projection, wanted: &Wanted) -> Option<Result<WaitResult, Error>> {
    let pane = projection.pane(&wanted.pane);
    let progress = projection.progress(&wanted.pane);
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
