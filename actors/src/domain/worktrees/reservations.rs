//! Path reservations (docs/worktrees.md#reservations-and-locks): which checkout
//! paths are being entered (a workspace created or a pane launched there, not
//! registered yet) and which are being removed. A plain struct with no I/O: the
//! paths it is given are already canonical, and overlap is decided
//! component-wise.
//!
//! ```text
//!   entering  /r/wt/src  (a pane launch)     removing  /r/wt  (worktree.remove)
//!      reserve_removal(/r/wt)  refused while an entering or removing path overlaps
//!      enter(/r/wt/src)        refused while a removing path contains it
//! ```

use std::path::{Path, PathBuf};

/// One reservation, returned so it can be released exactly once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket(u64);

/// Why a reservation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The path is inside a checkout being removed (it is given).
    BeingRemoved(PathBuf),
    /// A workspace creation or pane launch holds an overlapping path.
    Entering(PathBuf),
    /// Another removal holds an overlapping path.
    Removing(PathBuf),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::BeingRemoved(p) => {
                write!(f, "checkout is being removed: {}", p.display())
            },
            Refusal::Entering(p) => write!(
                f,
                "a workspace creation or pane launch in {} is under way; retry when it is done",
                p.display()
            ),
            Refusal::Removing(p) => {
                write!(f, "checkout {} is already being removed", p.display())
            },
        }
    }
}

/// Is `inner` the path `outer` or inside it, component by component
/// (`/a/proj-other` is not inside `/a/proj`)?
pub fn is_within(inner: &Path, outer: &Path) -> bool {
    inner.starts_with(outer)
}

/// Does one path contain the other?
pub fn overlaps(a: &Path, b: &Path) -> bool {
    is_within(a, b) || is_within(b, a)
}

/// The entering references and removal reservations held now.
#[derive(Debug, Default)]
pub struct PathReservations {
    next: u64,
    entering: Vec<(Ticket, PathBuf)>,
    removing: Vec<(Ticket, PathBuf)>,
}

impl PathReservations {
    #[cfg(test)]
    /// No reservations.
    pub fn new() -> PathReservations {
        PathReservations::default()
    }

    fn ticket(&mut self) -> Ticket {
        self.next += 1;
        Ticket(self.next)
    }

    /// Takes an entering reference on `path` (a workspace creation or a pane
    /// launch there). Refused while a removal holds `path` or a directory
    /// containing it.
    pub fn enter(&mut self, path: &Path) -> Result<Ticket, Refusal> {
        if let Some((_, removing)) = self.removing.iter().find(|(_, r)| is_within(path, r)) {
            return Err(Refusal::BeingRemoved(removing.clone()));
        }
        let t = self.ticket();
        self.entering.push((t, path.to_path_buf()));
        Ok(t)
    }

    /// Reserves `path` for removal. Refused while an entering reference or
    /// another removal holds a path overlapping it.
    pub fn reserve_removal(&mut self, path: &Path) -> Result<Ticket, Refusal> {
        if let Some((_, held)) = self.removing.iter().find(|(_, r)| overlaps(path, r)) {
            return Err(Refusal::Removing(held.clone()));
        }
        if let Some((_, held)) = self.entering.iter().find(|(_, e)| overlaps(path, e)) {
            return Err(Refusal::Entering(held.clone()));
        }
        let t = self.ticket();
        self.removing.push((t, path.to_path_buf()));
        Ok(t)
    }

    /// Releases a reservation of either kind; an unknown ticket is ignored.
    pub fn release(&mut self, ticket: Ticket) {
        self.entering.retain(|(t, _)| *t != ticket);
        self.removing.retain(|(t, _)| *t != ticket);
    }

    #[cfg(test)]
    /// The removal holding `path` or a directory containing it, if any.
    pub fn removal_covering(&self, path: &Path) -> Option<&Path> {
        self.removing
            .iter()
            .find(|(_, r)| is_within(path, r))
            .map(|(_, r)| r.as_path())
    }

    #[cfg(test)]
    /// Nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entering.is_empty() && self.removing.is_empty()
    }
}

#[cfg(test)]
mod tests;
