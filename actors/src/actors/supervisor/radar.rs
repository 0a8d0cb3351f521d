//! The Supervisor's side of the conflict radar (docs/tasks.md#conflict-radar):
//! it starts the `ConflictRadar` actor and feeds it, once events are
//! applied, the watched tasks of each repository where a task changed or a
//! worker's turn ended; at start it hands it the collisions the projection
//! holds and asks for a first pass of every repository.

use super::Supervisor;
use super::sequencer::Applied;
use crate::actors::radar::{Check, ConflictRadar, Seed};
use crate::domain::projection::Projection;
use crate::domain::task::radar::watched;
use actix::prelude::*;
use signaltty_protocol::pane::Lifecycle;
use signaltty_protocol::task::Task;
use signaltty_protocol::{Event, TaskId};
use std::collections::BTreeMap;

impl Supervisor {
    /// Starts the radar, publishing through this Supervisor.
    pub(super) fn start_radar(&self, ctx: &mut Context<Self>) -> Addr<ConflictRadar> {
        ConflictRadar::new(self.config.os.radar_git.clone(), ctx.address().recipient()).start()
    }

    /// Tells the radar of the tasks that changed and the workers whose turn
    /// ended in `applied`: `agent.done` (a screen may have read the worker
    /// `idle` before its turn-end hook), or `idle` from `working`.
    pub(super) fn feed_radar(&mut self, applied: &Applied) {
        let mut moved: Vec<TaskId> = applied.tasks_changed.clone();
        for (task, event) in &applied.worker_events {
            let ended = match &**event {
                Event::AgentDone { .. } => true,
                Event::AgentIdle { prev, .. } => *prev == Lifecycle::Working,
                _ => false,
            };
            if ended {
                moved.push(task.clone());
            }
        }
        if moved.is_empty() {
            return;
        }
        let Some(radar) = &self.radar else {
            return;
        };
        let projection = self.events.projection();
        let mut repos: BTreeMap<String, Vec<TaskId>> = BTreeMap::new();
        for id in moved {
            if let Some(task) = projection.task(&id) {
                repos.entry(task.source_repo.clone()).or_default().push(id);
            }
        }
        for (repo, moved) in repos {
            radar.do_send(Check {
                tasks: Some(watched_in(projection, &repo)),
                repo,
                moved,
                done: None,
            });
        }
    }

    /// After a restart: the collisions the projection holds, then a pass
    /// of every repository with watched tasks.
    pub(super) fn restore_radar(&mut self) {
        let Some(radar) = &self.radar else {
            return;
        };
        let projection = self.events.projection();
        radar.do_send(Seed(projection.conflicts().cloned().collect()));
        let mut repos: Vec<String> = projection
            .conflicts()
            .map(|c| c.repo.clone())
            .chain(
                projection
                    .tasks()
                    .into_iter()
                    .filter(|t| watched(t))
                    .map(|t| t.source_repo.clone()),
            )
            .collect();
        repos.sort();
        repos.dedup();
        for repo in repos {
            let tasks = watched_in(projection, &repo);
            let moved = tasks.iter().map(|t| t.id.clone()).collect();
            radar.do_send(Check {
                repo,
                tasks: Some(tasks),
                moved,
                done: None,
            });
        }
    }
}

/// The watched tasks of `repo`.
pub(super) fn watched_in(projection: &Projection, repo: &str) -> Vec<Task> {
    projection
        .tasks()
        .into_iter()
        .filter(|t| t.source_repo == repo && watched(t))
        .cloned()
        .collect()
}
