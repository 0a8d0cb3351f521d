//! The PTY layer: opens a pseudoterminal, starts a pane's process on it, and
//! serves every pane from one event loop thread (`pty-loop`, event_loop.rs):
//! masters read by readiness, writes queued per pane, children watched by
//! their pidfds. A pane costs no thread. Nothing here knows about actix: the
//! Pane actor drives a `Pty` and receives the output through a `PtySink`.
//!
//! ```text
//!   spawn() ──▶ Pty (Arc<Shared>) ──Add──▶ pty-loop: epoll over every pane's
//!                 │                           master (read ≤ 64 KiB ─▶ sink.output ─▶ Flow)
//!                 │ write ─────────Write──▶   write queue (non-blocking, deadlines, EPOLLOUT)
//!                 │ pid ── pidfd ─────────▶   readable at exit: reap ─▶ sink.exited
//!                 │        (no pidfd: pty-exit-<pid> waiter: waitid, reap ─(exit pipe)─▶ loop)
//!                 │
//!   close(sig) ── canceled · kill(pid, sig) · Close: writes answered, master dropped
//!                 (the kernel hangs the session up) · pty-reaper: after the grace,
//!                 SIGKILL every process group of the session
//! ```
//!
//! Every `PtySink` call comes from the loop thread, one at a time, so the sink
//! needs no lock — and must never block: a sink that cannot take more output
//! returns `Flow::Pause`, and the loop reads that pane no more until the sink
//! calls the `Resume` it was bound to. Their order is fixed:
//!
//! * `output* output_ended exited`: the usual case. The loop drains the master to
//!   EOF, then waits for the child's exit and reaps it
//!   (docs/terminal.md#when-the-process-exits).
//! * `output* exited output* output_ended`: the child exited while another process
//!   (a background job) still holds the terminal open. The loop delivers `exited`
//!   once the master has been quiet for `EXIT_QUIET` (at most `EXIT_DRAIN_MAX`
//!   after the reap), so output the child printed before exiting comes first.
//! * After `close`, the loop reads no more, and an end the close causes (its signal
//!   ending the child, or its hangup) is never reported as `output_ended`. A chunk
//!   or an EOF the loop had already taken in when `close` began may still reach
//!   the sink, because `close` does not wait for the loop. `exited` still comes
//!   once the child is reaped.

// The workspace denies `unsafe_code`. This module is the one place that needs it:
// `pre_exec` and the raw calls inside it, and the `TIOCSWINSZ` ioctl. Every unsafe
// block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

mod event_loop;
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

use event_loop::{Command, Handle};
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use parking_lot::Mutex;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long `close` waits after the hangup before it SIGKILLs what is left of the
/// pane's session.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// One read of a master. A PTY master returns at most about 4 KiB a read (the
/// line discipline's buffer).
pub const READ_CHUNK_BYTES: usize = 8192;
/// The largest chunk `PtySink::output` receives: while more output is already
/// waiting, the loop keeps reading into the same chunk up to this size, so a
/// flood reaches the pane in a few large chunks instead of many 4 KiB ones.
pub const MAX_CHUNK_BYTES: usize = 64 * 1024;
/// While a write waits for room, it is tried again at least this often: a PTY
/// master does not always report EPOLLOUT when the line discipline takes bytes
/// in (docs/terminal.md#the-bound-writer).
pub const WRITE_RETRY: Duration = Duration::from_millis(20);
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

/// What the loop does after handing a chunk to a sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read on.
    Read,
    /// Read this pane no more until the sink calls its `Resume`: how a flood
    /// is paced by the pane, not by the server.
    Pause,
}

/// Starts a paused pane's reading again; given to its sink by `PtySink::bind`.
/// Cheap to clone, callable from any thread, harmless when nothing is paused.
#[derive(Clone)]
pub struct Resume {
    token: u64,
    handle: Handle,
}

impl Resume {
    /// Asks the loop to read this pane again.
    pub fn resume(&self) {
        self.handle.post(Command::Resume(self.token));
    }
}

impl fmt::Debug for Resume {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resume")
            .field("token", &self.token)
            .finish()
    }
}

/// Receives a pane's output and exit on the loop thread. The calls never
/// overlap, never block, and come in the order the module header describes.
pub trait PtySink: Send + 'static {
    /// Called once, before anything else: how to start reading again after
    /// `output` returned `Flow::Pause`.
    fn bind(&mut self, _resume: Resume) {}
    /// One chunk of output (at most `MAX_CHUNK_BYTES`). Returns whether the
    /// loop may read this pane on; after `Flow::Pause` it waits for `Resume`.
    fn output(&mut self, chunk: Vec<u8>) -> Flow;
    /// The master reached EOF/EIO; every byte before it was delivered by `output`.
    /// Not called once `Pty::close` has begun, unless the loop saw the EOF first
    /// (see the module header).
    fn output_ended(&mut self);
    /// The child was reaped: its exit code, 128 + signal number when a signal killed
    /// it, `None` if the status could not be obtained. Called exactly once, last
    /// unless a background job keeps the terminal open (see the module header).
    fn exited(&mut self, code: Option<i32>);
    /// `Pty::release` stopped the reading: every chunk read was delivered
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

/// What the `Pty` handle and the loop share about one pane.
struct Shared {
    pid: Pid,
    /// The pane's key in the loop.
    token: u64,
    handle: Handle,
    /// The master, until `close` or `release` takes it: resizes and releases
    /// use it from the caller's thread; the loop holds its own reference until
    /// it has taken the pane off its watch.
    master: Mutex<Option<Arc<OwnedFd>>>,
    /// Set by `close` (and `release`) before it signals the child; the loop reads
    /// no more once it is set, and an EOF it sees afterwards is not reported.
    canceled: AtomicBool,
    /// True once the child is reaped. The reaper (the loop or the waiter) sets it
    /// under this lock right as it reaps, and signals are sent under it, so a
    /// signal never reaches a recycled pid.
    reaped: Mutex<bool>,
    /// The exit code, stored by whoever reaps before it sets `exit_known`.
    exit_code: Mutex<Option<i32>>,
    exit_known: AtomicBool,
    closed: AtomicBool,
    /// Set by `release` under the `reaped` lock: the child belongs to whoever
    /// took the master, and nothing here reaps or signals it any more.
    released: AtomicBool,
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
        // and its exit hangs the master up. The loop checks `canceled` when it sees
        // an end, so an end this close causes is never reported as `output_ended`.
        self.canceled.store(true, Ordering::SeqCst);
        {
            let reaped = self.reaped.lock();
            if !*reaped && let Err(e) = kill(self.pid, sig) {
                log::debug!("pty {}: cannot send {sig} on close: {e}", self.pid);
            }
        }
        drop(self.master.lock().take());
        // The loop answers the writes, stops reading and drops its reference: the
        // master closes and the kernel sends SIGHUP to the session.
        self.handle.post(Command::Close(self.token));
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

    /// Queues a write on the pane's queue in the loop (writes are serialised per
    /// pane). Resolves with the number of bytes written, or an error carrying how
    /// many were written. Time spent queued counts against `deadline`. After
    /// `close` it resolves `Exited` at once.
    pub fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> oneshot::Receiver<Result<usize, WriteError>> {
        let (reply, rx) = oneshot::channel();
        if self.shared.is_canceled() {
            let _ = reply.send(Err(WriteError::new(WriteErrorKind::Exited, 0)));
            return rx;
        }
        let job = writer::Job {
            bytes,
            deadline,
            reply,
        };
        self.shared
            .handle
            .post(Command::Write(self.shared.token, job));
        rx
    }

    /// Hangs up with the default grace, `CLOSE_GRACE`. See `close_with_grace`.
    pub fn close(&self, sig: Signal) {
        self.close_with_grace(sig, CLOSE_GRACE);
    }

    /// Hangs up: sends `sig` to the child (if it is not reaped yet), resolves active
    /// and queued writes `Exited`, stops the reading, closes the master (the kernel
    /// sends SIGHUP to the session) and, `grace` later on the reaper thread,
    /// SIGKILLs every process group of the pane's session. Never blocks; only the
    /// first call does anything.
    pub fn close_with_grace(&self, sig: Signal, grace: Duration) {
        self.shared.close(sig, grace);
    }

    /// Lets go of the PTY without touching its process, for an in-place
    /// upgrade: returns a duplicate of the master (close-on-exec) once the loop
    /// has stopped reading it (the sink's `released` comes last) and answered the
    /// queued writes `Exited`, and leaves the child unreaped and unsignalled, to
    /// be adopted again (`adopt`, here or in the next binary). What the child
    /// prints meanwhile waits in the kernel's buffer. Fails, changing nothing,
    /// once the child has been reaped or the PTY closed. Waits for one turn of
    /// the loop: never call it from a sink.
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
        drop(self.shared.master.lock().take());
        let (done, stopped) = std::sync::mpsc::sync_channel(1);
        self.shared
            .handle
            .post(Command::Release(self.shared.token, done));
        // The loop answers within one of its turns; one that is gone answers by
        // dropping the sender.
        let _ = stopped.recv_timeout(Duration::from_secs(5));
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
