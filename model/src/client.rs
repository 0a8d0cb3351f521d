//! The blocking socket client the CLI uses: std `UnixStream` and serde_json, no
//! actix, so a hook reporter can connect, send one line and exit in milliseconds.

use signaltty_protocol::envelope::{ErrorBody, ServerLine};
use signaltty_protocol::{ErrorCode, Method, Request};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod conn;

pub use conn::{ConnRead, ConnWrite, Target};

/// A failed call, as the CLI reports it.
#[derive(Debug)]
pub struct CallError {
    /// The wire code (`NO_SUCH_SERVER` is produced here, client-side).
    pub code: ErrorCode,
    /// Text for people.
    pub message: String,
}

impl CallError {
    fn io(what: &str, e: std::io::Error) -> CallError {
        let link = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<crate::remote::LinkError>());
        if let Some(link) = link {
            return conn::link_error(link.clone());
        }
        match e.kind() {
            // A link's channel that could not reach its server says why.
            std::io::ErrorKind::NotConnected => CallError {
                code: ErrorCode::NoSuchServer,
                message: e.to_string(),
            },
            _ => CallError {
                code: ErrorCode::IoError,
                message: format!("{what}: {e}"),
            },
        }
    }
}

impl From<ErrorBody> for CallError {
    fn from(e: ErrorBody) -> Self {
        CallError {
            code: e.code,
            message: e.message,
        }
    }
}

/// One connection to the server.
pub struct Client {
    reader: BufReader<ConnRead>,
    writer: ConnWrite,
    next_id: u64,
}

impl Client {
    /// Connects, or fails with `NO_SUCH_SERVER` naming the socket when nothing listens.
    pub fn connect(socket: &Path) -> Result<Client, CallError> {
        Client::open(&Target::Socket(socket.to_path_buf()))
    }

    /// Connects to `target`: a socket, or a host over its link.
    pub fn open(target: &Target) -> Result<Client, CallError> {
        let (reader, writer) = target.connect()?;
        Ok(Client::from_halves(reader, writer))
    }

    /// A client on a connection already open.
    pub fn from_halves(reader: ConnRead, writer: ConnWrite) -> Client {
        Client {
            reader: BufReader::new(reader),
            writer,
            next_id: 1,
        }
    }

    /// Sets how long a read may block; `None` waits forever.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) -> Result<(), CallError> {
        self.reader
            .get_mut()
            .set_timeout(timeout)
            .map_err(|e| CallError::io("socket", e))
    }

    /// Sends one request without waiting for its answer; its id (read the
    /// answer with [`Client::read_line`]). A server that hung up is
    /// [`CLOSED_EARLY`].
    pub fn send(&mut self, method: Method) -> Result<String, CallError> {
        let id = format!("cli-{}", self.next_id);
        self.next_id += 1;
        let mut line = Request::new(id.clone(), method).to_line();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset => {
                    closed_early()
                },
                _ => CallError::io("cannot send the request", e),
            })?;
        Ok(id)
    }

    /// Calls one method and returns its result. Events that arrive first are skipped.
    pub fn call(&mut self, method: Method) -> Result<serde_json::Value, CallError> {
        let id = self.send(method)?;
        self.answer(&id)
    }

    /// Reads until the answer to request `id`; events on the way are skipped.
    fn answer(&mut self, id: &str) -> Result<serde_json::Value, CallError> {
        loop {
            let text = self.read_line()?.ok_or_else(closed_early)?;
            match ServerLine::parse(&text) {
                Ok(ServerLine::Response(r)) if r.id == id => {
                    return match (r.ok, r.result, r.error) {
                        (true, result, _) => Ok(result.unwrap_or(serde_json::Value::Null)),
                        (false, _, Some(e)) => Err(e.into()),
                        (false, _, None) => Err(CallError {
                            code: ErrorCode::Internal,
                            message: "error response without an error".into(),
                        }),
                    };
                },
                Ok(_) => continue,
                Err(e) => {
                    return Err(CallError {
                        code: ErrorCode::Internal,
                        message: format!("unreadable server line: {e}"),
                    });
                },
            }
        }
    }

    /// Reads one line with no timeout (a follower waits for events); `None` at EOF.
    pub fn read_line_blocking(&mut self) -> Result<Option<String>, CallError> {
        self.set_timeout(None)?;
        self.read_line()
    }

    /// Reads one line; `None` at EOF.
    pub fn read_line(&mut self) -> Result<Option<String>, CallError> {
        let mut text = String::new();
        match self.reader.read_line(&mut text) {
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some(text.trim_end_matches(['\n', '\r']).to_owned())),
            // A server that drops a connection with a request still unread resets
            // it: for the caller that is the same as a close.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => Ok(None),
            Err(e) => Err(CallError::io("cannot read from the server", e)),
        }
    }
}

/// The server hung up without answering (shutting down, or refusing this user).
/// The message of a connection closed before its answer (an in-place
/// upgrade closes every connection but the one that asked for it).
pub const CLOSED_EARLY: &str = "the server closed the connection before answering";

fn closed_early() -> CallError {
    CallError {
        code: ErrorCode::Internal,
        message: CLOSED_EARLY.into(),
    }
}

/// Whether a server answers on `socket` right now.
pub fn server_answers(socket: &PathBuf) -> bool {
    UnixStream::connect(socket).is_ok()
}
