//! Wire types of the `signaltty/1` protocol: the four envelopes, the method table,
//! typed params and results, events, error codes and ids. No I/O and no actix, so the
//! server, the CLI and the end-to-end tests all speak through exactly these types.
//!
//! The contract these types follow is docs/protocol.md (envelopes, validation,
//! error codes), docs/methods.md (methods), docs/events.md (events) and
//! docs/objects.md (object shapes).

pub mod diff;
pub mod envelope;
pub mod error;
pub mod event;
#[cfg(test)]
mod generated;
pub mod ids;
pub mod layout;
pub mod method;
pub mod notification;
pub mod pane;
pub mod server;
pub mod signal;
pub mod state;
pub mod subscribe;
pub mod tab;
pub mod task;
pub mod time;
pub mod workspace;
pub mod worktree;

pub use envelope::{ErrorBody, EventFrame, Request, RequestError, Response, ServerLine};
pub use error::ErrorCode;
pub use event::Event;
pub use ids::{ContextId, PaneId, PaneRef, Seq, TabId, TaskId, WorkspaceId, WorkspaceRef};
pub use method::Method;
pub use time::Timestamp;

/// The protocol string every request must carry and every server line carries.
pub const PROTOCOL: &str = "signaltty/1";

/// The longest request line a server reads, in bytes, not counting the newline
/// (docs/protocol.md#framing). A longer line is answered `RATE_LIMITED` with id `"?"`.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The id echoed in an error response when the request's own id is unknown.
pub const UNKNOWN_REQUEST_ID: &str = "?";
