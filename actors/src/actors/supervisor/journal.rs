//! What the Supervisor does as events become facts: it sequences what owners
//! publish, and once the journal acknowledges a batch applies it (the
//! Sequencer), then starts what the applied events call for: a turn's
//! baseline capture, a worker's task told of its pane's events, a
//! workspace's git cache refreshed at a turn's end. A journal that cannot
//! write stalls: the Sequencer holds events and the Supervisor retries with a
//! backoff until writes succeed (docs/reliability.md#a-full-disk). A journal
//! failure stops the server (docs/persistence.md#state-events-and-sequence-numbers).

use super::Supervisor;
use crate::actors::publish::Publish;
use crate::domain::turns::TurnStart;
use crate::error::Error;
use crate::os::listener::Accepting;
use crate::store::journal::{JournalAck, JournalFailed, JournalStalled};
use actix::prelude::*;
use signaltty_protocol::Seq;

impl Supervisor {
    /// A journal failure is fatal: nothing unproven may be published.
    pub(super) fn fail_stop(&mut self, why: &str) {
        log::error!("event journal failed, stopping the server: {why}");
        self.events.fail(why);
        // A journal or reservation failure exits with status 1
        // (docs/persistence.md#writing-the-journal).
        self.exit_code = 1;
        let _ = self.stop_accepting.send(Accepting::Stopped);
        self.stopped();
    }

    /// Captures the workspace checkout's tree for a turn that just started, on a
    /// blocking thread, records it as the workspace's baseline (the newest turn
    /// wins) and publishes `workspace.turn_started`, also when the capture failed.
    pub(super) fn capture_turn(&mut self, turn: TurnStart, ctx: &mut Context<Self>) {
        let Some(cwd) = self
            .events
            .projection()
            .workspace(&turn.workspace)
            .map(|w| w.cwd.clone())
        else {
            return;
        };
        let capture = crate::os::git::turns::capture_off_loop(cwd);
        ctx.spawn(capture.into_actor(self).map(move |tree, sup, _| {
            let started = sup.turns.record(turn, tree);
            if sup
                .events
                .projection()
                .workspace(&started.workspace_id)
                .is_some()
            {
                // Nobody waits for this publication; it happens all the same.
                drop(sup.events.publish(vec![started.event()]));
            }
        }));
    }

    /// Recomputes a workspace's git cache (`dirty`, branch) after a turn ended,
    /// on a blocking thread; the Workspace actor publishes `workspace.updated`
    /// only when it changed (docs/diffs.md).
    pub(super) fn refresh_git(
        &mut self,
        workspace: signaltty_protocol::WorkspaceId,
        ctx: &mut Context<Self>,
    ) {
        let Some(cwd) = self
            .events
            .projection()
            .workspace(&workspace)
            .map(|w| std::path::PathBuf::from(&w.cwd))
        else {
            return;
        };
        let Some(addr) = self.registry.workspace_addr(&workspace) else {
            return;
        };
        let work = crate::actors::workspace::refresh_git(
            addr,
            self.config.os.clone(),
            cwd,
            crate::actors::workspace::Refresh::IfChanged,
        );
        ctx.spawn(actix::fut::wrap_future(async move {
            drop(work.await);
        }));
    }
}

impl Handler<Publish> for Supervisor {
    type Result = ResponseFuture<Result<Seq, Error>>;

    fn handle(&mut self, msg: Publish, _ctx: &mut Self::Context) -> Self::Result {
        let rx = self.events.publish_held(msg.events, msg.hold);
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())))
        })
    }
}

impl Handler<JournalAck> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: JournalAck, ctx: &mut Self::Context) {
        let applied = self.events.publish_through(msg.through);
        self.feed_radar(&applied);
        for turn in applied.turn_starts {
            self.capture_turn(turn, ctx);
        }
        // A worker pane's events, once durable, drive its task
        // (docs/tasks.md#the-worker-and-its-task).
        for (task, event) in applied.worker_events {
            if let Some(actor) = self.tasks.get(&task) {
                actor.do_send(crate::actors::task::WorkerEvent(event));
            }
        }
        for workspace in applied.turn_ends {
            self.refresh_git(workspace, ctx);
        }
        // Any task change may let a queued task start (docs/tasks.md#the-task-queue).
        if !applied.tasks_changed.is_empty() {
            self.drain_task_queue();
        }
        self.events.stall_mut().written();
        self.journal_moved();
    }
}

impl Handler<JournalStalled> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: JournalStalled, ctx: &mut Self::Context) {
        log::warn!(
            "the state directory takes no writes ({}: {}); changes are refused and agent events held until it does",
            msg.trouble.path.display(),
            msg.trouble.error
        );
        self.events.stalled(msg.trouble);
        self.arm_journal_retry(ctx);
    }
}

impl Supervisor {
    /// Schedules the next retry of a stalled journal, with its backoff.
    fn arm_journal_retry(&mut self, ctx: &mut Context<Self>) {
        if let Some(wait) = self.events.stall_mut().arm() {
            ctx.run_later(wait, |sup, _| {
                sup.events.stall_mut().fired();
                sup.events.retry();
            });
        }
    }
}

impl Handler<JournalFailed> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: JournalFailed, _ctx: &mut Self::Context) {
        self.fail_stop(&msg.error);
    }
}
