//! The Supervisor's side of tasks (docs/tasks.md): the book of their actors
//! kept true by the starts' tickets, a start routed again while another
//! holds its key, a look of `task.wait`, and the kit a Task actor works
//! with. The workflows themselves are the Task actor's (`actors/task/`).

use super::Supervisor;
use crate::actors::services::{Services, StartEnded, StartTask, WatchTasks};
use crate::actors::task::Kit;
use crate::config::Config;
use crate::domain::worktrees::Checkouts;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::task::{Task, TaskStartResult};

/// What a Task actor works with, reaching this Supervisor at `me`.
pub(super) fn kit(me: &Addr<Supervisor>, config: &Config, checkouts: &Checkouts) -> Kit {
    Kit {
        services: Services {
            publish: me.clone().recipient(),
            workspace: me.clone().recipient(),
            start_pane: me.clone().recipient(),
            find_pane: me.clone().recipient(),
            view_pane: me.clone().recipient(),
            waits: me.clone().recipient(),
            live_panes: me.clone().recipient(),
            close_at: me.clone().recipient(),
        },
        os: config.os.clone(),
        checkouts: checkouts.clone(),
        merge_timeout: config.limits.merge_timeout,
    }
}

impl Supervisor {
    /// Starts the queued tasks whose turn came, fails those that never
    /// will (docs/tasks.md#the-task-queue).
    pub(super) fn drain_task_queue(&mut self) {
        super::router::drain_task_queue(&mut self.cx());
    }
}

impl Handler<StartEnded> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: StartEnded, _ctx: &mut Self::Context) {
        // Committed (or not): the slot and the key are given back either way
        // (docs/tasks.md#the-parallel-task-cap).
        if msg.slot {
            self.tasks.release();
        }
        self.tasks.launched(&msg.task);
        if let Some(key) = &msg.key {
            self.tasks.free_key(key);
        }
        if !msg.committed {
            self.tasks.remove(&msg.task);
        }
        // A slot may have come free.
        self.drain_task_queue();
    }
}

impl Handler<StartTask> for Supervisor {
    type Result = ResponseFuture<Result<TaskStartResult, Error>>;

    fn handle(&mut self, msg: StartTask, _ctx: &mut Self::Context) -> Self::Result {
        super::router::start_task(&mut self.cx(), msg.0)
    }
}

impl Handler<WatchTasks> for Supervisor {
    type Result = Result<Option<Vec<Task>>, Error>;

    fn handle(&mut self, msg: WatchTasks, _ctx: &mut Self::Context) -> Self::Result {
        super::router::look_tasks(&self.cx(), msg.conn, &msg.watched, &msg.wanted)
    }
}
