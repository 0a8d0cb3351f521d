//! Per-path exclusive locks: one checkout path is created, finished or
//! removed by one request at a time. A path's entry exists only while someone
//! holds or waits for its lock.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

type Slots = Arc<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>>;

/// The lock table; clones share it.
#[derive(Debug, Clone, Default)]
pub struct PathLocks {
    slots: Slots,
}

/// The exclusive lock on one path, released on drop.
#[derive(Debug)]
pub struct PathLock {
    path: PathBuf,
    slots: Slots,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl PathLock {
    #[cfg(test)]
    /// The path this lock holds.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl PathLocks {
    /// Waits until `path` is free, then holds it.
    pub async fn lock(&self, path: PathBuf) -> PathLock {
        let slot = self
            .slots
            .lock()
            .entry(path.clone())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(())))
            .clone();
        let guard = slot.lock_owned().await;
        PathLock {
            path,
            slots: self.slots.clone(),
            guard: Some(guard),
        }
    }

    #[cfg(test)]
    /// Paths locked or waited for now (for tests).
    pub fn len(&self) -> usize {
        self.slots.lock().len()
    }

    #[cfg(test)]
    /// No path is locked or waited for.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for PathLock {
    fn drop(&mut self) {
        let mut slots = self.slots.lock();
        drop(self.guard.take());
        // Only the table holds the slot now: nobody waits, forget the path.
        // A waiter holds its own clone, so it keeps the entry alive.
        if slots
            .get(&self.path)
            .is_some_and(|slot| Arc::strong_count(slot) == 1)
        {
            slots.remove(&self.path);
        }
    }
}
