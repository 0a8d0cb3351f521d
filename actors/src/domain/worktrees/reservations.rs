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
mod tests {
    use super::*;

    fn p(s: &str) -> &Path {
        Path::new(s)
    }

    #[test]
    fn overlap_is_component_wise_not_by_string_prefix() {
        assert!(overlaps(p("/a/proj"), p("/a/proj")));
        assert!(overlaps(p("/a/proj"), p("/a/proj/src")));
        assert!(overlaps(p("/a/proj/src"), p("/a/proj")));
        assert!(overlaps(p("/a"), p("/a/proj/src")));
        assert!(!overlaps(p("/a/proj"), p("/a/proj-other")));
        assert!(!overlaps(p("/a/proj-other/x"), p("/a/proj")));
        assert!(is_within(p("/a/proj/x"), p("/a/proj")));
        assert!(!is_within(p("/a"), p("/a/proj")));
    }

    #[test]
    fn a_removal_is_refused_while_an_overlapping_entering_reference_is_held() {
        let mut r = PathReservations::new();
        let launch = r.enter(p("/w/wt/src")).unwrap();
        assert_eq!(
            r.reserve_removal(p("/w/wt")),
            Err(Refusal::Entering(PathBuf::from("/w/wt/src")))
        );
        // An entering reference above the checkout overlaps too.
        let home = r.enter(p("/w")).unwrap();
        r.release(launch);
        assert!(matches!(
            r.reserve_removal(p("/w/wt")),
            Err(Refusal::Entering(_))
        ));
        r.release(home);
        assert!(r.reserve_removal(p("/w/wt")).is_ok());
    }

    #[test]
    fn a_sibling_with_a_common_prefix_does_not_block_a_removal() {
        let mut r = PathReservations::new();
        r.enter(p("/w/proj-other")).unwrap();
        assert!(r.reserve_removal(p("/w/proj")).is_ok());
        assert!(r.enter(p("/w/proj-other/deeper")).is_ok());
    }

    #[test]
    fn entering_a_checkout_being_removed_is_refused_and_allowed_after_release() {
        let mut r = PathReservations::new();
        let removal = r.reserve_removal(p("/w/wt")).unwrap();
        assert_eq!(
            r.enter(p("/w/wt")),
            Err(Refusal::BeingRemoved(PathBuf::from("/w/wt")))
        );
        assert!(matches!(
            r.enter(p("/w/wt/a/b")),
            Err(Refusal::BeingRemoved(_))
        ));
        assert_eq!(r.removal_covering(p("/w/wt/a")), Some(p("/w/wt")));
        // The parent is not inside the checkout: entering it is allowed.
        let parent = r.enter(p("/w")).unwrap();
        r.release(parent);
        r.release(removal);
        assert_eq!(r.removal_covering(p("/w/wt/a")), None);
        let t = r.enter(p("/w/wt")).unwrap();
        r.release(t);
        assert!(r.is_empty());
    }

    #[test]
    fn two_overlapping_removals_exclude_each_other() {
        let mut r = PathReservations::new();
        let first = r.reserve_removal(p("/w/wt")).unwrap();
        assert_eq!(
            r.reserve_removal(p("/w/wt/nested")),
            Err(Refusal::Removing(PathBuf::from("/w/wt")))
        );
        assert!(r.reserve_removal(p("/w/wt2")).is_ok());
        r.release(first);
        assert!(r.reserve_removal(p("/w/wt/nested")).is_ok());
    }

    #[test]
    fn releasing_twice_or_an_unknown_ticket_changes_nothing() {
        let mut r = PathReservations::new();
        let a = r.enter(p("/x")).unwrap();
        let b = r.enter(p("/x")).unwrap();
        assert_ne!(a, b);
        r.release(a);
        r.release(a);
        assert!(matches!(
            r.reserve_removal(p("/x")),
            Err(Refusal::Entering(_))
        ));
        r.release(b);
        assert!(r.is_empty());
    }
}
