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

use super::{JournalRecord, JournalStore};
use parking_lot::Mutex;
use signaltty_model::journal::history::{self, FileScan, StoredRecord};
use signaltty_model::journal::reservation::{self, BLOCK, ReservationError};
use signaltty_model::journal::retention::Retention;
use signaltty_model::journal::{Paths, durable};
use signaltty_protocol::{Seq, Timestamp};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(test)]
/// Rotate the current file once it holds this many bytes.
pub const ROTATE_BYTES: u64 = signaltty_model::settings::limits::JOURNAL_ROTATE_BYTES;

/// How long after an append the retention record catches up with the file length.
pub const RETENTION_LAG: Duration = Duration::from_millis(200);

/// What the disk can prove, shared by the journal thread (which writes it) and the
/// Supervisor (which reads history for `subscribe`).
#[derive(Debug)]
pub struct DiskHistory {
    paths: Paths,
    /// Held while rotating and while a reader opens the two files, so a reader never
    /// sees half a rotation. Open descriptors stay valid across later renames.
    files: Mutex<()>,
    state: Mutex<DiskState>,
    /// Rotation waits for the snapshot: see [`DiskHistory::gate_rotation`].
    gate: Mutex<RotationGate>,
}

/// Whether a rotation may discard the predecessor yet. Discarding events no
/// snapshot covers would leave a restart unable to prove the world, so while
/// the server writes snapshots a rotation waits until the newest snapshot is
/// at or past the last event it would discard — but never while the current
/// file passes [`ROTATION_HARD_FACTOR`] times the cap: the disk stays bounded,
/// and a restore after that says what it could not prove.
#[derive(Debug, Clone, Copy, Default)]
struct RotationGate {
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
struct DiskState {
    /// No loss detected since the files were opened (and before, per the record).
    complete: bool,
    retained_after: u64,
    /// Exact length of `audit.jsonl` after the last synced append.
    current_len: u64,
    /// Exact length of `audit.jsonl.1`, `None` when there is none.
    predecessor_len: Option<u64>,
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

    fn is_complete(&self) -> bool {
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
    fn may_rotate(&self, discarded_max: Option<u64>, len: u64, cap: u64) -> bool {
        let mut gate = self.gate.lock();
        let covered = discarded_max.is_none_or(|max| max <= gate.snapshot_seq);
        let forced = len >= cap.saturating_mul(ROTATION_HARD_FACTOR);
        let may = !gate.enabled || covered || forced;
        gate.waiting = !may;
        may
    }
}

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
    /// recording durably what is being discarded.
    fn rotate(&mut self) -> io::Result<()> {
        let old_predecessor = fs::metadata(&self.paths().predecessor)
            .map(|m| m.len())
            .ok();
        if old_predecessor != self.shared.state.lock().predecessor_len {
            // Someone changed the predecessor: what we discard was not what we wrote.
            self.shared.state.lock().complete = false;
        }
        if let Some(max) = self.predecessor_max {
            self.retention.retained_after = self.retention.retained_after.max(max);
        }
        self.retention.predecessor = true;
        self.retention.predecessor_bytes = self.len;
        if !self.shared.is_complete() {
            self.retention.known_complete = false;
        }
        self.retention.current_bytes = 0;
        durable::replace(&self.paths().retention, &self.retention.to_bytes())?;

        let file = {
            let _files = self.shared.files.lock();
            fs::rename(&self.paths().current, &self.paths().predecessor)?;
            let file = open_append(&self.paths().current)?;
            file.sync_all()?;
            durable::sync_dir(&self.paths().dir)?;
            file
        };
        self.ino = file.metadata()?.ino();
        self.file = file;
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
    /// descriptor is not a replayable journal.
    fn check_still_named(&self) -> io::Result<()> {
        match fs::metadata(&self.paths().current) {
            Ok(m) if m.ino() == self.ino => Ok(()),
            Ok(_) => Err(io::Error::other("audit.jsonl was replaced by another file")),
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!("audit.jsonl disappeared: {e}"),
            )),
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

    fn reserve(&mut self, needed: Seq) -> io::Result<()> {
        if needed.0 > self.reserved {
            let ceiling = reservation::ceiling_for(self.reserved, needed.0)
                .ok_or_else(|| io::Error::other("the event sequence is exhausted"))?;
            reservation::write(&self.paths().reservation, ceiling)?;
            self.reserved = ceiling;
        }
        Ok(())
    }

    fn append(&mut self, batch: &[JournalRecord]) -> io::Result<()> {
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
        self.file.write_all(&buf)?;
        self.file.sync_data()?;
        self.len += buf.len() as u64;
        self.current_max = Some(last_written);
        self.shared.state.lock().current_len = self.len;
        self.retention_dirty_since.get_or_insert_with(Instant::now);
        Ok(())
    }

    fn idle_deadline(&self) -> Option<Instant> {
        self.retention_dirty_since.map(|t| t + RETENTION_LAG)
    }

    fn idle(&mut self) -> io::Result<()> {
        if self.retention_dirty_since.is_some()
            || !self.shared.is_complete() && self.retention.known_complete
        {
            self.write_retention()?;
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
