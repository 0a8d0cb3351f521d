//! The Sequencer while the journal cannot write (docs/reliability.md#a-full-disk).
//!
//! When the journal stalls, every event it was sent but did not write comes
//! back here, and every event published meanwhile joins it: held in seq
//! order, never applied or fanned out, so nothing unjournaled is seen. A
//! publisher whose events are held waits ([`Hold::Wait`], a client's change:
//! its reply is an acknowledgement) or is answered at once ([`Hold::Answer`],
//! what an agent did: its hook must not wait on a disk). Past the bound,
//! whole batches are dropped: their waiters get the `IO_ERROR`, and the run
//! of numbers they had is recorded as one `journal.gap` at the next retry.
//!
//! ```text
//!  JournalStalled ─► stalled(): pending ─► held          publish while stalled ─► hold()
//!  retry timer ─► retry(): held (+ journal.gap) ─► pending ─► Journal::retry
//!     ├─ JournalAck ─► publish_through (the gap: ring and disk prove nothing before it)
//!     └─ JournalStalled again ─► back to held (the gap record too, as a range)
//! ```

use super::{Pending, Sequencer};
use crate::actors::publish::Hold;
use crate::store::health::{StorageHealth, Trouble};
use crate::store::journal::JournalRecord;
use signaltty_protocol::{Event, Seq, Timestamp};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// A run of dropped numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// The first dropped seq.
    pub first: Seq,
    /// The last dropped seq.
    pub last: Seq,
    /// How many state events (the run may hold `pty.data` numbers too).
    pub lost: u64,
}

impl Dropped {
    fn merge(self, other: Dropped) -> Dropped {
        Dropped {
            first: self.first.min(other.first),
            last: self.last.max(other.last),
            lost: self.lost + other.lost,
        }
    }
}

/// The stall's state, beside the Sequencer's pending events.
pub struct Stall {
    health: Arc<StorageHealth>,
    bound: usize,
    /// The journal is stalled and no retry is under way: publish holds.
    stalled: bool,
    /// What it met.
    trouble: Option<Trouble>,
    /// Held events, in seq order.
    held: VecDeque<Pending>,
    /// Dropped since the last gap record was sent.
    dropped: Option<Dropped>,
    /// The range of the gap record sent with the retry under way.
    gap_sent: Option<Dropped>,
    /// The wait before the next retry.
    backoff: Duration,
    /// A retry is scheduled.
    armed: bool,
}

/// The first wait before a retry; it doubles up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between retries.
pub const RETRY_MAX: Duration = Duration::from_secs(2);

impl Stall {
    /// No stall, holding at most `bound` events when one comes.
    pub fn new(health: Arc<StorageHealth>, bound: usize) -> Stall {
        Stall {
            health,
            bound: bound.max(1),
            stalled: false,
            trouble: None,
            held: VecDeque::new(),
            dropped: None,
            gap_sent: None,
            backoff: RETRY_FIRST,
            armed: false,
        }
    }

    /// When to retry, if no retry is scheduled yet: the backoff, which
    /// doubles for the next time.
    pub fn arm(&mut self) -> Option<Duration> {
        if self.armed {
            return None;
        }
        self.armed = true;
        let wait = self.backoff;
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
        Some(wait)
    }

    /// The scheduled retry is happening.
    pub fn fired(&mut self) {
        self.armed = false;
    }

    /// A write succeeded: the next stall starts with a short wait again.
    pub fn written(&mut self) {
        if !self.stalled {
            self.backoff = RETRY_FIRST;
        }
    }

    /// The shared health the journal reports to.
    pub fn health(&self) -> &Arc<StorageHealth> {
        &self.health
    }

    /// Whether publish holds events now.
    pub fn stalled(&self) -> bool {
        self.stalled
    }

    /// Whether any event is held.
    pub fn holds_any(&self) -> bool {
        !self.held.is_empty()
    }

    /// Every held event (the journal failed for good).
    pub(super) fn take_all(&mut self) -> Vec<Pending> {
        let all = self.held.drain(..).collect();
        self.health.set_held(0);
        all
    }
}

impl Sequencer {
    /// The journal could not write: everything it was sent and did not
    /// acknowledge is held, and so is what comes until a retry.
    pub fn stalled(&mut self, trouble: Trouble) {
        self.stall.stalled = true;
        self.stall.trouble = Some(trouble);
        if let Some(gap) = self.stall.gap_sent.take() {
            // The gap record did not make it: its range is dropped again.
            self.stall.dropped = Some(self.stall.dropped.map_or(gap, |d| d.merge(gap)));
        }
        let back: Vec<Pending> = self
            .pending
            .drain(..)
            .filter(|p| !matches!(*p.event, Event::JournalGap { .. }))
            .collect();
        let later: Vec<Pending> = self.stall.held.drain(..).collect();
        for p in back.into_iter().chain(later) {
            self.hold_one(p);
        }
        self.stall.health.set_held(self.stall.held.len());
    }

    /// Holds a batch published while stalled, or drops it whole past the bound.
    pub(super) fn hold(&mut self, batch: Vec<Pending>) {
        if self.stall.held.len() + batch.len() > self.stall.bound {
            for p in batch {
                self.drop_one(p);
            }
        } else {
            for p in batch {
                self.hold_one(p);
            }
        }
        self.stall.health.set_held(self.stall.held.len());
    }

    fn hold_one(&mut self, mut p: Pending) {
        if self.stall.held.len() >= self.stall.bound {
            return self.drop_one(p);
        }
        if p.hold == Hold::Answer
            && let Some(w) = p.waiter.take()
        {
            // Not durable yet: held, in order, for the journal (a hook's
            // reply says it was taken, not that it is on disk).
            let _ = w.send(Ok(p.published.seq));
        }
        self.stall.held.push_back(p);
    }

    fn drop_one(&mut self, p: Pending) {
        let seq = p.published.seq;
        if let Some(w) = p.waiter {
            let answer = match (&self.stall.trouble, p.hold) {
                // A hook was taken; its loss is the gap record's to say.
                (_, Hold::Answer) => Ok(seq),
                (Some(t), Hold::Wait) => Err(t.to_error()),
                (None, Hold::Wait) => Err(crate::error::Error::Internal(
                    "dropped while the journal stalled".into(),
                )),
            };
            let _ = w.send(answer);
        }
        let one = Dropped {
            first: seq,
            last: seq,
            lost: 1,
        };
        self.stall.dropped = Some(self.stall.dropped.map_or(one, |d| d.merge(one)));
        self.stall.health.add_lost(1);
    }

    /// Tries the journal again: everything held (and a record of what was
    /// dropped) goes back to pending and is written first. Publishes go to
    /// the journal again meanwhile; if the retry fails, the journal stalls
    /// again and they are held with the rest. Returns false when there was
    /// no stall.
    pub fn retry(&mut self) -> bool {
        if !self.stall.stalled {
            return false;
        }
        self.stall.stalled = false;
        let mut records = Vec::with_capacity(self.stall.held.len() + 1);
        for p in self.stall.held.drain(..) {
            records.push(record_of(&p));
            self.pending.push_back(p);
        }
        if let Some(gap) = self.stall.dropped.take() {
            let reason = self
                .stall
                .trouble
                .as_ref()
                .map_or("io", |t| t.reason.as_str());
            let event = Event::JournalGap {
                first_seq: gap.first.0,
                last_seq: gap.last.0,
                lost: gap.lost,
                reason: reason.to_owned(),
            };
            let seq = self.clock.next_states(1);
            let published = crate::domain::events::Published::new(seq, &event);
            let p = Pending {
                event: Box::new(event),
                published,
                waiter: None,
                hold: Hold::Answer,
                at: Timestamp::now(),
            };
            records.push(record_of(&p));
            self.pending.push_back(p);
            self.stall.gap_sent = Some(gap);
        }
        self.stall.health.set_held(0);
        let sent = match &self.journal {
            Some(j) => j.retry(records),
            None => Err("journal is not running".to_owned()),
        };
        if let Err(e) = sent {
            self.fail(&e);
            if let Some(failed) = &self.failed {
                failed.do_send(crate::store::journal::JournalFailed { error: e });
            }
        }
        true
    }

    /// A `journal.gap` at `seq` is published: replays from before it cannot
    /// be complete.
    pub(super) fn gap_published(&mut self, seq: Seq) {
        self.stall.gap_sent = None;
        self.ring.forget_through(Seq(seq.0.saturating_sub(1)));
    }
}

/// The journal record of a sequenced event.
pub(super) fn record_of(p: &Pending) -> JournalRecord {
    JournalRecord {
        seq: p.published.seq,
        event: p.published.name,
        payload: p.published.payload_json.clone(),
        at: p.at.clone(),
    }
}
