//! The Task actor: one per task, owning its [`TaskMachine`] and the
//! workflows of its life (docs/tasks.md): its start (`start.rs`, `place.rs`:
//! the checkout, the record, the worker's workspace, tab and pane), the first
//! prompt (`prompt.rs`), the cancel and the worker's stop (`stop.rs`) and the
//! finish (`finish.rs`). Every change is published through the Supervisor
//! (`Publish`), so it is journaled and sequenced with the pane events that
//! caused it; a request's reply waits for the publication. What a workflow
//! needs of the Supervisor it asks through [`Services`], what it needs of the
//! OS through the seams of [`Os`], on blocking threads.
//!
//! ```text
//!   route: checks · key · cap ──Start──► TaskActor ─ start ─ first prompt
//!   WorkerEvent (journaled pane events) ─► machine ─► task.updated
//!   Report · Transition · FollowUp · Cancel · FinishTask ─► machine ─► Publish
//! ```

use crate::actors::publish::Publish;
use crate::actors::services::Services;
use crate::domain::task::machine::{Refused, TaskMachine};
use crate::domain::worktrees::Checkouts;
use crate::error::Error;
use crate::os::seams::Os;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::task::{Task, TaskReportParams, TaskState};
use signaltty_protocol::{Event, TaskId, Timestamp};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

mod finish;
mod place;
mod prompt;
mod queue;
mod start;
mod stop;
#[cfg(test)]
mod tests;

pub use finish::{FinishTask, Mode};
pub use queue::{Enqueue, queued_record};
pub use start::{Start, StartTicket};
pub use stop::Cancel;

/// A typed answer that comes later.
type Answer<T> = Pin<Box<dyn Future<Output = Result<T, Error>>>>;

/// What a task's workflows work with: the Supervisor's services, the OS
/// seams, the checkout locks, and the merge deadline.
#[derive(Clone)]
pub struct Kit {
    /// What the workflows ask of the Supervisor.
    pub services: Services,
    /// The OS seams (git, the checkout on disk, the file system).
    pub os: Os,
    /// Checkout reservations and path locks.
    pub checkouts: Checkouts,
    /// How long a merge may take (docs/tasks.md#settings).
    pub merge_timeout: Duration,
}

/// One task.
pub struct TaskActor {
    id: TaskId,
    /// The record; none until its start commits it.
    machine: Option<TaskMachine>,
    kit: Kit,
}

impl TaskActor {
    /// The actor of a task being started: it has no record until its
    /// [`Start`] commits one.
    pub fn starting(id: TaskId, kit: Kit) -> TaskActor {
        TaskActor {
            id,
            machine: None,
            kit,
        }
    }

    /// The actor of a task that exists (a restore).
    pub fn restored(task: Task, kit: Kit) -> TaskActor {
        TaskActor {
            id: task.id.clone(),
            machine: Some(TaskMachine::new(task)),
            kit,
        }
    }

    fn missing(&self) -> Error {
        Error::NoSuchTask(self.id.0.clone())
    }

    /// The record now; `NO_SUCH_TASK` while the start has not committed it.
    fn task(&self) -> Result<&Task, Error> {
        self.machine
            .as_ref()
            .map(TaskMachine::task)
            .ok_or_else(|| self.missing())
    }

    fn machine(&mut self) -> Result<&mut TaskMachine, Error> {
        let missing = self.missing();
        self.machine.as_mut().ok_or(missing)
    }

    /// Publishes `events` (sent now, so they keep their order with what
    /// this actor publishes next) and answers with the task as it is now,
    /// once they are published.
    fn publish(&self, events: Vec<Event>) -> Answer<Task> {
        let task = self.task().cloned();
        let sent =
            (!events.is_empty()).then(|| self.kit.services.publish.send(Publish::new(events)));
        Box::pin(async move {
            let task = task?;
            if let Some(sent) = sent {
                sent.await??;
            }
            Ok(task)
        })
    }

    /// Moves the task to `to` with `reason` (none clears it) and publishes
    /// the change; a refused move changes nothing.
    fn transition(&mut self, to: TaskState, reason: Option<Value>) -> Answer<Task> {
        let moved = self
            .machine()
            .and_then(|m| m.transition(to, reason, Timestamp::now()).map_err(refused));
        match moved {
            Ok(event) => self.publish(vec![event]),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    /// Records what the task waits for (no state change), in the background.
    fn explain(&mut self, reason: Value) {
        match self.machine() {
            Ok(m) => {
                let event = m.explain(reason, Timestamp::now());
                let task = self.id.clone();
                let sent = self.publish(vec![event]);
                actix::spawn(async move {
                    if let Err(e) = sent.await {
                        log::debug!("task {task}: what it waits for was not recorded: {e}");
                    }
                });
            },
            Err(e) => log::debug!("task {}: {e}", self.id),
        }
    }

    /// Whether the task waits for its first prompt.
    fn pending(&self) -> bool {
        self.task().is_ok_and(|t| t.state == TaskState::Pending)
    }
}

impl Actor for TaskActor {
    type Context = Context<Self>;
}

pub(super) fn refused(r: Refused) -> Error {
    Error::BadParams(r.to_string())
}

/// An event of the task's worker pane, after it was journaled.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WorkerEvent(pub Arc<Event>);

impl Handler<WorkerEvent> for TaskActor {
    type Result = ();

    fn handle(&mut self, msg: WorkerEvent, _ctx: &mut Self::Context) {
        let Some(machine) = self.machine.as_mut() else {
            return;
        };
        if let Some(event) = machine.on_pane_event(&msg.0, Timestamp::now()) {
            self.kit.services.publish.do_send(Publish::new(vec![event]));
        }
    }
}

/// Moves the task to `to` with `reason`; answers with the task.
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct Transition {
    /// The new state.
    pub to: TaskState,
    /// Its `status_reason` (none clears it).
    pub reason: Option<Value>,
}

impl Handler<Transition> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: Transition, _ctx: &mut Self::Context) -> Self::Result {
        self.transition(msg.to, msg.reason)
    }
}

/// `task.report` (docs/tasks.md#reports), its bounds already checked.
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct Report(pub TaskReportParams);

impl Handler<Report> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: Report, _ctx: &mut Self::Context) -> Self::Result {
        let reported = self
            .machine()
            .and_then(|m| m.report(&msg.0, Timestamp::now()).map_err(refused));
        match reported {
            Ok(events) => self.publish(events),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }
}

/// A follow-up prompt into the worker was accepted: a task that needs
/// input works again (docs/tasks.md#picking-up-again). Answers once that is
/// published; anything else changes nothing.
#[derive(Message)]
#[rtype(result = "()")]
pub struct FollowUp;

impl Handler<FollowUp> for TaskActor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _msg: FollowUp, _ctx: &mut Self::Context) -> Self::Result {
        let waits = self
            .task()
            .is_ok_and(|t| t.state == TaskState::InputRequired);
        let moved = waits.then(|| self.transition(TaskState::Working, None));
        Box::pin(async move {
            if let Some(Err(e)) = match moved {
                Some(moved) => Some(moved.await),
                None => None,
            } {
                log::debug!("a follow-up prompt did not resume its task: {e}");
            }
        })
    }
}

/// The book the server keeps: the tasks' actors, the cap's reservations and
/// the keys being started.
pub type ServerTaskBook = crate::domain::task::book::TaskBook<Addr<TaskActor>>;
