//! Persistence on the Supervisor (spec/persistence.md §6–§8): adopting the
//! world a restore rebuilt, and writing the snapshot — every 2 s when due,
//! off the event loop, and once more when the server stops.

use super::Supervisor;
use crate::pane::Pane;
use crate::registry::PaneEntry;
use crate::restore::Restored;
use crate::snapshot::{self, Snapshot};
use crate::workspace::Workspace as WorkspaceActor;
use actix::prelude::*;
use signaltty_protocol::{PaneId, Seq, WorkspaceId};
use std::collections::HashMap;

/// When the snapshot is written (spec/persistence.md §6.1): every state event
/// marks it due; a flusher writes a due one at most every
/// `limits.snapshot_interval`, off the event loop, one at a time.
#[derive(Debug, Default)]
pub(super) struct Snapshots {
    /// The state directory, when the server has one (not in some actor tests).
    pub(super) dir: Option<std::path::PathBuf>,
    /// The projection's seq when the last snapshot was taken.
    pub(super) taken_at: Option<Seq>,
    /// A write is in flight.
    pub(super) writing: bool,
    /// The output offset of each pane's tail on disk: an unchanged pane's
    /// tail is not written again.
    pub(super) tails_at: HashMap<PaneId, u64>,
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
        for pane in projection.all_panes() {
            let tail = tails.get(&pane.id).cloned();
            let (events, pty_out) = (addr.clone().recipient(), addr.clone().recipient());
            let config = self.config.clone();
            let state = signaltty_protocol::pane::Pane::clone(&pane);
            let pane_addr = Pane::start_in_arbiter(&self.arbiters.next_arbiter(), move |_| {
                Pane::tombstone(state, tail.as_deref(), events, pty_out, &config)
            });
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
                    pid: 0,
                },
            ));
        }
        for ws in projection.workspaces() {
            let tabs = projection.tabs_of(&ws);
            let panes = panes_of.remove(&ws.id).unwrap_or_default();
            let ws_addr =
                WorkspaceActor::restored(ws.clone(), tabs.clone(), panes, addr.clone().recipient())
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
    }

    /// Writes a snapshot if one is due and none is being written: the panes'
    /// tails are asked for, then the files are written on a blocking thread.
    pub(super) fn flush_snapshot(&mut self, ctx: &mut Context<Self>) {
        let Some(dir) = self.snapshots.dir.clone() else {
            return;
        };
        let seq = self.events.head();
        if self.snapshots.writing || self.snapshots.taken_at == Some(seq) {
            return;
        }
        self.snapshots.writing = true;
        let on_loop = std::time::Instant::now();
        let snapshot = self.snapshot_now(seq);
        let built = on_loop.elapsed();
        let panes: Vec<(Addr<Pane>, Option<u64>)> = self
            .registry
            .panes()
            .map(|e| (e.addr.clone(), self.snapshots.tails_at.get(&e.id).copied()))
            .collect();
        log::debug!(
            "snapshot at seq {seq}: {} µs on the event loop ({} µs to copy the state)",
            on_loop.elapsed().as_micros(),
            built.as_micros()
        );
        let started = std::time::Instant::now();
        // Asking 200 panes is itself work: it runs on a pane arbiter, so the
        // Supervisor's turn ends with the copy above.
        let gather = async move {
            let asks = panes
                .into_iter()
                .map(|(addr, saved_at)| addr.send(crate::pane::ReadTail { saved_at }));
            // A pane that is gone (closed meanwhile) has no tail to keep; an
            // unchanged one answers nothing and keeps the tail on disk.
            let fresh: Vec<(PaneId, u64, String)> = futures_util::future::join_all(asks)
                .await
                .into_iter()
                .filter_map(|r| r.ok().flatten())
                .collect();
            let offsets: Vec<(PaneId, u64)> =
                fresh.iter().map(|(id, at, _)| (id.clone(), *at)).collect();
            let tails: Vec<(PaneId, String)> =
                fresh.into_iter().map(|(id, _, text)| (id, text)).collect();
            actix_rt::task::spawn_blocking(move || snapshot::save(&dir, &snapshot, &tails))
                .await
                .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
                .map(|()| offsets)
        };
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        self.arbiters.next_arbiter().spawn(async move {
            let _ = done_tx.send(gather.await);
        });
        let write = async move {
            done_rx
                .await
                .unwrap_or_else(|_| Err(std::io::Error::other("the snapshot task was dropped")))
        };
        ctx.spawn(write.into_actor(self).map(move |written, sup, _| {
            sup.snapshots.writing = false;
            match written {
                Ok(offsets) => {
                    if let Some(disk) = sup.events.disk() {
                        disk.snapshot_saved(seq);
                    }
                    let panes = offsets.len();
                    sup.snapshots.tails_at.extend(offsets);
                    log::debug!(
                        "snapshot at seq {seq} written in {} µs with {panes} changed tail(s)",
                        started.elapsed().as_micros()
                    );
                    sup.snapshots.taken_at = Some(seq)
                },
                Err(e) => log::warn!("cannot write the snapshot: {e}"),
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
    }

    /// Writes the snapshot now, on this thread: the server is stopping.
    pub(super) fn save_snapshot_now(&mut self) {
        let Some(dir) = self.snapshots.dir.clone() else {
            return;
        };
        let seq = self.events.head();
        if self.snapshots.taken_at == Some(seq) {
            return;
        }
        // The panes' tails are those of the last flush: asking the panes
        // cannot wait here, and `save` keeps the tail on disk of every pane
        // in the snapshot (it prunes only those of panes that are gone).
        let snapshot = self.snapshot_now(seq);
        match snapshot::save(&dir, &snapshot, &[]) {
            Ok(()) => {
                if let Some(disk) = self.events.disk() {
                    disk.snapshot_saved(seq);
                }
                self.snapshots.taken_at = Some(seq)
            },
            Err(e) => log::warn!("cannot write the snapshot at shutdown: {e}"),
        }
    }
}
