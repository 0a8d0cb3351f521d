//! A pane's writes on the loop: one queue per pane, written in order to the
//! non-blocking master as far as the kernel takes them, each bounded by its own
//! deadline and answered `Exited` by `close` (docs/terminal.md#the-bound-writer).
//! A write the kernel cannot take yet waits for EPOLLOUT; no thread sleeps.

use super::{WriteError, WriteErrorKind};
use nix::errno::Errno;
use nix::unistd;
use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::time::Instant;
use tokio::sync::oneshot;

type Reply = oneshot::Sender<Result<usize, WriteError>>;

/// One queued write: its bytes, its deadline (set when the request arrived, so time
/// spent queued counts) and where its result goes.
pub(super) struct Job {
    pub bytes: Vec<u8>,
    pub deadline: Instant,
    pub reply: Reply,
}

/// What the queue needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// Nothing: the queue is empty.
    Idle,
    /// The master is full: write again when it turns writable.
    Writable,
}

/// The writes of one pane, the first one under way.
#[derive(Default)]
pub(super) struct Writes {
    jobs: VecDeque<Job>,
    /// Bytes of the first job already written.
    written: usize,
}

fn answer(reply: Reply, result: Result<usize, WriteError>) {
    // The caller may have stopped waiting; the bytes were written all the same.
    let _ = reply.send(result);
}

impl Writes {
    /// Queues a write behind the others.
    pub(super) fn push(&mut self, job: Job) {
        self.jobs.push_back(job);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Answers every job `Exited` ("input canceled"): the first with what it wrote.
    pub(super) fn cancel(&mut self) {
        let mut written = std::mem::take(&mut self.written);
        for job in self.jobs.drain(..) {
            let written = std::mem::take(&mut written);
            answer(
                job.reply,
                Err(WriteError::new(WriteErrorKind::Exited, written)),
            );
        }
    }

    /// The earliest deadline of a waiting job.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.jobs.iter().map(|job| job.deadline).min()
    }

    /// Answers `Timeout` to every job whose deadline has passed: the first with
    /// the bytes it got out, the ones behind it (stuck behind a blocked one) with
    /// none, each at its own deadline.
    fn expire(&mut self, now: Instant) {
        if self.jobs.iter().all(|job| job.deadline > now) {
            return;
        }
        let mut kept = VecDeque::with_capacity(self.jobs.len());
        for (i, job) in std::mem::take(&mut self.jobs).into_iter().enumerate() {
            if job.deadline > now {
                kept.push_back(job);
                continue;
            }
            // The first job's progress goes with it; the next one starts from nothing.
            let written = if i == 0 {
                std::mem::take(&mut self.written)
            } else {
                0
            };
            answer(
                job.reply,
                Err(WriteError::new(WriteErrorKind::Timeout, written)),
            );
        }
        self.jobs = kept;
    }

    /// Writes what the kernel takes now, in order, answering each job as it
    /// completes, fails or runs out of time. `master` is `None` once the pane is
    /// closed: every job is answered `Exited`.
    pub(super) fn pump(&mut self, master: Option<&OwnedFd>, now: Instant) -> Want {
        self.expire(now);
        let Some(master) = master else {
            self.cancel();
            return Want::Idle;
        };
        while let Some(job) = self.jobs.front() {
            let written = self.written;
            let result = match unistd::write(master, &job.bytes[written..]) {
                Ok(0) if !job.bytes.is_empty() => Err(WriteError::new(
                    WriteErrorKind::Io("zero bytes written".into()),
                    written,
                )),
                Ok(n) => {
                    self.written += n;
                    if self.written < job.bytes.len() {
                        continue;
                    }
                    Ok(self.written)
                },
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => return Want::Writable,
                // EIO: the last process holding the terminal has closed it.
                Err(Errno::EIO) => Err(WriteError::new(WriteErrorKind::Exited, written)),
                Err(e) => Err(WriteError::new(WriteErrorKind::Io(e.to_string()), written)),
            };
            self.written = 0;
            if let Some(job) = self.jobs.pop_front() {
                answer(job.reply, result);
            }
        }
        Want::Idle
    }
}
