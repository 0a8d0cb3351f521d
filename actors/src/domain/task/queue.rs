//! The task queue (docs/tasks.md#the-task-queue): which `queued` tasks start
//! now, which fail because a task they come after will never complete, and
//! each queued task's place. Pure: the Supervisor asks it after every change
//! of a task and performs what it returns.
//!
//! The queue is the `queued` tasks in the order they were created (ties by
//! id). A task waiting for its `after` tasks keeps its place but does not
//! hold up the tasks behind it; one whose `after` tasks all completed starts
//! as soon as the cap has a free slot, in queue order.

use serde_json::{Value, json};
use signaltty_protocol::TaskId;
use signaltty_protocol::task::{Task, TaskState};
use std::collections::HashMap;

/// What the Supervisor does with a queued task.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Start it now: a slot of the cap is counted for it.
    Start(TaskId),
    /// Fail it with this `status_reason`: a task it comes after ended
    /// without completing (or is unknown).
    Fail(TaskId, Value),
}

/// The queued tasks of `tasks`, in queue order.
pub fn in_order<'a>(tasks: impl IntoIterator<Item = &'a Task>) -> Vec<&'a Task> {
    let mut queued: Vec<&Task> = tasks
        .into_iter()
        .filter(|t| t.state == TaskState::Queued)
        .collect();
    queued.sort_by(|a, b| {
        (a.created_at.as_str(), a.id.0.as_str()).cmp(&(b.created_at.as_str(), b.id.0.as_str()))
    });
    queued
}

/// Each queued task's place in the queue, from 1.
pub fn positions<'a>(tasks: impl IntoIterator<Item = &'a Task>) -> HashMap<TaskId, usize> {
    in_order(tasks)
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i + 1))
        .collect()
}

/// Where a task stands with the tasks it comes after.
#[derive(Debug, Clone, PartialEq)]
pub enum Ready {
    /// Every one of them completed (or it has none).
    Yes,
    /// Some have not ended yet.
    Waiting(Vec<TaskId>),
    /// One ended without completing, or is unknown: the `status_reason` of
    /// the failure.
    Never(Value),
}

/// Whether the tasks `after` names let a task start, `lookup` finding them.
pub fn ready<'a>(after: &[TaskId], lookup: impl Fn(&TaskId) -> Option<&'a Task>) -> Ready {
    let mut waiting = Vec::new();
    for id in after {
        match lookup(id) {
            None => {
                return Ready::Never(json!({
                    "stage": "after", "dependency": id, "error": "no such task",
                }));
            },
            Some(dep) if dep.state == TaskState::Completed => {},
            Some(dep) if dep.state.is_terminal() => {
                return Ready::Never(json!({
                    "stage": "after",
                    "dependency": id,
                    "dependency_state": dep.state,
                    "error": format!("task {id} ended {} without completing", dep.state.as_str()),
                }));
            },
            Some(_) => waiting.push(id.clone()),
        }
    }
    if waiting.is_empty() {
        Ready::Yes
    } else {
        Ready::Waiting(waiting)
    }
}

/// The steps for `tasks` (every task the server has) when `busy` slots of
/// the cap of `cap` are taken (tasks not queued nor terminal, and starts
/// under way); the queued tasks `launching` says are being started already
/// are left alone.
pub fn plan(
    tasks: &[&Task],
    launching: impl Fn(&TaskId) -> bool,
    busy: usize,
    cap: usize,
) -> Vec<Step> {
    let by_id: HashMap<&TaskId, &Task> = tasks.iter().map(|t| (&t.id, *t)).collect();
    let mut free = cap.saturating_sub(busy);
    let mut steps = Vec::new();
    for task in in_order(tasks.iter().copied()) {
        if launching(&task.id) {
            continue;
        }
        match ready(&task.after, |id| by_id.get(id).copied()) {
            Ready::Never(reason) => steps.push(Step::Fail(task.id.clone(), reason)),
            Ready::Yes if free > 0 => {
                free -= 1;
                steps.push(Step::Start(task.id.clone()));
            },
            Ready::Yes | Ready::Waiting(_) => {},
        }
    }
    steps
}

#[cfg(test)]
mod tests;
