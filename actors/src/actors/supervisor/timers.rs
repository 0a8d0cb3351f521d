//! What the Supervisor looks at on a timer: the live panes' processes in
//! `/proc` (every 10 s, docs/terminal.md), and the working tasks whose worker
//! has gone silent (docs/tasks.md#the-silent-worker-watchdog).

use super::Supervisor;
use actix::prelude::*;
use signaltty_protocol::pane::LiveState;

/// How often working tasks' workers are checked for silence
/// (docs/tasks.md#the-silent-worker-watchdog).
pub(super) const WATCHDOG_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

impl Supervisor {
    /// The silent-worker watchdog (docs/tasks.md#the-silent-worker-watchdog): a
    /// `working` task whose worker pane has had no output and no hook for the
    /// timeout needs input.
    pub(super) fn watch_silent_workers(&mut self) {
        let timeout = self.config.limits.worker_silent_timeout;
        let projection = self.events.projection();
        let working = projection
            .tasks()
            .into_iter()
            .filter(|t| t.state == signaltty_protocol::task::TaskState::Working)
            .filter_map(|t| {
                let pane = t.pane_id.as_ref().and_then(|p| projection.pane(p))?;
                Some((t.id.clone(), pane))
            });
        let silent = silent_workers(
            working,
            &mut self.activity_ages,
            std::time::Instant::now(),
            timeout,
        );
        for id in silent {
            if let Some(actor) = self.tasks.get(&id) {
                actor.do_send(crate::actors::task::Transition {
                    to: signaltty_protocol::task::TaskState::InputRequired,
                    reason: Some(serde_json::json!({
                        "reason": "worker_silent",
                        "timeout_s": timeout.as_secs(),
                    })),
                });
            }
        }
    }
}

impl Supervisor {
    /// The process refresh (docs/agents.md#process-detection): reads `/proc`
    /// once on a blocking thread and tells each live pane what it runs now; the
    /// panes decide whether that changes anything.
    pub(super) fn refresh_processes(&mut self, ctx: &mut Context<Self>) {
        if self.refreshing || self.shutting_down || self.upgrading.is_some() {
            return;
        }
        // Many panes closed since the last look: their memory goes back
        // (docs/panes.md#how-many-panes).
        if crate::os::malloc::panes_went_away() {
            actix_rt::task::spawn_blocking(|| {
                crate::os::malloc::give_back();
                log::info!("malloc: freed memory given back after panes went away");
            });
        }
        let projection = self.events.projection();
        let panes: Vec<(u32, Addr<crate::actors::pane::Pane>)> = self
            .registry
            .panes()
            .filter(|e| {
                projection
                    .pane(&e.id)
                    .is_some_and(|p| p.live == LiveState::Live)
            })
            .map(|e| (e.pid, e.addr.clone()))
            .collect();
        if panes.is_empty() {
            return;
        }
        self.refreshing = true;
        let scan = actix_rt::task::spawn_blocking(move || crate::os::procfs::scan_panes(panes));
        ctx.spawn(scan.into_actor(self).map(|seen, sup, _| {
            sup.refreshing = false;
            for (addr, seen) in seen.unwrap_or_default() {
                addr.do_send(crate::actors::pane::ProcessSeen { seen });
            }
        }));
    }
}

/// The tasks among `working` (a task and its worker pane) whose worker has
/// shown the same `last_activity_at` for `timeout` of monotonic time as of
/// `now`; panes no longer watched are forgotten. A step of the wall clock
/// changes no answer: the timestamp is only compared for a change.
pub(super) fn silent_workers<'p, T>(
    working: impl IntoIterator<Item = (T, &'p signaltty_protocol::pane::Pane)>,
    ages: &mut crate::domain::ages::Ages<signaltty_protocol::PaneId>,
    now: std::time::Instant,
    timeout: std::time::Duration,
) -> Vec<T> {
    let mut watched = std::collections::HashSet::new();
    let silent = working
        .into_iter()
        .filter(|(_, pane)| {
            watched.insert(pane.id.clone());
            ages.age(&pane.id, Some(&pane.last_activity_at), now) >= timeout
        })
        .map(|(task, _)| task)
        .collect();
    ages.retain(|p| watched.contains(p));
    silent
}

#[cfg(test)]
mod tests;
