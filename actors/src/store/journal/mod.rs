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
//!  Supervisor ──batch──► channel ──► journal thread ──append+sync──► store
//!      ▲                                   │
//!      └──────── JournalAck{through} ──────┘   (or JournalFailed)
//! ```
//!
//! The store behind the thread is a [`JournalStore`]: [`file::FileStore`] in the
//! server (`audit.jsonl`, rotation, retention, reservations), [`MemoryStore`] and
//! the testkit's gated and failing stores in tests.

pub mod file;

use actix::prelude::*;
use signaltty_protocol::{Seq, Timestamp};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

/// One journal record: `{seq, event, payload, at}` (spec/persistence.md §4.2).
#[derive(Debug, Clone)]
pub struct JournalRecord {
    /// The event's sequence number.
    pub seq: Seq,
    /// The event name.
    pub event: &'static str,
    /// The event payload as JSON text (empty for a record that is not written).
    pub payload: bytes::Bytes,
    /// When the event was sequenced.
    pub at: Timestamp,
    /// Whether the record is written. `pty.data` takes a sequence number (which
    /// must be reserved durably like any other) but is never journaled.
    pub journaled: bool,
}

/// Durable storage for journal records.
pub trait JournalStore: Send + 'static {
    /// The highest seq ever issued or reserved before this run; the next event gets
    /// a higher number.
    fn head(&self) -> Seq;
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

/// The sending side of the journal thread.
#[derive(Debug)]
pub struct Journal {
    tx: Option<mpsc::Sender<Vec<JournalRecord>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Journal {
    /// Starts the journal thread over `store`; acknowledgements go to the recipients.
    pub fn spawn(
        mut store: Box<dyn JournalStore>,
        ack: Recipient<JournalAck>,
        failed: Recipient<JournalFailed>,
    ) -> std::io::Result<Journal> {
        let (tx, rx) = mpsc::channel::<Vec<JournalRecord>>();
        let thread = std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || {
                let fail = |e: std::io::Error| {
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
                    let mut batch = match first {
                        Ok(batch) => batch,
                        Err(RecvTimeoutError::Timeout) => {
                            if let Err(e) = store.idle() {
                                return fail(e);
                            }
                            continue;
                        },
                        Err(RecvTimeoutError::Disconnected) => {
                            if let Err(e) = store.idle() {
                                log::error!("journal: final housekeeping failed: {e}");
                            }
                            return;
                        },
                    };
                    // Group commit: everything queued while the last sync ran goes in this one.
                    while let Ok(more) = rx.try_recv() {
                        batch.extend(more);
                    }
                    let Some(through) = batch.last().map(|r| r.seq) else {
                        continue;
                    };
                    // No retry after a failed sync: the kernel may have dropped the
                    // dirty pages, so a second fdatasync could lie (PostgreSQL's rule).
                    match store.append(&batch) {
                        Ok(()) => ack.do_send(JournalAck { through }),
                        Err(e) => return fail(e),
                    }
                }
            })?;
        Ok(Journal {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// Queues a batch. Fails when the journal thread has stopped.
    pub fn append(&self, batch: Vec<JournalRecord>) -> Result<(), String> {
        match &self.tx {
            Some(tx) => tx
                .send(batch)
                .map_err(|_| "journal thread has stopped".to_owned()),
            None => Err("journal is closed".to_owned()),
        }
    }

    /// Stops taking batches and waits for the thread to write what it has.
    pub fn close(&mut self) {
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
mod verify_tests {
    use crate::store::journal::file::FileStore;
    use crate::store::journal::{JournalRecord, JournalStore};
    use signaltty_model::journal::verify::verify;
    use signaltty_protocol::{Seq, Timestamp};

    #[test]
    fn a_journal_written_by_the_store_verifies_and_damage_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _, _) = FileStore::open(dir.path(), 300).unwrap();
        for s in 1..=12 {
            let r = JournalRecord {
                seq: Seq(s),
                event: "workspace.closed",
                payload: bytes::Bytes::from_static(b"{}"),
                at: Timestamp::now(),
                journaled: true,
            };
            store.append(&[r]).unwrap();
        }
        store.idle().unwrap();
        let report = verify(dir.path());
        assert!(report.ok(), "{:?}", report.problems);
        assert!(report.provable);
        assert_eq!(report.max_seq, Some(12));

        let current = dir.path().join("audit.jsonl");
        let mut text = std::fs::read_to_string(&current).unwrap();
        text.push_str("not json\n{\"seq\":1,\"event\":\"x\",\"payload\":{}}\n{\"seq\":");
        std::fs::write(&current, text).unwrap();
        let report = verify(dir.path());
        let all = report.problems.join("\n");
        assert!(all.contains("is not a journal record"), "{all}");
        assert!(all.contains("does not increase"), "{all}");
        assert!(all.contains("unfinished record"), "{all}");
    }
}
