//! The tasks the board shows: loaded with `task.list` at every (re)connect,
//! kept current by `task.created` and `task.updated` (each carries the whole
//! task), with a selection of their own; and the conflict radar's
//! collisions, kept current by `task.conflict`.

use super::Board;
use signaltty_protocol::task::conflict::{ConflictState, TaskConflict};
use signaltty_protocol::task::{Outcome, Task, TaskState};
use signaltty_protocol::{PaneId, TaskId};

/// What a task line says after its columns: the worker's summary, else why
/// the task is in its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskNote {
    Summary(String),
    Reason(String),
    Nothing,
}

/// The task's result summary, else its `status_reason` (`reason`, or a
/// start failure's `stage: error`), else its last finish's error.
pub fn task_note(task: &Task) -> TaskNote {
    if task.state == TaskState::Queued {
        // Its place is its line's place: the queue is in creation order.
        if task.after.is_empty() {
            return TaskNote::Reason("queued: waiting for a free slot".into());
        }
        let after: Vec<String> = task
            .after
            .iter()
            .map(|id| id.0.chars().take(13).collect())
            .collect();
        return TaskNote::Reason(format!("queued: after {}", after.join(", ")));
    }
    if let Some(r) = &task.result {
        return TaskNote::Summary(r.summary.clone());
    }
    let text = |v: &serde_json::Value, key: &str| v[key].as_str().map(str::to_owned);
    if let Some(why) = &task.status_reason {
        if let Some(reason) = text(why, "reason") {
            return TaskNote::Reason(reason);
        }
        match (text(why, "stage"), text(why, "error")) {
            (Some(stage), Some(error)) => return TaskNote::Reason(format!("{stage}: {error}")),
            (Some(stage), None) => return TaskNote::Reason(stage),
            (None, Some(error)) => return TaskNote::Reason(error),
            (None, None) => {},
        }
    }
    if let Some(e) = &task.finish_error {
        let what = text(e, "code")
            .or_else(|| text(e, "message"))
            .unwrap_or_else(|| e.to_string());
        return TaskNote::Reason(format!("finish failed: {what}"));
    }
    TaskNote::Nothing
}

/// Creation order, then id: the order of `task.list`.
fn order(a: &Task, b: &Task) -> std::cmp::Ordering {
    (a.created_at.as_str(), &a.id.0).cmp(&(b.created_at.as_str(), &b.id.0))
}

impl Board {
    /// Replaces the tasks with a fresh `task.list` (after a connect): host
    /// 0's, the only one of a single-host board (`load_tasks_from`).
    #[cfg(test)]
    pub fn load_tasks(&mut self, tasks: Vec<Task>) {
        self.load_tasks_from(0, tasks);
    }

    /// Replaces `host`'s tasks with a fresh `task.list`; the other hosts'
    /// stay.
    pub fn load_tasks_from(&mut self, host: usize, tasks: Vec<Task>) {
        let owners = &self.hosts;
        self.tasks.retain(|t| owners.task(&t.id) != host);
        self.hosts.tasks.retain(|_, h| *h != host);
        for t in &tasks {
            self.hosts.tasks.insert(t.id.clone(), host);
        }
        self.tasks.extend(tasks);
        self.tasks.sort_by(order);
        self.keep_task_selection();
    }

    /// Stores `host`'s `task` (a `task.created` or `task.updated`), in its
    /// place.
    pub(super) fn upsert_task(&mut self, host: usize, task: Task) {
        self.hosts.tasks.insert(task.id.clone(), host);
        match self.tasks.iter_mut().find(|t| t.id == task.id) {
            Some(t) => *t = task,
            None => {
                let at = self
                    .tasks
                    .partition_point(|t| order(t, &task) == std::cmp::Ordering::Less);
                self.tasks.insert(at, task);
            },
        }
        self.keep_task_selection();
    }

    /// Replaces `host`'s collisions with those of a fresh `task.list`
    /// (after its tasks are loaded).
    pub fn load_conflicts_from(&mut self, host: usize, conflicts: Vec<TaskConflict>) {
        let owners = &self.hosts;
        self.conflicts.retain(|c| owners.task(&c.a) != host);
        self.conflicts.extend(conflicts);
    }

    /// A `task.conflict`: an appeared collision is added (or replaced), a
    /// cleared one removed.
    pub(super) fn apply_conflict(&mut self, conflict: TaskConflict, state: ConflictState) {
        self.conflicts
            .retain(|c| !(c.a == conflict.a && c.b == conflict.b));
        if state == ConflictState::Appeared {
            self.conflicts.push(conflict);
        }
    }

    /// The collisions `task` is in.
    pub fn conflicts_of<'b>(&'b self, task: &'b TaskId) -> impl Iterator<Item = &'b TaskConflict> {
        self.conflicts.iter().filter(move |c| c.involves(task))
    }

    pub fn task(&self, id: &TaskId) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == *id)
    }

    pub fn selected_task(&self) -> Option<&Task> {
        self.task_selected.as_ref().and_then(|id| self.task(id))
    }

    /// Moves the task selection `delta` tasks down (negative: up), clamped.
    pub fn move_task_selection(&mut self, delta: isize) {
        if self.tasks.is_empty() {
            self.task_selected = None;
            return;
        }
        let at = self
            .task_selected
            .as_ref()
            .and_then(|s| self.tasks.iter().position(|t| t.id == *s))
            .unwrap_or(0) as isize;
        let to = (at + delta).clamp(0, self.tasks.len() as isize - 1) as usize;
        self.task_selected = Some(self.tasks[to].id.clone());
    }

    /// Keeps the selection on a task that exists: the first one otherwise.
    fn keep_task_selection(&mut self) {
        let kept = self
            .task_selected
            .as_ref()
            .is_some_and(|s| self.tasks.iter().any(|t| t.id == *s));
        if !kept {
            self.task_selected = self.tasks.first().map(|t| t.id.clone());
        }
    }

    /// The selected task's worker pane, if the board knows it.
    pub fn selected_worker(&self) -> Option<&PaneId> {
        let pane = self.selected_task()?.pane_id.as_ref()?;
        self.panes.contains_key(pane).then_some(pane)
    }

    /// The shown diff stat, if it is the selected task's.
    pub fn selected_diff(&self) -> Option<&signaltty_protocol::task::TaskDiffResult> {
        let selected = self.task_selected.as_ref()?;
        self.task_diff.as_ref().filter(|d| d.task_id == *selected)
    }
}

/// `merged` or `discarded`, once finished.
pub fn disposition(task: &Task) -> Option<&'static str> {
    match task.disposition.outcome {
        Outcome::None => None,
        Outcome::Merged => Some("merged"),
        Outcome::Discarded => Some("discarded"),
    }
}

#[cfg(test)]
pub(super) mod tests;
