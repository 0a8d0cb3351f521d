//! Persistence on the Supervisor (docs/persistence.md#snapshots,
//! docs/restore.md): adopting the world a restore rebuilt, and writing the
//! snapshot — every 2 s when due, off the event loop, and once more when the
//! server stops.

use super::Supervisor;
use crate::actors::pane::Pane;
use crate::actors::workspace::Workspace as WorkspaceActor;
use crate::domain::registry::PaneEntry;
use crate::store::restore::Restored;
use crate::store::snapshot::{self, SaveReport, Snapshot, TailFiles};
use actix::prelude::*;
use signaltty_model::term::TailSlot;
use signaltty_protocol::{PaneId, Seq, WorkspaceId};
use std::collections::HashMap;

/// How soon after a save that left tails past its budget the next one runs:
/// the rest of a burst follows at once, in short saves with a pause between.
const DEFERRED_TAILS_AFTER: std::time::Duration = std::time::Duration::from_millis(50);

/// When the snapshot is written
/// (docs/persistence.md#when-a-snapshot-is-written): every state event marks it
/// due; a flusher writes a due one at most every `limits.snapshot_interval`,
/// off the event loop, one at a time.
#[derive(Debug, Default)]
pub(super) struct Snapshots {
    /// The state directory, when the server has one (not in some actor tests).
    pub(super) dir: Option<std::path::PathBuf>,
    /// The projection's seq when the last snapshot was taken.
    pub(super) taken_at: Option<Seq>,
    /// A write is in flight.
    pub(super) writing: bool,
    /// The last save left tails past its budget: the next one is due even
    /// with no new event.
    pub(super) tails_deferred: bool,
    /// What is on disk of each pane's tail, so that a save writes only what
    /// changed; locked by the save that uses it.
    pub(super) tails: std::sync::Arc<parking_lot::Mutex<TailFiles>>,
    /// The last save failed (a full disk fails every one: said once).
    pub(super) failing: bool,
}

impl Snapshots {
    /// Nothing written yet; tails cut to `cap` bytes (`limits.history_tail_bytes`).
    pub(super) fn with_tail_cap(cap: usize) -> Snapshots {
        Snapshots {
            tails: std::sync::Arc::new(parking_lot::Mutex::new(TailFiles::default().with_cap(cap))),
            ..Snapshots::default()
        }
    }
}

impl Supervisor {
    /// Starts a Workspace actor per restored workspace and a tombstone Pane
    /// actor per restored pane, registers them, and takes the restored world
    /// as the read model.
    pub(super) fn adopt(&mut self, restored: Restored, ctx: &mut Context<Self>) {
        let Restored {
            projection,
            tails,
            report,
        } = restored;
        let addr = ctx.address();
        let mut panes_of: HashMap<WorkspaceId, HashMap<PaneId, Addr<Pane>>> = HashMap::new();
        let mut entries = Vec::new();
        let mut handed = self
            .takeover
            .as_mut()
            .map(|t| std::mem::take(&mut t.panes))
            .unwrap_or_default();
        for pane in projection.all_panes() {
            let tail = tails.get(&pane.id).cloned();
            let (events, pty_out) = (addr.clone().recipient(), self.events.pty_out());
            let config = self.config.clone();
            let state = signaltty_protocol::pane::Pane::clone(&pane);
            let slot = TailSlot::default();
            let filled = slot.clone();
            let arbiter = self.arbiters.next_arbiter();
            let (pane_addr, pid) = match handed.remove(&pane.id) {
                Some(adopted) => {
                    super::upgrade::start_adopted(adopted, &arbiter, &slot, events, pty_out, config)
                },
                None => (
                    Pane::start_in_arbiter(&arbiter, move |_| {
                        Pane::tombstone(state, tail.as_deref(), events, pty_out, &config)
                            .with_tail_slot(&filled)
                    }),
                    0,
                ),
            };
            panes_of
                .entry(pane.workspace_id.clone())
                .or_default()
                .insert(pane.id.clone(), pane_addr.clone());
            entries.push((
                pane.name.clone(),
                PaneEntry {
                    id: pane.id.clone(),
                    addr: pane_addr,
                    workspace: pane.workspace_id.clone(),
                    tab: pane.tab_id.clone(),
                    pid,
                    tail: slot,
                },
            ));
        }
        for ws in projection.workspaces() {
            let tabs = projection.tabs_of(&ws);
            let panes = panes_of.remove(&ws.id).unwrap_or_default();
            let ws_addr = WorkspaceActor::restored(
                ws.clone(),
                tabs.clone(),
                panes,
                addr.clone().recipient(),
                addr.clone().recipient(),
                self.config.os.clone(),
            )
            .start();
            if let Err(e) = self
                .registry
                .add_workspace(ws.id.clone(), ws.handle.clone(), ws_addr)
            {
                log::error!("restore: workspace {}: {e}", ws.id);
                continue;
            }
            for tab in tabs {
                self.registry.add_tab(tab.id, ws.id.clone());
            }
        }
        for (name, entry) in entries {
            let id = entry.id.clone();
            self.registry.add_pane(entry);
            if let Some(name) = name
                && let Err(e) = self.registry.set_pane_name(&id, Some(&name))
            {
                log::warn!("restore: pane {id} keeps no name: {e}");
            }
        }
        log::info!(
            "restored {} workspace(s), {} pane(s) (snapshot at seq {}, {} journal event(s) after it)",
            projection.workspace_count(),
            projection.pane_count(),
            report
                .snapshot_seq
                .map_or_else(|| "none".to_owned(), |s| s.to_string()),
            report.journal_events
        );
        self.restore_report = report;
        self.events.restore(projection);
        self.adopt_tasks(ctx);
    }

    /// Starts an actor per restored task; a task that was not terminal when
    /// the server stopped fails with `{stage: "restart"}` through the normal
    /// transition (docs/tasks.md#after-a-restart): its worker is gone.
    /// Completed tasks and their checkouts stay as they are.
    fn adopt_tasks(&mut self, ctx: &mut Context<Self>) {
        use signaltty_protocol::task::TaskState;
        let tasks: Vec<_> = self
            .events
            .projection()
            .tasks()
            .into_iter()
            .cloned()
            .collect();
        for task in tasks {
            // A task whose worker kept its process across an upgrade goes on.
            let worker_kept = task
                .pane_id
                .as_ref()
                .and_then(|p| self.events.projection().pane(p))
                .is_some_and(|p| p.live == signaltty_protocol::pane::LiveState::Live);
            // A queued task has no worker yet: it stays in the queue
            // (docs/tasks.md#the-task-queue).
            let live = !task.state.is_terminal() && task.state != TaskState::Queued && !worker_kept;
            let id = task.id.clone();
            let kit = super::tasks::kit(&ctx.address(), &self.config, &self.checkouts);
            let actor = crate::actors::task::TaskActor::restored(task, kit).start();
            if live {
                actor.do_send(crate::actors::task::Transition {
                    to: signaltty_protocol::task::TaskState::Failed,
                    reason: Some(serde_json::json!({"stage": "restart"})),
                });
            }
            self.tasks.insert(id, actor);
        }
        self.drain_task_queue();
    }

    /// Writes a snapshot if one is due and none is being written: the state
    /// is taken here (pointers to the projection's objects), and the tails
    /// and files are written on a blocking thread, which reads every pane's
    /// ring itself.
    pub(super) fn flush_snapshot(&mut self, ctx: &mut Context<Self>) {
        let Some(dir) = self.snapshots.dir.clone() else {
            return;
        };
        let seq = self.events.head();
        let due = self.snapshots.taken_at != Some(seq) || self.snapshots.tails_deferred;
        if self.snapshots.writing || !due {
            return;
        }
        self.snapshots.writing = true;
        self.snapshots.tails_deferred = false;
        let started = std::time::Instant::now();
        let snapshot = self.snapshot_now(seq);
        let taken = started.elapsed();
        let panes = self.tail_slots();
        let tails = std::sync::Arc::clone(&self.snapshots.tails);
        log::debug!(
            "snapshot at seq {seq}: {} µs on the event loop ({} µs to take the state)",
            started.elapsed().as_micros(),
            taken.as_micros()
        );
        let write = actix_rt::task::spawn_blocking(move || {
            let mut tails = tails.lock();
            snapshot::save(
                &dir,
                &snapshot,
                &mut tails,
                &panes,
                snapshot::TailBudget::PERIODIC,
            )
        });
        let write = async move {
            write
                .await
                .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
        };
        ctx.spawn(write.into_actor(self).map(move |written, sup, ctx| {
            sup.snapshots.writing = false;
            match written {
                Ok(report) => {
                    if let Some(disk) = sup.events.disk() {
                        disk.snapshot_saved(seq);
                    }
                    sup.snapshots.failing = false;
                    log_saved(seq, started.elapsed(), &report);
                    sup.snapshots.taken_at = Some(seq);
                    // A burst of new tails is written over several short
                    // saves, one right after the other.
                    if report.tails.deferred > 0 {
                        sup.snapshots.tails_deferred = true;
                        ctx.run_later(DEFERRED_TAILS_AFTER, |sup, ctx| sup.flush_snapshot(ctx));
                    }
                },
                // Said once until a save succeeds: a full disk fails every one.
                Err(e) if sup.snapshots.failing => log::debug!("cannot write the snapshot: {e}"),
                Err(e) => {
                    sup.snapshots.failing = true;
                    log::warn!("cannot write the snapshot (the previous one is kept): {e}");
                },
            }
        }));
    }

    /// The snapshot of the read model at `seq`.
    fn snapshot_now(&self, seq: Seq) -> Snapshot {
        let projection = self.events.projection();
        Snapshot::new(
            seq,
            projection.shared_workspaces(),
            projection.all_tabs(),
            projection.all_panes(),
        )
        .with_notifications(projection.notifications())
        .with_tasks(projection.shared_tasks())
    }

    /// Every registered pane with the slot its ring is read from.
    fn tail_slots(&self) -> Vec<(PaneId, TailSlot)> {
        self.registry
            .panes()
            .map(|e| (e.id.clone(), e.tail.clone()))
            .collect()
    }

    /// Writes the snapshot now, on this thread: the server is stopping. The
    /// tails are read as they are now; a save still in flight finishes
    /// first (they take the tails' lock in turn).
    pub(super) fn save_snapshot_now(&mut self) {
        let Some(dir) = self.snapshots.dir.clone() else {
            return;
        };
        let seq = self.events.head();
        if self.snapshots.taken_at == Some(seq) && !self.snapshots.tails_deferred {
            return;
        }
        let snapshot = self.snapshot_now(seq);
        let panes = self.tail_slots();
        let mut tails = self.snapshots.tails.lock();
        match snapshot::save(
            &dir,
            &snapshot,
            &mut tails,
            &panes,
            snapshot::TailBudget::Everything,
        ) {
            Ok(_) => {
                if let Some(disk) = self.events.disk() {
                    disk.snapshot_saved(seq);
                }
                self.snapshots.taken_at = Some(seq)
            },
            Err(e) => log::warn!("cannot write the snapshot at shutdown: {e}"),
        }
    }
}

/// The debug line of a written snapshot: from the flusher's start to the
/// files written, and what of it went to the tails.
fn log_saved(seq: Seq, took: std::time::Duration, report: &SaveReport) {
    let tails = &report.tails;
    log::debug!(
        "snapshot at seq {seq} written in {} µs with {} changed tail(s) \
         ({} whole, {} appended, {} deferred, {} bytes; {} µs outside the save: queued, reporting back; \
         rings read in {} µs, tails written in {} µs, snapshot.json in {} µs; \
         the writer {} µs on a CPU, {} µs waiting for one)",
        took.as_micros(),
        tails.changed(),
        tails.whole,
        tails.appended,
        tails.deferred,
        tails.bytes,
        took.saturating_sub(report.tails_took + report.snapshot_took)
            .as_micros(),
        tails.read.as_micros(),
        report.tails_took.as_micros(),
        report.snapshot_took.as_micros(),
        report.thread.on_cpu.as_micros(),
        report.thread.waiting.as_micros(),
    );
}
