//! Stopping a task's worker: `task.cancel` (docs/tasks.md#cancelling-a-task)
//! and step 7 of a finish (docs/tasks.md#checks-before-finishing). The task
//! moves first, so the worker's exit cannot fail it; then the worker's
//! attention is cleared (`task_closed`) and its decision dropped, and its
//! process group is signalled. The pane stays as a readable tombstone.
//!
//! ```text
//!   cancel: canceled ─ ViewPane ─ TaskClosed ─ live? SIGTERM (group)
//!   finish: ViewPane ─ TaskClosed ─ live? RegisterWait(exited) ─ SIGTERM
//!           ─ 5 s ─ RegisterWait(exited) ─ SIGKILL ─ 5 s
//! ```

use super::TaskActor;
use crate::actors::pane::{Pane, SignalPane, TaskClosed};
use crate::actors::services::{RegisterWait, Services, ViewPane};
use crate::actors::submit::SERVER_CONN;
use crate::domain::state::Outcome;
use crate::domain::waits::Wanted;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{Lifecycle, LiveState};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::task::{Task, TaskState};
use std::time::Duration;

/// How long a stopped worker gets to exit before it is killed, and again
/// after the kill.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// `task.cancel`: canceled first, then the worker's process group gets
/// SIGTERM; the checkout and branch stay. Answers with the task;
/// `BAD_PARAMS` for a terminal one.
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct Cancel;

impl Handler<Cancel> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, _msg: Cancel, _ctx: &mut Self::Context) -> Self::Result {
        let moved = self.transition(TaskState::Canceled, None);
        let services = self.kit.services.clone();
        Box::pin(async move {
            let task = moved.await?;
            let Some(pane) = task.pane_id.clone() else {
                return Ok(task);
            };
            let Some((addr, live)) = close_worker(&services, &pane).await else {
                return Ok(task);
            };
            if live {
                let stopped = match addr {
                    Some(addr) => signal(&addr, SignalName::Term).await,
                    None => Err(Error::NoSuchPane(pane.0.clone())),
                };
                if let Err(e) = stopped {
                    log::warn!("task.cancel {}: cannot stop the worker: {e}", task.id);
                }
            }
            Ok(task)
        })
    }
}

/// The worker closed by its task: its attention cleared (`task_closed`)
/// and its decision dropped. Its actor, and whether its process runs, as
/// the registry and the projection have them now; none once the Supervisor
/// is gone.
async fn close_worker(services: &Services, pane: &PaneId) -> Option<(Option<Addr<Pane>>, bool)> {
    let view = services.view_pane.send(ViewPane(pane.clone())).await.ok()?;
    if let Some(addr) = &view.addr {
        addr.do_send(TaskClosed);
    }
    let live = view.pane.is_some_and(|p| p.live == LiveState::Live);
    Some((view.addr, live))
}

/// SIGTERM or SIGKILL to the pane's process group.
async fn signal(addr: &Addr<Pane>, signal: SignalName) -> Result<(), Error> {
    addr.send(SignalPane {
        signal,
        group: true,
    })
    .await?
}

/// Step 7 of a finish: SIGTERM to the worker's process group, SIGKILL after
/// a grace, until its exit is seen.
pub(super) async fn stop_worker(services: Services, pane: Option<PaneId>) {
    let Some(pane) = pane else {
        return;
    };
    let Some((addr, true)) = close_worker(&services, &pane).await else {
        return;
    };
    if !signal_and_wait(&services, addr.as_ref(), &pane, SignalName::Term).await {
        signal_and_wait(&services, addr.as_ref(), &pane, SignalName::Kill).await;
    }
}

/// Waits for the pane's exit (registered before the signal is sent), at
/// most [`STOP_GRACE`]; whether it was seen.
async fn signal_and_wait(
    services: &Services,
    addr: Option<&Addr<Pane>>,
    pane: &PaneId,
    sig: SignalName,
) -> bool {
    let wanted = Wanted {
        pane: pane.clone(),
        until: vec![("exited".into(), Outcome::Lifecycle(Lifecycle::Exited))],
        after: None,
    };
    let exited = services
        .waits
        .send(RegisterWait {
            conn: SERVER_CONN,
            wanted,
        })
        .await;
    if let Some(addr) = addr {
        let _ = signal(addr, sig).await;
    }
    match exited {
        Ok(exited) => tokio::time::timeout(STOP_GRACE, exited).await.is_ok(),
        Err(_) => false,
    }
}
