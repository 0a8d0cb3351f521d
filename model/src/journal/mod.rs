//! The journal on disk, as every reader sees it: the files of a state
//! directory, the record format and its scanner, the sequence reservation and
//! the retention record, their durable writes, and `verify`, the read-only
//! check `signaltty doctor` and `signaltty events --verify` run. The writer
//! (the journal thread and its store) is the server's (docs/persistence.md).
//!
//! ```text
//!  state dir/
//!    audit.jsonl            current generation
//!    audit.jsonl.1          predecessor
//!    audit-retention.json   what the two files claim to hold
//!    event-sequence.json    reservation ceiling
//! ```

pub mod durable;
pub mod history;
pub mod reservation;
pub mod retention;
pub mod verify;

use std::path::{Path, PathBuf};

/// The journal's files in a state directory.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The state directory.
    pub dir: PathBuf,
    /// `audit.jsonl`.
    pub current: PathBuf,
    /// `audit.jsonl.1`.
    pub predecessor: PathBuf,
    /// `audit-retention.json`.
    pub retention: PathBuf,
    /// `event-sequence.json`.
    pub reservation: PathBuf,
}

impl Paths {
    /// The journal files of `dir`.
    pub fn new(dir: &Path) -> Paths {
        Paths {
            dir: dir.to_path_buf(),
            current: dir.join("audit.jsonl"),
            predecessor: dir.join("audit.jsonl.1"),
            retention: dir.join("audit-retention.json"),
            reservation: dir.join("event-sequence.json"),
        }
    }
}
