//! The snapshot (`snapshot.json`, spec/persistence.md §6–§7): the structure of
//! the world — workspaces, tabs, panes — at a known `seq`, so a restarted
//! server rebuilds it from the snapshot plus the journal's events after that
//! seq. Pure data and file handling: the Supervisor decides when to save, and
//! `crate::restore` applies what is loaded.
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

use serde::{Deserialize, Serialize};
use signaltty_protocol::pane::Pane;
use signaltty_protocol::state::Notification;
use signaltty_protocol::task::Task;
use signaltty_protocol::workspace::{Tab, Workspace};
use signaltty_protocol::{PROTOCOL, Seq, Timestamp};
use std::sync::Arc;

mod file;
mod tail_format;
#[cfg(test)]
mod tail_tests;
mod tails;
#[cfg(test)]
mod tests;

pub use file::{LoadProblem, Loaded, Peeked, SaveReport, load, peek, save, set_aside};
pub use tails::{
    DEFAULT_TAIL_BYTES, TAILS_TIME_BUDGET, TailBudget, TailFiles, TailReport, WHOLE_BUDGET,
    compact_at, read_tail, tail_of, tail_path,
};

/// The snapshot format this server writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// The snapshot's content (version 1). Every field but `version` is
/// defaulted, so an older or smaller snapshot still loads; unknown fields are
/// ignored. The objects are the projection's own, shared (`Arc`, written as
/// the object itself): taking a snapshot copies pointers, not objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The format version.
    pub version: u32,
    /// When it was taken.
    #[serde(default = "epoch")]
    pub saved_at: Timestamp,
    /// The protocol of the server that wrote it (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The seq of the projection it was taken from: the journal's events after
    /// it are applied on top at restore (beyond the spec, which has no seq).
    #[serde(default)]
    pub seq: Seq,
    /// The workspaces (data-model.md §3), in creation order.
    #[serde(default)]
    pub workspaces: Vec<Arc<Workspace>>,
    /// Every tab with its layout (data-model.md §4).
    #[serde(default)]
    pub tabs: Vec<Arc<Tab>>,
    /// Every pane (data-model.md §5), tombstones included.
    #[serde(default)]
    pub panes: Vec<Arc<Pane>>,
    /// The newest 200 notifications (data-model.md §7), oldest first.
    #[serde(default)]
    pub notifications: Vec<Notification>,
    /// Every task (data-model.md §8), in creation order.
    #[serde(default)]
    pub tasks: Vec<Arc<Task>>,
}

fn epoch() -> Timestamp {
    Timestamp::from_unix_millis(0)
}

impl Snapshot {
    /// A snapshot of the given state at `seq`, taken now.
    pub fn new(
        seq: Seq,
        workspaces: Vec<Arc<Workspace>>,
        tabs: Vec<Arc<Tab>>,
        panes: Vec<Arc<Pane>>,
    ) -> Snapshot {
        Snapshot {
            version: SNAPSHOT_VERSION,
            saved_at: Timestamp::now(),
            protocol: Some(PROTOCOL.to_owned()),
            seq,
            workspaces,
            tabs,
            panes,
            notifications: Vec::new(),
            tasks: Vec::new(),
        }
    }

    /// The snapshot with `tasks` (in creation order).
    pub fn with_tasks(mut self, tasks: Vec<Arc<Task>>) -> Snapshot {
        self.tasks = tasks;
        self
    }

    /// The snapshot with `notifications` (oldest first).
    pub fn with_notifications(mut self, notifications: Vec<Notification>) -> Snapshot {
        self.notifications = notifications;
        self
    }
}
