//! Auto-resume (docs/restore.md#auto-resume): after a restart, the `RESUMABLE`
//! panes of workspaces that opted in (`workspace.set_auto_resume`) start again
//! with their adapter's exact-session command — never a self-reported one — a
//! few at a time, so twenty agents do not all boot at once: at most
//! `limits.restore_max_parallel` are starting, panes that were blocked or
//! working first, and the next one starts when an earlier one has reached a
//! prompt (idle, blocked, done, failed or exited) or `restore_start_wait` has
//! passed.

use super::Supervisor;
use crate::domain::state::progress::Outcome;
use crate::domain::waits::Wanted;
use crate::ids::ConnId;

use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{Lifecycle, Pane, RestoreState};
use std::collections::VecDeque;

/// The connection id of the server's own waits: never a client's (those count up from 1).
const SERVER_CONN: ConnId = ConnId(u64::MAX);

/// The panes waiting to be auto-resumed, and how many are starting.
#[derive(Debug, Default)]
pub(super) struct AutoResume {
    queue: VecDeque<PaneId>,
    starting: usize,
}

/// The auto-resume order of `panes`: those of opted-in workspaces that are
/// `RESUMABLE`, blocked and working ones first, then in creation order.
pub fn order<'a>(
    panes: impl IntoIterator<Item = &'a Pane>,
    opted_in: impl Fn(&Pane) -> bool,
) -> Vec<PaneId> {
    let mut chosen: Vec<&Pane> = panes
        .into_iter()
        .filter(|p| p.restore_state == RestoreState::Resumable && p.agent.resume_argv.is_some())
        .filter(|p| opted_in(p))
        .collect();
    let rank = |p: &Pane| match p.lifecycle {
        Lifecycle::Blocked => 0,
        Lifecycle::Working => 1,
        _ => 2,
    };
    chosen.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| a.created_at.cmp(&b.created_at))
            .then_with(|| a.id.cmp(&b.id))
    });
    chosen.into_iter().map(|p| p.id.clone()).collect()
}

impl Supervisor {
    /// Queues the restored panes to auto-resume and starts the first ones.
    pub(super) fn begin_auto_resume(&mut self, ctx: &mut Context<Self>) {
        let projection = self.events.projection();
        let queue = order(projection.panes(), |p| {
            projection
                .workspace(&p.workspace_id)
                .is_some_and(|w| w.auto_resume)
        });
        if queue.is_empty() {
            return;
        }
        log::info!("auto-resume: {} pane(s) to resume", queue.len());
        self.auto.queue = queue.into();
        self.auto_resume_next(ctx);
    }

    /// Starts queued panes while fewer than the limit are starting.
    fn auto_resume_next(&mut self, ctx: &mut Context<Self>) {
        while self.auto.starting < self.config.limits.restore_max_parallel.max(1)
            && !self.shutting_down
        {
            let Some(pane) = self.auto.queue.pop_front() else {
                return;
            };
            self.auto.starting += 1;
            let resumed = crate::actors::supervisor::router::resume(&mut self.cx(), &pane);
            ctx.spawn(resumed.map(move |reply, sup, ctx| match reply.result {
                Ok(_) => sup.await_prompt(pane, ctx),
                Err(e) => {
                    log::warn!("auto-resume of {pane} failed: {e}");
                    sup.auto_resume_done(ctx);
                },
            }));
        }
    }

    /// Counts `pane` as starting until it reaches a prompt or the wait ends.
    fn await_prompt(&mut self, pane: PaneId, ctx: &mut Context<Self>) {
        let until = ["idle", "blocked", "done", "failed", "exited"]
            .into_iter()
            .filter_map(|name| Outcome::parse(name).map(|o| (name.to_owned(), o)))
            .collect();
        let answered = self.events.wait(
            SERVER_CONN,
            Wanted {
                pane,
                until,
                after: None,
            },
        );
        let wait = self.config.limits.restore_start_wait;
        let prompt = async move {
            // Either way the slot frees: a prompt, a failure, or the time is up.
            let _ = tokio::time::timeout(wait, answered).await;
        };
        ctx.spawn(
            prompt
                .into_actor(self)
                .map(|(), sup, ctx| sup.auto_resume_done(ctx)),
        );
    }

    fn auto_resume_done(&mut self, ctx: &mut Context<Self>) {
        self.auto.starting = self.auto.starting.saturating_sub(1);
        self.auto_resume_next(ctx);
    }
}

#[cfg(test)]
mod tests;
