//! The task queue's routing (docs/tasks.md#the-task-queue): whether a
//! `task.start` waits (for its `after` tasks, or behind the queue), the
//! queued record committed by the task's own actor, each queued task's place
//! in what reads return, and the Supervisor's drain: the queued tasks whose
//! turn came are started, those whose `after` tasks will never complete
//! fail.
//!
//! ```text
//!   task.start ─ after? ─ behind the queue? ─ cap ─┬─ Start (a slot)
//!                                                  └─ Enqueue: task.created {queued}
//!   any task change / a slot given back ─► drain ─► plan ─┬─ Start (a slot) ─► queued → pending
//!                                                         └─ Transition failed {stage: "after"}
//! ```

use super::Cx;
use super::tasks::{Answer, Go, plan_for};
use crate::actors::supervisor::Supervisor;
use crate::actors::task::{Enqueue, Start, StartTicket, TaskActor, Transition, queued_record};
use crate::domain::registry::by_prefix;
use crate::domain::task::queue::{self, Ready, Step};
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::task::{Task, TaskStartResult, TaskState};
use signaltty_protocol::{TaskId, Timestamp};

/// The most tasks one start may come after.
const MAX_AFTER: usize = 64;

/// Why a start waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    /// It may start now, if the cap has a slot.
    No,
    /// Some of its `after` tasks have not completed.
    After,
    /// Queued tasks ready to start are ahead of it.
    Queue,
}

/// Checks and spells out in full the `after` ids of `p` (unknown →
/// `NO_SUCH_TASK`; one that ended without completing → `BAD_PARAMS`), and
/// says whether the start waits, with how many tasks hold a slot now.
pub(super) fn must_wait(
    cx: &Cx<'_>,
    p: &mut signaltty_protocol::task::TaskStartParams,
) -> Result<(Wait, usize), Error> {
    let projection = cx.events.projection();
    let tasks = projection.tasks();
    let mut after: Vec<TaskId> = Vec::new();
    for id in p.after.take().unwrap_or_default() {
        let full = if projection.task(&id).is_some() {
            id
        } else {
            let ids = projection.task_ids().map(|t| t.0.as_str());
            match by_prefix(ids, &id.0, TaskId::PREFIX, "tasks")? {
                Some(full) => TaskId(full.to_owned()),
                None => return Err(Error::NoSuchTask(id.0)),
            }
        };
        if !after.contains(&full) {
            after.push(full);
        }
    }
    if after.len() > MAX_AFTER {
        return Err(Error::BadParams(format!(
            "after names {} tasks; at most {MAX_AFTER}",
            after.len()
        )));
    }
    let ready = queue::ready(&after, |id| projection.task(id));
    p.after = (!after.is_empty()).then_some(after);
    let active = tasks
        .iter()
        .filter(|t| !t.state.is_terminal() && t.state != TaskState::Queued)
        .count();
    let wait = match ready {
        Ready::Never(reason) => {
            let why = reason["error"]
                .as_str()
                .unwrap_or("a task it comes after failed");
            return Err(
                Error::BadParams(format!("cannot start after it: {why}")).with_details(reason)
            );
        },
        Ready::Waiting(_) => Wait::After,
        Ready::Yes if ready_ahead(cx, &tasks) => Wait::Queue,
        Ready::Yes => Wait::No,
    };
    Ok((wait, active))
}

/// Whether a queued task could start now but has not yet: a new start must
/// not pass it.
fn ready_ahead(cx: &Cx<'_>, tasks: &[&Task]) -> bool {
    queue::in_order(tasks.iter().copied()).into_iter().any(|t| {
        !cx.tasks.is_launching(&t.id)
            && queue::ready(&t.after, |id| cx.events.projection().task(id)) == Ready::Yes
    })
}

/// Queues the start `go`: its record, `queued`, committed by its own actor;
/// the reply carries its place.
pub(super) fn enqueue(cx: &mut Cx<'_>, me: &Addr<Supervisor>, go: Go) -> Answer<TaskStartResult> {
    let stamp = cx
        .tasks
        .queue_stamp(Timestamp::now().unix_millis().unwrap_or(0));
    let task = queued_record(
        &go.id,
        &go.p,
        &go.argv,
        go.agent,
        Timestamp::from_unix_millis(stamp),
    );
    let place = queue::in_order(cx.events.projection().tasks()).len() + 1;
    let kit = super::super::tasks::kit(me, cx.config, cx.checkouts);
    let actor = TaskActor::starting(go.id.clone(), kit).start();
    cx.tasks.insert(go.id.clone(), actor.clone());
    let ticket = StartTicket::queued(me.clone().recipient(), go.id, go.key);
    let sent = actor.send(Enqueue { task, ticket });
    Box::pin(async move {
        let mut task = sent.await??;
        task.queue_position = Some(place);
        Ok(TaskStartResult { task, pane: None })
    })
}

/// Fills in the place of each queued task of `tasks`.
pub(super) fn place_all(cx: &Cx<'_>, tasks: &mut [Task]) {
    if !tasks.iter().any(|t| t.state == TaskState::Queued) {
        return;
    }
    let places = queue::positions(cx.events.projection().tasks());
    for task in tasks {
        task.queue_position = places.get(&task.id).copied();
    }
}

/// The drain: the queued tasks whose turn came start, each with a slot of
/// the cap; those whose `after` tasks will never complete fail.
pub(crate) fn drain(cx: &mut Cx<'_>) {
    if cx.shutting_down {
        return;
    }
    let Some(me) = cx.me.clone() else {
        return;
    };
    let steps = {
        let projection = cx.events.projection();
        let tasks = projection.tasks();
        let busy = tasks
            .iter()
            .filter(|t| !t.state.is_terminal() && t.state != TaskState::Queued)
            .count()
            + cx.tasks.starting();
        queue::plan(
            &tasks,
            |id| cx.tasks.is_launching(id),
            busy,
            cx.config.limits.max_parallel_tasks,
        )
    };
    for step in steps {
        match step {
            Step::Fail(id, reason) => {
                if let Some(actor) = cx.tasks.get(&id) {
                    actor.do_send(Transition {
                        to: TaskState::Failed,
                        reason: Some(reason),
                    });
                }
            },
            Step::Start(id) => launch(cx, &me, id),
        }
    }
}

/// Sends queued task `id` its start, with a slot taken for it.
fn launch(cx: &mut Cx<'_>, me: &Addr<Supervisor>, id: TaskId) {
    let Some(task) = cx.events.projection().task(&id).cloned() else {
        return;
    };
    let (Some(actor), Some(p)) = (cx.tasks.get(&id).cloned(), task.queued_start.clone()) else {
        log::warn!("queued task {id} has no start to run");
        return;
    };
    let plan = plan_for(cx, &id, &p);
    cx.tasks.launch(id.clone());
    let ticket = StartTicket::new(me.clone().recipient(), id.clone(), None);
    let started = actor.send(Start {
        ticket,
        plan,
        params: *p,
        argv: task.worker_cmd.clone().unwrap_or_default(),
        agent: task.agent.clone(),
    });
    actix::spawn(async move {
        match started.await {
            Ok(Ok(_)) => log::info!("queued task {id} started"),
            Ok(Err(e)) => log::warn!("queued task {id} did not start: {e}"),
            Err(e) => log::warn!("queued task {id} did not start: {e}"),
        }
    });
}
