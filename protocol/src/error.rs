//! The error codes of docs/protocol.md#error-codes: the only list of wire codes in the
//! project.

use serde::{Deserialize, Serialize};

macro_rules! error_codes {
    ($($variant:ident = $wire:literal,)*) => {
        /// A stable, machine-readable error code. `message` is for people; this is for programs.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorCode {
            $(#[serde(rename = $wire)] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order of docs/protocol.md#error-codes
            /// (`server.schema.codes`).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as written on the wire, e.g. `"NO_SUCH_PANE"`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $wire,)* }
            }
        }
    };
}

error_codes! {
    BadProtocol = "BAD_PROTOCOL",
    UnknownMethod = "UNKNOWN_METHOD",
    BadParams = "BAD_PARAMS",
    NoSuchServer = "NO_SUCH_SERVER",
    NoSuchWorkspace = "NO_SUCH_WORKSPACE",
    NoSuchTab = "NO_SUCH_TAB",
    NoSuchPane = "NO_SUCH_PANE",
    NoSuchTask = "NO_SUCH_TASK",
    NoSuchDecision = "NO_SUCH_DECISION",
    AgentBusy = "AGENT_BUSY",
    AgentNotReady = "AGENT_NOT_READY",
    MergeConflict = "MERGE_CONFLICT",
    PaneExited = "PANE_EXITED",
    PanesAlive = "PANES_ALIVE",
    SpawnFailed = "SPAWN_FAILED",
    IoError = "IO_ERROR",
    Timeout = "TIMEOUT",
    IdentityChanged = "IDENTITY_CHANGED",
    RateLimited = "RATE_LIMITED",
    Forbidden = "FORBIDDEN",
    Internal = "INTERNAL",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
