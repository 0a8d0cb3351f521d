//! What the journal files can prove ([`DiskHistory`]), shared by the journal
//! thread, which writes them, and the Supervisor, which reads them for
//! replays; and the gate that makes a rotation wait for a snapshot.

use parking_lot::Mutex;
use signaltty_model::journal::Paths;
use signaltty_model::journal::history::{self, StoredRecord};
use signaltty_protocol::Seq;
use std::fs::{self, File};
use std::io::Read;

/// What the disk can prove, shared by the journal thread (which writes it) and the
/// Supervisor (which reads history for `subscribe`).
#[derive(Debug)]
pub struct DiskHistory {
    pub(super) paths: Paths,
    /// Held while rotating and while a reader opens the two files, so a reader never
    /// sees half a rotation. Open descriptors stay valid across later renames.
    pub(super) files: Mutex<()>,
    pub(super) state: Mutex<DiskState>,
    /// Rotation waits for the snapshot: see [`DiskHistory::gate_rotation`].
    pub(super) gate: Mutex<RotationGate>,
}

/// Whether a rotation may discard the predecessor yet. Discarding events no
/// snapshot covers would leave a restart unable to prove the world, so while
/// the server writes snapshots a rotation waits until the newest snapshot is
/// at or past the last event it would discard — but never while the current
/// file passes [`ROTATION_HARD_FACTOR`] times the cap: the disk stays bounded,
/// and a restore after that says what it could not prove.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RotationGate {
    /// Rotations wait for snapshots (off: they rotate at the cap, as a
    /// journal without snapshots must).
    enabled: bool,
    /// The seq of the newest snapshot written.
    snapshot_seq: u64,
    /// A rotation is waiting for a snapshot.
    waiting: bool,
}

/// How far past its cap the current file may grow while a rotation waits for
/// a snapshot.
pub const ROTATION_HARD_FACTOR: u64 = 4;

#[derive(Debug, Clone, Copy)]
pub(super) struct DiskState {
    /// No loss detected since the files were opened (and before, per the record).
    pub(super) complete: bool,
    pub(super) retained_after: u64,
    /// Exact length of `audit.jsonl` after the last synced append.
    pub(super) current_len: u64,
    /// Exact length of `audit.jsonl.1`, `None` when there is none.
    pub(super) predecessor_len: Option<u64>,
}

impl DiskHistory {
    /// The seq after which the files prove every state event, if they do right
    /// now. A generation found missing, shorter or changed is loss: the verdict
    /// sticks and the journal writes it down.
    pub fn coverage(&self) -> Option<Seq> {
        let mut state = self.state.lock();
        if !state.complete {
            return None;
        }
        let current = fs::metadata(&self.paths.current).map(|m| m.len()).ok();
        let predecessor = fs::metadata(&self.paths.predecessor).map(|m| m.len()).ok();
        // The current file may be longer than recorded while an append is in flight.
        let intact = current.is_some_and(|len| len >= state.current_len)
            && predecessor == state.predecessor_len;
        if !intact {
            log::error!(
                "journal files changed under the server: disk history is no longer complete"
            );
            state.complete = false;
            return None;
        }
        Some(Seq(state.retained_after))
    }

    /// Both generations opened together, predecessor first, under the
    /// rotation lock: later renames do not change what the descriptors read.
    pub fn open_generations(&self) -> Result<(Option<File>, File), String> {
        let _files = self.files.lock();
        let predecessor = File::open(&self.paths.predecessor).ok();
        let current =
            File::open(&self.paths.current).map_err(|e| format!("cannot open the journal: {e}"))?;
        Ok((predecessor, current))
    }

    /// Every record with `after < seq <= through`, predecessor first.
    pub fn read(&self, after: Seq, through: Seq) -> Result<Vec<StoredRecord>, String> {
        let (predecessor, current) = self.open_generations()?;
        let mut out = Vec::new();
        for (name, file) in [
            ("audit.jsonl.1", predecessor),
            ("audit.jsonl", Some(current)),
        ] {
            let Some(mut file) = file else { continue };
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read {name}: {e}"))?;
            out.extend(
                history::records_in_range(&bytes, after, through)
                    .map_err(|e| format!("{name}: {e}"))?,
            );
        }
        Ok(out)
    }

    pub(super) fn is_complete(&self) -> bool {
        self.state.lock().complete
    }

    /// From now on a rotation waits for a snapshot that covers what it would
    /// discard (the server writes snapshots).
    pub fn gate_rotation(&self) {
        self.gate.lock().enabled = true;
    }

    /// A snapshot at `seq` is on disk: rotations up to it may go ahead.
    pub fn snapshot_saved(&self, seq: Seq) {
        let mut gate = self.gate.lock();
        gate.snapshot_seq = gate.snapshot_seq.max(seq.0);
    }

    #[cfg(test)]
    /// A rotation is waiting for a snapshot (the flusher writes one at once).
    pub fn rotation_waiting(&self) -> bool {
        self.gate.lock().waiting
    }

    /// May the predecessor, whose newest event is `discarded_max`, be
    /// discarded now, with the current file at `len` of `cap` bytes?
    pub(super) fn may_rotate(&self, discarded_max: Option<u64>, len: u64, cap: u64) -> bool {
        let mut gate = self.gate.lock();
        let covered = discarded_max.is_none_or(|max| max <= gate.snapshot_seq);
        let forced = len >= cap.saturating_mul(ROTATION_HARD_FACTOR);
        let may = !gate.enabled || covered || forced;
        gate.waiting = !may;
        may
    }
}
