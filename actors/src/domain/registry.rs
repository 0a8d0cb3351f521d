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
//! Pane names and shortened ids are resolved in `names.rs`; the launches under
//! way are counted in `launches.rs`.
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
use signaltty_protocol::{PaneId, TabId, WorkspaceId, WorkspaceRef};
use std::collections::{HashMap, HashSet};

mod launches;
mod names;
#[cfg(test)]
mod shape;
#[cfg(test)]
mod tests;

pub use launches::Launches;
pub use names::{PaneKey, by_prefix, valid_pane_name};
#[cfg(test)]
pub use shape::RegistryShape;

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
}
