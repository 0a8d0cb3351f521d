//! The snapshot (`snapshot.json`, docs/persistence.md#snapshots): the structure
//! of the world — workspaces, tabs, panes — at a known `seq`, so a restarted
//! server rebuilds it from the snapshot plus the journal's events after that
//! seq. Pure data and file handling: the Supervisor decides when to save, and
//! `crate::store::restore` applies what is loaded.
//!
//! ```text
//!   state dir/
//!     snapshot.json      the newest good generation (0600)
//!     snapshot.json.1    the one before it
//!     snapshot.corrupt-<UTC>      one that could not be parsed, moved aside
//!     snapshot.unsupported-<UTC>  one of an unknown version, moved aside
//!     history/<pane>.tail         each pane's last lines, up to the tail cap
//!                                 (`[history] tail_bytes`, 64 KiB) (0600),
//!                                 appended to between rewrites (tail_format.rs)
//! ```

pub use signaltty_model::snapshot::{LoadProblem, Snapshot};

mod file;
mod tail_format;
mod tails;
#[cfg(test)]
mod tests;

pub use file::{Loaded, SaveReport, load, save};
pub use tails::{TailBudget, TailFiles, read_tail};
