//! Server configuration and the path rules of
//! docs/persistence.md#where-files-live and docs/protocol.md#the-socket. Paths
//! and limits arrive here once, at start; nothing else in the server reads the
//! process environment.

use signaltty_model::env::SocketOrigin;
use signaltty_model::settings::Limits;
use std::path::PathBuf;

/// Everything the server needs to know at start.
#[derive(Debug, Clone)]
pub struct Config {
    /// The socket path.
    pub socket: PathBuf,
    /// Whether the socket path was chosen by the user.
    pub socket_origin: SocketOrigin,
    /// The state directory (journal, snapshot, logs).
    pub state_dir: PathBuf,
    /// The data directory (task worktrees,
    /// docs/persistence.md#where-files-live).
    pub data_dir: PathBuf,
    /// The user's home, the default cwd of new workspaces.
    pub home: Option<PathBuf>,
    /// The server's package version, reported by `server.status`.
    pub version: String,
    /// Tunable limits.
    pub limits: Limits,
    /// Where user agent manifests are read
    /// (docs/agents.md#where-manifests-live).
    pub agents_dir: Option<PathBuf>,
    /// The active agent manifests and screen rules, loaded before the server
    /// listens and replaced by `agents.reload`; every pane reads this handle.
    pub agents: signaltty_model::agents::AgentRules,
    /// The config file read at start and its problems, for `server.status`.
    pub settings: SettingsReport,
    /// What the workflows ask of the operating system (real in the server,
    /// fakes in tests).
    pub os: crate::os::seams::Os,
}

/// What `server.status` says about the settings the server started with.
#[derive(Debug, Clone, Default)]
pub struct SettingsReport {
    /// The config file, when one was there to read.
    pub file: Option<PathBuf>,
    /// Each problem as `where: what` (its entry was ignored).
    pub problems: Vec<String>,
}
