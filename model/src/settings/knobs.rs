//! The table of every knob the config file, the environment and the server's
//! flags can set: its TOML key, its type and range, the variables and flag
//! that override it, and its default. `config default`, `config show` and the
//! resolver all read this one table.

use super::Limits;
use crate::env::Env;
use std::path::PathBuf;
use std::time::Duration;

/// One knob. The order of the variants is the order of [`KNOBS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum K {
    Socket,
    DataDir,
    ShutdownGrace,
    SlowSubscriber,
    MaxQueued,
    Mailbox,
    Ring,
    MaxParallelTasks,
    WorkerSilent,
    MergeTimeout,
    WorktreeGit,
    JournalRotate,
    JournalReserve,
    JournalHold,
    SnapshotInterval,
    HistoryTailBytes,
    ProcessRefresh,
    AgentsDir,
    CursorApproval,
    RestoreMaxParallel,
    RestoreStartWait,
    HibernateAfter,
    AutoContinueMargin,
    LogLevel,
    LogFile,
    LogMaxBytes,
    BoardBell,
    BoardNotify,
    McpAllowAnswers,
}

/// What a knob's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number within `min..=max`, in `unit`.
    Int { min: u64, max: u64, unit: Unit },
    /// An absolute path.
    Path,
    /// `RUST_LOG`-style filter directives (checked by the logger).
    Filter,
    /// `true` or `false`.
    Bool,
}

/// The unit of an integer knob (also the suffix of its key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Millis,
    Secs,
    Bytes,
    Count,
}

impl Unit {
    /// How a value of this unit is described in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Unit::Millis => "milliseconds",
            Unit::Secs => "seconds",
            Unit::Bytes => "bytes",
            Unit::Count => "a count",
        }
    }
}

/// One row of the table.
#[derive(Debug)]
pub struct Knob {
    pub id: K,
    /// The TOML section (`[tasks]`).
    pub section: &'static str,
    /// The key inside it (`max_parallel`).
    pub key: &'static str,
    pub kind: Kind,
    /// The environment variables that override the file, first wins.
    pub env: &'static [&'static str],
    /// The server flag that overrides everything (`--max-tasks`).
    pub flag: Option<&'static str>,
    /// The variable beats the flag (the agents dir:
    /// docs/configuration.md#precedence).
    pub env_beats_flag: bool,
    /// One line for `config default` and the docs.
    pub doc: &'static str,
}

impl Knob {
    /// `section.key`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.section, self.key)
    }
}

const fn int(min: u64, max: u64, unit: Unit) -> Kind {
    Kind::Int { min, max, unit }
}

const DAY_MS: u64 = 86_400_000;
const TIB: u64 = 1 << 40;

/// Every knob, in the order `config default` and `config show` print them.
pub const KNOBS: &[Knob] = &[
    Knob {
        id: K::Socket,
        section: "server",
        key: "socket",
        kind: Kind::Path,
        env: &["SIGNALTTY_SOCKET"],
        flag: Some("--socket"),
        env_beats_flag: false,
        doc: "The socket path (default: $XDG_RUNTIME_DIR/signaltty/signaltty.sock).",
    },
    Knob {
        id: K::DataDir,
        section: "server",
        key: "data_dir",
        kind: Kind::Path,
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Where task worktrees go (default: $XDG_DATA_HOME/signaltty).",
    },
    Knob {
        id: K::ShutdownGrace,
        section: "server",
        key: "shutdown_grace_ms",
        kind: int(1, 600_000, Unit::Millis),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "How long shutdown waits for connections to flush their output.",
    },
    Knob {
        id: K::SlowSubscriber,
        section: "connections",
        key: "slow_subscriber_bytes",
        kind: int(1024, TIB, Unit::Bytes),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "A subscriber whose unwritten output passes this is closed.",
    },
    Knob {
        id: K::MaxQueued,
        section: "connections",
        key: "max_queued_bytes",
        kind: int(1024, TIB, Unit::Bytes),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Any connection whose unwritten output passes this is closed.",
    },
    Knob {
        id: K::Mailbox,
        section: "connections",
        key: "mailbox_events",
        kind: int(1, 1_000_000, Unit::Count),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Events a subscriber's mailbox holds before it counts as lagging.",
    },
    Knob {
        id: K::Ring,
        section: "connections",
        key: "replay_ring_events",
        kind: int(1, 1_000_000, Unit::Count),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Events kept in memory for replay to subscribers.",
    },
    Knob {
        id: K::MaxParallelTasks,
        section: "tasks",
        key: "max_parallel",
        kind: int(0, 1024, Unit::Count),
        env: &["SIGNALTTY_MAX_PARALLEL_TASKS"],
        flag: Some("--max-tasks"),
        env_beats_flag: false,
        doc: "Tasks running at once at most; more starts wait in the queue, 0 starts none.",
    },
    Knob {
        id: K::WorkerSilent,
        section: "tasks",
        key: "worker_silent_timeout_s",
        kind: int(0, 7 * 86_400, Unit::Secs),
        env: &["SIGNALTTY_WORKER_SILENT_TIMEOUT_S"],
        flag: Some("--worker-silent-timeout"),
        env_beats_flag: false,
        doc: "A working task whose worker is silent this long needs input; 0: never.",
    },
    Knob {
        id: K::MergeTimeout,
        section: "tasks",
        key: "merge_timeout_ms",
        kind: int(1, DAY_MS, Unit::Millis),
        env: &["SIGNALTTY_MERGE_TIMEOUT_MS"],
        flag: None,
        env_beats_flag: false,
        doc: "How long task.finish's merge may take.",
    },
    Knob {
        id: K::WorktreeGit,
        section: "worktrees",
        key: "git_deadline_ms",
        kind: int(1, DAY_MS, Unit::Millis),
        env: &["SIGNALTTY_WORKTREE_TIMEOUT_MS"],
        flag: None,
        env_beats_flag: false,
        doc: "The deadline of each git command a worktree.* method runs.",
    },
    Knob {
        id: K::JournalRotate,
        section: "journal",
        key: "rotate_bytes",
        kind: int(1, TIB, Unit::Bytes),
        env: &[],
        flag: Some("--journal-rotate-bytes"),
        env_beats_flag: false,
        doc: "audit.jsonl is rotated to audit.jsonl.1 past this size.",
    },
    Knob {
        id: K::JournalReserve,
        section: "journal",
        key: "reserve_bytes",
        kind: int(0, TIB, Unit::Bytes),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Changes are refused (IO_ERROR) while the state dir has less free space than this.",
    },
    Knob {
        id: K::JournalHold,
        section: "journal",
        key: "hold_events",
        kind: int(1, 10_000_000, Unit::Count),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Agent events held in memory while the state dir takes no writes.",
    },
    Knob {
        id: K::SnapshotInterval,
        section: "snapshot",
        key: "interval_ms",
        kind: int(1, DAY_MS, Unit::Millis),
        env: &[],
        flag: Some("--snapshot-interval-ms"),
        env_beats_flag: false,
        doc: "How often a due snapshot (and the history tails) is written.",
    },
    Knob {
        id: K::HistoryTailBytes,
        section: "history",
        key: "tail_bytes",
        kind: int(4096, 16 * 1024 * 1024, Unit::Bytes),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Each pane's scrollback kept for a restart; its file holds about twice this.",
    },
    Knob {
        id: K::ProcessRefresh,
        section: "panes",
        key: "process_refresh_ms",
        kind: int(1, DAY_MS, Unit::Millis),
        env: &[],
        flag: Some("--process-refresh-ms"),
        env_beats_flag: false,
        doc: "How often live panes' processes are looked at in /proc.",
    },
    Knob {
        id: K::AgentsDir,
        section: "agents",
        key: "dir",
        kind: Kind::Path,
        env: &["SIGNALTTY_AGENTS_DIR"],
        flag: Some("--agents-dir"),
        env_beats_flag: true,
        doc: "Agent manifests (default: <config dir>/agents; the variable beats the flag).",
    },
    Knob {
        id: K::CursorApproval,
        section: "agents",
        key: "cursor_approval_wait_ms",
        kind: int(1, DAY_MS, Unit::Millis),
        env: &[],
        flag: Some("--cursor-approval-ms"),
        env_beats_flag: false,
        doc: "How long a Cursor tool call runs before it counts as awaiting approval.",
    },
    Knob {
        id: K::RestoreMaxParallel,
        section: "restore",
        key: "max_parallel",
        kind: int(1, 64, Unit::Count),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "Auto-resume starts at most this many agents at once.",
    },
    Knob {
        id: K::RestoreStartWait,
        section: "restore",
        key: "start_wait_ms",
        kind: int(1, DAY_MS, Unit::Millis),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "An auto-resumed agent counts as started at a prompt, or after this.",
    },
    Knob {
        id: K::HibernateAfter,
        section: "hibernate",
        key: "after_s",
        kind: int(0, 7 * 86_400, Unit::Secs),
        env: &["SIGNALTTY_HIBERNATE_AFTER_S"],
        flag: None,
        env_beats_flag: false,
        doc: "Idle agents of workspaces that set nothing are hibernated after this; 0: never.",
    },
    Knob {
        id: K::AutoContinueMargin,
        section: "auto_continue",
        key: "margin_s",
        kind: int(0, 3600, Unit::Secs),
        env: &["SIGNALTTY_AUTO_CONTINUE_MARGIN_S"],
        flag: None,
        env_beats_flag: false,
        doc: "Auto-continue types its prompt this long after a usage limit's reset time.",
    },
    Knob {
        id: K::LogLevel,
        section: "log",
        key: "level",
        kind: Kind::Filter,
        env: &["SIGNALTTY_LOG", "RUST_LOG"],
        flag: None,
        env_beats_flag: false,
        doc: "A level (error warn info debug trace off) or RUST_LOG-style directives.",
    },
    Knob {
        id: K::LogFile,
        section: "log",
        key: "file",
        kind: Kind::Path,
        env: &[],
        flag: Some("--log-file"),
        env_beats_flag: false,
        doc: "Also write the log to this file (signaltty start: <state dir>/server.log).",
    },
    Knob {
        id: K::LogMaxBytes,
        section: "log",
        key: "max_bytes",
        kind: int(1024, TIB, Unit::Bytes),
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "The log file is renamed to <file>.1 (one kept) past this size.",
    },
    Knob {
        id: K::BoardBell,
        section: "board",
        key: "bell",
        kind: Kind::Bool,
        env: &[],
        flag: Some("--bell"),
        env_beats_flag: false,
        doc: "signaltty board rings the bell when a pane starts waiting or finishes unseen.",
    },
    Knob {
        id: K::BoardNotify,
        section: "board",
        key: "notify",
        kind: Kind::Bool,
        env: &[],
        flag: Some("--notify"),
        env_beats_flag: false,
        doc: "signaltty board also sends a desktop notification (notify-send).",
    },
    Knob {
        id: K::McpAllowAnswers,
        section: "mcp",
        key: "allow_answers",
        kind: Kind::Bool,
        env: &[],
        flag: None,
        env_beats_flag: false,
        doc: "signaltty mcp offers an answer_decision tool: agents may answer permission questions.",
    },
];

/// The default log file cap: 10 MiB.
pub const LOG_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// A knob's value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(u64),
    Path(PathBuf),
    Text(String),
    Bool(bool),
    /// No value (no log file; no agents dir without a home).
    Unset,
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Path(p) => write!(f, "{}", p.display()),
            Value::Text(t) => write!(f, "{t}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Unset => write!(f, "(unset)"),
        }
    }
}

fn millis(d: Duration) -> Value {
    Value::Int(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn count(n: usize) -> Value {
    Value::Int(u64::try_from(n).unwrap_or(u64::MAX))
}

/// The knob's value when nothing sets it. Paths follow the XDG rules of
/// docs/persistence.md#where-files-live, so they depend on `env`.
pub fn default_value(k: K, env: &Env) -> Value {
    let l = Limits::default();
    match k {
        K::Socket => Value::Path(env.default_socket()),
        K::DataDir => Value::Path(env.data_dir()),
        K::ShutdownGrace => millis(l.shutdown_grace),
        K::SlowSubscriber => Value::Int(l.slow_subscriber_bytes),
        K::MaxQueued => Value::Int(l.max_queued_bytes),
        K::Mailbox => count(l.subscriber_mailbox),
        K::Ring => count(l.ring_events),
        K::MaxParallelTasks => count(l.max_parallel_tasks),
        K::WorkerSilent => Value::Int(l.worker_silent_timeout.as_secs()),
        K::MergeTimeout => millis(l.merge_timeout),
        K::WorktreeGit => millis(l.worktree_git_deadline),
        K::JournalRotate => Value::Int(l.journal_rotate_bytes),
        K::JournalReserve => Value::Int(l.state_dir_reserve_bytes),
        K::JournalHold => count(l.hold_events),
        K::SnapshotInterval => millis(l.snapshot_interval),
        K::HistoryTailBytes => count(l.history_tail_bytes),
        K::ProcessRefresh => millis(l.process_refresh),
        K::AgentsDir => env.default_agents_dir().map_or(Value::Unset, Value::Path),
        K::CursorApproval => millis(l.cursor_approval_wait),
        K::RestoreMaxParallel => count(l.restore_max_parallel),
        K::RestoreStartWait => millis(l.restore_start_wait),
        K::HibernateAfter => Value::Int(l.hibernate_after.as_secs()),
        K::AutoContinueMargin => Value::Int(l.auto_continue_margin.as_secs()),
        K::LogLevel => Value::Text("info".to_owned()),
        K::LogFile => Value::Unset,
        K::LogMaxBytes => Value::Int(LOG_MAX_BYTES),
        K::BoardBell => Value::Bool(true),
        K::BoardNotify => Value::Bool(false),
        K::McpAllowAnswers => Value::Bool(false),
    }
}

/// The knob of `id`.
pub fn knob(id: K) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.id == id)
}

/// The knob at `section.key`.
pub fn by_key(section: &str, key: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.section == section && k.key == key)
}

/// The sections, in table order, each once.
pub fn sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in KNOBS {
        if !out.contains(&k.section) {
            out.push(k.section);
        }
    }
    out
}
