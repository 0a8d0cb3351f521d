//! The server's one `seq` counter (docs/protocol.md#event-sequence-and-replay),
//! shared by the Sequencer, which numbers state events, and by every pane,
//! which numbers its own `pty.data` without asking anyone.
//!
//! ```text
//!   last issued ──────────────┐          ceiling (durable in event-sequence.json)
//!   Sequencer: next_states(n) │ any numbers; the journal reserves before it writes
//!   Pane:      try_next()     │ only while last < ceiling, else wait_issuable()
//!                             ▼
//!   headroom < LOW_WATER ──Reserve──► journal thread ──reserve() + publish ceiling──► waiters woken
//! ```
//!
//! A state event is never seen before the journal wrote it, and the journal
//! raises the reservation before it writes a record above the ceiling, so the
//! Sequencer may take any number. A `pty.data` is seen at once: a pane takes
//! a number only below the durable ceiling, so no number reaches a client
//! that a restart could hand out again. The journal reserves ahead when the
//! headroom runs low, so a pane normally never waits; when it does, its PTY
//! reader waits with it (docs/terminal.md#the-output-path), not the server.
//! A store without a ceiling (a test's, in memory) leaves the clock unbounded.

use parking_lot::Mutex;
use signaltty_protocol::Seq;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

/// Headroom below which the journal is asked to reserve the next block.
pub const LOW_WATER: u64 = signaltty_model::journal::reservation::BLOCK / 2;

/// The ceiling of a store that has none.
const UNBOUNDED: u64 = u64::MAX;

/// What the clock asks of the journal thread.
pub(super) type Asker = mpsc::Sender<super::Command>;

/// The shared counter. See the module header.
#[derive(Debug)]
pub struct SeqClock {
    /// The last number handed out.
    last: AtomicU64,
    /// Every number up to this one is reserved durably.
    ceiling: AtomicU64,
    /// A reservation has been asked for and the journal has not looked yet.
    asked: AtomicBool,
    /// The journal has stopped: the ceiling never rises again.
    closed: AtomicBool,
    /// Woken when the ceiling rises or the journal stops.
    raised: tokio::sync::Notify,
    /// The journal thread's channel, while it runs.
    journal: Mutex<Option<Asker>>,
}

impl SeqClock {
    /// A clock whose last number is `head`, with nothing issuable to a pane
    /// until a journal publishes its ceiling.
    pub fn new(head: Seq) -> Arc<SeqClock> {
        Arc::new(SeqClock {
            last: AtomicU64::new(head.0),
            ceiling: AtomicU64::new(head.0),
            asked: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            raised: tokio::sync::Notify::new(),
            journal: Mutex::new(None),
        })
    }

    /// A clock with no ceiling, starting at 0 (pane tests).
    #[cfg(test)]
    pub fn unbounded() -> Arc<SeqClock> {
        let clock = SeqClock::new(Seq(0));
        clock.raise(None);
        clock
    }

    /// A clock at `head` whose numbers up to `ceiling` are reserved (tests
    /// of a pane that has to wait).
    #[cfg(test)]
    pub fn bounded(head: Seq, ceiling: Seq) -> Arc<SeqClock> {
        let clock = SeqClock::new(head);
        clock.raise(Some(ceiling));
        clock
    }

    /// Raises the ceiling as a journal would (tests).
    #[cfg(test)]
    pub fn raise_to(&self, ceiling: Seq) {
        self.raise(Some(ceiling));
    }

    /// The last number handed out.
    pub fn last(&self) -> Seq {
        Seq(self.last.load(Ordering::Acquire))
    }

    /// The durable ceiling (`None`: unbounded).
    #[cfg(test)]
    pub fn ceiling(&self) -> Option<Seq> {
        match self.ceiling.load(Ordering::Acquire) {
            UNBOUNDED => None,
            c => Some(Seq(c)),
        }
    }

    /// The first of `n` consecutive numbers for a batch of state events
    /// (no pane's number falls between them). They may pass the ceiling:
    /// the journal reserves before it writes the events, and nobody sees
    /// them before that.
    pub fn next_states(&self, n: u64) -> Seq {
        let first = self.last.fetch_add(n, Ordering::AcqRel) + 1;
        self.check_headroom(first + n.saturating_sub(1));
        Seq(first)
    }

    /// The next number for one state event ([`SeqClock::next_states`]).
    #[cfg(test)]
    pub fn next_state(&self) -> Seq {
        self.next_states(1)
    }

    /// The next number for a `pty.data`, if one is reserved durably; `None`
    /// means: wait with [`SeqClock::wait_issuable`].
    pub fn try_next(&self) -> Option<Seq> {
        let mut last = self.last.load(Ordering::Acquire);
        loop {
            let next = last.checked_add(1)?;
            if next > self.ceiling.load(Ordering::Acquire) {
                self.ask();
                return None;
            }
            match self
                .last
                .compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    self.check_headroom(next);
                    return Some(Seq(next));
                },
                Err(now) => last = now,
            }
        }
    }

    /// Resolves once a number may be available to [`SeqClock::try_next`]
    /// (true), or never will be because the journal has stopped (false).
    pub fn wait_issuable(self: &Arc<Self>) -> impl std::future::Future<Output = bool> + 'static {
        let clock = self.clone();
        async move {
            loop {
                let raised = clock.raised.notified();
                tokio::pin!(raised);
                // Registered before the check: a raise between them still wakes us.
                raised.as_mut().enable();
                let (last, ceiling) = (
                    clock.last.load(Ordering::Acquire),
                    clock.ceiling.load(Ordering::Acquire),
                );
                if last < ceiling {
                    return true;
                }
                if clock.closed.load(Ordering::Acquire) {
                    return false;
                }
                clock.ask();
                raised.await;
            }
        }
    }

    /// Asks the journal to reserve ahead once `issued` leaves less than
    /// [`LOW_WATER`] numbers below the ceiling.
    fn check_headroom(&self, issued: u64) {
        let ceiling = self.ceiling.load(Ordering::Acquire);
        if ceiling != UNBOUNDED && ceiling.saturating_sub(issued) < LOW_WATER {
            self.ask();
        }
    }

    /// Asks the journal thread for a reservation, unless one is asked.
    fn ask(&self) {
        if self.asked.swap(true, Ordering::AcqRel) {
            return;
        }
        let sent = match &*self.journal.lock() {
            Some(tx) => tx.send(super::Command::Reserve).is_ok(),
            None => false,
        };
        if !sent {
            // Nobody to ask: a later ask tries again.
            self.asked.store(false, Ordering::Release);
        }
    }

    // ── the journal's side ─────────────────────────────────────────────────

    /// The journal thread is running and takes requests on `tx`.
    pub(super) fn connect(&self, tx: Asker) {
        *self.journal.lock() = Some(tx);
        self.closed.store(false, Ordering::Release);
    }

    /// Forgets the journal's channel (so the thread can see its end).
    pub(super) fn disconnect(&self) {
        *self.journal.lock() = None;
    }

    /// The journal is about to look at the headroom: asks after this one
    /// are new asks.
    pub(super) fn take_asked(&self) -> bool {
        self.asked.swap(false, Ordering::AcqRel)
    }

    /// The store's ceiling is `ceiling` (`None`: it has none).
    pub(super) fn raise(&self, ceiling: Option<Seq>) {
        self.ceiling
            .fetch_max(ceiling.map_or(UNBOUNDED, |c| c.0), Ordering::AcqRel);
        self.raised.notify_waiters();
    }

    /// The journal has stopped: waiters learn that no number will come.
    pub(super) fn close(&self) {
        self.disconnect();
        self.closed.store(true, Ordering::Release);
        self.raised.notify_waiters();
    }
}

#[cfg(test)]
mod tests;
