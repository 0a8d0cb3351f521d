//! Restore after a restart (docs/persistence.md#loading-a-snapshot,
//! docs/restore.md#rebuilding-the-world): the world is the snapshot plus every
//! journaled state event after the snapshot's seq, so an acknowledged change is
//! never lost, whenever the server was killed. Then every pane becomes a
//! tombstone (docs/restore.md#tombstones): no process is started.
//!
//! ```text
//!   snapshot.json (seq S) ──► Projection::restored
//!   journal: events S+1 ..  ──► Projection::apply, in order
//!   every pane ─────────────► tombstone: live → exited, RESTORED/RESUMABLE/EXITED,
//!                             native decisions read-only
//! ```
//!
//! Without a usable snapshot, the journal alone rebuilds the world when its
//! files still hold every event from the first one; otherwise the server
//! starts empty and says why. Blocking (reads files): run it before the actors
//! start, or on a blocking thread.

use crate::domain::projection::Projection;
use crate::store::journal::file::DiskHistory;
use crate::store::snapshot::{self, LoadProblem, Loaded};
use signaltty_protocol::pane::{LiveState, Pane, RestoreState};
use signaltty_protocol::state::Decision;
use signaltty_protocol::{Event, PaneId, Seq};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a restore rebuilt.
#[derive(Debug)]
pub struct Restored {
    /// The world, at the head.
    pub projection: Projection,
    /// The saved tails of the restored panes.
    pub tails: HashMap<PaneId, String>,
    /// How it was rebuilt.
    pub report: RestoreReport,
}

/// How a restore went, for the log and `server.status`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RestoreReport {
    /// The seq of the snapshot used, if one was.
    pub snapshot_seq: Option<Seq>,
    /// Journal events applied after it.
    pub journal_events: usize,
    /// A snapshot that could not be used, and where it was moved.
    pub moved_aside: Option<(String, PathBuf)>,
    /// What could not be proven (the journal no longer holds every event
    /// after the snapshot, or it could not be read).
    pub unproven: Option<String>,
    /// Snapshots moved aside by this or an earlier start, still in the state
    /// directory for a person to look at (said at every start until removed).
    pub set_aside: Vec<PathBuf>,
}

/// Rebuilds the world from `state_dir`'s snapshot and the journal behind
/// `disk`, up to `head` (the store's head); the saved tails are read cut to
/// `tail_cap` bytes (`limits.history_tail_bytes`), whatever cap wrote them.
/// The panes in `live` kept their process across an in-place upgrade
/// (docs/upgrade.md) and are not made tombstones.
pub fn restore(
    state_dir: &Path,
    disk: &DiskHistory,
    head: Seq,
    tail_cap: usize,
    live: &std::collections::HashSet<PaneId>,
) -> Restored {
    let mut report = RestoreReport::default();
    let loaded = snapshot::load(state_dir).unwrap_or_else(|e| {
        // Nothing was moved: the file (if any) stays for the next start.
        let why = format!("cannot read the snapshot in {}: {e}", state_dir.display());
        log::error!("{why}, restoring from the journal alone");
        report.unproven = Some(why);
        Loaded::Missing
    });
    let (mut projection, after) = match loaded {
        Loaded::Snapshot(s) => {
            report.snapshot_seq = Some(s.seq);
            let mut projection = Projection::restored(s.seq, s.workspaces, s.tabs, s.panes);
            projection.restore_notifications(s.notifications);
            projection.restore_tasks(s.tasks);
            (projection, s.seq)
        },
        Loaded::Missing => (Projection::new(Seq(0)), Seq(0)),
        Loaded::MovedAside { problem, to } => {
            let why = match problem {
                LoadProblem::Corrupt(why) => format!("unreadable snapshot ({why})"),
                LoadProblem::Unsupported(v) => format!("snapshot of unknown version {v}"),
            };
            log::error!(
                "{why}: moved to {}, restoring from the journal alone",
                to.display()
            );
            report.moved_aside = Some((why, to));
            (Projection::new(Seq(0)), Seq(0))
        },
    };
    match suffix(disk, after) {
        Ok(events) => {
            report.journal_events = events.len();
            for (seq, event) in events {
                projection.apply(seq, event);
            }
        },
        Err(why) => {
            log::error!("restore: {why}");
            if report.snapshot_seq.is_none() {
                // Half a history applied to nothing would invent a world: start empty.
                projection = Projection::new(Seq(0));
            }
            report.unproven = Some(why);
        },
    }
    projection.finish_restore(head, |pane| {
        if live.contains(&pane.id) {
            reporter_gone(pane);
        } else {
            tombstone(pane);
        }
    });
    report.set_aside = set_aside(state_dir);
    for path in &report.set_aside {
        log::warn!(
            "a snapshot this server could not use is kept at {} (remove it once looked at)",
            path.display()
        );
    }
    let tails = projection
        .all_panes()
        .into_iter()
        .filter_map(|p| snapshot::read_tail(state_dir, &p.id, tail_cap).map(|t| (p.id.clone(), t)))
        .collect();
    Restored {
        projection,
        tails,
        report,
    }
}

/// The snapshots moved aside in `state_dir`, oldest name first.
fn set_aside(state_dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(state_dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    name.starts_with("snapshot.corrupt-")
                        || name.starts_with("snapshot.unsupported-")
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// The journal's state events after `after`, in order, if the files prove
/// every one of them.
fn suffix(disk: &DiskHistory, after: Seq) -> Result<Vec<(Seq, Event)>, String> {
    match disk.coverage() {
        Some(from) if from <= after => {},
        Some(from) => {
            return Err(format!(
                "the journal holds events only after seq {from}, the snapshot ends at {after}"
            ));
        },
        None => return Err("the journal cannot prove its history".into()),
    }
    let records = disk.read(after, Seq(u64::MAX))?;
    let mut events = Vec::with_capacity(records.len());
    for r in records {
        let framed = serde_json::json!({"event": r.event, "payload": r.payload});
        match serde_json::from_value::<Event>(framed) {
            Ok(event) => events.push((Seq(r.seq), event)),
            // An event this server cannot read (written by a newer one) is
            // skipped with a word, not allowed to stop the restore.
            Err(e) => log::warn!(
                "restore: skipping journal record {} ({}): {e}",
                r.seq,
                r.event
            ),
        }
    }
    Ok(events)
}

/// A restored pane (docs/restore.md#tombstones): its process died with the old
/// server, so a live pane is exited with an unknown code (never an invented
/// one) and is `RESUMABLE` when its adapter can resume its session, else
/// `RESTORED`; a pane that had already exited stays `EXITED`. A native
/// permission decision becomes read-only: the reporter that could take its
/// answer is gone. Lifecycle, attention and `last_message` are kept. A
/// hibernated pane stays `HIBERNATED`.
pub fn tombstone(pane: &mut Pane) {
    // A hibernated pane had no process to lose: it stays hibernated until a
    // prompt, input or attach wakes it (docs/restore.md#hibernation).
    if pane.restore_state == RestoreState::Hibernated {
        reporter_gone(pane);
        return;
    }
    let restored_before = matches!(
        pane.restore_state,
        RestoreState::Restored | RestoreState::Resumable
    );
    pane.restore_state = if pane.live == LiveState::Live || restored_before {
        // Live when the server went away, or a tombstone of an earlier restart
        // that was never resumed: it comes back as what it was.
        resumable_or_restored(pane)
    } else {
        RestoreState::Exited
    };
    if pane.live == LiveState::Live {
        pane.live = LiveState::Exited { code: None };
    }
    reporter_gone(pane);
}

/// The reporter that could take a native permission decision's answer is
/// gone (a restart, or an upgrade's exec closed its connection): the
/// decision becomes read-only; the agent asks in its own terminal.
pub fn reporter_gone(pane: &mut Pane) {
    if let Some(d) = &mut pane.pending_decision
        && d.id.starts_with(Decision::NATIVE_PREFIX)
    {
        d.answerable = false;
    }
}

fn resumable_or_restored(pane: &Pane) -> RestoreState {
    if signaltty_model::agents::programs::comes_back_resumable(pane) {
        RestoreState::Resumable
    } else {
        RestoreState::Restored
    }
}

#[cfg(test)]
mod tests;
