//! The Journal: records every state event durably before anyone sees it.
//!
//! It runs on its own thread, fed by a channel. The Supervisor sends batches of
//! sequenced records; the thread drains everything queued behind the first batch,
//! hands it to its store in one `append` (one write and one sync: group commit), and
//! acknowledges the highest seq it made durable. The Supervisor publishes events
//! only up to an acknowledged seq.
//!
//! A write the store could not make (no space, a quota, a read-only or vanished
//! directory: [`AppendError::Unwritten`], nothing of the batch left in the file)
//! stalls the journal: the thread reports it ([`JournalStalled`], and in the
//! [`StorageHealth`]), discards every batch queued behind it, and writes again
//! only when the Supervisor retries ([`Journal::retry`]) with the events it held
//! meanwhile (docs/reliability.md#a-full-disk). A failed sync of written data
//! ([`AppendError::Fatal`]) is fatal: the thread reports it and stops, and the
//! Supervisor stops the server rather than publish an event it cannot prove.
//!
//! ```text
//!  Supervisor ──batch──► channel ──► journal thread ──reserve?──append+sync──► store
//!      ▲  ▲     panes ──Reserve──┘         │    └──ceiling──► SeqClock
//!      │  └── Retry(held) ──────────┐      ├── JournalAck{through}
//!      └────────────────────────────┴──────┴── JournalStalled (or JournalFailed)
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

use crate::store::health::{StorageHealth, Trouble};
use actix::prelude::*;
use clock::SeqClock;
use signaltty_protocol::{Seq, Timestamp};
use std::path::PathBuf;
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

/// Why an append did not happen.
#[derive(Debug)]
pub enum AppendError {
    /// The store could not write, and nothing of the batch is in it: the
    /// same records may be appended again later.
    Unwritten {
        /// The error.
        error: std::io::Error,
        /// The file that could not be written.
        path: PathBuf,
    },
    /// The store may hold part of the batch, or a sync of written data
    /// failed: the journal cannot go on.
    Fatal(std::io::Error),
}

impl AppendError {
    /// An unwritten append of `path`.
    pub fn unwritten(path: &std::path::Path, error: std::io::Error) -> AppendError {
        AppendError::Unwritten {
            error,
            path: path.to_path_buf(),
        }
    }
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
    fn reserve(&mut self, _needed: Seq) -> Result<(), AppendError> {
        Ok(())
    }

    /// Writes the batch and syncs it. Returns only once the records are durable.
    fn append(&mut self, batch: &[JournalRecord]) -> Result<(), AppendError>;

    /// After a stall with nothing to write: whether writes would succeed now.
    fn probe(&mut self) -> Result<(), AppendError> {
        Ok(())
    }

    /// When the store wants `idle` called if no batch arrives first.
    fn idle_deadline(&self) -> Option<Instant> {
        None
    }

    /// Housekeeping between batches (and once at close): work that must happen
    /// soon but not inside an append. A failure is logged; the store sets its
    /// own next deadline.
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

    fn append(&mut self, _batch: &[JournalRecord]) -> Result<(), AppendError> {
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

/// The journal could not write: every batch not acknowledged yet is discarded,
/// and nothing is written until [`Journal::retry`].
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct JournalStalled {
    /// What the write met.
    pub trouble: Trouble,
}

/// Where the journal thread reports.
pub struct Reports {
    /// Records made durable.
    pub ack: Recipient<JournalAck>,
    /// A write that could not be made; the journal waits for a retry.
    pub stalled: Recipient<JournalStalled>,
    /// The journal stopped for good.
    pub failed: Recipient<JournalFailed>,
}

/// The journal could not record a batch and cannot go on.
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
    /// After a stall: write these (the held events, possibly none) and go on.
    Retry(Vec<JournalRecord>),
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
fn reserve_ahead(store: &mut dyn JournalStore, clock: &SeqClock) -> Result<(), AppendError> {
    let Some(ceiling) = store.ceiling() else {
        return Ok(());
    };
    let last = clock.last();
    if ceiling.0.saturating_sub(last.0) < clock::LOW_WATER {
        let needed = last.0.checked_add(clock::LOW_WATER).ok_or_else(|| {
            AppendError::Fatal(std::io::Error::other("the event sequence is exhausted"))
        })?;
        store.reserve(Seq(needed))?;
        clock.raise(store.ceiling());
    }
    Ok(())
}

impl Journal {
    /// Starts the journal thread over `store`, keeping `clock`'s ceiling and
    /// `health`; what it does goes to `reports`.
    pub fn spawn(
        store: Box<dyn JournalStore>,
        clock: Arc<SeqClock>,
        health: Arc<StorageHealth>,
        reports: Reports,
    ) -> std::io::Result<Journal> {
        let (tx, rx) = mpsc::channel::<Command>();
        clock.raise(store.ceiling());
        clock.connect(tx.clone());
        let ours = clock.clone();
        let spawned = std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || {
                Writer {
                    store,
                    clock: ours,
                    health,
                    reports,
                    stalled: false,
                    idle_failing: false,
                }
                .run(rx)
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

    /// After [`JournalStalled`]: writes `held` (possibly nothing, to see
    /// whether writes succeed again) and goes on with what follows.
    pub fn retry(&self, held: Vec<JournalRecord>) -> Result<(), String> {
        self.send(Command::Retry(held))
    }

    fn send(&self, command: Command) -> Result<(), String> {
        match &self.tx {
            Some(tx) => tx
                .send(command)
                .map_err(|_| "journal thread has stopped".to_owned()),
            None => Err("journal is closed".to_owned()),
        }
    }

    /// Queues a batch. Fails when the journal thread has stopped.
    pub fn append(&self, batch: Vec<JournalRecord>) -> Result<(), String> {
        self.send(Command::Append(batch))
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

/// The journal thread's state.
struct Writer {
    store: Box<dyn JournalStore>,
    clock: Arc<SeqClock>,
    health: Arc<StorageHealth>,
    reports: Reports,
    /// A write failed and no retry has succeeded since: appends are
    /// discarded (the Supervisor holds their events).
    stalled: bool,
    /// The last housekeeping failed (said once, not every time).
    idle_failing: bool,
}

impl Writer {
    fn run(mut self, rx: mpsc::Receiver<Command>) {
        loop {
            let first = match self.store.idle_deadline() {
                Some(deadline) => {
                    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
                },
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let mut batch = Vec::new();
            let mut retry = false;
            match first {
                Ok(Command::Append(records)) if !self.stalled => batch = records,
                // Queued before the Supervisor learned of the stall: it holds them.
                Ok(Command::Append(_)) => continue,
                Ok(Command::Retry(records)) => {
                    batch = records;
                    retry = true;
                },
                Ok(Command::Reserve) => {},
                Err(RecvTimeoutError::Timeout) => {
                    match self.store.idle() {
                        Ok(()) => self.idle_failing = false,
                        Err(e) if !self.idle_failing => {
                            self.idle_failing = true;
                            log::warn!("journal: housekeeping failed, trying again: {e}");
                        },
                        Err(e) => log::debug!("journal: housekeeping failed again: {e}"),
                    }
                    continue;
                },
                Err(RecvTimeoutError::Disconnected) => {
                    self.clock.close();
                    if let Err(e) = self.store.idle() {
                        log::error!("journal: final housekeeping failed: {e}");
                    }
                    return;
                },
            }
            if !self.stalled || retry {
                // Group commit: everything queued while the last sync ran goes
                // in this one (behind a retry, only what was sent after it).
                while let Ok(more) = rx.try_recv() {
                    if let Command::Append(records) | Command::Retry(records) = more {
                        batch.extend(records);
                    }
                }
            } else if batch.is_empty() {
                // A reservation asked for while stalled waits for the retry.
                continue;
            }
            match self.round(&batch, retry) {
                Ok(()) => {},
                Err(AppendError::Unwritten { error, path }) => {
                    log::warn!(
                        "journal: cannot write {}: {error}; holding events until writes succeed",
                        path.display()
                    );
                    self.health.report(&path, &error);
                    self.stalled = true;
                    if let Some(trouble) = self.health.trouble() {
                        self.reports.stalled.do_send(JournalStalled { trouble });
                    }
                },
                Err(AppendError::Fatal(e)) => {
                    self.clock.close();
                    self.reports.failed.do_send(JournalFailed {
                        error: e.to_string(),
                    });
                    return;
                },
            }
        }
    }

    /// One reservation look and one append (or, for an empty retry, a probe).
    fn round(&mut self, batch: &[JournalRecord], retry: bool) -> Result<(), AppendError> {
        // One reservation covers the batch and the headroom ahead; an ask
        // after this look is a new one.
        self.clock.take_asked();
        reserve_ahead(self.store.as_mut(), &self.clock)?;
        let Some(through) = batch.last().map(|r| r.seq) else {
            if retry {
                self.store.probe()?;
                self.resumed();
            }
            return Ok(());
        };
        // No retry after a failed sync: the kernel may have dropped the dirty
        // pages, so a second fdatasync could lie (PostgreSQL's rule). A store
        // answers Fatal for those.
        self.store.append(batch)?;
        self.resumed();
        // A batch past the ceiling raised it inside `append`.
        self.clock.raise(self.store.ceiling());
        self.reports.ack.do_send(JournalAck { through });
        Ok(())
    }

    fn resumed(&mut self) {
        if self.stalled {
            log::info!("journal: writes succeed again");
        }
        self.stalled = false;
        self.health.clear();
    }
}

#[cfg(test)]
mod tests;
