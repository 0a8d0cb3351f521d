//! Disconnecting a client the server cannot keep (docs/protocol.md#connection-rules):
//! a last error line saying why and where to resume from, two seconds to
//! read it, then the socket is dropped whatever is left.

use super::{Connection, UNKNOWN_REQUEST_ID};
use actix::prelude::*;
use signaltty_protocol::ErrorCode;
use signaltty_protocol::envelope::{ErrorBody, Response};

/// Disconnect this client (lag, out-of-order delivery), telling it why.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct CloseConnection {
    /// The kind, sent as `details.reason`.
    pub kind: KickReason,
    /// Why, for the client and the log.
    pub reason: String,
}

/// Why a connection was disconnected by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KickReason {
    /// Its unread output passed the bound.
    SlowReader,
    /// Its subscription's queue overflowed.
    Lagged,
    /// An event arrived out of seq order.
    OutOfOrder,
    /// The journal could not be read for the replay under way.
    ReplayFailed,
}

impl KickReason {
    /// The `details.reason` string.
    pub fn as_str(self) -> &'static str {
        match self {
            KickReason::SlowReader => "slow_reader",
            KickReason::Lagged => "lagged",
            KickReason::OutOfOrder => "out_of_order",
            KickReason::ReplayFailed => "replay_failed",
        }
    }

    /// The error code of the last line: the client's pace, or the server's
    /// own failure.
    pub fn code(self) -> ErrorCode {
        match self {
            KickReason::ReplayFailed => ErrorCode::IoError,
            _ => ErrorCode::RateLimited,
        }
    }
}

/// How long a disconnected client gets to read its last lines before the socket is
/// dropped.
pub const KICK_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

impl Connection {
    /// Disconnects the client, telling it why in a final error line when it still
    /// reads: the queued output (and the line) get `KICK_GRACE` to drain, then the
    /// connection is dropped whatever is left. Nothing is skipped silently.
    pub(super) fn kick(&mut self, reason: KickReason, why: &str, ctx: &mut Context<Self>) {
        if self.closing {
            return;
        }
        log::warn!("conn {}: disconnecting: {why}", self.id.0);
        let mut body = ErrorBody::new(
            ErrorCode::RateLimited,
            format!(
                "disconnected: {why}; subscribe again with from_seq set to the last seq you received (details.resume_from_seq once every line before this one is read)"
            ),
        );
        body.code = reason.code();
        let mut details = serde_json::json!({ "reason": reason.as_str() });
        if self.written_seq > 0 {
            details["resume_from_seq"] = self.written_seq.into();
        }
        body.details = Some(details);
        self.writer
            .write(&Response::err(UNKNOWN_REQUEST_ID, body).to_line());
        self.held.clear();
        self.queue.clear();
        self.stop_reading(ctx);
        self.finish();
        ctx.run_later(KICK_GRACE, |_, ctx| ctx.stop());
    }
}

impl Handler<CloseConnection> for Connection {
    type Result = ();

    fn handle(&mut self, msg: CloseConnection, ctx: &mut Self::Context) {
        self.kick(msg.kind, &msg.reason, ctx);
    }
}
