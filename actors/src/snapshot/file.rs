//! Saving and loading `snapshot.json` (spec/persistence.md §6.2, §7).

use super::Snapshot;
use signaltty_protocol::PaneId;
use std::io;
use std::path::{Path, PathBuf};

/// Why a snapshot on disk was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadProblem {
    /// It could not be read or parsed (`snapshot.corrupt-<UTC>`).
    Corrupt(String),
    /// It has a version this server does not know (`snapshot.unsupported-<UTC>`).
    Unsupported(u32),
}

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

/// Loads `state_dir/snapshot.json`. TODO(issue 14): implemented by the snapshot file step.
pub fn load(state_dir: &Path) -> io::Result<Loaded> {
    let _ = state_dir;
    Ok(Loaded::Missing)
}

/// Saves `snapshot` and the panes' tails. TODO(issue 14): implemented by the snapshot file step.
pub fn save(state_dir: &Path, snapshot: &Snapshot, tails: &[(PaneId, String)]) -> io::Result<()> {
    let _ = (state_dir, snapshot, tails);
    Ok(())
}
