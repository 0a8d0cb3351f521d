//! Journal stores for tests: one whose appends wait until the test lets each
//! through and which records every batch, one whose appends all fail for
//! good, and one whose disk the test fills and empties.

use crate::store::journal::{AppendError, JournalRecord, JournalStore};
use parking_lot::Mutex;
use signaltty_protocol::Seq;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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

    fn append(&mut self, batch: &[JournalRecord]) -> Result<(), AppendError> {
        self.batches
            .lock()
            .push(batch.iter().map(|r| r.seq).collect());
        self.gate
            .recv()
            .map_err(|_| AppendError::Fatal(std::io::Error::other("gate dropped")))
    }
}

/// A store that fails every append for good, like a failed sync.
pub struct FailingStore;

impl JournalStore for FailingStore {
    fn head(&self) -> Seq {
        Seq(0)
    }

    fn append(&mut self, _batch: &[JournalRecord]) -> Result<(), AppendError> {
        Err(AppendError::Fatal(std::io::Error::other(
            "fdatasync failed: input/output error",
        )))
    }
}

/// A store whose disk the test fills (every append and probe fails with
/// ENOSPC, writing nothing) and empties; it records every record written.
pub struct FullDiskStore {
    full: Arc<AtomicBool>,
    written: Arc<Mutex<Vec<(Seq, &'static str)>>>,
}

/// The switch of a [`FullDiskStore`]'s disk and what it wrote.
#[derive(Clone)]
pub struct FullDisk {
    /// The disk is full.
    pub full: Arc<AtomicBool>,
    /// Every record written, in order.
    pub written: Arc<Mutex<Vec<(Seq, &'static str)>>>,
}

impl FullDisk {
    /// Fills or empties the disk.
    pub fn set_full(&self, full: bool) {
        self.full.store(full, Ordering::SeqCst);
    }
}

impl FullDiskStore {
    /// A store with room, and its switch.
    pub fn new() -> (FullDiskStore, FullDisk) {
        let disk = FullDisk {
            full: Arc::new(AtomicBool::new(false)),
            written: Arc::new(Mutex::new(Vec::new())),
        };
        (
            FullDiskStore {
                full: disk.full.clone(),
                written: disk.written.clone(),
            },
            disk,
        )
    }

    fn room(&self) -> Result<(), AppendError> {
        if self.full.load(Ordering::SeqCst) {
            return Err(AppendError::unwritten(
                std::path::Path::new("/state/audit.jsonl"),
                std::io::Error::from_raw_os_error(nix::errno::Errno::ENOSPC as i32),
            ));
        }
        Ok(())
    }
}

impl JournalStore for FullDiskStore {
    fn head(&self) -> Seq {
        Seq(0)
    }

    fn append(&mut self, batch: &[JournalRecord]) -> Result<(), AppendError> {
        self.room()?;
        self.written
            .lock()
            .extend(batch.iter().map(|r| (r.seq, r.event)));
        Ok(())
    }

    fn probe(&mut self) -> Result<(), AppendError> {
        self.room()
    }
}
