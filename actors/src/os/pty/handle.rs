//! What the Pane actor needs of its pseudoterminal, as a trait: the real
//! [`Pty`] in the server, `testkit::FakePty` in the actor tests (the way
//! zellij tests its server against a fake OS API).

use super::{Pty, WriteError};
use nix::sys::signal::Signal;
use std::io;
use std::os::fd::OwnedFd;
use std::time::Instant;
use tokio::sync::oneshot;

/// Whom a signal goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalTarget {
    /// The child process only.
    Child,
    /// The child's whole process group.
    Group,
}

/// A pane's PTY: one child process, its terminal and its bounded writer.
pub trait PtyHandle: Send + 'static {
    /// The child's pid (also its process group and session id).
    fn pid(&self) -> u32;
    /// Sets the terminal size; fails once the PTY is closed.
    fn resize(&self, rows: u16, cols: u16) -> io::Result<()>;
    /// Sends `sig` to the child or its group; fails once the child is reaped.
    fn signal(&self, sig: Signal, target: SignalTarget) -> io::Result<()>;
    /// Queues a write that must complete by `deadline`. Resolves with the
    /// bytes written, or with why it stopped and the prefix written. The
    /// write is bound to this PTY: a later process never gets the bytes.
    fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> oneshot::Receiver<Result<usize, WriteError>>;
    /// Hangs up, signalling the child with `sig`. Never blocks.
    fn close(&self, sig: Signal);
    /// Lets go of the terminal for an upgrade, leaving the process running:
    /// the master, duplicated (see `Pty::release`).
    fn release(&self) -> io::Result<OwnedFd>;
}

impl PtyHandle for Pty {
    fn pid(&self) -> u32 {
        Pty::pid(self)
    }

    fn resize(&self, rows: u16, cols: u16) -> io::Result<()> {
        Pty::resize(self, rows, cols)
    }

    fn signal(&self, sig: Signal, target: SignalTarget) -> io::Result<()> {
        Pty::signal(self, sig, target == SignalTarget::Group)
    }

    fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> oneshot::Receiver<Result<usize, WriteError>> {
        Pty::write(self, bytes, deadline)
    }

    fn close(&self, sig: Signal) {
        Pty::close(self, sig);
    }

    fn release(&self) -> io::Result<OwnedFd> {
        Pty::release(self)
    }
}
