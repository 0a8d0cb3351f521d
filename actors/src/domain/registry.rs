//! The registry: which workspaces, tabs and panes exist right now, how they
//! are addressed (ids, workspace handles, pane names) and which connections are
//! attached to which panes. It is a plain struct the Supervisor owns; every
//! change goes through a method here, so its invariants hold in one place:
//!
//! - a workspace handle is derived once, at create, and unique while it lives;
//! - a tab and a pane belong to a live workspace; closing a workspace removes
//!   its handle, tabs and panes, and a removed pane frees its name;
//! - a pane name names one pane, and resolves wherever a pane id does.
//!
//! The registry holds the actors' addresses but knows nothing of actix: it is
//! generic over them (`W` for a workspace, `P` for a pane), so its tests need no
//! actor system. [`ServerRegistry`] is the instance the server uses.
//!
//! ```text
//!   WorkspaceRef ──id / handle──► WorkspaceId ──► W
//!   PaneRef ──────id / name─────► PaneId ──────► PaneEntry { P, workspace, tab, pid }
//!   TabId ──────────────────────► WorkspaceId (its owner)
//!   ConnId ─────────────────────► {PaneId} it is attached to
//! ```

use crate::domain::slug::unique_handle;
use crate::error::Error;
use crate::ids::ConnId;
#[cfg(test)]
use serde::{Deserialize, Serialize};
use signaltty_protocol::{PaneId, PaneRef, TabId, WorkspaceId, WorkspaceRef};
#[cfg(test)]
use std::collections::BTreeMap;
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

/// A pane in the registry, with where it lives.
#[derive(Debug, Clone)]
pub struct PaneEntry<P> {
    /// Its id.
    pub id: PaneId,
    /// Its actor.
    pub addr: P,
    /// Its workspace.
    pub workspace: WorkspaceId,
    /// Its tab.
    pub tab: TabId,
    /// The pid of the process it started (for hook attribution by ancestry).
    pub pid: u32,
    /// Where its ring is read for the snapshot's tail.
    pub tail: signaltty_model::term::TailSlot,
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

/// A workspace and how it is addressed.
#[derive(Debug, Clone)]
struct WorkspaceEntry<W> {
    addr: W,
    handle: String,
}

/// The registry. See the module header for its invariants.
#[derive(Debug)]
pub struct Registry<W, P> {
    workspaces: HashMap<WorkspaceId, WorkspaceEntry<W>>,
    /// Handle → workspace, for every live workspace.
    handles: HashMap<String, WorkspaceId>,
    /// Which workspace owns each live tab.
    tabs: HashMap<TabId, WorkspaceId>,
    panes: HashMap<PaneId, PaneEntry<P>>,
    /// Pane names in use.
    names: HashMap<String, PaneId>,
    /// The panes each connection attached, detached when it goes away.
    attachments: HashMap<ConnId, HashSet<PaneId>>,
    /// Names held for panes being started (`layout.apply`): no rename takes them.
    reserved: HashSet<String>,
}

impl<W, P> Default for Registry<W, P> {
    fn default() -> Self {
        Registry {
            workspaces: HashMap::new(),
            handles: HashMap::new(),
            tabs: HashMap::new(),
            panes: HashMap::new(),
            names: HashMap::new(),
            attachments: HashMap::new(),
            reserved: HashSet::new(),
        }
    }
}

impl<W: Clone, P: Clone> Registry<W, P> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    // ── workspaces ─────────────────────────────────────────────────────────

    /// The handle a workspace named `name` would get now: its slug, suffixed
    /// until it is free (docs/objects.md#workspace-handles).
    pub fn free_handle(&self, name: &str) -> String {
        unique_handle(name, |h| self.handles.contains_key(h))
    }

    /// Registers a new workspace under `handle` (from [`Registry::free_handle`],
    /// with no await in between). Fails if the handle was taken meanwhile.
    pub fn add_workspace(&mut self, id: WorkspaceId, handle: String, addr: W) -> Result<(), Error> {
        if self.handles.contains_key(&handle) || self.workspaces.contains_key(&id) {
            return Err(Error::BadParams(format!(
                "workspace handle {handle:?} is already taken"
            )));
        }
        self.handles.insert(handle.clone(), id.clone());
        self.workspaces.insert(id, WorkspaceEntry { addr, handle });
        Ok(())
    }

    /// Finds a live workspace by id, then by handle, then by a shortened id.
    pub fn workspace(&self, r: &WorkspaceRef) -> Result<(WorkspaceId, W), Error> {
        let id = WorkspaceId(r.0.clone());
        if let Some(entry) = self.workspaces.get(&id) {
            return Ok((id, entry.addr.clone()));
        }
        if let Some(id) = self.handles.get(r.as_str())
            && let Some(entry) = self.workspaces.get(id)
        {
            return Ok((id.clone(), entry.addr.clone()));
        }
        let ids = self.workspaces.keys().map(|id| id.0.as_str());
        if let Some(id) = by_prefix(ids, r.as_str(), "ws_", "workspaces")?
            && let Some(entry) = self.workspaces.get(&WorkspaceId(id.to_owned()))
        {
            return Ok((WorkspaceId(id.to_owned()), entry.addr.clone()));
        }
        Err(Error::NoSuchWorkspace(r.clone()))
    }

    /// The actor of a live workspace.
    pub fn workspace_addr(&self, id: &WorkspaceId) -> Option<W> {
        self.workspaces.get(id).map(|e| e.addr.clone())
    }

    /// Removes a closed workspace with its handle, tabs and panes (whose names
    /// are freed). Returns the panes removed.
    pub fn remove_workspace(&mut self, id: &WorkspaceId) -> Vec<PaneEntry<P>> {
        if let Some(entry) = self.workspaces.remove(id) {
            self.handles.remove(&entry.handle);
        }
        self.tabs.retain(|_, owner| owner != id);
        self.remove_panes_where(|e| e.workspace == *id)
    }

    // ── tabs ───────────────────────────────────────────────────────────────

    /// Registers a tab of a live workspace (idempotent).
    pub fn add_tab(&mut self, tab: TabId, workspace: WorkspaceId) {
        if self.workspaces.contains_key(&workspace) {
            self.tabs.entry(tab).or_insert(workspace);
        }
    }

    /// A live tab by id, or by a shortened id: its full id and workspace.
    pub fn tab_of(&self, tab: &TabId) -> Result<Option<(TabId, &WorkspaceId)>, Error> {
        if let Some(owner) = self.tabs.get(tab) {
            return Ok(Some((tab.clone(), owner)));
        }
        let ids = self.tabs.keys().map(|id| id.0.as_str());
        Ok(by_prefix(ids, &tab.0, "tab_", "tabs")?.and_then(|id| {
            let id = TabId(id.to_owned());
            self.tabs.get(&id).map(|owner| (id, owner))
        }))
    }

    /// A live tab's full id and the actor of the workspace owning it.
    pub fn tab(&self, tab: &TabId) -> Result<(TabId, W), Error> {
        self.tab_of(tab)?
            .and_then(|(id, ws)| self.workspace_addr(ws).map(|addr| (id, addr)))
            .ok_or_else(|| Error::NoSuchTab(tab.clone()))
    }

    /// Removes a tab and the panes in it (whose names are freed). Returns the
    /// panes removed.
    pub fn remove_tab(&mut self, tab: &TabId) -> Vec<PaneEntry<P>> {
        self.tabs.remove(tab);
        self.remove_panes_where(|e| e.tab == *tab)
    }

    // ── panes ──────────────────────────────────────────────────────────────

    /// Registers a placed pane; its tab is registered too (a spawn may have
    /// created it). Ignored when its workspace closed meanwhile.
    pub fn add_pane(&mut self, entry: PaneEntry<P>) {
        if !self.workspaces.contains_key(&entry.workspace) {
            return;
        }
        self.add_tab(entry.tab.clone(), entry.workspace.clone());
        self.panes.insert(entry.id.clone(), entry);
    }

    /// Resolves a pane reference (a pane id, else a pane name) or checks a
    /// pane id, giving the id of a registered pane or `NO_SUCH_PANE`.
    pub fn resolve(&self, key: &impl PaneKey) -> Result<PaneId, Error> {
        key.resolve_in(&self.panes, &self.names)
    }

    /// The entry of a pane reference or id.
    pub fn pane(&self, r: &impl PaneKey) -> Result<PaneEntry<P>, Error> {
        let id = self.resolve(r)?;
        self.panes.get(&id).cloned().ok_or(Error::NoSuchPane(id.0))
    }

    /// The entry of a pane id.
    pub fn pane_by_id(&self, id: &PaneId) -> Option<&PaneEntry<P>> {
        self.panes.get(id)
    }

    /// Every registered pane, in no particular order.
    pub fn panes(&self) -> impl Iterator<Item = &PaneEntry<P>> {
        self.panes.values()
    }

    /// Removes a closed pane and frees its name. Returns it if it was there.
    pub fn remove_pane(&mut self, id: &PaneId) -> Option<PaneEntry<P>> {
        self.remove_panes_where(|e| e.id == *id).pop()
    }

    /// The pane shows in another tab now (`pane.swap`, `pane.move`).
    pub fn move_pane(&mut self, id: &PaneId, tab: TabId) {
        if let Some(entry) = self.panes.get_mut(id) {
            entry.tab = tab;
        }
    }

    /// The pane runs a new process (`pane.resume`).
    pub fn set_pid(&mut self, id: &PaneId, pid: u32) {
        if let Some(entry) = self.panes.get_mut(id) {
            entry.pid = pid;
        }
    }

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

    fn remove_panes_where(&mut self, gone: impl Fn(&PaneEntry<P>) -> bool) -> Vec<PaneEntry<P>> {
        let ids: Vec<PaneId> = self
            .panes
            .values()
            .filter(|e| gone(e))
            .map(|e| e.id.clone())
            .collect();
        let mut removed = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(entry) = self.panes.remove(&id) {
                removed.push(entry);
            }
        }
        if !removed.is_empty() {
            let panes = &self.panes;
            self.names.retain(|_, holder| panes.contains_key(holder));
            for attached in self.attachments.values_mut() {
                attached.retain(|p| panes.contains_key(p));
            }
        }
        removed
    }

    // ── attachments ────────────────────────────────────────────────────────

    /// `conn` is now attached to `pane` (idempotent).
    pub fn attach(&mut self, conn: ConnId, pane: &PaneId) {
        if self.panes.contains_key(pane) {
            self.attachments
                .entry(conn)
                .or_default()
                .insert(pane.clone());
        }
    }

    /// `conn` detached from `pane`.
    pub fn detach(&mut self, conn: ConnId, pane: &PaneId) {
        if let Some(set) = self.attachments.get_mut(&conn) {
            set.remove(pane);
            if set.is_empty() {
                self.attachments.remove(&conn);
            }
        }
    }

    /// `conn` went away: forgets its attachments and returns the panes it was
    /// attached to, which are to be told.
    pub fn disconnect(&mut self, conn: ConnId) -> Vec<PaneEntry<P>> {
        let attached = self.attachments.remove(&conn).unwrap_or_default();
        attached
            .iter()
            .filter_map(|id| self.panes.get(id).cloned())
            .collect()
    }

    // ── the shape, for a snapshot ──────────────────────────────────────────

    #[cfg(test)]
    /// The registry without its actors: what a snapshot records and a restore
    /// rebuilds (ids, handles, tabs, pane placement and names).
    pub fn shape(&self) -> RegistryShape {
        let mut shape = RegistryShape::default();
        for (id, entry) in &self.workspaces {
            shape.workspaces.insert(
                id.clone(),
                WorkspaceShape {
                    handle: entry.handle.clone(),
                    tabs: self
                        .tabs
                        .iter()
                        .filter(|(_, owner)| *owner == id)
                        .map(|(tab, _)| tab.clone())
                        .collect(),
                },
            );
        }
        for (id, entry) in &self.panes {
            shape.panes.insert(
                id.clone(),
                PaneShape {
                    workspace: entry.workspace.clone(),
                    tab: entry.tab.clone(),
                    name: self.pane_name(id).map(str::to_owned),
                },
            );
        }
        for ws in shape.workspaces.values_mut() {
            ws.tabs.sort_by(|a, b| a.0.cmp(&b.0));
        }
        shape
    }

    #[cfg(test)]
    /// Checks every invariant of the module header; tests call it after each
    /// step. Returns what is wrong.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (handle, id) in &self.handles {
            match self.workspaces.get(id) {
                Some(e) if e.handle == *handle => {},
                _ => return Err(format!("handle {handle} points at no workspace owning it")),
            }
        }
        if self.handles.len() != self.workspaces.len() {
            return Err("a workspace has no handle".into());
        }
        for (tab, owner) in &self.tabs {
            if !self.workspaces.contains_key(owner) {
                return Err(format!("tab {tab} belongs to a closed workspace"));
            }
        }
        for (id, entry) in &self.panes {
            if entry.id != *id {
                return Err(format!("pane {id} is filed under another id"));
            }
            if !self.workspaces.contains_key(&entry.workspace) {
                return Err(format!("pane {id} belongs to a closed workspace"));
            }
            if self.tabs.get(&entry.tab) != Some(&entry.workspace) {
                return Err(format!("pane {id} is in a tab its workspace does not own"));
            }
        }
        for (name, id) in &self.names {
            if !self.panes.contains_key(id) {
                return Err(format!("name {name} names a closed pane"));
            }
        }
        let mut named = HashSet::new();
        for id in self.names.values() {
            if !named.insert(id) {
                return Err(format!("pane {id} has two names"));
            }
        }
        for (conn, panes) in &self.attachments {
            if let Some(p) = panes.iter().find(|p| !self.panes.contains_key(*p)) {
                return Err(format!("conn {} is attached to closed pane {p}", conn.0));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
/// The registry's structure without actors: ids, handles, tab ownership,
/// pane placement and names. Serializable for the snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryShape {
    /// Every workspace, by id.
    pub workspaces: BTreeMap<WorkspaceId, WorkspaceShape>,
    /// Every pane, by id.
    pub panes: BTreeMap<PaneId, PaneShape>,
}

#[cfg(test)]
/// A workspace in a [`RegistryShape`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceShape {
    /// Its handle.
    pub handle: String,
    /// Its tabs, by id.
    pub tabs: Vec<TabId>,
}

#[cfg(test)]
/// A pane in a [`RegistryShape`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneShape {
    /// Its workspace.
    pub workspace: WorkspaceId,
    /// Its tab.
    pub tab: TabId,
    /// Its name, if it has one.
    pub name: Option<String>,
}

/// Pane launches under way: a launched process may report a hook before its
/// pane is registered, so such a hook waits for the launches to finish.
#[derive(Debug)]
pub struct Launches {
    under_way: usize,
    finished: tokio::sync::watch::Sender<u64>,
}

impl Default for Launches {
    fn default() -> Self {
        Launches {
            under_way: 0,
            finished: tokio::sync::watch::channel(0).0,
        }
    }
}

impl Launches {
    /// A launch starts (counted from before its process exists).
    pub fn begin(&mut self) {
        self.under_way += 1;
    }

    /// A launch ended, placed or not: hooks that found no pane retry.
    pub fn end(&mut self) {
        self.under_way = self.under_way.saturating_sub(1);
        self.finished.send_modify(|n| *n += 1);
    }

    /// Some launch is under way.
    pub fn any(&self) -> bool {
        self.under_way > 0
    }

    /// Changes each time a launch ends.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.finished.subscribe()
    }
}

#[cfg(test)]
mod tests;
