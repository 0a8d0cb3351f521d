//! What serving a request produces ([`Reply`]) and its wire form: the response
//! line around an already serialized result, and the error body of an
//! [`Error`]. The router builds replies; the Connection writes their lines.

use crate::error::Error;
use bytes::Bytes;
use signaltty_protocol::PROTOCOL;
use signaltty_protocol::envelope::{ErrorBody, Response};

/// What a request produces: its result, lines to write right after the response
/// (a subscription's replay from memory), a feed of more lines read as the
/// client reads (a replay from the journal files), and whether to close the
/// connection afterwards.
#[derive(Debug)]
pub struct Reply {
    /// The method's result as JSON text, or its error.
    pub result: Result<Bytes, Error>,
    /// Lines written right after the response, before any other line.
    pub after: Vec<Bytes>,
    /// Lines written after those, a batch at a time while the client's unread
    /// output is low, before any other line.
    pub feed: Option<Box<dyn ReplayFeed>>,
    /// Close the connection once these lines are written.
    pub close_after: bool,
}

/// Event lines handed out in batches, on a blocking thread: a replay that is
/// too long to hold in memory.
pub trait ReplayFeed: Send + std::fmt::Debug {
    /// Up to about `max_bytes` of (seq, line), ascending; `None` once the
    /// feed is over.
    fn next_batch(&mut self, max_bytes: usize) -> Result<Option<Vec<(u64, Bytes)>>, String>;
}

impl Reply {
    /// A plain reply. The result is serialized here, once, straight to JSON text.
    pub fn of<T: serde::Serialize>(result: Result<T, Error>) -> Reply {
        let result = result.and_then(|r| {
            serde_json::to_vec(&r)
                .map(Bytes::from)
                .map_err(|e| Error::Internal(format!("unserializable result: {e}")))
        });
        Reply {
            result,
            after: Vec::new(),
            feed: None,
            close_after: false,
        }
    }

    /// An error reply.
    pub fn error(e: Error) -> Reply {
        Reply {
            result: Err(e),
            after: Vec::new(),
            feed: None,
            close_after: false,
        }
    }
}

/// The response line for a reply's result.
pub fn response_line(id: &str, result: Result<Bytes, Error>) -> Vec<u8> {
    match result {
        Ok(json) => {
            // The envelope of docs/protocol.md#success-response around the
            // already serialized result.
            let id = serde_json::to_string(id).unwrap_or_else(|_| "\"?\"".to_owned());
            let mut line = Vec::with_capacity(json.len() + id.len() + 48);
            line.extend_from_slice(b"{\"protocol\":\"");
            line.extend_from_slice(PROTOCOL.as_bytes());
            line.extend_from_slice(b"\",\"id\":");
            line.extend_from_slice(id.as_bytes());
            line.extend_from_slice(b",\"ok\":true,\"result\":");
            line.extend_from_slice(&json);
            line.extend_from_slice(b"}\n");
            line
        },
        Err(e) => Response::err(id, error_body(&e)).to_line(),
    }
}

/// The wire form of an error.
pub fn error_body(e: &Error) -> ErrorBody {
    let mut body = ErrorBody::new(e.code(), e.to_string());
    body.details = e.details();
    body
}

#[cfg(test)]
mod tests;
