//! Sequence reservations in `event-sequence.json`
//! (docs/persistence.md#state-events-and-sequence-numbers). The file holds one
//! number, the reservation ceiling: no seq above it has ever been issued, and a
//! restart continues above it, so numbers are never reused even when the journal
//! lost its tail.
//!
//! ```text
//!   old ceiling (file at start) = issued ──► reserve issued+4096 durably
//!   ...issue issued+1 ... ceiling ──► reserve ceiling+4096 durably ──► issue ...
//!   restart: file = last ceiling; unused numbers below it are skipped on purpose
//! ```

use super::durable;
use std::io;
use std::path::Path;

/// Numbers reserved per durable write.
pub const BLOCK: u64 = 4096;

/// Why the reservation file cannot be used.
#[derive(Debug)]
pub enum ReservationError {
    /// The file exists but does not hold an unsigned integer.
    Corrupt(String),
    /// The ceiling is below a seq already in the journal.
    Behind { ceiling: u64, journal_max: u64 },
    /// Reading failed.
    Io(io::Error),
}

impl std::fmt::Display for ReservationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReservationError::Corrupt(text) => write!(
                f,
                "the sequence reservation is corrupt ({text:?} is not a number); the server cannot prove which event numbers were issued"
            ),
            ReservationError::Behind {
                ceiling,
                journal_max,
            } => write!(
                f,
                "the sequence reservation ({ceiling}) is behind the journal (highest seq {journal_max})"
            ),
            ReservationError::Io(e) => write!(f, "cannot read the sequence reservation: {e}"),
        }
    }
}

/// Reads the ceiling: `None` when the file does not exist.
pub fn read(path: &Path) -> Result<Option<u64>, ReservationError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            text.trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| ReservationError::Corrupt(text))
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReservationError::Io(e)),
    }
}

/// Where numbering starts: the recorded ceiling, or the journal's highest seq for
/// a state dir that has none yet (a legacy one,
/// docs/persistence.md#state-events-and-sequence-numbers).
pub fn starting_point(recorded: Option<u64>, journal_max: u64) -> Result<u64, ReservationError> {
    match recorded {
        None => Ok(journal_max),
        Some(ceiling) if ceiling < journal_max => Err(ReservationError::Behind {
            ceiling,
            journal_max,
        }),
        Some(ceiling) => Ok(ceiling),
    }
}

/// The ceiling to reserve so that `needed` may be issued: whole blocks above `reserved`.
pub fn ceiling_for(reserved: u64, needed: u64) -> Option<u64> {
    if needed <= reserved {
        return Some(reserved);
    }
    let blocks = (needed - reserved).div_ceil(BLOCK);
    reserved.checked_add(blocks.checked_mul(BLOCK)?)
}

/// Writes a new ceiling durably. The number is padded to a fixed width, so
/// the file never changes size: when the filesystem has no room for the new
/// file a durable replace needs (docs/reliability.md#a-full-disk), the ceiling
/// is written over the old one in place and synced instead. That rewrite
/// needs no new block; it is a single write of 21 bytes inside one sector,
/// which disks write whole.
pub fn write(path: &Path, ceiling: u64) -> io::Result<()> {
    let text = format!("{ceiling:<20}\n");
    match durable::replace(path, text.as_bytes()) {
        Err(e) if is_out_of_space(&e) && path.exists() => overwrite(path, text.as_bytes()),
        other => other,
    }
}

fn is_out_of_space(e: &io::Error) -> bool {
    use nix::errno::Errno;
    let code = e.raw_os_error();
    code == Some(Errno::ENOSPC as i32) || code == Some(Errno::EDQUOT as i32)
}

fn overwrite(path: &Path, text: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.write_all_at(text, 0)?;
    f.sync_data()
}

#[cfg(test)]
mod tests;
