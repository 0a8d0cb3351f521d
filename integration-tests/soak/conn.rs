//! The soak's connection: the harness's `Client` fails the test on the first
//! broken read, but in the soak a connection ending is an everyday event (a
//! SIGKILL, an upgrade's exec, a subscriber the server cuts). Every read and
//! write here returns what happened instead, and a read that times out keeps
//! the bytes of a line it had begun, so a short timeout never cuts a line.

use serde_json::{Value, json};
use signaltty_protocol::envelope::ServerLine;
use signaltty_protocol::{EventFrame, PROTOCOL, Response};
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// How a read or a write did not give a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The server closed the connection after a whole line.
    Eof,
    /// The server closed it in the middle of a line (these bytes).
    Fragment(Vec<u8>),
    /// The connection was reset, or a write found it closed.
    Broken(String),
    /// Nothing arrived within the read timeout (the connection stays usable).
    Timeout,
    /// The server wrote a line that is neither a response nor an event: a bug.
    Garbage(String),
}

impl End {
    /// Whether this is the server's fault rather than the connection's fate.
    pub fn is_garbage(&self) -> bool {
        matches!(self, End::Garbage(_))
    }
}

/// One connection to the server.
pub struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
    partial: Vec<u8>,
}

impl Conn {
    /// Connects to `socket`; reads time out after `timeout`.
    pub fn connect(socket: &Path, timeout: Duration) -> std::io::Result<Conn> {
        let stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(Duration::from_secs(30)))?;
        let writer = stream.try_clone()?;
        Ok(Conn {
            reader: BufReader::new(stream),
            writer,
            next_id: 0,
            partial: Vec::new(),
        })
    }

    /// Changes the read timeout.
    pub fn set_timeout(&self, timeout: Duration) {
        let _ = self.writer.set_read_timeout(Some(timeout));
    }

    /// Sends a request and returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> Result<String, End> {
        self.next_id += 1;
        let id = format!("s-{}", self.next_id);
        let mut line =
            json!({"protocol": PROTOCOL, "id": id, "method": method, "params": params}).to_string();
        line.push('\n');
        match self.writer.write_all(line.as_bytes()) {
            Ok(()) => Ok(id),
            Err(e) => Err(End::Broken(format!("write: {e}"))),
        }
    }

    /// One line without its `\n`.
    pub fn read_line(&mut self) -> Result<String, End> {
        match self.reader.read_until(b'\n', &mut self.partial) {
            Ok(0) if self.partial.is_empty() => Err(End::Eof),
            Ok(0) => Err(End::Fragment(std::mem::take(&mut self.partial))),
            Ok(_) if self.partial.ends_with(b"\n") => {
                let mut bytes = std::mem::take(&mut self.partial);
                bytes.pop();
                String::from_utf8(bytes).map_err(|e| End::Garbage(format!("not UTF-8: {e}")))
            },
            Ok(_) => Err(End::Fragment(std::mem::take(&mut self.partial))),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(End::Timeout)
            },
            Err(e) if e.kind() == ErrorKind::Interrupted => Err(End::Timeout),
            Err(e) => Err(End::Broken(format!("read: {e}"))),
        }
    }

    /// One parsed line.
    pub fn read_server_line(&mut self) -> Result<ServerLine, End> {
        let line = self.read_line()?;
        ServerLine::parse(&line).map_err(|e| End::Garbage(format!("{e}: {line}")))
    }

    /// Sends a request and reads until its response; events read meanwhile
    /// are dropped (the callers that want events do not call).
    pub fn call(&mut self, method: &str, params: Value) -> Result<Response, End> {
        let id = self.send(method, params)?;
        self.response_to(&id)
    }

    /// Reads until the response with `id`. A response with another id is a
    /// bug, but for `"?"`: the server's last line before it cuts a client.
    pub fn response_to(&mut self, id: &str) -> Result<Response, End> {
        loop {
            match self.read_server_line()? {
                ServerLine::Response(r) if r.id == id => return Ok(r),
                ServerLine::Response(r) if r.id == "?" => {
                    return Err(End::Broken(format!("cut off: {r:?}")));
                },
                ServerLine::Response(r) => {
                    return Err(End::Garbage(format!("a reply to {id} has id {}", r.id)));
                },
                ServerLine::Event(_) => {},
            }
        }
    }

    /// The next event, or the response that ends the stream (`"?"`).
    pub fn next(&mut self) -> Result<Next, End> {
        Ok(match self.read_server_line()? {
            ServerLine::Event(e) => Next::Event(e),
            ServerLine::Response(r) => Next::Response(r),
        })
    }

    /// Whether the server has closed its end (without reading anything):
    /// `POLLHUP`, which a Unix socket reports once its peer is gone.
    pub fn closed_by_peer(&self) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        let fd = std::os::fd::AsFd::as_fd(&self.writer);
        let mut fds = [PollFd::new(fd, PollFlags::empty())];
        match poll(&mut fds, PollTimeout::ZERO) {
            Ok(0) => false,
            Ok(_) => fds[0]
                .revents()
                .is_some_and(|r| r.intersects(PollFlags::POLLHUP | PollFlags::POLLERR)),
            Err(_) => false,
        }
    }
}

/// What `Conn::next` read.
#[derive(Debug)]
pub enum Next {
    Event(EventFrame),
    Response(Response),
}

/// The result of a response, or a text saying why there is none.
pub fn result(r: Response) -> Result<Value, String> {
    if r.ok {
        Ok(r.result.unwrap_or(Value::Null))
    } else {
        Err(match r.error {
            Some(e) => e.code.as_str().to_owned(),
            None => "an error without a body".to_owned(),
        })
    }
}
