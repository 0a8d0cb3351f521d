//! The Task actor: one per task, owning its [`TaskMachine`]. Every change is
//! published through the Supervisor (`Publish`), so it is journaled and
//! sequenced with the pane events that caused it; a request's reply waits
//! for the publication.

use crate::actors::publish::Publish;
use crate::domain::task::machine::{Refused, TaskMachine};
use crate::error::Error;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::task::{Task, TaskReportParams, TaskState};
use signaltty_protocol::{Event, PaneId, Timestamp};
use std::sync::Arc;

/// One task.
pub struct TaskActor {
    machine: TaskMachine,
    publish: Recipient<Publish>,
}

impl TaskActor {
    /// The actor of `task`, publishing through `publish`.
    pub fn new(task: Task, publish: Recipient<Publish>) -> TaskActor {
        TaskActor {
            machine: TaskMachine::new(task),
            publish,
        }
    }

    /// Publishes `events` and answers with the task as it is then.
    fn publish_then_reply(&self, events: Vec<Event>) -> ResponseFuture<Result<Task, Error>> {
        let task = self.machine.task().clone();
        let publish = self.publish.clone();
        Box::pin(async move {
            if !events.is_empty() {
                publish.send(Publish { events }).await??;
            }
            Ok(task)
        })
    }
}

impl Actor for TaskActor {
    type Context = Context<Self>;
}

fn refused(r: Refused) -> Error {
    Error::BadParams(r.to_string())
}

/// An event of the task's worker pane, after it was journaled.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WorkerEvent(pub Arc<Event>);

impl Handler<WorkerEvent> for TaskActor {
    type Result = ();

    fn handle(&mut self, msg: WorkerEvent, _ctx: &mut Self::Context) {
        if let Some(event) = self.machine.on_pane_event(&msg.0, Timestamp::now()) {
            self.publish.do_send(Publish {
                events: vec![event],
            });
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
        match self
            .machine
            .transition(msg.to, msg.reason, Timestamp::now())
        {
            Ok(event) => self.publish_then_reply(vec![event]),
            Err(r) => Box::pin(std::future::ready(Err(refused(r)))),
        }
    }
}

/// Records the worker pane (and its pid).
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct SetWorker {
    /// The pane.
    pub pane: PaneId,
    /// Its process.
    pub pid: Option<u32>,
}

impl Handler<SetWorker> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: SetWorker, _ctx: &mut Self::Context) -> Self::Result {
        let event = self.machine.set_worker(msg.pane, msg.pid, Timestamp::now());
        self.publish_then_reply(vec![event])
    }
}

/// `task.report`, its bounds already checked.
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct Report(pub TaskReportParams);

impl Handler<Report> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: Report, _ctx: &mut Self::Context) -> Self::Result {
        match self.machine.report(&msg.0, Timestamp::now()) {
            Ok(events) => self.publish_then_reply(events),
            Err(r) => Box::pin(std::future::ready(Err(refused(r)))),
        }
    }
}

/// The task as it is now.
#[derive(Message)]
#[rtype(result = "Task")]
pub struct Get;

impl Handler<Get> for TaskActor {
    type Result = MessageResult<Get>;

    fn handle(&mut self, _msg: Get, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.machine.task().clone())
    }
}

/// Records the disposition of a finished task (and its cleanup error).
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct Finish {
    /// How it ended.
    pub disposition: signaltty_protocol::task::Disposition,
    /// The cleanup error, if any.
    pub finish_error: Option<Value>,
}

impl Handler<Finish> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: Finish, _ctx: &mut Self::Context) -> Self::Result {
        match self
            .machine
            .finish(msg.disposition, msg.finish_error, Timestamp::now())
        {
            Ok(event) => self.publish_then_reply(vec![event]),
            Err(r) => Box::pin(std::future::ready(Err(refused(r)))),
        }
    }
}

/// Replaces the finish error.
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct SetFinishError(pub Option<Value>);

impl Handler<SetFinishError> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: SetFinishError, _ctx: &mut Self::Context) -> Self::Result {
        let event = self.machine.set_finish_error(msg.0, Timestamp::now());
        self.publish_then_reply(vec![event])
    }
}

/// The book the server keeps: the tasks' actors, the cap's reservations and
/// the keys being started.
pub type ServerTaskBook = crate::domain::task::book::TaskBook<Addr<TaskActor>>;
