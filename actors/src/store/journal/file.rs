//! The disk journal: `audit.jsonl` with one predecessor, the retention record and
//! sequence reservations in the state directory
//! (docs/persistence.md#state-events-and-sequence-numbers,
//! docs/persistence.md#the-journal).
//!
//! ```text
//!  state dir/
//!    audit.jsonl            current generation: append + fdatasync per batch
//!    audit.jsonl.1          predecessor (renamed from audit.jsonl at 8 MiB)
//!    audit-retention.json   what the two files claim to hold (durable writes)
//!    event-sequence.json    reservation ceiling (durable writes, blocks of 4096)
//! ```
//!
//! Opening repairs what a crash can leave behind: a torn last line is cut off (its
//! bytes are kept in `audit.jsonl.corrupt-<time>`; it was never synced, so never
//! published), and a rotation interrupted between its steps is finished. Anything
//! else that does not add up (a generation deleted, truncated or replaced, an
//! invalid line, a lost retention record) marks disk history unavailable, and that
//! verdict is written down so it survives restarts.

use super::{AppendError, JournalRecord, JournalStore};
use parking_lot::Mutex;
use signaltty_model::journal::history::{self, FileScan, GAP_EVENT};
use signaltty_model::journal::reservation::{self, BLOCK, ReservationError};
use signaltty_model::journal::retention::Retention;
use signaltty_model::journal::{Paths, durable};
use signaltty_protocol::{Seq, Timestamp};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(test)]
/// Rotate the current file once it holds this many bytes.
pub const ROTATE_BYTES: u64 = signaltty_model::settings::limits::JOURNAL_ROTATE_BYTES;

/// How long after an append the retention record catches up with the file length.
pub const RETENTION_LAG: Duration = Duration::from_millis(200);

mod disk;
pub use disk::DiskHistory;
#[cfg(test)]
use disk::ROTATION_HARD_FACTOR;
use disk::{DiskState, RotationGate};

/// What opening found, for the log.
#[derive(Debug, Default)]
pub struct OpenReport {
    /// Things repaired or found wrong.
    pub notes: Vec<String>,
}

/// The disk journal store.
pub struct FileStore {
    shared: Arc<DiskHistory>,
    file: File,
    /// Length of `audit.jsonl`, all of it synced.
    len: u64,
    /// Inode of the open `audit.jsonl`, to notice it being replaced.
    ino: u64,
    retention: Retention,
    retention_dirty_since: Option<Instant>,
    /// Numbering restarts above this value.
    head: u64,
    /// The durable reservation ceiling.
    reserved: u64,
    rotate_bytes: u64,
    /// Highest seq in `audit.jsonl` and in `audit.jsonl.1`.
    current_max: Option<u64>,
    predecessor_max: Option<u64>,
}

/// Appends one record line, `{"seq":…,"event":…,"payload":…,"at":…}` (the field
/// order of docs/persistence.md#journal-records), from the payload's ready JSON
/// text. The event name and the timestamp are ASCII without quotes or backslashes.
fn write_record(buf: &mut Vec<u8>, r: &JournalRecord) {
    buf.extend_from_slice(
        format!(
            "{{\"seq\":{},\"event\":\"{}\",\"payload\":",
            r.seq.0, r.event
        )
        .as_bytes(),
    );
    if r.payload.is_empty() {
        buf.extend_from_slice(b"{}");
    } else {
        buf.extend_from_slice(&r.payload);
    }
    buf.extend_from_slice(format!(",\"at\":\"{}\"}}\n", r.at.as_str()).as_bytes());
}

fn io_err(what: &str, path: &Path, e: io::Error) -> String {
    format!("{what} {}: {e}", path.display())
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("cannot read", path, e)),
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)
}

impl FileStore {
    /// Opens (or creates) the journal in `dir`, repairs crash leftovers, decides what
    /// disk history can prove, and reserves the first block of numbers. Fails on a
    /// corrupt or lagging reservation and on I/O errors: the server must not start.
    pub fn open(
        dir: &Path,
        rotate_bytes: u64,
    ) -> Result<(FileStore, Arc<DiskHistory>, OpenReport), String> {
        let paths = Paths::new(dir);
        let mut report = OpenReport::default();
        let recorded = match read_optional(&paths.retention)? {
            Some(bytes) => match Retention::parse(&bytes) {
                Some(r) => Some(r),
                None => {
                    report.notes.push(
                        "the retention record is unreadable: disk history is not provable".into(),
                    );
                    Some(Retention {
                        known_complete: false,
                        ..Retention::default()
                    })
                },
            },
            None => None,
        };

        if let Some(r) = recorded {
            finish_interrupted_rotation(&paths, &r, &mut report)?;
        }

        let predecessor_bytes = read_optional(&paths.predecessor)?;
        let mut current_bytes = read_optional(&paths.current)?;
        let mut current_scan = current_bytes
            .as_deref()
            .map(history::scan)
            .unwrap_or_default();
        if current_scan.torn_bytes > 0
            && let Some(bytes) = current_bytes.as_mut()
        {
            cut_torn_tail(&paths, bytes, &current_scan, &mut report)?;
            current_scan = history::scan(bytes);
        }
        let predecessor_scan = predecessor_bytes.as_deref().map(history::scan);

        let valid = current_scan.is_valid()
            && predecessor_scan.as_ref().is_none_or(|p| {
                p.is_valid() && p.torn_bytes == 0 && history::continues(p, &current_scan)
            });
        if !valid {
            report.notes.push(format!(
                "the journal holds invalid or out-of-order lines (audit.jsonl: invalid {:?}, out of order {:?}); disk history is not provable",
                current_scan.invalid, current_scan.out_of_order
            ));
        }
        let current_max = current_scan.max_seq;
        let predecessor_max = predecessor_scan.as_ref().and_then(|p| p.max_seq);
        let journal_max = current_max.max(predecessor_max).unwrap_or(0);
        let current_len = current_bytes.as_ref().map(|b| b.len() as u64);
        let predecessor_len = predecessor_bytes.as_ref().map(|b| b.len() as u64);

        let reservation_exists = paths.reservation.exists();
        let (mut retention, available) = match recorded {
            Some(r) => {
                // A missing current file is fine only where a rotation left it empty.
                let current_seen = current_len.or((r.current_bytes == 0).then_some(0));
                let matches = r.lengths_match(current_seen, predecessor_len);
                if !matches {
                    report.notes.push("a journal generation is missing, shorter or replaced: disk history is not provable".into());
                }
                (r, r.known_complete && matches && valid)
            },
            None => {
                let fresh = valid && journal_max == 0 && !reservation_exists;
                if !fresh {
                    report.notes.push("the journal has no retention record (older server): history before now is not provable".into());
                }
                (
                    Retention {
                        retained_after: journal_max,
                        ..Retention::default()
                    },
                    fresh,
                )
            },
        };
        retention.known_complete = available;
        // Events dropped unrecorded before a `journal.gap` are not provable,
        // even if the record of it was not updated before a crash.
        let last_gap = current_scan
            .last_gap
            .max(predecessor_scan.as_ref().and_then(|p| p.last_gap));
        if let Some(gap) = last_gap {
            retention.retained_after = retention.retained_after.max(gap.saturating_sub(1));
        }
        retention.current_bytes = current_len.unwrap_or(0);
        retention.predecessor = predecessor_len.is_some();
        retention.predecessor_bytes = predecessor_len.unwrap_or(0);
        durable::replace(&paths.retention, &retention.to_bytes())
            .map_err(|e| io_err("cannot write", &paths.retention, e))?;

        let recorded_ceiling =
            reservation::read(&paths.reservation).map_err(|e: ReservationError| e.to_string())?;
        let head = reservation::starting_point(recorded_ceiling, journal_max)
            .map_err(|e| e.to_string())?;
        let reserved = head
            .checked_add(BLOCK)
            .ok_or("the event sequence is exhausted")?;
        reservation::write(&paths.reservation, reserved)
            .map_err(|e| io_err("cannot write", &paths.reservation, e))?;

        let file =
            open_append(&paths.current).map_err(|e| io_err("cannot open", &paths.current, e))?;
        if current_len.is_none() {
            durable::sync_dir(dir).map_err(|e| io_err("cannot sync", dir, e))?;
        }
        let meta = file
            .metadata()
            .map_err(|e| io_err("cannot stat", &paths.current, e))?;
        let shared = Arc::new(DiskHistory {
            paths,
            files: Mutex::new(()),
            state: Mutex::new(DiskState {
                complete: available,
                retained_after: retention.retained_after,
                current_len: meta.len(),
                predecessor_len,
            }),
            gate: Mutex::new(RotationGate::default()),
        });
        let store = FileStore {
            shared: shared.clone(),
            file,
            len: meta.len(),
            ino: meta.ino(),
            retention,
            retention_dirty_since: None,
            head,
            reserved,
            rotate_bytes: rotate_bytes.max(1),
            current_max,
            predecessor_max,
        };
        Ok((store, shared, report))
    }

    fn paths(&self) -> &Paths {
        &self.shared.paths
    }

    fn write_retention(&mut self) -> io::Result<()> {
        if !self.shared.is_complete() {
            self.retention.known_complete = false;
        }
        self.retention.current_bytes = self.len;
        durable::replace(&self.paths().retention, &self.retention.to_bytes())?;
        self.retention_dirty_since = None;
        Ok(())
    }

    /// Moves `audit.jsonl` to `audit.jsonl.1` (discarding the old predecessor) after
    /// recording durably what is being discarded. The new empty file is made
    /// first, under a temporary name, so a full disk stops the rotation before
    /// anything moved; after the first rename only renames and syncs remain.
    fn rotate(&mut self) -> Result<(), AppendError> {
        let old_predecessor = fs::metadata(&self.paths().predecessor)
            .map(|m| m.len())
            .ok();
        if old_predecessor != self.shared.state.lock().predecessor_len {
            // Someone changed the predecessor: what we discard was not what we wrote.
            self.shared.state.lock().complete = false;
        }
        let mut retention = self.retention;
        if let Some(max) = self.predecessor_max {
            retention.retained_after = retention.retained_after.max(max);
        }
        retention.predecessor = true;
        retention.predecessor_bytes = self.len;
        if !self.shared.is_complete() {
            retention.known_complete = false;
        }
        retention.current_bytes = 0;
        let paths = self.shared.paths.clone();
        let next = paths.dir.join("audit.jsonl.next");
        let fresh = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&next)
            .and_then(|f| f.sync_all().map(|()| f))
            .map_err(|e| AppendError::unwritten(&next, e))?;
        durable::replace(&paths.retention, &retention.to_bytes())
            .map_err(|e| AppendError::unwritten(&paths.retention, e))?;
        self.retention = retention;
        {
            let _files = self.shared.files.lock();
            fs::rename(&paths.current, &paths.predecessor)
                .map_err(|e| AppendError::unwritten(&paths.current, e))?;
            // The start finishes a rotation stopped here (a missing current
            // file beside a predecessor of the recorded length).
            fs::rename(&next, &paths.current).map_err(AppendError::Fatal)?;
            durable::sync_dir(&paths.dir).map_err(AppendError::Fatal)?;
        }
        self.ino = fresh.metadata().map_err(AppendError::Fatal)?.ino();
        // Opened for writing, not appending: reopen the way every append expects.
        self.file = open_append(&paths.current).map_err(AppendError::Fatal)?;
        self.predecessor_max = self.current_max.take();
        let predecessor_len = self.len;
        self.len = 0;
        let mut state = self.shared.state.lock();
        state.retained_after = self.retention.retained_after;
        state.predecessor_len = Some(predecessor_len);
        state.current_len = 0;
        Ok(())
    }

    /// Fails when `audit.jsonl` is no longer the file we append to: an unlinked
    /// descriptor is not a replayable journal. Nothing is written then, and
    /// the journal waits for the file to come back.
    fn check_still_named(&self) -> Result<(), AppendError> {
        let path = &self.shared.paths.current;
        match fs::metadata(path) {
            Ok(m) if m.ino() == self.ino => Ok(()),
            Ok(_) => Err(AppendError::unwritten(
                path,
                io::Error::other("audit.jsonl was replaced by another file"),
            )),
            Err(e) => Err(AppendError::unwritten(
                path,
                io::Error::new(e.kind(), format!("audit.jsonl disappeared: {e}")),
            )),
        }
    }

    /// A write of a batch failed: cuts whatever part of it reached the file,
    /// so the file ends after the last synced record and the batch may be
    /// written again. When even that fails the file's end is unknown.
    fn undo_write(&mut self, e: io::Error) -> AppendError {
        let cut = self
            .file
            .set_len(self.len)
            .and_then(|()| self.file.sync_data());
        match cut {
            Ok(()) => AppendError::unwritten(&self.shared.paths.current, e),
            Err(cut) => AppendError::Fatal(io::Error::new(
                cut.kind(),
                format!("{e}, and cutting the half-written batch off audit.jsonl failed: {cut}"),
            )),
        }
    }

    /// A `journal.gap` at `seq` is durable: the files prove nothing before
    /// it, and the retention record says so at once.
    fn gap_recorded(&mut self, seq: Seq) {
        let after = seq.0.saturating_sub(1);
        self.retention.retained_after = self.retention.retained_after.max(after);
        {
            let mut state = self.shared.state.lock();
            state.retained_after = state.retained_after.max(after);
        }
        if let Err(e) = self.write_retention() {
            // Found again at the next start: opening reads the gap records.
            log::warn!("journal: cannot record the gap in the retention record yet: {e}");
            self.retention_dirty_since = Some(Instant::now());
        }
    }
}

impl JournalStore for FileStore {
    fn head(&self) -> Seq {
        Seq(self.head)
    }

    fn ceiling(&self) -> Option<Seq> {
        Some(Seq(self.reserved))
    }

    fn reserve(&mut self, needed: Seq) -> Result<(), AppendError> {
        if needed.0 > self.reserved {
            let ceiling = reservation::ceiling_for(self.reserved, needed.0).ok_or_else(|| {
                AppendError::Fatal(io::Error::other("the event sequence is exhausted"))
            })?;
            let path = &self.shared.paths.reservation;
            reservation::write(path, ceiling).map_err(|e| AppendError::unwritten(path, e))?;
            self.reserved = ceiling;
        }
        Ok(())
    }

    fn append(&mut self, batch: &[JournalRecord]) -> Result<(), AppendError> {
        let Some(last) = batch.last() else {
            return Ok(());
        };
        if self.len >= self.rotate_bytes
            && self
                .shared
                .may_rotate(self.predecessor_max, self.len, self.rotate_bytes)
        {
            self.rotate()?;
        }
        // The journal thread reserves ahead before a round; this covers a
        // caller that did not.
        self.reserve(last.seq)?;
        let last_written = last.seq.0;
        self.check_still_named()?;
        let mut buf = Vec::with_capacity(batch.len() * 256);
        for r in batch {
            write_record(&mut buf, r);
        }
        if let Err(e) = self.file.write_all(&buf) {
            return Err(self.undo_write(e));
        }
        // A failed sync of data already written cannot be retried
        // (docs/persistence.md#writing-the-journal).
        self.file.sync_data().map_err(AppendError::Fatal)?;
        self.len += buf.len() as u64;
        self.current_max = Some(last_written);
        self.shared.state.lock().current_len = self.len;
        self.retention_dirty_since.get_or_insert_with(Instant::now);
        if let Some(gap) = batch.iter().rev().find(|r| r.event == GAP_EVENT) {
            self.gap_recorded(gap.seq);
        }
        Ok(())
    }

    fn probe(&mut self) -> Result<(), AppendError> {
        self.check_still_named()?;
        // A durable replace needs a new block: the cheapest real write.
        let path = self.shared.paths.retention.clone();
        self.write_retention()
            .map_err(|e| AppendError::unwritten(&path, e))
    }

    fn idle_deadline(&self) -> Option<Instant> {
        self.retention_dirty_since.map(|t| t + RETENTION_LAG)
    }

    fn idle(&mut self) -> io::Result<()> {
        let due = self.retention_dirty_since.is_some()
            || !self.shared.is_complete() && self.retention.known_complete;
        if due && let Err(e) = self.write_retention() {
            // Try again a lag later: the record is a lower bound meanwhile.
            self.retention_dirty_since = Some(Instant::now());
            return Err(e);
        }
        Ok(())
    }
}

/// Finishes a rotation a crash interrupted: the record already says the current
/// file became the predecessor, but the rename or the new file did not happen.
fn finish_interrupted_rotation(
    paths: &Paths,
    r: &Retention,
    report: &mut OpenReport,
) -> Result<(), String> {
    if !r.predecessor || r.current_bytes != 0 {
        return Ok(());
    }
    let current = fs::metadata(&paths.current).map(|m| m.len()).ok();
    let predecessor = fs::metadata(&paths.predecessor).map(|m| m.len()).ok();
    if current == Some(r.predecessor_bytes)
        && r.predecessor_bytes > 0
        && predecessor != Some(r.predecessor_bytes)
    {
        fs::rename(&paths.current, &paths.predecessor)
            .map_err(|e| io_err("cannot finish rotating", &paths.current, e))?;
        report
            .notes
            .push("finished a rotation that a crash interrupted".into());
    }
    if !paths.current.exists()
        && fs::metadata(&paths.predecessor).map(|m| m.len()).ok() == Some(r.predecessor_bytes)
    {
        let f =
            open_append(&paths.current).map_err(|e| io_err("cannot create", &paths.current, e))?;
        f.sync_all()
            .map_err(|e| io_err("cannot sync", &paths.current, e))?;
    }
    durable::sync_dir(&paths.dir).map_err(|e| io_err("cannot sync", &paths.dir, e))
}

/// Cuts a torn last line off `audit.jsonl`, keeping its bytes in a backup file.
fn cut_torn_tail(
    paths: &Paths,
    bytes: &mut Vec<u8>,
    scan: &FileScan,
    report: &mut OpenReport,
) -> Result<(), String> {
    let stamp = Timestamp::now().as_str().replace([':', '-', '.'], "");
    let backup = paths.dir.join(format!("audit.jsonl.corrupt-{stamp}"));
    let tail = &bytes[scan.complete_len as usize..];
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&backup)
        .map_err(|e| io_err("cannot create", &backup, e))?;
    f.write_all(tail)
        .and_then(|()| f.sync_all())
        .map_err(|e| io_err("cannot write", &backup, e))?;
    let current = OpenOptions::new()
        .write(true)
        .open(&paths.current)
        .map_err(|e| io_err("cannot open", &paths.current, e))?;
    current
        .set_len(scan.complete_len)
        .and_then(|()| current.sync_all())
        .map_err(|e| io_err("cannot truncate", &paths.current, e))?;
    durable::sync_dir(&paths.dir).map_err(|e| io_err("cannot sync", &paths.dir, e))?;
    report.notes.push(format!(
        "cut a torn last record ({} bytes, never synced) off audit.jsonl; kept in {}",
        tail.len(),
        backup.display()
    ));
    bytes.truncate(scan.complete_len as usize);
    Ok(())
}

#[cfg(test)]
mod tests;
