//! `task.wait` (docs/tasks.md#waiting-for-tasks): one task, or every task of
//! a context, until it is in one of the wanted states (`terminal`,
//! `settled`, or a state). Connection-bound and single-flight like `wait`:
//! the client going away (or sending another line, which closes the
//! connection) and the shutdown end it. A read-only poll: it looks now, then
//! every 50 ms through [`WatchTasks`], answered from the projection; task
//! state lives on without it.

use super::{Cx, Routed, answer, fail};
use crate::actors::services::WatchTasks;
use crate::domain::task::wait::{Wanted, Watched, look as look_at, parse_until};
use crate::error::Error;
use crate::ids::ConnId;
use signaltty_protocol::task::{Task, TaskWaitParams, TaskWaitResult};
use std::time::{Duration, Instant};

/// How often the tasks are looked at.
const POLL: Duration = Duration::from_millis(50);

/// One look: the watched tasks once each is in a wanted state, none while
/// some is not; `NO_SUCH_TASK`, or `SHUTTING_DOWN` when the server stops or
/// the waiting connection is gone.
pub(super) fn look(
    cx: &Cx<'_>,
    conn: ConnId,
    watched: &Watched,
    wanted: &[Wanted],
) -> Result<Option<Vec<Task>>, Error> {
    let found = look_at(cx.events.projection(), watched, wanted)?;
    if found.is_none() && (cx.shutting_down || !cx.connections.contains_key(&conn)) {
        return Err(Error::ShuttingDown);
    }
    Ok(found)
}

/// `task.wait`.
pub fn wait(cx: &mut Cx<'_>, conn: ConnId, p: TaskWaitParams) -> Routed {
    let watched = match (p.task_id, p.context_id) {
        (Some(id), None) => Watched::Task(id),
        (None, Some(ctx)) => Watched::Context(ctx),
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
    let mut looked = look(cx, conn, &watched, &wanted);
    let me = cx.me.clone();
    answer(async move {
        loop {
            if let Some(tasks) = looked? {
                return Ok(TaskWaitResult {
                    satisfied: true,
                    tasks,
                });
            }
            if Instant::now() >= deadline {
                return Err(Error::Timeout {
                    what: "waiting for the task's state".into(),
                    written: None,
                });
            }
            actix_rt::time::sleep(POLL).await;
            let Some(me) = &me else {
                return Err(Error::ShuttingDown);
            };
            let asked = WatchTasks {
                watched: watched.clone(),
                wanted: wanted.clone(),
                conn,
            };
            looked = me.send(asked).await.unwrap_or(Err(Error::ShuttingDown));
        }
    })
}
