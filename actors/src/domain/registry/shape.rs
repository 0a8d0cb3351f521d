//! The registry without its actors (ids, handles, tabs, pane placement and
//! names), and the check of the invariants in the registry's header, which its
//! tests run after each step.

use super::Registry;
use serde::{Deserialize, Serialize};
use signaltty_protocol::{PaneId, TabId, WorkspaceId};
use std::collections::{BTreeMap, HashSet};

/// The registry's structure without actors: ids, handles, tab ownership,
/// pane placement and names. Serializable for the snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryShape {
    /// Every workspace, by id.
    pub workspaces: BTreeMap<WorkspaceId, WorkspaceShape>,
    /// Every pane, by id.
    pub panes: BTreeMap<PaneId, PaneShape>,
}

/// A workspace in a [`RegistryShape`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceShape {
    /// Its handle.
    pub handle: String,
    /// Its tabs, by id.
    pub tabs: Vec<TabId>,
}

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

impl<W: Clone, P: Clone> Registry<W, P> {
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
