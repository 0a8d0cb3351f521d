//! The Journal: records every state event durably before anyone sees it.
//!
//! It runs on its own thread, fed by a channel. The Supervisor sends batches of
//! sequenced records; the thread drains everything queued behind the first batch,
//! hands it to its store in one `append` (one write and one sync: group commit), and
//! acknowledges the highest seq it made durable. The Supervisor publishes events
//! only up to an acknowledged seq. A failed append is fatal: the thread reports it
//! and stops, and the Supervisor stops the server rather than publish an event it
//! cannot prove.
//!
//! ```text
//!  Supervisor ──batch──► channel ──► journal thread ──reserve?──append+sync──► store
//!      ▲        panes ──Reserve──┘         │    └──ceiling──► SeqClock
//!      └──────── JournalAck{through} ──────┘   (or JournalFailed)
//! ```
//!
//! The thread also keeps the sequence reservation ahead of the numbers the
//! [`clock::SeqClock`] hands out: before each round it reserves the next
//! block when the headroom is low, and publishes the new ceiling to the
//! clock, under which panes number their `pty.data` on their own.
//!
//! The store behind the thread is a [`JournalStore`]: [`file::FileStore`] in the
//! server (`audit.jsonl`, rotation, retention, reservations), [`MemoryStore`] and
//! the testkit's gated and failing stores in tests.

pub mod clock;
pub mod file;
pub mod replay;

use actix::prelude::*;
use clock::SeqClock;
use signaltty_protocol::{Seq, Timestamp};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

/// One journal record: `{seq, event, payload, at}`
/// (docs/persistence.md#journal-records).
#[derive(Debug, Clone)]
pub struct JournalRecord {
    /// The event's sequence number.
    pub seq: Seq,
    /// The event name.
    pub event: &'static str,
    /// The event payload as JSON text (empty: `{}`).
    pub payload: bytes::Bytes,
    /// When the event was sequenced.
    pub at: Timestamp,
}

/// Durable storage for journal records.
pub trait JournalStore: Send + 'static {
    /// The highest seq ever issued or reserved before this run; the next event gets
    /// a higher number.
    fn head(&self) -> Seq;

    /// The durable reservation ceiling: no number above it may reach anyone
    /// before [`JournalStore::reserve`] raised it. `None`: the store keeps
    /// nothing across runs, so every number may be handed out.
    fn ceiling(&self) -> Option<Seq> {
        None
    }

    /// Reserves durably so that every number up to `needed` may be handed out.
    fn reserve(&mut self, _needed: Seq) -> std::io::Result<()> {
        Ok(())
    }

    /// Writes the batch and syncs it. Returns only once the records are durable.
    fn append(&mut self, batch: &[JournalRecord]) -> std::io::Result<()>;

    /// When the store wants `idle` called if no batch arrives first.
    fn idle_deadline(&self) -> Option<Instant> {
        None
    }

    /// Housekeeping between batches (and once at close): work that must happen
    /// soon but not inside an append.
    fn idle(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
/// A store that keeps nothing: sequence numbers restart at 1 with each server run.
#[derive(Debug, Default)]
pub struct MemoryStore;

#[cfg(test)]
impl JournalStore for MemoryStore {
    fn head(&self) -> Seq {
        Seq(0)
    }

    fn append(&mut self, _batch: &[JournalRecord]) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every record up to and including `through` is durable.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct JournalAck {
    /// The highest durable seq.
    pub through: Seq,
}

/// The journal could not record a batch; nothing after `after` is durable.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct JournalFailed {
    /// What went wrong, for the log.
    pub error: String,
}

/// What the journal thread is asked to do.
#[derive(Debug)]
pub(crate) enum Command {
    /// Write these records (in seq order, after every earlier batch).
    Append(Vec<JournalRecord>),
    /// The clock's headroom is low: reserve ahead.
    Reserve,
}

/// The sending side of the journal thread.
#[derive(Debug)]
pub struct Journal {
    tx: Option<mpsc::Sender<Command>>,
    clock: Arc<SeqClock>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Reserves the next block(s) when the clock has less than
/// [`clock::LOW_WATER`] numbers left below the ceiling (or has passed it,
/// for a batch of state events), and publishes the ceiling.
fn reserve_ahead(store: &mut dyn JournalStore, clock: &SeqClock) -> std::io::Result<()> {
    let Some(ceiling) = store.ceiling() else {
        return Ok(());
    };
    let last = clock.last();
    if ceiling.0.saturating_sub(last.0) < clock::LOW_WATER {
        let needed = last
            .0
            .checked_add(clock::LOW_WATER)
            .ok_or_else(|| std::io::Error::other("the event sequence is exhausted"))?;
        store.reserve(Seq(needed))?;
        clock.raise(store.ceiling());
    }
    Ok(())
}

impl Journal {
    /// Starts the journal thread over `store`, keeping `clock`'s ceiling;
    /// acknowledgements go to the recipients.
    pub fn spawn(
        mut store: Box<dyn JournalStore>,
        clock: Arc<SeqClock>,
        ack: Recipient<JournalAck>,
        failed: Recipient<JournalFailed>,
    ) -> std::io::Result<Journal> {
        let (tx, rx) = mpsc::channel::<Command>();
        clock.raise(store.ceiling());
        clock.connect(tx.clone());
        let ours = clock.clone();
        let spawned = std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || {
                let fail = |e: std::io::Error| {
                    ours.close();
                    failed.do_send(JournalFailed {
                        error: e.to_string(),
                    })
                };
                loop {
                    let first = match store.idle_deadline() {
                        Some(deadline) => {
                            rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
                        },
                        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    };
                    let mut batch = Vec::new();
                    match first {
                        Ok(Command::Append(records)) => batch = records,
                        Ok(Command::Reserve) => {},
                        Err(RecvTimeoutError::Timeout) => {
                            if let Err(e) = store.idle() {
                                return fail(e);
                            }
                            continue;
                        },
                        Err(RecvTimeoutError::Disconnected) => {
                            ours.close();
                            if let Err(e) = store.idle() {
                                log::error!("journal: final housekeeping failed: {e}");
                            }
                            return;
                        },
                    }
                    // Group commit: everything queued while the last sync ran goes in this one.
                    while let Ok(more) = rx.try_recv() {
                        if let Command::Append(records) = more {
                            batch.extend(records);
                        }
                    }
                    // One reservation covers the batch and the headroom ahead; an
                    // ask after this look is a new one.
                    ours.take_asked();
                    if let Err(e) = reserve_ahead(store.as_mut(), &ours) {
                        return fail(e);
                    }
                    let Some(through) = batch.last().map(|r| r.seq) else {
                        continue;
                    };
                    // No retry after a failed sync: the kernel may have dropped the
                    // dirty pages, so a second fdatasync could lie (PostgreSQL's rule).
                    match store.append(&batch) {
                        Ok(()) => {
                            // A batch past the ceiling raised it inside `append`.
                            ours.raise(store.ceiling());
                            ack.do_send(JournalAck { through });
                        },
                        Err(e) => return fail(e),
                    }
                }
            });
        let thread = match spawned {
            Ok(thread) => thread,
            Err(e) => {
                clock.close();
                return Err(e);
            },
        };
        Ok(Journal {
            tx: Some(tx),
            clock,
            thread: Some(thread),
        })
    }

    /// Queues a batch. Fails when the journal thread has stopped.
    pub fn append(&self, batch: Vec<JournalRecord>) -> Result<(), String> {
        match &self.tx {
            Some(tx) => tx
                .send(Command::Append(batch))
                .map_err(|_| "journal thread has stopped".to_owned()),
            None => Err("journal is closed".to_owned()),
        }
    }

    /// Stops taking batches and waits for the thread to write what it has.
    pub fn close(&mut self) {
        // The clock's copy of the channel goes too, so the thread sees the end.
        self.clock.disconnect();
        self.tx = None;
        if let Some(t) = self.thread.take() {
            // A panicked journal thread has already reported nothing more; there is
            // nothing left to flush, so its join error is only logged.
            if t.join().is_err() {
                log::error!("journal thread panicked");
            }
        }
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests;
