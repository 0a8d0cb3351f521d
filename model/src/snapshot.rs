//! The snapshot file as every reader sees it (docs/persistence.md): its
//! content, its version, and [`peek`], which reads the generation a restore
//! would use without moving anything. Saving, loading with its moving aside
//! and the panes' tails are the server's.

use serde::{Deserialize, Serialize};
use signaltty_protocol::pane::Pane;
use signaltty_protocol::state::Notification;
use signaltty_protocol::task::Task;
use signaltty_protocol::workspace::{Tab, Workspace};
use signaltty_protocol::{PROTOCOL, Seq, Timestamp};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The newest generation.
pub const CURRENT: &str = "snapshot.json";
/// The generation before it.
pub const PREVIOUS: &str = "snapshot.json.1";
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
    /// it are applied on top at restore (docs/restore.md#rebuilding-the-world).
    #[serde(default)]
    pub seq: Seq,
    /// The workspaces (docs/objects.md#workspace), in creation order.
    #[serde(default)]
    pub workspaces: Vec<Arc<Workspace>>,
    /// Every tab with its layout (docs/objects.md#tab).
    #[serde(default)]
    pub tabs: Vec<Arc<Tab>>,
    /// Every pane (docs/objects.md#pane), tombstones included.
    #[serde(default)]
    pub panes: Vec<Arc<Pane>>,
    /// The newest 200 notifications (docs/objects.md#notification), oldest
    /// first.
    #[serde(default)]
    pub notifications: Vec<Notification>,
    /// Every task (docs/objects.md#task), in creation order.
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

/// Why a snapshot on disk was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadProblem {
    /// It could not be read or parsed (`snapshot.corrupt-<UTC>`).
    Corrupt(String),
    /// It has a version this server does not know (`snapshot.unsupported-<UTC>`).
    Unsupported(u32),
}

/// What [`peek`] found: the snapshot `load` would use, read without moving
/// anything (`signaltty doctor` looks while a server may be running).
#[derive(Debug, Clone, PartialEq)]
pub enum Peeked {
    /// No snapshot.
    Missing,
    /// A usable snapshot in `file`.
    Usable {
        /// `snapshot.json`, or `snapshot.json.1` after a save cut short.
        file: PathBuf,
        /// What it holds.
        snapshot: Box<Snapshot>,
    },
    /// A snapshot `load` would move aside.
    Unusable {
        /// The file.
        file: PathBuf,
        /// Why.
        problem: LoadProblem,
    },
}

/// Reads the snapshot `load` would use and says whether it is usable; never
/// writes, renames or removes anything.
pub fn peek(state_dir: &Path) -> Peeked {
    let current = state_dir.join(CURRENT);
    let (file, read) = match fs::read(&current) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let previous = state_dir.join(PREVIOUS);
            match fs::read(&previous) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Peeked::Missing,
                read => (previous, read),
            }
        },
        read => (current, read),
    };
    match read.map_err(|e| LoadProblem::Corrupt(format!("cannot read: {e}"))) {
        Ok(bytes) => match parse(&bytes) {
            Ok(snapshot) => Peeked::Usable {
                file,
                snapshot: Box::new(snapshot),
            },
            Err(problem) => Peeked::Unusable { file, problem },
        },
        Err(problem) => Peeked::Unusable { file, problem },
    }
}

/// The snapshots moved aside in `state_dir` (`snapshot.corrupt-*`,
/// `snapshot.unsupported-*`), by name.
pub fn set_aside(state_dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = fs::read_dir(state_dir)?
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("snapshot.corrupt-") || name.starts_with("snapshot.unsupported-")
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    Ok(found)
}

/// Only the version, so a file of another version is recognised as such
/// however different the rest of it is.
#[derive(Deserialize)]
struct VersionOnly {
    version: u32,
}

/// Parses a snapshot: a JSON object whose `version` is known, then its fields.
pub fn parse(bytes: &[u8]) -> Result<Snapshot, LoadProblem> {
    let corrupt = |e: serde_json::Error| LoadProblem::Corrupt(e.to_string());
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(corrupt)?;
    // Checked by hand because serde also builds a struct from a JSON array
    // (fields in order, defaults for the rest), so `[1]` would load as an
    // empty version-1 snapshot.
    if !value.is_object() {
        return Err(LoadProblem::Corrupt("not a JSON object".to_owned()));
    }
    let VersionOnly { version } = VersionOnly::deserialize(&value).map_err(corrupt)?;
    if version != SNAPSHOT_VERSION {
        return Err(LoadProblem::Unsupported(version));
    }
    serde_json::from_value(value).map_err(corrupt)
}
