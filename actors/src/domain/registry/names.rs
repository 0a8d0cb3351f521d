//! How requests name panes: the pane name rule, the names the registry gives
//! out, holds and frees, and a pane named by id, name or shortened id. The
//! shortened ids of workspaces, tabs and tasks resolve here too.

use super::{PaneEntry, Registry};
use crate::error::Error;
use signaltty_protocol::{PaneId, PaneRef};
use std::collections::{HashMap, HashSet};

/// The longest pane name, in bytes.
pub const MAX_PANE_NAME_BYTES: usize = 32;

/// Is `name` a valid pane name: `[a-z][a-z0-9_-]*`, at most 32 bytes?
pub fn valid_pane_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_PANE_NAME_BYTES
        && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// What names a pane in a request: a client's [`PaneRef`] (an id, else a
/// name) or an id the server already holds.
pub trait PaneKey {
    /// The registered pane this names.
    fn resolve_in<P>(
        &self,
        panes: &HashMap<PaneId, PaneEntry<P>>,
        names: &HashMap<String, PaneId>,
    ) -> Result<PaneId, Error>;
}

impl PaneKey for PaneRef {
    fn resolve_in<P>(
        &self,
        panes: &HashMap<PaneId, PaneEntry<P>>,
        names: &HashMap<String, PaneId>,
    ) -> Result<PaneId, Error> {
        let as_id = PaneId(self.0.clone());
        if panes.contains_key(&as_id) {
            return Ok(as_id);
        }
        if let Some(id) = names.get(self.as_str()) {
            return Ok(id.clone());
        }
        match by_prefix(
            panes.keys().map(|id| id.as_str()),
            self.as_str(),
            "pane_",
            "panes",
        )? {
            Some(id) => Ok(PaneId(id.to_owned())),
            None => Err(Error::NoSuchPane(self.0.clone())),
        }
    }
}

/// The fewest characters after an id's kind (`pane_`, `ws_`, `tab_`,
/// `task_`) that a shortened id may have.
pub const MIN_ID_PREFIX: usize = 4;

/// The one id of `ids` that `wanted` is a shortened form of, as git takes a
/// commit's: `wanted` starts with `kind` and at least [`MIN_ID_PREFIX`] more
/// characters (a trailing `…`, as ids are printed cut, is dropped), and no
/// other id starts the same way. `None` when nothing matches;
/// `BAD_PARAMS` naming how many when several do (docs/objects.md#shortened-ids).
pub fn by_prefix<'a>(
    ids: impl Iterator<Item = &'a str>,
    wanted: &str,
    kind: &str,
    plural: &str,
) -> Result<Option<&'a str>, Error> {
    let wanted = wanted.strip_suffix('…').unwrap_or(wanted);
    if !wanted.starts_with(kind) || wanted.len() < kind.len() + MIN_ID_PREFIX {
        return Ok(None);
    }
    let mut found = ids.filter(|id| id.starts_with(wanted));
    let Some(first) = found.next() else {
        return Ok(None);
    };
    let more = found.count();
    if more > 0 {
        return Err(Error::BadParams(format!(
            "{wanted} is ambiguous: the ids of {} {plural} start with it; give more of the id",
            more + 1
        )));
    }
    Ok(Some(first))
}

impl PaneKey for PaneId {
    fn resolve_in<P>(
        &self,
        panes: &HashMap<PaneId, PaneEntry<P>>,
        _names: &HashMap<String, PaneId>,
    ) -> Result<PaneId, Error> {
        if panes.contains_key(self) {
            Ok(self.clone())
        } else {
            Err(Error::NoSuchPane(self.0.clone()))
        }
    }
}

impl<W: Clone, P: Clone> Registry<W, P> {
    /// Gives `id` the name `name` (a valid, free one), or clears its name.
    /// The old name is freed at once, so two renames cannot take one name.
    pub fn set_pane_name(&mut self, id: &PaneId, name: Option<&str>) -> Result<(), Error> {
        if let Some(n) = name {
            if !valid_pane_name(n) {
                return Err(Error::BadParams(format!(
                    "invalid pane name {n:?}: use a lowercase letter, then lowercase letters, digits, _ or -, at most {MAX_PANE_NAME_BYTES} bytes"
                )));
            }
            if self.reserved.contains(n) {
                return Err(Error::BadParams(format!(
                    "the name {n:?} is held for a pane being started"
                )));
            }
            if self.names.get(n).is_some_and(|holder| holder != id) {
                return Err(Error::BadParams(format!(
                    "the name {n:?} is taken by another pane"
                )));
            }
        }
        if !self.panes.contains_key(id) {
            return Err(Error::NoSuchPane(id.0.clone()));
        }
        self.names.retain(|_, holder| holder != id);
        if let Some(n) = name {
            self.names.insert(n.to_owned(), id.clone());
        }
        Ok(())
    }

    /// Holds `names` for panes being started (`layout.apply`), all or none:
    /// `BAD_PARAMS` when one is invalid, repeated, held by a pane or already
    /// held. Released with [`Registry::release_names`].
    pub fn reserve_names(&mut self, names: &[String]) -> Result<(), Error> {
        let mut seen = HashSet::new();
        for n in names {
            if !valid_pane_name(n) {
                return Err(Error::BadParams(format!(
                    "invalid pane name {n:?}: use a lowercase letter, then lowercase letters, digits, _ or -, at most {MAX_PANE_NAME_BYTES} bytes"
                )));
            }
            if !seen.insert(n.as_str()) {
                return Err(Error::BadParams(format!(
                    "the name {n:?} is given to two panes"
                )));
            }
            if self.names.contains_key(n) || self.reserved.contains(n) {
                return Err(Error::BadParams(format!(
                    "the name {n:?} is taken by another pane"
                )));
            }
        }
        self.reserved.extend(names.iter().cloned());
        Ok(())
    }

    /// Frees names held by [`Registry::reserve_names`].
    pub fn release_names(&mut self, names: &[String]) {
        for n in names {
            self.reserved.remove(n);
        }
    }

    #[cfg(test)]
    /// The name of a pane, if it has one.
    pub fn pane_name(&self, id: &PaneId) -> Option<&str> {
        self.names
            .iter()
            .find(|(_, holder)| *holder == id)
            .map(|(n, _)| n.as_str())
    }
}
