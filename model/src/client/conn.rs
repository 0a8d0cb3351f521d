//! One connection to a server, wherever it is: this machine's socket, or a
//! channel of a host's link (docs/remote.md). Both halves read and write
//! protocol lines as bytes, so every client (a CLI call, `attach`, the
//! board's feeds) is written once for both.

use crate::Env;
use crate::remote::channel::{ChannelReader, ChannelWriter};
use crate::remote::{Host, LinkError, Links};
use signaltty_protocol::ErrorCode;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::CallError;

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// This machine's server, on its socket.
    Socket(PathBuf),
    /// A configured host's server, over its link.
    Host(Box<Host>),
}

impl Target {
    /// The name fleet output gives the server: `local` or the host's name.
    pub fn name(&self) -> &str {
        match self {
            Target::Socket(_) => crate::remote::LOCAL,
            Target::Host(h) => &h.name,
        }
    }

    /// Opens a connection.
    pub fn connect(&self) -> Result<(ConnRead, ConnWrite), CallError> {
        match self {
            Target::Socket(path) => {
                let stream = connect_socket(path)?;
                let writer = stream.try_clone().map_err(|e| CallError::io("socket", e))?;
                Ok((ConnRead::Socket(stream), ConnWrite::Socket(writer)))
            },
            Target::Host(host) => {
                let env = Env::from_process();
                let link = Links::global().get(host, &env).map_err(link_error)?;
                let (r, w) = link.channel().map_err(link_error)?.split();
                Ok((ConnRead::Channel(r), ConnWrite::Channel(w)))
            },
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Socket(p) => write!(f, "{}", p.display()),
            Target::Host(h) => write!(f, "host {} ({})", h.name, h.dest),
        }
    }
}

/// A link's failure as a call's: an unreachable host is `NO_SUCH_SERVER`, a
/// remote that speaks another protocol `BAD_PROTOCOL`.
pub fn link_error(e: LinkError) -> CallError {
    match e {
        LinkError::Unreachable(message) => CallError {
            code: ErrorCode::NoSuchServer,
            message,
        },
        LinkError::Mismatch(message) => CallError {
            code: ErrorCode::BadProtocol,
            message,
        },
    }
}

/// Connects to a local socket, or fails with `NO_SUCH_SERVER` naming it.
pub fn connect_socket(socket: &Path) -> Result<UnixStream, CallError> {
    UnixStream::connect(socket).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => CallError {
            code: ErrorCode::NoSuchServer,
            message: format!(
                "no server is listening on {} (start one with `signaltty start`)",
                socket.display()
            ),
        },
        _ => CallError::io(&format!("cannot connect to {}", socket.display()), e),
    })
}

/// The reading half of a connection.
pub enum ConnRead {
    Socket(UnixStream),
    Channel(ChannelReader),
}

impl ConnRead {
    /// How long a read may block (`None`: forever); a read that waited that
    /// long fails with `WouldBlock` or `TimedOut`.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) -> std::io::Result<()> {
        match self {
            ConnRead::Socket(s) => s.set_read_timeout(timeout),
            ConnRead::Channel(c) => {
                c.set_timeout(timeout);
                Ok(())
            },
        }
    }
}

impl Read for ConnRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            ConnRead::Socket(s) => s.read(buf),
            ConnRead::Channel(c) => c.read(buf),
        }
    }
}

/// The writing half of a connection.
pub enum ConnWrite {
    Socket(UnixStream),
    Channel(ChannelWriter),
}

impl ConnWrite {
    /// Closes the connection both ways: a reader blocked on the other half
    /// wakes up at its end.
    pub fn shutdown(&self) {
        match self {
            ConnWrite::Socket(s) => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            },
            ConnWrite::Channel(c) => c.shutdown(),
        }
    }
}

impl Write for ConnWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            ConnWrite::Socket(s) => s.write(buf),
            ConnWrite::Channel(c) => c.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            ConnWrite::Socket(s) => s.flush(),
            ConnWrite::Channel(c) => c.flush(),
        }
    }
}
