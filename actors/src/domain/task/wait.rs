//! What `task.wait` waits for (docs/tasks.md#waiting-for-tasks): one task or
//! every task of a context, until each is in one of the wanted states. Pure:
//! the route parses the params and looks at the projection through it.

use crate::domain::projection::Projection;
use crate::error::Error;
use serde_json::Value;
use signaltty_protocol::task::{Task, TaskState};
use signaltty_protocol::{ContextId, TaskId};

/// One wanted state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// This state.
    State(TaskState),
    /// Completed, failed, canceled or rejected.
    Terminal,
    /// Terminal or `input_required`.
    Settled,
}

impl Wanted {
    fn parse(name: &str) -> Option<Wanted> {
        match name {
            "terminal" => Some(Wanted::Terminal),
            "settled" => Some(Wanted::Settled),
            other => TaskState::parse(other).map(Wanted::State),
        }
    }

    /// Whether `state` is wanted.
    pub fn holds(self, state: TaskState) -> bool {
        match self {
            Wanted::State(s) => s == state,
            Wanted::Terminal => state.is_terminal(),
            Wanted::Settled => state.is_terminal() || state == TaskState::InputRequired,
        }
    }
}

/// `until`: absent → `settled`; a string or a non-empty list of known names.
pub fn parse_until(until: Option<&Value>) -> Result<Vec<Wanted>, Error> {
    let bad = |why: String| Error::BadParams(format!("until: {why}"));
    let one = |v: &Value| match v.as_str() {
        Some(name) => Wanted::parse(name).ok_or_else(|| {
            bad(format!(
                "unknown state {name:?} (a task state, terminal or settled)"
            ))
        }),
        None => Err(bad(format!("{v} is not a string"))),
    };
    match until {
        None | Some(Value::Null) => Ok(vec![Wanted::Settled]),
        Some(Value::Array(items)) if items.is_empty() => Err(bad("an empty list".into())),
        Some(Value::Array(items)) => items.iter().map(one).collect(),
        Some(v) => Ok(vec![one(v)?]),
    }
}

/// What a wait watches.
#[derive(Debug, Clone)]
pub enum Watched {
    /// One task.
    Task(TaskId),
    /// Every task of a context.
    Context(ContextId),
}

/// The watched tasks as `projection` has them, when every one is in a
/// wanted state; `None` while some is not; `NO_SUCH_TASK` for a task that
/// does not exist (checked at every look).
pub fn look(
    projection: &Projection,
    watched: &Watched,
    wanted: &[Wanted],
) -> Result<Option<Vec<Task>>, Error> {
    let tasks: Vec<Task> = match watched {
        Watched::Task(id) => projection
            .task(id)
            .map(|t| vec![t.clone()])
            .ok_or_else(|| Error::NoSuchTask(id.0.clone()))?,
        Watched::Context(ctx) => projection
            .tasks()
            .into_iter()
            .filter(|t| &t.context_id == ctx)
            .cloned()
            .collect(),
    };
    let satisfied = tasks
        .iter()
        .all(|t| wanted.iter().any(|w| w.holds(t.state)));
    Ok(satisfied.then_some(tasks))
}

#[cfg(test)]
mod tests;
