//! The one error type of the server. Every variant says what a user needs in order
//! to act; `code()` maps it to a wire code with an exhaustive match, so a new variant
//! does not compile until someone picks its code. Only the router turns an `Error`
//! into a wire error body.

use signaltty_protocol::{ErrorCode, TabId, WorkspaceRef};
use std::fmt;

/// A failed request or a failed server operation.
#[derive(Debug)]
pub enum Error {
    /// Params that parsed but make no sense (a bad cwd, an empty name, …).
    BadParams(String),
    /// No workspace has this id or handle.
    NoSuchWorkspace(WorkspaceRef),
    /// No tab has this id.
    NoSuchTab(TabId),
    /// No pane has this id or name.
    NoSuchPane(String),
    /// `server.shutdown` without `force` while panes are live.
    PanesAlive { live: usize },
    /// The pane has no live process; `written` is the prefix of an input the PTY
    /// accepted before it went away.
    PaneExited {
        pane: String,
        written: Option<usize>,
    },
    /// A bounded operation ran out of time; `written` as for `PaneExited`.
    Timeout {
        what: String,
        written: Option<usize>,
    },
    /// The PTY or the program could not be started.
    SpawnFailed(String),
    /// Too much at once (input over 1 MiB, …).
    RateLimited(String),
    /// A filesystem or process operation failed.
    Io {
        what: String,
        source: std::io::Error,
    },
    /// An actor we needed is gone: our bug, not the caller's.
    Mailbox(actix::MailboxError),
    /// The journal could not record an event; the server is stopping.
    JournalFailed(String),
    /// A server invariant failed (a result that cannot be serialized, …): our
    /// bug, not the caller's.
    Internal(String),
    /// The server is shutting down and takes no new work.
    ShuttingDown,
    /// A wait baseline belongs to another process or agent session of the pane.
    IdentityChanged(String),
    /// The decision answered is not the pane's pending one (superseded,
    /// answered, cleared), or its native route is gone.
    NoSuchDecision(String),
    /// `pane.submit` refused: the agent is busy or asking something; `details`
    /// says at which stage.
    AgentBusy {
        why: String,
        details: Option<serde_json::Value>,
    },
    /// `pane.submit` refused: the agent has not shown it can take a prompt.
    AgentNotReady(String),
    /// A gate ran out of time at `stage` (`pane.submit`'s activity gate).
    Stalled { what: String, stage: &'static str },
    /// No task has this id.
    NoSuchTask(String),
    /// An error with a code and structured details (`RATE_LIMITED {active_tasks,
    /// max_parallel_tasks}`, a failed start's `{task_id, stage}`).
    Detailed {
        code: ErrorCode,
        message: String,
        details: serde_json::Value,
    },
    /// Live panes, or their processes, work inside a checkout that is to be
    /// removed (`worktree.remove`, `task.finish`).
    PanesInside { path: String, panes: Vec<String> },
    /// A step after a checkout was made failed; the checkout stays at `path`
    /// (`worktree.create` binding a workspace). The code is `error`'s.
    CheckoutRetained { error: Box<Error>, path: String },
}

impl Error {
    /// This error with `details`, keeping its code and message.
    pub fn with_details(self, details: serde_json::Value) -> Error {
        Error::Detailed {
            code: self.code(),
            message: self.to_string(),
            details,
        }
    }
}

impl Error {
    /// The wire code for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::BadParams(_) => ErrorCode::BadParams,
            Error::NoSuchWorkspace(_) => ErrorCode::NoSuchWorkspace,
            Error::NoSuchTab(_) => ErrorCode::NoSuchTab,
            Error::NoSuchPane(_) => ErrorCode::NoSuchPane,
            Error::PanesAlive { .. } => ErrorCode::PanesAlive,
            Error::PaneExited { .. } => ErrorCode::PaneExited,
            Error::Timeout { .. } => ErrorCode::Timeout,
            Error::IdentityChanged(_) => ErrorCode::IdentityChanged,
            Error::SpawnFailed(_) => ErrorCode::SpawnFailed,
            Error::RateLimited(_) => ErrorCode::RateLimited,
            Error::Io { .. } => ErrorCode::IoError,
            Error::Mailbox(_) => ErrorCode::Internal,
            Error::JournalFailed(_) => ErrorCode::Internal,
            Error::Internal(_) => ErrorCode::Internal,
            Error::ShuttingDown => ErrorCode::Internal,
            Error::NoSuchDecision(_) => ErrorCode::NoSuchDecision,
            Error::AgentBusy { .. } => ErrorCode::AgentBusy,
            Error::AgentNotReady(_) => ErrorCode::AgentNotReady,
            Error::Stalled { .. } => ErrorCode::Timeout,
            Error::NoSuchTask(_) => ErrorCode::NoSuchTask,
            Error::Detailed { code, .. } => *code,
            Error::PanesInside { .. } => ErrorCode::PanesAlive,
            Error::CheckoutRetained { error, .. } => error.code(),
        }
    }

    /// Structured details for the error body, when the error has any.
    pub fn details(&self) -> Option<serde_json::Value> {
        match self {
            Error::PanesAlive { live } => Some(serde_json::json!({ "live_panes": live })),
            Error::PaneExited {
                written: Some(n), ..
            }
            | Error::Timeout {
                written: Some(n), ..
            } => Some(serde_json::json!({ "written_bytes": n })),
            Error::AgentBusy { details, .. } => details.clone(),
            Error::Stalled { stage, .. } => Some(serde_json::json!({ "stage": stage })),
            Error::Detailed { details, .. } => Some(details.clone()),
            Error::PanesInside { panes, .. } => Some(serde_json::json!({ "panes": panes })),
            Error::CheckoutRetained { error, .. } => error.details(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadParams(msg) => f.write_str(msg),
            Error::NoSuchWorkspace(r) => write!(f, "no such workspace {r}"),
            Error::NoSuchTab(t) => write!(f, "no such tab {t}"),
            Error::NoSuchPane(p) => write!(f, "no such pane {p}"),
            Error::PanesAlive { live } => {
                write!(
                    f,
                    "{live} pane(s) still live; pass force to shut down anyway"
                )
            },
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::PaneExited { pane, .. } => write!(f, "pane {pane} has no live process"),
            Error::Timeout { what, .. } => write!(f, "{what} timed out"),
            Error::SpawnFailed(why) => f.write_str(why),
            Error::RateLimited(why) => f.write_str(why),
            Error::Mailbox(e) => write!(f, "internal actor unavailable: {e}"),
            Error::JournalFailed(msg) => write!(f, "event journal failed: {msg}"),
            Error::ShuttingDown => f.write_str("the server is shutting down"),
            Error::Internal(why) => write!(f, "internal error: {why}"),
            Error::IdentityChanged(why) => write!(f, "identity changed: {why}"),
            Error::NoSuchDecision(why) => f.write_str(why),
            Error::AgentBusy { why, .. } => f.write_str(why),
            Error::AgentNotReady(why) => f.write_str(why),
            Error::Stalled { what, stage } => write!(f, "{stage}: {what}"),
            Error::NoSuchTask(id) => write!(f, "no such task {id}"),
            Error::Detailed { message, .. } => f.write_str(message),
            Error::PanesInside { path, panes } => write!(
                f,
                "{} live pane(s) inside {path}: {}; close them first",
                panes.len(),
                panes.join(", ")
            ),
            Error::CheckoutRetained { error, path } => {
                write!(f, "{error}; checkout retained at {path}")
            },
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Mailbox(e) => Some(e),
            _ => None,
        }
    }
}

impl From<actix::MailboxError> for Error {
    fn from(e: actix::MailboxError) -> Self {
        Error::Mailbox(e)
    }
}
