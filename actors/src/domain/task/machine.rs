//! A task's state machine (docs/objects.md#task-states,
//! docs/tasks.md#task-transitions, docs/tasks.md#the-worker-and-its-task): the
//! record, every transition checked against the table and stamped, each one a
//! `task.updated`; and what the worker pane's events do to it. Pure: the Task
//! actor owns one and publishes what it returns.

use serde_json::{Value, json};
use signaltty_protocol::task::{
    Disposition, Outcome, Task, TaskReportParams, TaskResult, TaskState,
};
use signaltty_protocol::{Event, PaneId, Timestamp};

/// Why a transition was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The task is terminal: it never changes again.
    Terminal(TaskState),
    /// The table does not allow it.
    NotAllowed { from: TaskState, to: TaskState },
    /// The task was finished already.
    Finished,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Terminal(s) => write!(f, "the task is {} already", s.as_str()),
            Refused::NotAllowed { from, to } => {
                write!(
                    f,
                    "a task cannot go from {} to {}",
                    from.as_str(),
                    to.as_str()
                )
            },
            Refused::Finished => f.write_str("the task was finished already"),
        }
    }
}

/// One task's record and the rules that change it.
#[derive(Debug, Clone)]
pub struct TaskMachine {
    task: Task,
}

impl TaskMachine {
    /// The machine of `task` as it is.
    pub fn new(task: Task) -> TaskMachine {
        TaskMachine { task }
    }

    /// The record now.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// `task.created` for the record as it is.
    pub fn created(&self) -> Event {
        Event::TaskCreated {
            task: Box::new(self.task.clone()),
        }
    }

    fn updated(&self, prev_state: Option<TaskState>) -> Event {
        Event::TaskUpdated {
            task_id: self.task.id.clone(),
            context_id: self.task.context_id.clone(),
            task: Box::new(self.task.clone()),
            prev_state,
        }
    }

    /// Moves the task to `to` with `reason` as its `status_reason` (none
    /// clears it), if the table allows: the `task.updated` that records it.
    pub fn transition(
        &mut self,
        to: TaskState,
        reason: Option<Value>,
        now: Timestamp,
    ) -> Result<Event, Refused> {
        let from = self.task.state;
        if from.is_terminal() {
            return Err(Refused::Terminal(from));
        }
        if !from.may_become(to) {
            return Err(Refused::NotAllowed { from, to });
        }
        self.task.state = to;
        self.task.status_reason = reason;
        self.task.updated_at = now;
        Ok(self.updated(Some(from)))
    }

    /// A queued task's start committed its checkout: the record becomes
    /// `record` (its checkout, branch and base), keeping what the queued one
    /// was known by (id, context, creation, key, `after`), `queued` →
    /// `pending` (docs/tasks.md#the-task-queue).
    pub fn start_queued(&mut self, record: Task, now: Timestamp) -> Result<Event, Refused> {
        let from = self.task.state;
        if from != TaskState::Queued {
            return Err(Refused::NotAllowed {
                from,
                to: TaskState::Pending,
            });
        }
        let queued = std::mem::replace(&mut self.task, record);
        self.task.id = queued.id;
        self.task.context_id = queued.context_id;
        self.task.created_at = queued.created_at;
        self.task.client_request_id = queued.client_request_id;
        self.task.after = queued.after;
        self.task.state = TaskState::Pending;
        self.task.queued_start = None;
        self.task.queue_position = None;
        self.task.status_reason = None;
        self.task.updated_at = now;
        Ok(self.updated(Some(from)))
    }

    /// Sets `status_reason` without a state change: what a `pending` task
    /// waits for.
    pub fn explain(&mut self, reason: Value, now: Timestamp) -> Event {
        self.task.status_reason = Some(reason);
        self.task.updated_at = now;
        self.updated(None)
    }

    /// Records the worker pane and its pid (no state change).
    pub fn set_worker(&mut self, pane: PaneId, pid: Option<u32>, now: Timestamp) -> Event {
        self.task.pane_id = Some(pane);
        self.task.worker_pid = pid;
        self.task.updated_at = now;
        self.updated(None)
    }

    /// `task.report` (docs/tasks.md#reports): the result stored and the
    /// reported state taken, `task.result` then `task.updated`. The caller has
    /// checked the result's bounds.
    pub fn report(&mut self, p: &TaskReportParams, now: Timestamp) -> Result<Vec<Event>, Refused> {
        let from = self.task.state;
        let to = p.status.state();
        if from.is_terminal() {
            return Err(Refused::Terminal(from));
        }
        if !from.may_become(to) {
            return Err(Refused::NotAllowed { from, to });
        }
        let result = TaskResult {
            status: p.status,
            summary: p.summary.clone(),
            artifacts: p.artifacts.clone().unwrap_or_default(),
            evidence: p.evidence.clone(),
            reported_at: now.clone(),
        };
        self.task.result = Some(result.clone());
        let updated = self.transition(to, None, now)?;
        Ok(vec![
            Event::TaskResult {
                task_id: self.task.id.clone(),
                context_id: self.task.context_id.clone(),
                result,
            },
            updated,
        ])
    }

    /// Records how `task.finish` ended the task (once: a recorded
    /// disposition stays), with its cleanup error if any.
    pub fn finish(
        &mut self,
        disposition: Disposition,
        finish_error: Option<Value>,
        now: Timestamp,
    ) -> Result<Event, Refused> {
        if self.task.disposition.outcome != Outcome::None {
            return Err(Refused::Finished);
        }
        self.task.disposition = disposition;
        self.task.finish_error = finish_error;
        self.task.updated_at = now;
        Ok(self.updated(None))
    }

    /// Replaces the finish error (a conflict's files, a cleanup error; none
    /// clears it).
    pub fn set_finish_error(&mut self, finish_error: Option<Value>, now: Timestamp) -> Event {
        self.task.finish_error = finish_error;
        self.task.updated_at = now;
        self.updated(None)
    }

    /// The reason string of the current `status_reason`, if it has one.
    fn reason(&self) -> Option<&str> {
        self.task.status_reason.as_ref()?.get("reason")?.as_str()
    }

    /// What an event of the worker pane does to the task
    /// (docs/tasks.md#the-worker-and-its-task, docs/tasks.md#picking-up-again):
    /// at most one transition.
    pub fn on_pane_event(&mut self, event: &Event, now: Timestamp) -> Option<Event> {
        let state = self.task.state;
        let (to, reason) = match event {
            // A turn ended without a report
            // (docs/tasks.md#a-turn-that-ends-without-a-report).
            Event::AgentDone { pane, .. }
                if state == TaskState::Working && self.task.result.is_none() =>
            {
                (
                    TaskState::InputRequired,
                    json!({"reason": "turn_ended_without_report", "last_message": pane.last_message}),
                )
            },
            // An unconfirmed first prompt that the worker took after all
            // (docs/tasks.md#picking-up-again).
            Event::AgentWorking { .. }
                if state == TaskState::InputRequired
                    && self.reason() == Some("submit_unconfirmed") =>
            {
                return self.transition(TaskState::Working, None, now).ok();
            },
            // A decision stops the work until it is answered
            // (docs/tasks.md#decisions-in-a-worker).
            Event::DecisionCreated { decision, .. } if state == TaskState::Working => (
                TaskState::InputRequired,
                json!({"reason": "decision_required", "decision_id": decision.id}),
            ),
            Event::DecisionAnswered { decision_id, .. }
                if state == TaskState::InputRequired
                    && self.reason() == Some("decision_required")
                    && self
                        .task
                        .status_reason
                        .as_ref()
                        .and_then(|r| r.get("decision_id"))
                        .and_then(Value::as_str)
                        == Some(decision_id.as_str()) =>
            {
                return self.transition(TaskState::Working, None, now).ok();
            },
            // The worker died or its pane went
            // (docs/tasks.md#when-the-worker-dies).
            Event::PaneExited { code, .. } if !state.is_terminal() => (
                TaskState::Failed,
                json!({"reason": "pane_exited", "exit_code": code}),
            ),
            Event::PaneClosed { .. } if !state.is_terminal() => {
                (TaskState::Failed, json!({"reason": "pane_closed"}))
            },
            _ => return None,
        };
        self.transition(to, Some(reason), now).ok()
    }
}

#[cfg(test)]
mod tests;
