//! `task.wait` (tasks.md §7): one task, or every task of a context, until it
//! is in one of the wanted states (`terminal`, `settled`, or a state).
//! Connection-bound and single-flight like `wait`: the client going away (or
//! sending another line, which closes the connection) and the shutdown end
//! it. It looks again every 50 ms; task state lives on without it.

use super::{Cx, OnHost, Routed, fail};
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::task::{Task, TaskState, TaskWaitParams, TaskWaitResult};
use std::time::{Duration, Instant};

/// How often the tasks are looked at.
const POLL: Duration = Duration::from_millis(50);

/// One wanted state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
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

    fn holds(self, state: TaskState) -> bool {
        match self {
            Wanted::State(s) => s == state,
            Wanted::Terminal => state.is_terminal(),
            Wanted::Settled => state.is_terminal() || state == TaskState::InputRequired,
        }
    }
}

/// `until`: absent → `settled`; a string or a non-empty list of known names.
fn parse_until(until: Option<&Value>) -> Result<Vec<Wanted>, Error> {
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

/// What the wait watches.
#[derive(Debug, Clone)]
enum Target {
    Task(signaltty_protocol::TaskId),
    Context(signaltty_protocol::ContextId),
}

/// The tasks watched, or `NO_SUCH_TASK` for a task that does not exist.
fn watched(cx: &Cx<'_>, target: &Target) -> Result<Vec<Task>, Error> {
    let projection = cx.events.projection();
    match target {
        Target::Task(id) => projection
            .task(id)
            .map(|t| vec![t.clone()])
            .ok_or_else(|| Error::NoSuchTask(id.0.clone())),
        Target::Context(ctx) => Ok(projection
            .tasks()
            .into_iter()
            .filter(|t| &t.context_id == ctx)
            .cloned()
            .collect()),
    }
}

/// `task.wait`.
pub fn wait(cx: &mut Cx<'_>, conn: ConnId, p: TaskWaitParams) -> Routed {
    let target = match (p.task_id, p.context_id) {
        (Some(id), None) => Target::Task(id),
        (None, Some(ctx)) => Target::Context(ctx),
        _ => {
            return fail(Err(Error::BadParams(
                "task.wait needs exactly one of task_id and context_id".into(),
            )));
        },
    };
    let wanted = match parse_until(p.until.as_ref()) {
        Ok(w) => w,
        Err(e) => return fail(Err(e)),
    };
    let timeout = Duration::from_secs(p.timeout_s.unwrap_or(3600));
    let Some(deadline) = Instant::now().checked_add(timeout) else {
        return fail(Err(Error::BadParams("timeout_s is too large".into())));
    };
    look(cx, conn, target, wanted, deadline)
}

fn look(
    cx: &mut Cx<'_>,
    conn: ConnId,
    target: Target,
    wanted: Vec<Wanted>,
    deadline: Instant,
) -> Routed {
    let tasks = match watched(cx, &target) {
        Ok(tasks) => tasks,
        Err(e) => return fail(Err(e)),
    };
    let satisfied = tasks
        .iter()
        .all(|t| wanted.iter().any(|w| w.holds(t.state)));
    if satisfied {
        return super::ready(Ok(TaskWaitResult {
            satisfied: true,
            tasks,
        }));
    }
    if cx.shutting_down || !cx.connections.contains_key(&conn) {
        return fail(Err(Error::ShuttingDown));
    }
    if Instant::now() >= deadline {
        return fail(Err(Error::Timeout {
            what: "waiting for the task's state".into(),
            written: None,
        }));
    }
    Box::pin(
        actix_rt::time::sleep(POLL)
            .on_host()
            .then(move |(), act, _| look(&mut act.cx(), conn, target, wanted, deadline)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_takes_states_terminal_settled_and_lists_and_refuses_the_rest() {
        assert_eq!(parse_until(None).unwrap(), [Wanted::Settled]);
        assert_eq!(
            parse_until(Some(&serde_json::json!(["working", "terminal"]))).unwrap(),
            [Wanted::State(TaskState::Working), Wanted::Terminal]
        );
        for bad in [
            serde_json::json!([]),
            serde_json::json!("done"),
            serde_json::json!([1]),
        ] {
            assert!(parse_until(Some(&bad)).is_err(), "{bad}");
        }
        assert!(Wanted::Settled.holds(TaskState::InputRequired));
        assert!(Wanted::Settled.holds(TaskState::Canceled));
        assert!(!Wanted::Settled.holds(TaskState::Working));
        assert!(!Wanted::Terminal.holds(TaskState::InputRequired));
    }
}
