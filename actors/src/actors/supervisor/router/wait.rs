//! `wait` (docs/methods.md#wait, docs/states.md#waiting-on-states): checked on
//! arrival, then after every batch of published events until it is satisfied,
//! fails, times out, or its connection goes away. This is the request side:
//! parsing and checking the params. The pending waits live in the Sequencer
//! (`waits.rs`), which checks them after each batch it applies.

use super::{Cx, Routed, answer, fail};
use crate::domain::state::progress::Outcome;
use crate::domain::waits::Wanted;
use crate::error::Error;
use crate::ids::ConnId;
use signaltty_protocol::state::WaitParams;
use std::time::{Duration, Instant};

/// A wait's default timeout, in seconds.
pub const DEFAULT_TIMEOUT_S: u64 = 3600;

/// `wait`.
pub fn wait(cx: &mut Cx<'_>, conn: ConnId, p: WaitParams) -> Routed {
    let (wanted, timeout) = match prepare(cx, p) {
        Ok(prepared) => prepared,
        Err(e) => return fail(Err(e)),
    };
    let answered = cx.events.wait(conn, wanted);
    answer(async move {
        match tokio::time::timeout(timeout, answered).await {
            Ok(Ok(result)) => result,
            // The Supervisor dropped the wait: it is stopping.
            Ok(Err(_)) => Err(Error::ShuttingDown),
            Err(_) => Err(Error::Timeout {
                what: "waiting for the pane's state".into(),
                written: None,
            }),
        }
    })
}

/// The up-front checks of `wait` (docs/methods.md#wait): outcomes, pane,
/// baseline, timeout.
fn prepare(cx: &Cx<'_>, p: WaitParams) -> Result<(Wanted, Duration), Error> {
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
    let pane = cx.registry.resolve(&p.pane_id)?;
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
