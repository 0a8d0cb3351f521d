//! Journal stores for tests: one whose appends wait until the test lets each
//! through and which records every batch, and one whose appends all fail.

use crate::store::journal::{JournalRecord, JournalStore};
use parking_lot::Mutex;
use signaltty_protocol::Seq;
use std::sync::Arc;
use std::sync::mpsc;

/// The seqs of every batch a store was asked to append, in order.
pub type BatchLog = Arc<Mutex<Vec<Vec<Seq>>>>;

/// A store whose appends block until the test lets each one through, and which
/// records the size of every batch.
pub struct GatedStore {
    gate: mpsc::Receiver<()>,
    batches: BatchLog,
}

impl GatedStore {
    /// The store, the gate's sender (one `()` per append to let through) and the batch log.
    pub fn new() -> (GatedStore, mpsc::Sender<()>, BatchLog) {
        let (tx, rx) = mpsc::channel();
        let batches = Arc::new(Mutex::new(Vec::new()));
        (
            GatedStore {
                gate: rx,
                batches: batches.clone(),
            },
            tx,
            batches,
        )
    }
}

impl JournalStore for GatedStore {
    fn head(&self) -> Seq {
        Seq(100)
    }

    fn append(&mut self, batch: &[JournalRecord]) -> std::io::Result<()> {
        self.batches
            .lock()
            .push(batch.iter().map(|r| r.seq).collect());
        self.gate
            .recv()
            .map_err(|_| std::io::Error::other("gate dropped"))
    }
}

/// A store that fails every append, like a full disk.
pub struct FailingStore;

impl JournalStore for FailingStore {
    fn head(&self) -> Seq {
        Seq(0)
    }

    fn append(&mut self, _batch: &[JournalRecord]) -> std::io::Result<()> {
        Err(std::io::Error::other("no space left on device"))
    }
}
