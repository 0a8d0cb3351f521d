//! Saving and loading `snapshot.json`
//! (docs/persistence.md#how-a-snapshot-is-written,
//! docs/persistence.md#loading-a-snapshot): two generations kept by rename, and
//! a file that cannot be used moved aside under a new name, never overwritten
//! or deleted.

use super::Snapshot;
use super::tails::{TailBudget, TailFiles, TailReport, write_tails};
use crate::os::procfs::ThreadTimes;
use signaltty_model::journal::durable::sync_dir;
use signaltty_model::snapshot::{CURRENT, LoadProblem, PREVIOUS, parse};
use signaltty_model::term::TailSlot;
use signaltty_protocol::{PaneId, Timestamp};
use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Where a save writes before renaming.
pub(super) const TMP: &str = "snapshot.tmp";

/// What `load` found.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded {
    /// No snapshot: start from the journal alone.
    Missing,
    /// A usable snapshot.
    Snapshot(Snapshot),
    /// A snapshot that could not be used, moved aside to `to`, never overwritten.
    MovedAside {
        /// Why.
        problem: LoadProblem,
        /// Where it is now.
        to: PathBuf,
    },
}

/// Loads `state_dir/snapshot.json`, moving a file it cannot use aside
/// (docs/persistence.md#loading-a-snapshot). Blocking. An `Err` means the state
/// dir could not be read or a file could not be moved aside; nothing was
/// loaded.
///
/// When `snapshot.json` is missing but `snapshot.json.1` exists, a save
/// crashed between its two renames (see [`save`]) and `.1` is the newest
/// generation there is, so it is loaded in its place. A `.1` beside a
/// `snapshot.json` that cannot be used is never loaded instead of it: the
/// caller falls back to the journal, and `.1` is left as it is.
pub fn load(state_dir: &Path) -> io::Result<Loaded> {
    load_at(state_dir, SystemTime::now())
}

/// [`load`], with the time that names a moved-aside file given.
pub(super) fn load_at(state_dir: &Path, now: SystemTime) -> io::Result<Loaded> {
    let current = state_dir.join(CURRENT);
    let (path, read) = match fs::read(&current) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let previous = state_dir.join(PREVIOUS);
            match fs::read(&previous) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loaded::Missing),
                // A `.1` that cannot be used is moved aside like a bad
                // `snapshot.json`: otherwise the second save from now would
                // rotate over it and lose, say, a newer server's data.
                read => (previous, read),
            }
        },
        read => (current, read),
    };
    let problem = match read {
        Ok(bytes) => match parse(&bytes) {
            Ok(snapshot) => return Ok(Loaded::Snapshot(snapshot)),
            Err(problem) => problem,
        },
        Err(e) => LoadProblem::Corrupt(format!("cannot read {}: {e}", path.display())),
    };
    let kind = match problem {
        LoadProblem::Corrupt(_) => "corrupt",
        LoadProblem::Unsupported(_) => "unsupported",
    };
    let to = move_aside(&path, state_dir, kind, now)?;
    Ok(Loaded::MovedAside { problem, to })
}

/// Renames `path` to `snapshot.<kind>-<UTC>` (then `-2`, `-3`… if taken) in
/// `state_dir` and returns the new path.
fn move_aside(path: &Path, state_dir: &Path, kind: &str, now: SystemTime) -> io::Result<PathBuf> {
    let base = format!("snapshot.{kind}-{}", utc_basic(now));
    let mut n = 1u32;
    loop {
        let to = if n == 1 {
            state_dir.join(&base)
        } else {
            state_dir.join(format!("{base}-{n}"))
        };
        // Check, then rename: the state-dir lock makes this server the dir's
        // only writer, so nothing can appear at `to` in between.
        match fs::symlink_metadata(&to) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::rename(path, &to)?;
                return Ok(to);
            },
            Err(e) => return Err(e),
            Ok(_) => n += 1,
        }
    }
}

/// `t` in the UTC basic format `YYYYmmddTHHMMSS`, taken from [`Timestamp`]'s
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` so the calendar arithmetic lives in one place.
pub(super) fn utc_basic(t: SystemTime) -> String {
    Timestamp::from_system_time(t)
        .as_str()
        .chars()
        .take_while(|c| *c != '.')
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .collect()
}

/// What a save did, and where its time went.
#[derive(Debug, Default, Clone, Copy)]
pub struct SaveReport {
    /// The tails.
    pub tails: TailReport,
    /// Reading the rings and writing the tails.
    pub tails_took: Duration,
    /// Writing `snapshot.json`.
    pub snapshot_took: Duration,
    /// The saving thread's time on a CPU and waiting for one, meanwhile.
    pub thread: ThreadTimes,
}

/// Brings the panes' tails up to date within `budget` (`panes`: the registered
/// panes and their rings, `tails`: what this run wrote before), then saves
/// `snapshot`, keeping the previous snapshot as `snapshot.json.1`
/// (docs/persistence.md#how-a-snapshot-is-written). Blocking: run it on a
/// blocking thread. Creates the state dir and `history/` (0700) if missing;
/// every file is 0600.
///
/// Stronger than the reference design on purpose
/// (docs/persistence.md#how-a-snapshot-is-written): it did not fsync a
/// snapshot, but a snapshot renamed into place before its data reaches the disk
/// can be empty after a power loss, and then both generations could be bad. So
/// the temp file is fsynced before its rename and the state dir after the
/// renames.
///
/// A failing tail does not stop the snapshot (tails are best-effort
/// context). The first error is returned; the caller logs it and keeps
/// running, and `snapshot.json` is left as it was or replaced whole.
pub fn save(
    state_dir: &Path,
    snapshot: &Snapshot,
    tails: &mut TailFiles,
    panes: &[(PaneId, TailSlot)],
    budget: TailBudget,
) -> io::Result<SaveReport> {
    ensure_dir(state_dir)?;
    let times = ThreadTimes::now();
    let started = Instant::now();
    let (report, tails_written) = write_tails(state_dir, snapshot, tails, panes, budget);
    let tails_took = started.elapsed();
    save_snapshot(state_dir, snapshot)?;
    tails_written?;
    Ok(SaveReport {
        tails: report,
        tails_took,
        snapshot_took: started.elapsed() - tails_took,
        thread: ThreadTimes::now().since(times),
    })
}

/// Writes `snapshot.tmp` and rotates it in.
///
/// ```text
///   step                          snapshot.json   snapshot.json.1
///   start                         G1              G0 (or none)
///   1. write + fsync .tmp         G1              G0
///   2. rename json -> .1          none            G1
///   3. rename .tmp -> json        G2              G1
///   4. fsync the state dir        (both renames durable)
/// ```
///
/// A complete generation exists at every moment: G1 in `snapshot.json`,
/// then in `.1`, then G2 in `snapshot.json`. A crash between 2 and 3 leaves
/// only `.1`, which `load` then reads. If step 3 fails, `.1` is renamed back
/// so a failed save does not leave `snapshot.json` missing (G0 is lost, which
/// is what a successful save does too).
fn save_snapshot(state_dir: &Path, snapshot: &Snapshot) -> io::Result<()> {
    let tmp = state_dir.join(TMP);
    let current = state_dir.join(CURRENT);
    let previous = state_dir.join(PREVIOUS);
    if let Err(e) = stream_synced(&tmp, snapshot) {
        // A full disk: the previous generations stay, and half a new one
        // would only hold space the journal needs back.
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    let rotated = match fs::rename(&current, &previous) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => {
            // Nothing was renamed; the temp file is only a copy of what is in
            // memory, and the next save truncates it anyway.
            let _ = fs::remove_file(&tmp);
            return Err(e);
        },
    };
    if let Err(e) = fs::rename(&tmp, &current) {
        if rotated {
            // Best effort: if this fails too, `.1` still holds G1 and `load`
            // finds it there. The error worth reporting is the first one.
            let _ = fs::rename(&previous, &current);
        }
        return Err(e);
    }
    sync_dir(state_dir)
}

/// Writes `snapshot` as JSON to `path` (created or truncated, mode 0600)
/// through a small buffer, then syncs it: a thousand panes' snapshot is
/// megabytes that never sit in memory whole.
fn stream_synced(path: &Path, snapshot: &Snapshot) -> io::Result<()> {
    let f = write_private(path, &[])?;
    let mut out = io::BufWriter::with_capacity(64 * 1024, f);
    // `From` keeps an I/O error's kind (a full disk stays `StorageFull`).
    serde_json::to_writer_pretty(&mut out, snapshot).map_err(io::Error::from)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Creates `dir` and its missing parents with mode 0700; an existing
/// directory is taken as it is (never chmod'ed).
pub(super) fn ensure_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Writes `bytes` to `path` (created or truncated) with mode 0600, unsynced,
/// and returns the open file.
pub(super) fn write_private(path: &Path, bytes: &[u8]) -> io::Result<File> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // `mode` applies only when the file is created: a temp file left by a
    // crash with other permissions is narrowed here, before it gets data.
    f.set_permissions(Permissions::from_mode(0o600))?;
    f.write_all(bytes)?;
    Ok(f)
}
