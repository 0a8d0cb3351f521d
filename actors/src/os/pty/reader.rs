//! The pane's reader: drains the master into the sink and, once the child is reaped (by
//! the reader itself through a pidfd, or by the waiter), delivers the exit after the
//! child's last output (docs/terminal.md#the-output-path,
//! docs/terminal.md#when-the-process-exits).
//!
//! ```text
//!   Running ──(child reaped)──▶ Draining ──(quiet EXIT_QUIET, or EXIT_DRAIN_MAX)──▶ Delivered
//!      │                           │                                                  │
//!      └───── EOF: output_ended, wait for the reap, exited ◀──────────────────────────┘
//! ```
//!
//! `close` stops the reader in any state. An EOF seen once `close` has begun is
//! not reported as `output_ended`: the close itself may have caused it.

use super::reap;
use super::{
    EXIT_DRAIN_MAX, EXIT_QUIET, MAX_CHUNK_BYTES, PtySink, READ_CHUNK_BYTES, Shared, poll_timeout,
};
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::unistd;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Where the child's exit stands, as far as the sink knows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// Not reaped yet.
    Running,
    /// Reaped; delivered once the master is quiet, or at `until` at the latest.
    Draining { until: Instant },
    /// `exited` was called.
    Delivered,
}

/// Why the read loop stopped.
#[derive(PartialEq, Eq)]
enum End {
    /// EOF or EIO: every process has closed the terminal.
    Eof,
    /// `close` was called.
    Canceled,
}

/// What a `poll` on the master reported.
enum Wake {
    /// Read again: data, an interrupted poll, or news of the exit.
    Again,
    /// The master was quiet for `EXIT_QUIET` while draining.
    Quiet,
    /// POLLHUP/POLLERR/POLLNVAL without POLLIN.
    Hangup,
    Canceled,
}

/// How the reader learns that the child exited.
pub(super) enum ExitWatch {
    /// The child's pidfd: readable once the child has exited. The reader reaps it.
    Pidfd(OwnedFd),
    /// Read end of the waiter's pipe: POLLHUP once the waiter has stored the exit
    /// code (or died).
    Pipe(OwnedFd),
}

struct Reader {
    shared: Arc<Shared>,
    /// The pidfd or the waiter's pipe; see `ExitWatch`.
    exit_fd: OwnedFd,
    /// This reader has yet to reap the child (pidfd mode).
    reaps: bool,
    exit: Exit,
}

/// The reader thread: pumps output into `sink` until EOF or `close`, then makes
/// sure `exited` is delivered.
pub(super) fn run(shared: Arc<Shared>, mut sink: Box<dyn PtySink>, watch: ExitWatch) {
    let (exit_fd, reaps) = match watch {
        ExitWatch::Pidfd(pidfd) => (pidfd, true),
        ExitWatch::Pipe(pipe) => (pipe, false),
    };
    let mut reader = Reader {
        shared,
        exit_fd,
        reaps,
        exit: Exit::Running,
    };
    let end = reader.pump(&mut *sink);
    if reader.shared.released.load(Ordering::SeqCst) {
        // Handed over (`Pty::release`): the process lives on elsewhere.
        sink.released();
        return;
    }
    // The signal `close` sends can end the child, and its hangup closes the
    // terminal; either reaches the reader as an EOF, possibly before the cancel pipe
    // wakes it. `close` sets `canceled` before it does either, so checking it after
    // the EOF tells an end the close caused from one the child reached by itself.
    if end == End::Eof && !reader.shared.is_canceled() {
        sink.output_ended();
    }
    if reader.exit != Exit::Delivered {
        let code = reader.wait_for_reap();
        sink.exited(code);
    }
}

/// Appends what the master has ready now (the master is non-blocking) to `buf`,
/// up to `MAX_CHUNK_BYTES`. Stops at `EAGAIN`, EOF or an error, which the next
/// read in `pump` then reports.
pub(super) fn read_more(master: &OwnedFd, buf: &mut Vec<u8>) {
    while buf.len() < MAX_CHUNK_BYTES {
        let have = buf.len();
        let want = READ_CHUNK_BYTES.min(MAX_CHUNK_BYTES - have);
        buf.resize(have + want, 0);
        match unistd::read(master, &mut buf[have..]) {
            Ok(n) => {
                buf.truncate(have + n);
                if n == 0 {
                    return;
                }
            },
            Err(_) => {
                buf.truncate(have);
                return;
            },
        }
    }
}

impl Reader {
    fn pump(&mut self, sink: &mut dyn PtySink) -> End {
        loop {
            if self.shared.is_canceled() {
                return End::Canceled;
            }
            self.note_exit(false);
            if let Exit::Draining { until } = self.exit
                && Instant::now() >= until
            {
                self.deliver_exit(sink);
            }
            let Some(master) = self.shared.master() else {
                return End::Canceled;
            };
            // A buffer per read, handed to the sink as it is (no copy), and none held
            // while the pane is idle in `poll`: an idle pane costs no read buffer.
            let mut buf = vec![0; READ_CHUNK_BYTES];
            match unistd::read(&*master, &mut buf) {
                Ok(0) => return End::Eof,
                Ok(n) => {
                    buf.truncate(n);
                    read_more(&master, &mut buf);
                    // Never hold the master while the sink blocks: `close` must be
                    // able to hang the terminal up during back-pressure.
                    drop(master);
                    sink.output(buf);
                },
                Err(Errno::EINTR) => {},
                Err(Errno::EAGAIN) => {
                    drop(buf);
                    match self.wait_readable(&master) {
                        Wake::Again => {},
                        Wake::Quiet => self.deliver_exit(sink),
                        Wake::Hangup => return End::Eof,
                        Wake::Canceled => return End::Canceled,
                    }
                },
                // EIO is how a master reports that the last slave descriptor closed.
                Err(Errno::EIO) => return End::Eof,
                Err(e) => {
                    log::warn!(
                        "pty {}: read failed, treating it as EOF: {e}",
                        self.shared.pid
                    );
                    return End::Eof;
                },
            }
        }
    }

    /// Reaps the child if this reader owns it (pidfd mode); blocks until it exits.
    fn reap_if_ours(&mut self) {
        if std::mem::take(&mut self.reaps) {
            reap::reap(&self.shared);
        }
    }

    /// Moves `Running` to `Draining` once the child is reaped, or when `woken` says
    /// the exit descriptor fired (after `reap_if_ours`, or a waiter that died).
    fn note_exit(&mut self, woken: bool) {
        if self.exit == Exit::Running && (woken || self.shared.exit_known.load(Ordering::SeqCst)) {
            self.exit = Exit::Draining {
                until: Instant::now() + EXIT_DRAIN_MAX,
            };
        }
    }

    fn deliver_exit(&mut self, sink: &mut dyn PtySink) {
        if self.exit != Exit::Delivered {
            self.exit = Exit::Delivered;
            sink.exited(*self.shared.exit_code.lock());
        }
    }

    /// Waits until the master is readable, the pane is closed, the exit is reported
    /// or, while draining, the master stays quiet for `EXIT_QUIET`.
    fn wait_readable(&mut self, master: &OwnedFd) -> Wake {
        let running = self.exit == Exit::Running;
        let timeout = match self.exit {
            Exit::Draining { until } => poll_timeout(
                until
                    .saturating_duration_since(Instant::now())
                    .min(EXIT_QUIET),
            ),
            Exit::Running | Exit::Delivered => PollTimeout::NONE,
        };
        let mut fds = [
            PollFd::new(master.as_fd(), PollFlags::POLLIN),
            PollFd::new(self.shared.cancel_rx.as_fd(), PollFlags::POLLIN),
            PollFd::new(self.exit_fd.as_fd(), PollFlags::POLLIN),
        ];
        // The exit descriptor stays readable once fired: watch it only until then.
        let watched = if running { 3 } else { 2 };
        let polled = poll(&mut fds[..watched], timeout);
        let fired = |fd: &PollFd<'_>| fd.any().unwrap_or(false);
        match polled {
            Ok(0) => Wake::Quiet,
            Ok(_) => {
                if fired(&fds[1]) {
                    return Wake::Canceled;
                }
                let exit_fired = running && fired(&fds[2]);
                let master = fds[0].revents().unwrap_or(PollFlags::empty());
                if exit_fired {
                    self.reap_if_ours();
                    self.note_exit(true);
                }
                if master.contains(PollFlags::POLLIN) || exit_fired {
                    Wake::Again
                } else if master
                    .intersects(PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL)
                {
                    Wake::Hangup
                } else {
                    Wake::Again
                }
            },
            Err(Errno::EINTR) => Wake::Again,
            Err(e) => {
                log::warn!(
                    "pty {}: poll failed, treating it as EOF: {e}",
                    self.shared.pid
                );
                Wake::Hangup
            },
        }
    }

    /// Blocks until the child is reaped, then returns its code.
    fn wait_for_reap(&mut self) -> Option<i32> {
        loop {
            let mut fds = [PollFd::new(self.exit_fd.as_fd(), PollFlags::POLLIN)];
            match poll(&mut fds, PollTimeout::NONE) {
                Err(Errno::EINTR) => continue,
                Ok(_) => break,
                Err(e) => {
                    log::warn!("pty {}: cannot wait for the exit: {e}", self.shared.pid);
                    break;
                },
            }
        }
        self.reap_if_ours();
        *self.shared.exit_code.lock()
    }
}
