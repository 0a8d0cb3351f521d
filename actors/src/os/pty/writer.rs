//! The pane's writer: one thread, one job at a time, each bounded by its own
//! deadline and cancelled by `close` within one poll slice
//! (docs/terminal.md#the-bound-writer).

use super::{Shared, WRITE_POLL_SLICE, WriteError, WriteErrorKind, poll_timeout};
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, poll};
use nix::unistd;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::os::fd::AsFd;
use std::time::Instant;
use tokio::sync::oneshot;

type Reply = oneshot::Sender<Result<usize, WriteError>>;

/// One queued write: its bytes, its deadline (set when the request arrived, so time
/// spent queued counts) and where its result goes.
struct Job {
    bytes: Vec<u8>,
    deadline: Instant,
    reply: Reply,
}

/// The writes waiting for the writer thread.
pub(super) struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

struct QueueState {
    jobs: VecDeque<Job>,
    canceled: bool,
}

impl Queue {
    pub(super) fn new() -> Self {
        Queue {
            state: Mutex::new(QueueState {
                jobs: VecDeque::new(),
                canceled: false,
            }),
            ready: Condvar::new(),
        }
    }

    /// Queues a write, or answers `Exited` at once if the queue was canceled.
    pub(super) fn push(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> oneshot::Receiver<Result<usize, WriteError>> {
        let (reply, rx) = oneshot::channel();
        let mut state = self.state.lock();
        if state.canceled {
            drop(state);
            answer(reply, Err(WriteError::new(WriteErrorKind::Exited, 0)));
            return rx;
        }
        state.jobs.push_back(Job {
            bytes,
            deadline,
            reply,
        });
        drop(state);
        self.ready.notify_one();
        rx
    }

    /// Cancels the queue: every waiting job is answered `Exited` ("input canceled"),
    /// later pushes are answered at once, and the writer thread stops after its
    /// active job, which notices the cancellation itself.
    pub(super) fn cancel(&self) {
        let jobs = {
            let mut state = self.state.lock();
            state.canceled = true;
            std::mem::take(&mut state.jobs)
        };
        self.ready.notify_all();
        for job in jobs {
            answer(job.reply, Err(WriteError::new(WriteErrorKind::Exited, 0)));
        }
    }

    /// Answers `Timeout` to every waiting job whose deadline has passed, so a job
    /// stuck behind a blocked one still resolves at its own deadline.
    fn expire(&self, now: Instant) {
        let expired: VecDeque<Job> = {
            let mut state = self.state.lock();
            if state.jobs.iter().all(|job| job.deadline > now) {
                return;
            }
            let (expired, waiting) = std::mem::take(&mut state.jobs)
                .into_iter()
                .partition(|job| job.deadline <= now);
            state.jobs = waiting;
            expired
        };
        for job in expired {
            answer(job.reply, Err(WriteError::new(WriteErrorKind::Timeout, 0)));
        }
    }

    /// The next job, waiting for one; `None` once the queue is canceled.
    fn next(&self) -> Option<Job> {
        let mut state = self.state.lock();
        loop {
            if state.canceled {
                return None;
            }
            if let Some(job) = state.jobs.pop_front() {
                return Some(job);
            }
            self.ready.wait(&mut state);
        }
    }
}

fn answer(reply: Reply, result: Result<usize, WriteError>) {
    // The caller may have stopped waiting; the bytes were written all the same.
    let _ = reply.send(result);
}

/// The writer thread: runs jobs in order until the queue is canceled.
pub(super) fn run(shared: &Shared) {
    while let Some(job) = shared.queue.next() {
        let result = write_all(shared, &job.bytes, job.deadline);
        answer(job.reply, result);
    }
}

/// Writes all of `bytes` to the non-blocking master before `deadline`
/// (docs/terminal.md#the-bound-writer).
fn write_all(shared: &Shared, bytes: &[u8], deadline: Instant) -> Result<usize, WriteError> {
    let mut written = 0;
    while written < bytes.len() {
        let fail = move |kind| Err(WriteError::new(kind, written));
        if shared.is_canceled() {
            return fail(WriteErrorKind::Exited);
        }
        let now = Instant::now();
        if now >= deadline {
            return fail(WriteErrorKind::Timeout);
        }
        let Some(master) = shared.master() else {
            return fail(WriteErrorKind::Exited);
        };
        match unistd::write(&*master, &bytes[written..]) {
            Ok(0) => return fail(WriteErrorKind::Io("zero bytes written".into())),
            Ok(n) => written += n,
            Err(Errno::EINTR) => {},
            Err(Errno::EAGAIN) => {
                shared.queue.expire(now);
                let slice = (deadline - now).min(WRITE_POLL_SLICE);
                let mut fds = [
                    PollFd::new(master.as_fd(), PollFlags::POLLOUT),
                    PollFd::new(shared.cancel_rx.as_fd(), PollFlags::POLLIN),
                ];
                match poll(&mut fds, poll_timeout(slice)) {
                    // A timeout, writable, or canceled: the checks at the top decide.
                    Ok(_) => {
                        let revents = fds[0].revents().unwrap_or(PollFlags::empty());
                        let hangup = PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL;
                        if revents.intersects(hangup) {
                            return fail(WriteErrorKind::Exited);
                        }
                    },
                    Err(Errno::EINTR) => {},
                    Err(e) => return fail(WriteErrorKind::Io(format!("poll: {e}"))),
                }
            },
            Err(Errno::EIO) => return fail(WriteErrorKind::Exited),
            Err(e) => return fail(WriteErrorKind::Io(e.to_string())),
        }
    }
    Ok(written)
}
