//! Checkouts the server is working in or on
//! (docs/worktrees.md#reservations-and-locks): the path reservations that keep
//! a workspace creation or pane launch out of a checkout being removed, the
//! per-path locks that serialise create, finish and remove of one checkout, the
//! one lock every `worktree.*` mutation takes, and the check for panes still
//! living inside a checkout.
//!
//! [`Checkouts`] is a cheap handle (clone it into a blocking task); each
//! reservation and lock it hands out is a guard released when dropped, so an
//! early return can never leak one.
//!
//! How callers use it:
//! - workspace creation and pane launch: [`Checkouts::enter`] with the
//!   canonical cwd, held until the workspace or pane is registered;
//! - `worktree.remove`: [`Checkouts::mutation`], then [`Checkouts::lock_path`],
//!   then [`Checkouts::reserve_removal`], held until git is done;
//! - `task.start` / `task.finish`: [`Checkouts::lock_path`] on the task's
//!   checkout path for the whole create or finish. Lock order: the mutation
//!   lock before a path lock, never the other way round.

mod locks;
pub mod reservations;

pub use locks::{PathLock, PathLocks};
pub use reservations::{PathReservations, Ticket, is_within};

use crate::error::Error;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The server's checkout reservations and locks; clones share them.
#[derive(Debug, Clone, Default)]
pub struct Checkouts {
    reservations: Arc<Mutex<PathReservations>>,
    paths: PathLocks,
    mutation: Arc<tokio::sync::Mutex<()>>,
}

/// An entering reference or a removal reservation, released on drop.
#[derive(Debug)]
pub struct Reservation {
    reservations: Arc<Mutex<PathReservations>>,
    ticket: Ticket,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.reservations.lock().release(self.ticket);
    }
}

/// The global `worktree.*` mutation lock, held while alive.
#[derive(Debug)]
pub struct MutationLock {
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl Checkouts {
    /// No reservations, no locks held.
    pub fn new() -> Checkouts {
        Checkouts::default()
    }

    /// Takes an entering reference on `canonical` (a canonical directory):
    /// `BAD_PARAMS` "checkout is being removed" while a removal holds it.
    pub fn enter(&self, canonical: &Path) -> Result<Reservation, Error> {
        let ticket = self
            .reservations
            .lock()
            .enter(canonical)
            .map_err(|r| Error::BadParams(r.to_string()))?;
        Ok(self.guard(ticket))
    }

    /// [`Checkouts::enter`] for a directory not canonicalised yet: resolves it
    /// first (blocking). A path that cannot be resolved takes no reference;
    /// the caller's own directory check reports it.
    pub fn enter_dir(&self, dir: &Path) -> Result<Option<Reservation>, Error> {
        match std::fs::canonicalize(dir) {
            Ok(canonical) => self.enter(&canonical).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// Reserves `canonical` for removal: `BAD_PARAMS` while an overlapping
    /// entering reference or removal is held.
    pub fn reserve_removal(&self, canonical: &Path) -> Result<Reservation, Error> {
        let ticket = self
            .reservations
            .lock()
            .reserve_removal(canonical)
            .map_err(|r| Error::BadParams(r.to_string()))?;
        Ok(self.guard(ticket))
    }

    fn guard(&self, ticket: Ticket) -> Reservation {
        Reservation {
            reservations: self.reservations.clone(),
            ticket,
        }
    }

    /// Waits for the exclusive lock on one checkout path (canonical, or
    /// canonical parent plus name for a path that does not exist yet: see
    /// [`canonical_target`]).
    pub async fn lock_path(&self, canonical: PathBuf) -> PathLock {
        self.paths.lock(canonical).await
    }

    /// Waits for the one lock all `worktree.*` mutations share.
    pub async fn mutation(&self) -> MutationLock {
        MutationLock {
            _guard: self.mutation.clone().lock_owned().await,
        }
    }
}

/// The canonical form of a path that may not exist yet: its deepest existing
/// ancestor canonicalised, the rest appended (`..` and `.` are refused, so the
/// rest cannot climb back out). Blocking.
pub fn canonical_target(path: &Path) -> Result<PathBuf, Error> {
    if !path.is_absolute() {
        return Err(Error::BadParams(format!(
            "path {} is not absolute",
            path.display()
        )));
    }
    let mut rest = Vec::new();
    let mut cur = path;
    loop {
        match std::fs::canonicalize(cur) {
            Ok(mut base) => {
                for part in rest.iter().rev() {
                    base.push(part);
                }
                return Ok(base);
            },
            Err(_) => {
                let (Some(parent), Some(name)) = (cur.parent(), cur.file_name()) else {
                    return Err(Error::BadParams(format!(
                        "path {} cannot be resolved",
                        path.display()
                    )));
                };
                rest.push(name.to_os_string());
                cur = parent;
            },
        }
    }
}

#[cfg(test)]
mod tests;
