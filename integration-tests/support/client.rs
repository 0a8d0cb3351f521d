//! `Client`: one blocking connection to the server. Reads have a timeout, so a
//! missing reply fails the test instead of hanging it. Events read while waiting for
//! a response are queued and handed out by `next_event`.

use super::DEADLINE;
use serde_json::{Value, json};
use signaltty_protocol::envelope::ServerLine;
use signaltty_protocol::{EventFrame, PROTOCOL, Response};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::Path;

/// One request line, newline included, with the given id, method and params.
pub fn request_line(id: &str, method: &str, params: Value) -> String {
    let mut line =
        json!({"protocol": PROTOCOL, "id": id, "method": method, "params": params}).to_string();
    line.push('\n');
    line
}

/// What `Client::read_raw_line` read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawLine {
    /// A complete line, without its `\n`.
    Line(String),
    /// Bytes after the last `\n`, followed by EOF: a line cut off mid-way.
    Fragment(Vec<u8>),
    /// The peer closed the connection.
    Eof,
    /// The peer reset the connection.
    Reset,
}

/// A blocking JSON-lines connection.
pub struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
    events: VecDeque<EventFrame>,
}

impl Client {
    /// Connects to `socket`, failing the test when nothing listens.
    #[track_caller]
    pub fn connect(socket: &Path) -> Client {
        match Client::try_connect(socket) {
            Ok(client) => client,
            Err(e) => panic!("cannot connect to {}: {e}", socket.display()),
        }
    }

    /// Connects to `socket`.
    pub fn try_connect(socket: &Path) -> std::io::Result<Client> {
        let stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(DEADLINE))?;
        stream.set_write_timeout(Some(DEADLINE))?;
        let writer = stream.try_clone()?;
        Ok(Client {
            reader: BufReader::new(stream),
            writer,
            next_id: 0,
            events: VecDeque::new(),
        })
    }

    /// The underlying socket (shared with the reader), e.g. for peer credentials
    /// or for a writer thread via `try_clone`.
    pub fn stream(&self) -> &UnixStream {
        &self.writer
    }

    /// Writes `bytes` as they are.
    #[track_caller]
    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Err(e) = self.writer.write_all(bytes) {
            panic!("cannot write {} bytes to the server: {e}", bytes.len());
        }
    }

    /// A fresh request id for this connection.
    pub fn fresh_id(&mut self) -> String {
        self.next_id += 1;
        format!("c-{}", self.next_id)
    }

    /// Sends a request without waiting and returns its id.
    #[track_caller]
    pub fn send(&mut self, method: &str, params: Value) -> String {
        let id = self.fresh_id();
        self.send_raw(request_line(&id, method, params).as_bytes());
        id
    }

    /// Sends a request and returns its response, checking that the id matches.
    #[track_caller]
    pub fn call(&mut self, method: &str, params: Value) -> Response {
        let id = self.send(method, params);
        let response = self.read_response();
        assert_eq!(
            response.id, id,
            "response to {method} carries the wrong id: {response:?}"
        );
        response
    }

    /// `call` that expects success and returns the result.
    #[track_caller]
    pub fn call_ok(&mut self, method: &str, params: Value) -> Value {
        super::ok(self.call(method, params))
    }

    /// Shuts down the writing half; the server sees EOF.
    pub fn half_close(&self) {
        if let Err(e) = self.writer.shutdown(Shutdown::Write) {
            panic!("cannot shut down the writing half: {e}");
        }
    }

    /// Reads one line without its terminator, `None` at EOF. A read timeout fails
    /// the test; a reset by the server counts as EOF.
    #[track_caller]
    pub fn read_line(&mut self) -> Option<String> {
        let mut bytes = Vec::new();
        match self.reader.read_until(b'\n', &mut bytes) {
            Ok(0) => None,
            Ok(_) => {
                assert!(
                    bytes.ends_with(b"\n"),
                    "the server closed the connection in the middle of a line: {:?}",
                    String::from_utf8_lossy(&bytes)
                );
                bytes.pop();
                match String::from_utf8(bytes) {
                    Ok(line) => Some(line),
                    Err(e) => panic!("the server wrote a line that is not UTF-8: {e}"),
                }
            },
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("no line from the server within {DEADLINE:?}")
            },
            Err(e) if e.kind() == ErrorKind::ConnectionReset => None,
            Err(e) => panic!("cannot read from the server: {e}"),
        }
    }

    /// Reads one line for a test that expects the stream to end abruptly (a killed
    /// server, a kicked subscriber): a final fragment without `\n` and a reset are
    /// reported instead of failing the test. A read timeout still fails it.
    #[track_caller]
    pub fn read_raw_line(&mut self) -> RawLine {
        let mut bytes = Vec::new();
        match self.reader.read_until(b'\n', &mut bytes) {
            Ok(0) => RawLine::Eof,
            Ok(_) if bytes.ends_with(b"\n") => {
                bytes.pop();
                match String::from_utf8(bytes) {
                    Ok(line) => RawLine::Line(line),
                    Err(e) => panic!("the server wrote a line that is not UTF-8: {e}"),
                }
            },
            Ok(_) => RawLine::Fragment(bytes),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("no line from the server within {DEADLINE:?}")
            },
            Err(e) if e.kind() == ErrorKind::ConnectionReset => RawLine::Reset,
            Err(e) => panic!("cannot read from the server: {e}"),
        }
    }

    /// Reads and parses one server line, `None` at EOF.
    #[track_caller]
    pub fn read_server_line(&mut self) -> Option<ServerLine> {
        let line = self.read_line()?;
        match ServerLine::parse(&line) {
            Ok(parsed) => {
                check_envelope(&line, &parsed);
                Some(parsed)
            },
            Err(e) => panic!(
                "the server wrote a line that is neither a response nor an event ({e}): {line}"
            ),
        }
    }

    /// Reads the next response, queueing any events read before it.
    #[track_caller]
    pub fn read_response(&mut self) -> Response {
        loop {
            match self.read_server_line() {
                Some(ServerLine::Response(response)) => return response,
                Some(ServerLine::Event(event)) => self.events.push_back(event),
                None => panic!("the server closed the connection while a response was expected"),
            }
        }
    }

    /// The next event: a queued one, else the next line, which must be an event.
    #[track_caller]
    pub fn next_event(&mut self) -> EventFrame {
        if let Some(event) = self.events.pop_front() {
            return event;
        }
        match self.read_server_line() {
            Some(ServerLine::Event(event)) => event,
            Some(ServerLine::Response(response)) => {
                panic!("expected an event, got a response: {response:?}")
            },
            None => panic!("the server closed the connection while an event was expected"),
        }
    }

    /// The events queued while reading responses, leaving the queue empty.
    pub fn take_queued_events(&mut self) -> Vec<EventFrame> {
        self.events.drain(..).collect()
    }

    /// Reads lines until EOF and returns them parsed.
    #[track_caller]
    pub fn read_until_eof(&mut self) -> Vec<ServerLine> {
        let mut lines = Vec::new();
        while let Some(line) = self.read_server_line() {
            lines.push(line);
        }
        lines
    }

    /// Asserts that the server closes the connection without writing another line.
    #[track_caller]
    pub fn expect_eof(&mut self) {
        let rest = self.read_until_eof();
        assert!(rest.is_empty(), "expected EOF, the server wrote {rest:?}");
    }
}

/// Checks the parts of a server line the parsed types do not pin down.
#[track_caller]
fn check_envelope(line: &str, parsed: &ServerLine) {
    match parsed {
        ServerLine::Response(r) => {
            assert_eq!(
                r.protocol, PROTOCOL,
                "response with a wrong protocol: {line}"
            );
            assert_eq!(
                r.ok,
                r.error.is_none(),
                "`ok` disagrees with `error`: {line}"
            );
            if let Ok(raw) = serde_json::from_str::<Value>(line) {
                assert_ne!(
                    raw.get("error"),
                    Some(&Value::Null),
                    "`error` must be omitted, not null: {line}"
                );
                if let Some(error) = raw.get("error") {
                    assert_ne!(
                        error.get("details"),
                        Some(&Value::Null),
                        "`error.details` must be omitted, not null: {line}"
                    );
                }
            }
        },
        ServerLine::Event(e) => {
            assert_eq!(e.protocol, PROTOCOL, "event with a wrong protocol: {line}");
            assert_eq!(e.kind, "event", "event with a wrong type: {line}");
            assert!(
                e.payload.is_object(),
                "event payload is not an object: {line}"
            );
        },
    }
}
