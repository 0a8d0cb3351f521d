//! The PTY layer: opens a pseudoterminal, starts a pane's process on it and runs
//! the pane's reader thread (and a writer thread from its first input). Nothing here
//! knows about actix:
//! the Pane actor drives a `Pty` and receives the output through a `PtySink`.
//!
//! ```text
//!   spawn() ──▶ Pty (Arc<Shared>)
//!                 │ master slot ─┬─ pty-<pid>      reader: read 8 KiB ─▶ sink.output
//!                 │              └─ pty-w-<pid>    writer (from the first input): one job at a time, deadlines
//!                 │ pid ── pidfd ─▶ reader polls it beside the master, reaps ─▶ sink.exited
//!                 │        (no pidfd: pty-exit-<pid> waiter: waitid, reap ─(exit pipe)─▶ reader)
//!                 │
//!   close(sig) ── canceled · kill(pid, sig) · cancel pipe closed · master slot
//!                 emptied (the kernel hangs the session up) · pty-reaper: after the
//!                 grace, SIGKILL every process group of the session
//! ```
//!
//! Every `PtySink` call comes from the reader thread, one at a time, so the sink
//! needs no lock. Their order is fixed:
//!
//! * `output* output_ended exited`: the usual case. The reader drains the master to
//!   EOF, then waits for the child's exit and reaps it
//!   (docs/terminal.md#when-the-process-exits).
//! * `output* exited output* output_ended`: the child exited while another process
//!   (a background job) still holds the terminal open. The reader delivers `exited`
//!   once the master has been quiet for `EXIT_QUIET` (at most `EXIT_DRAIN_MAX`
//!   after the reap), so output the child printed before exiting comes first.
//! * After `close`, the reader stops, and an end the close causes (its signal
//!   ending the child, or its hangup) is never reported as `output_ended`. A chunk
//!   or an EOF the reader had already taken in when `close` began may still reach
//!   the sink, because `close` does not wait for the reader. `exited` still comes
//!   once the child is reaped.

// The workspace denies `unsafe_code`. This module is the one place that needs it:
// `pre_exec` and the raw calls inside it, and the `TIOCSWINSZ` ioctl. Every unsafe
// block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

mod handle;
mod open;
mod reader;
pub(crate) mod reap;
mod spawn;
#[cfg(test)]
mod tests;
mod writer;

pub use handle::{PtyHandle, SignalTarget};
pub use spawn::{SpawnError, adopt, locate, spawn};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use parking_lot::Mutex;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long `close` waits after the hangup before it SIGKILLs what is left of the
/// pane's session.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// The reader's first read of a chunk. A PTY master returns at most about 4 KiB
/// a read (the line discipline's buffer).
pub const READ_CHUNK_BYTES: usize = 8192;
/// The largest chunk `PtySink::output` receives: while more output is already
/// waiting, the reader keeps reading into the same chunk up to this size, so a
/// flood reaches the pane in a few large chunks instead of many 4 KiB ones.
pub const MAX_CHUNK_BYTES: usize = 64 * 1024;
/// The longest a blocked write sleeps between two checks of cancellation and
/// deadline (docs/terminal.md#the-bound-writer).
pub const WRITE_POLL_SLICE: Duration = Duration::from_millis(20);
/// After the child is reaped, `exited` waits until the master has been quiet this
/// long, so the child's last output is delivered before it.
pub const EXIT_QUIET: Duration = Duration::from_millis(50);
/// The longest `exited` waits for a quiet master after the reap: a background job
/// that floods the terminal must not hide the exit.
pub const EXIT_DRAIN_MAX: Duration = Duration::from_secs(1);

/// Serialises PTY creation and `fork`, so no child can inherit another's PTY. The fds are
/// opened close-on-exec already; the lock keeps spawns one at a time regardless.
static SPAWN_LOCK: Mutex<()> = Mutex::new(());

/// Holds off every pane spawn while the guard lives: an in-place upgrade's
/// exec makes descriptors inheritable for a moment (`crate::os::upgrade`).
pub fn hold_spawns() -> parking_lot::MutexGuard<'static, ()> {
    SPAWN_LOCK.lock()
}

pub use crate::domain::launch::SpawnSpec;

/// Receives a pane's output and exit on the PTY reader thread. The calls never
/// overlap; their order is described in the module header.
pub trait PtySink: Send + 'static {
    /// One chunk of output (at most `MAX_CHUNK_BYTES`). It may block: the reader
    /// reads no more until it returns, which is how a flood slows the child, not
    /// the server.
    fn output(&mut self, chunk: Vec<u8>);
    /// The master reached EOF/EIO; every byte before it was delivered by `output`.
    /// Not called once `Pty::close` has begun, unless the reader saw the EOF first
    /// (see the module header).
    fn output_ended(&mut self);
    /// The child was reaped: its exit code, 128 + signal number when a signal killed
    /// it, `None` if the status could not be obtained. Called exactly once, last
    /// unless a background job keeps the terminal open (see the module header).
    fn exited(&mut self, code: Option<i32>);
    /// `Pty::release` stopped the reader: every chunk it read was delivered
    /// before this, and nothing follows it (no `output_ended`, no `exited`:
    /// the process lives on, watched by whoever took the master).
    fn released(&mut self) {}
}

/// Why a write did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteErrorKind {
    /// The deadline passed (`TIMEOUT`, docs/terminal.md#the-bound-writer).
    Timeout,
    /// The terminal hung up, or the write was canceled by `close` ("input
    /// canceled"); both are `PANE_EXITED` on the wire.
    Exited,
    /// Any other error (`IO_ERROR`), described.
    Io(String),
}

/// A write that did not complete: why, and how many bytes the kernel accepted
/// before it stopped (a prefix of the request, never rolled back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError {
    /// Why the write stopped.
    pub kind: WriteErrorKind,
    /// The bytes written before it stopped (`details.written_bytes`).
    pub written: usize,
}

impl WriteError {
    fn new(kind: WriteErrorKind, written: usize) -> Self {
        WriteError { kind, written }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let written = self.written;
        match &self.kind {
            WriteErrorKind::Timeout => {
                write!(f, "input timed out after {written} bytes were written")
            },
            WriteErrorKind::Exited => write!(
                f,
                "input canceled: the pane's process is gone ({written} bytes were written)"
            ),
            WriteErrorKind::Io(msg) => {
                write!(f, "input failed after {written} bytes were written: {msg}")
            },
        }
    }
}

impl std::error::Error for WriteError {}

/// A live PTY and its process. `Send + Sync`; dropping it closes it as
/// `close(SIGHUP)` does, unless `close` was called already.
pub struct Pty {
    shared: Arc<Shared>,
}

/// What the `Pty` handle and the pane's threads share.
struct Shared {
    pid: Pid,
    /// The master, until `close` takes it. The reader and the writer clone the `Arc`
    /// for one read, write or poll at a time and never while calling the sink, so
    /// once `close` empties the slot the last descriptor closes within one poll slice.
    master: Mutex<Option<Arc<OwnedFd>>>,
    /// Set by `close` before it signals the child; checked by the reader and the
    /// writer before every attempt, and by the reader once more when it sees an end.
    canceled: AtomicBool,
    /// Read end of the cancel pipe: it reports POLLHUP once `close` drops the write
    /// end, which wakes a reader or writer blocked in `poll` at once.
    cancel_rx: OwnedFd,
    cancel_tx: Mutex<Option<OwnedFd>>,
    /// True once the child is reaped. The reaper (reader or waiter) sets it under this
    /// lock right as it
    /// reaps, and signals are sent under it, so a signal never reaches a recycled pid.
    reaped: Mutex<bool>,
    /// The exit code, stored by whoever reaps before it sets `exit_known`.
    exit_code: Mutex<Option<i32>>,
    exit_known: AtomicBool,
    closed: AtomicBool,
    /// Set by `release` under the `reaped` lock: the child belongs to whoever
    /// took the master, and nothing here reaps or signals it any more.
    released: AtomicBool,
    queue: writer::Queue,
    /// The writer thread starts with the first write: most panes are never typed
    /// into by the server, and an idle thread costs memory and makes every later
    /// fork of the server slower.
    writer_started: AtomicBool,
}

impl Shared {
    fn master(&self) -> Option<Arc<OwnedFd>> {
        self.master.lock().clone()
    }

    fn is_canceled(&self) -> bool {
        self.canceled.load(Ordering::SeqCst)
    }

    fn close(&self, sig: Signal, grace: Duration) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        // Canceled before the signal goes out: the signal can end the child at once,
        // and its exit hangs the master up. The reader checks `canceled` after it sees
        // an end, so an end this close causes is never reported as `output_ended`.
        self.canceled.store(true, Ordering::SeqCst);
        {
            let reaped = self.reaped.lock();
            if !*reaped && let Err(e) = kill(self.pid, sig) {
                log::debug!("pty {}: cannot send {sig} on close: {e}", self.pid);
            }
        }
        self.queue.cancel();
        drop(self.cancel_tx.lock().take());
        // The reader and the writer drop their clones within one poll; the last one
        // closes the master and the kernel sends SIGHUP to the session.
        drop(self.master.lock().take());
        reap::kill_session_after(self.pid, grace);
    }
}

impl Pty {
    /// The child's pid; also its process group and session id.
    pub fn pid(&self) -> u32 {
        self.shared.pid.as_raw().unsigned_abs()
    }

    /// Sets the terminal size (`TIOCSWINSZ` on the master); the kernel sends SIGWINCH
    /// to the foreground process group. Fails once the PTY is closed.
    pub fn resize(&self, rows: u16, cols: u16) -> io::Result<()> {
        let master = self.shared.master().ok_or_else(closed_error)?;
        open::set_winsize(&master, rows, cols)
    }

    /// Sends `sig` to the child, or with `group` to its process group (`kill(-pid)`).
    /// Fails with ESRCH once the child has been reaped, so a recycled pid is never hit.
    pub fn signal(&self, sig: Signal, group: bool) -> io::Result<()> {
        let reaped = self.shared.reaped.lock();
        if *reaped {
            return Err(Errno::ESRCH.into());
        }
        let sent = if group {
            killpg(self.shared.pid, sig)
        } else {
            kill(self.shared.pid, sig)
        };
        Ok(sent?)
    }

    /// Queues a write on the pane's writer thread (writes are serialised per pane).
    /// Resolves with the number of bytes written, or an error carrying how many were
    /// written. Time spent queued counts against `deadline`. After `close` it
    /// resolves `Exited` at once.
    pub fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> oneshot::Receiver<Result<usize, WriteError>> {
        if !self.shared.writer_started.swap(true, Ordering::SeqCst) {
            let shared = self.shared.clone();
            let started = thread::Builder::new()
                .name(format!("pty-w-{}", self.pid()))
                .spawn(move || writer::run(&shared));
            if let Err(e) = started {
                self.shared.writer_started.store(false, Ordering::SeqCst);
                let (reply, rx) = oneshot::channel();
                let why = WriteErrorKind::Io(format!("cannot start the writer thread: {e}"));
                let _ = reply.send(Err(WriteError::new(why, 0)));
                return rx;
            }
        }
        self.shared.queue.push(bytes, deadline)
    }

    /// Hangs up with the default grace, `CLOSE_GRACE`. See `close_with_grace`.
    pub fn close(&self, sig: Signal) {
        self.close_with_grace(sig, CLOSE_GRACE);
    }

    /// Hangs up: sends `sig` to the child (if it is not reaped yet), resolves active
    /// and queued writes `Exited`, stops the reader, closes the master (the kernel
    /// sends SIGHUP to the session) and, `grace` later on a background thread,
    /// SIGKILLs every process group of the pane's session. Never blocks; only the
    /// first call does anything.
    pub fn close_with_grace(&self, sig: Signal, grace: Duration) {
        self.shared.close(sig, grace);
    }

    /// Lets go of the PTY without touching its process, for an in-place
    /// upgrade: returns a duplicate of the master (close-on-exec), stops the
    /// reader after the chunk it holds (the sink's `released` comes last) and
    /// the writer (queued writes resolve `Exited`), and leaves the child
    /// unreaped and unsignalled, to be adopted again (`adopt`, here or in the
    /// next binary). What the child prints meanwhile waits in the kernel's
    /// buffer. Fails, changing nothing, once the child has been reaped or the
    /// PTY closed.
    pub fn release(&self) -> io::Result<OwnedFd> {
        let master = self.shared.master().ok_or_else(closed_error)?;
        let dup = master.try_clone()?;
        drop(master);
        {
            let reaped = self.shared.reaped.lock();
            if *reaped {
                return Err(io::Error::other("the child has exited"));
            }
            if self.shared.closed.swap(true, Ordering::SeqCst) {
                return Err(closed_error());
            }
            self.shared.released.store(true, Ordering::SeqCst);
        }
        self.shared.canceled.store(true, Ordering::SeqCst);
        self.shared.queue.cancel();
        drop(self.shared.cancel_tx.lock().take());
        drop(self.shared.master.lock().take());
        Ok(dup)
    }

    /// Whether `close` has been called.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::SeqCst)
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        self.shared.close(Signal::SIGHUP, CLOSE_GRACE);
    }
}

impl fmt::Debug for Pty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pty")
            .field("pid", &self.shared.pid.as_raw())
            .field("closed", &self.is_closed())
            .finish()
    }
}

fn closed_error() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "the pty is closed")
}

/// A poll timeout of at least `d`, rounded up to the next millisecond so a short
/// remainder does not turn into a busy loop of zero-timeout polls.
fn poll_timeout(d: Duration) -> nix::poll::PollTimeout {
    let millis = d.as_micros().div_ceil(1000);
    nix::poll::PollTimeout::try_from(millis).unwrap_or(nix::poll::PollTimeout::MAX)
}
