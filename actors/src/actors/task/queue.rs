//! A task that waits in the queue (docs/tasks.md#the-task-queue): its record
//! is committed `queued`, with the start it will run and no checkout; the
//! Supervisor sends it the [`super::Start`] when its turn comes. A queued
//! start whose checkout cannot be made fails the task, which stays.

use super::start::StartTicket;
use super::{Answer, TaskActor};
use crate::domain::task::machine::TaskMachine;
use crate::error::Error;
use actix::prelude::*;
use serde_json::json;
use signaltty_protocol::task::{Task, TaskStartParams, TaskState};
use signaltty_protocol::{TaskId, Timestamp};
use std::pin::Pin;

/// Commits a queued task's record: answers with it once `task.created` is
/// published, and gives the key back then.
#[derive(Message)]
#[rtype(result = "Result<Task, Error>")]
pub struct Enqueue {
    /// The record, `queued`.
    pub task: Task,
    /// The start's key (no slot of the cap).
    pub ticket: StartTicket,
}

impl Handler<Enqueue> for TaskActor {
    type Result = ResponseFuture<Result<Task, Error>>;

    fn handle(&mut self, msg: Enqueue, _ctx: &mut Self::Context) -> Self::Result {
        let machine = TaskMachine::new(msg.task);
        let created = machine.created();
        self.machine = Some(machine);
        let published = self.publish(vec![created]);
        let ticket = msg.ticket;
        Box::pin(async move {
            let task = published.await?;
            ticket.committed();
            Ok(task)
        })
    }
}

type Fut<T> = Pin<Box<dyn ActorFuture<TaskActor, Output = Result<T, Error>>>>;

impl TaskActor {
    /// Whether the task waits in the queue.
    pub(super) fn queued(&self) -> bool {
        self.task().is_ok_and(|t| t.state == TaskState::Queued)
    }

    /// The checkout of a queued task's start could not be made: the task
    /// fails with `{stage: "checkout", error}` and the slot goes back.
    pub(super) fn queued_start_failed<T: 'static>(
        &mut self,
        ticket: StartTicket,
        e: Error,
    ) -> Fut<T> {
        let reason = json!({"stage": "checkout", "error": e.to_string()});
        let moved: Answer<Task> = self.transition(TaskState::Failed, Some(reason));
        Box::pin(actix::fut::wrap_future(async move {
            if let Err(why) = moved.await {
                log::warn!("a queued task's failed start could not be recorded: {why}");
            }
            // The record exists: the actor stays.
            ticket.committed();
            Err(e)
        }))
    }
}

/// The record of a task queued by `p`, created at `created_at` (the queue's
/// order), with its worker's program.
pub fn queued_record(
    id: &TaskId,
    p: &TaskStartParams,
    argv: &[String],
    agent: Option<String>,
    created_at: Timestamp,
) -> Task {
    Task {
        status_reason: Some(json!({"reason": "queued"})),
        queued_start: Some(Box::new(p.clone())),
        ..super::start::start_record(id, p, argv, agent, TaskState::Queued, created_at)
    }
}
