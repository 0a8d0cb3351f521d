//! `server.*` params and results (docs/methods.md#server).

use serde::{Deserialize, Serialize};

/// `server.status` takes no params; unknown ones are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerStatusParams {}

/// `server.status` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerStatusResult {
    /// The server's package version.
    pub version: String,
    /// Always `"signaltty/1"`.
    pub protocol: String,
    /// Seconds since the server started.
    pub uptime_s: u64,
    /// Number of workspaces.
    pub workspaces: usize,
    /// Number of tabs.
    pub tabs: usize,
    /// Number of panes, live and tombstones.
    pub panes: usize,
    /// Panes whose process is running.
    pub live_panes: usize,
    /// The head event sequence number.
    pub seq: u64,
    /// What came back at start (docs/restore.md#seeing-what-came-back); absent from older
    /// servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore: Option<RestoreStatus>,
    /// The config file the server read at start, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<String>,
    /// What was wrong with the settings at start, one `where: what` line
    /// each; every entry named was ignored (`signaltty config show`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_problems: Vec<String>,
    /// The server's process id; absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Whether the server listens on a socket its service manager passed
    /// (systemd socket activation, docs/service.md); absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket_activated: Option<bool>,
    /// The in-place upgrades this process has been through since it was
    /// started (docs/upgrade.md); absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrades: Option<u64>,
    /// The last in-place upgrade, as the binary that took over saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_upgrade: Option<UpgradeReport>,
    /// Whether the state directory takes writes; absent from older servers
    /// (docs/reliability.md#a-full-disk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageStatus>,
    /// How many live panes the server's open-file limit allows
    /// (docs/panes.md#how-many-panes); absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_capacity: Option<PaneCapacity>,
}

/// How many live panes fit in the server's open-file limit
/// (docs/panes.md#how-many-panes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaneCapacity {
    /// The most live panes at once; a launch beyond it is `SPAWN_FAILED`.
    pub max_live_panes: u64,
    /// The server's soft open-file limit (raised to the hard one at start).
    pub open_file_limit: u64,
    /// Descriptors a live pane holds.
    pub fds_per_pane: u64,
    /// Descriptors kept for everything else (connections, the journal, …).
    pub reserved_fds: u64,
}

/// Whether the server can record state events in its state directory
/// (docs/reliability.md#a-full-disk).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageStatus {
    /// `ok`, or `degraded`: changes are refused with `IO_ERROR` and what the
    /// agents do is held until writes succeed again.
    pub state: String,
    /// The state directory.
    pub dir: String,
    /// Bytes free for the server's user in the state directory's filesystem,
    /// when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
    /// Why it is degraded: `no_space`, `quota`, `read_only`, `vanished` or
    /// `io`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The file or directory that could not be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The error as the system gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When it began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<crate::time::Timestamp>,
    /// State events held in memory, to be recorded when writes succeed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub held_events: u64,
    /// State events dropped past the hold bound since the server started;
    /// each run of them is recorded as a `journal.gap`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost_events: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `server.upgrade` params (docs/upgrade.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerUpgradeParams {
    /// The binary to run in place of this one; default: the path this server
    /// was started from (where a new version is usually installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
}

/// `server.upgrade` result, answered by the binary that took over, on the
/// connection that asked (it crosses the exec).
pub type ServerUpgradeResult = UpgradeReport;

/// What an in-place upgrade handed over and how it went.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UpgradeReport {
    /// The version that handed over.
    pub from_version: String,
    /// The version that took over (this server's).
    pub to_version: String,
    /// The binary that was run.
    pub binary: String,
    /// The process id, the same before and after.
    pub pid: u32,
    /// From the request to the new binary answering, in milliseconds.
    pub took_ms: u64,
    /// The longest any pane's terminal went unread during the handover, in
    /// milliseconds (its output waited in the kernel's buffer meanwhile).
    pub longest_unread_ms: u64,
    /// The panes that kept their process, with it.
    pub panes: Vec<UpgradedPane>,
    /// Panes that could not be adopted as they were, and why (each is kept:
    /// its process is never killed for it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// Set when the new binary could not read the handoff record and
    /// restored from the snapshot instead, as after a restart: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// The journal's head when the record was written; the first event of
    /// the new binary is numbered after it.
    pub seq: u64,
}

/// One pane an upgrade handed over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpgradedPane {
    /// The pane.
    pub pane_id: String,
    /// Its process, when it has one (also its process group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Its output offset at the handover: the next byte continues it.
    pub output_offset: u64,
}

/// How the world came back at start, and what of it waits for a resume.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RestoreStatus {
    /// Panes restored without a process and with nothing `pane.resume`
    /// can start (`RESTORED`), now.
    pub restored: usize,
    /// Panes restored that `pane.resume` can start (`RESUMABLE`: an agent
    /// session or an interactive shell), not resumed yet.
    pub resumable: usize,
    /// The seq of the snapshot the restore started from, if one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_seq: Option<u64>,
    /// Journal events applied after the snapshot.
    pub journal_events: usize,
    /// What went wrong, said loudly: a snapshot moved aside (and where) or a
    /// history the journal could not prove.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Snapshots set aside (unreadable or of an unknown version), still kept
    /// in the state directory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<String>,
}

/// `server.shutdown` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerShutdownParams {
    /// Shut down even while panes are live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
}

/// `server.shutdown` result: always `{stopped: true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerShutdownResult {
    /// Always `true`.
    pub stopped: bool,
}

/// `server.schema` takes no params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerSchemaParams {}

/// `server.schema` result: the live contract, derived from the same tables the
/// router dispatches on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerSchemaResult {
    /// Always `"signaltty/1"`.
    pub protocol: String,
    /// The server's package version.
    pub version: String,
    /// Every dispatched method.
    pub methods: Vec<String>,
    /// Every event the server can emit.
    pub events: Vec<String>,
    /// Every error code.
    pub codes: Vec<String>,
    /// Feature flags; new flags are additive booleans.
    pub capabilities: Capabilities,
}

/// Feature flags of `server.schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capabilities {
    /// `subscribe` reports replay coverage (`replay.status`).
    pub subscribe_replay_coverage: bool,
    /// `pane.get` reports `wait_baseline` and `wait` accepts `after`.
    pub wait_baseline: bool,
    /// `wait` accepts several outcomes.
    pub wait_multiple_outcomes: bool,
    /// `layout.export` and `layout.apply` are served.
    #[serde(default)]
    pub layout_apply: bool,
    /// `notification.list` and `notification.mark_read` are served, and
    /// notifications carry `read_at`.
    #[serde(default)]
    pub notifications_read: bool,
    /// `pane.spawn`, `pane.split` and `layout.apply` pass every `env` override
    /// to the child except the refused ones, instead of the reference design's
    /// allow-list (docs/panes.md#the-child-environment).
    #[serde(default)]
    pub spawn_env_passthrough: bool,
    /// Tasks (`task.*`) are served.
    #[serde(default)]
    pub tasks: bool,
    /// Checkouts (`worktree.*`) are served.
    #[serde(default)]
    pub worktrees: bool,
    /// Read-only diffs (`workspace.diff`, `workspace.file_diff`, `task.diff`).
    #[serde(default)]
    pub diffs: bool,
    /// Workspaces, tabs and panes come back after a restart, and `pane.resume`
    /// is served.
    #[serde(default)]
    pub restore: bool,
    /// Native permission requests (`hook-event` with `wait_for_answer`) can be
    /// answered with `decision.answer`.
    #[serde(default)]
    pub decisions_native_answer: bool,
}

impl ServerSchemaResult {
    /// The schema of this build of the protocol crate.
    pub fn current(version: &str) -> ServerSchemaResult {
        ServerSchemaResult {
            protocol: crate::PROTOCOL.to_owned(),
            version: version.to_owned(),
            methods: crate::Method::NAMES
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            events: crate::Event::NAMES
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            codes: crate::ErrorCode::ALL
                .iter()
                .map(|c| c.as_str().to_owned())
                .collect(),
            capabilities: Capabilities {
                subscribe_replay_coverage: true,
                wait_baseline: true,
                wait_multiple_outcomes: true,
                layout_apply: true,
                notifications_read: true,
                spawn_env_passthrough: true,
                tasks: true,
                worktrees: true,
                diffs: true,
                restore: true,
                decisions_native_answer: true,
            },
        }
    }
}
