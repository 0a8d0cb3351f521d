//! What owners tell and ask the Supervisor about who exists: the registry of
//! workspaces, tabs and panes and their actors is the Supervisor's, and it is
//! kept true by the owners themselves. A Workspace that starts a pane says so
//! ([`Directory::Launched`]) before it publishes `pane.created`; one that
//! closes a tab says so after `tab.closed`; so a client that sends its next
//! request after the reply always finds the registry as the events say.
//!
//! What workflows ask of the Supervisor is in `actors/services.rs`; the
//! handlers of both are in `actors/supervisor/directory.rs`.

use crate::actors::pane::Pane;
use crate::domain::registry::PaneEntry;
use crate::domain::worktrees::Reservation;
use actix::prelude::*;
use signaltty_protocol::{PaneId, TabId, WorkspaceId};

/// A change to the registry, told by the actor that made it.
#[derive(Message)]
#[rtype(result = "()")]
pub enum Directory {
    /// A launch placed its panes: the names held for them are released,
    /// each pane is registered (with its name, if it has one), and the
    /// launch under way ends. Sent through [`LaunchTicket::launched`].
    Launched {
        /// The panes, in the order they were placed.
        panes: Vec<(PaneEntry<Addr<Pane>>, Option<String>)>,
        /// The names held for them while they started.
        released: Vec<String>,
        /// The entering references of their directories, released once they
        /// are registered (a `worktree.remove` sees the panes from then on).
        entering: Vec<Reservation>,
    },
    /// A launch ended without panes (refused, or its spawn failed): the
    /// names held for it are released. Sent when a [`LaunchTicket`] drops
    /// unused.
    LaunchFailed {
        /// The names held for it.
        released: Vec<String>,
        /// The entering references it took.
        entering: Vec<Reservation>,
    },
    /// A pane was closed: forgotten (its name is free again).
    PaneClosed(PaneId),
    /// A pane moved to another tab of its workspace.
    PaneMoved {
        /// The pane.
        pane: PaneId,
        /// Its tab now.
        tab: TabId,
    },
    /// A tab was created in a workspace.
    TabOpened {
        /// The tab.
        tab: TabId,
        /// Its workspace.
        workspace: WorkspaceId,
    },
    /// A tab was closed with its panes.
    TabClosed(TabId),
    /// A workspace was closed with its tabs and panes.
    WorkspaceClosed(WorkspaceId),
}

/// A launch under way, counted by the Supervisor from when it routed the
/// request (a hook of the new process may arrive before its pane is
/// registered, and waits for it). Whoever places the panes ends it with
/// [`LaunchTicket::launched`]; dropped any other way (a refusal, a failed
/// spawn, a workspace that stopped before the message arrived) it ends the
/// launch as failed, so no launch is ever left counted.
pub struct LaunchTicket {
    directory: Option<Recipient<Directory>>,
    released: Vec<String>,
    entering: Vec<Reservation>,
}

impl LaunchTicket {
    /// A launch told to `directory`, holding `names` until it ends.
    pub fn new(directory: Recipient<Directory>, names: Vec<String>) -> LaunchTicket {
        LaunchTicket {
            directory: Some(directory),
            released: names,
            entering: Vec::new(),
        }
    }

    /// Holds the entering reference of a new pane's directory until the
    /// launch ends.
    pub fn hold(&mut self, entering: Reservation) {
        self.entering.push(entering);
    }

    /// The panes are placed: registered before anything is published.
    pub fn launched(mut self, panes: Vec<(PaneEntry<Addr<Pane>>, Option<String>)>) {
        if let Some(directory) = self.directory.take() {
            directory.do_send(Directory::Launched {
                panes,
                released: std::mem::take(&mut self.released),
                entering: std::mem::take(&mut self.entering),
            });
        }
    }
}

impl Drop for LaunchTicket {
    fn drop(&mut self) {
        if let Some(directory) = self.directory.take() {
            directory.do_send(Directory::LaunchFailed {
                released: std::mem::take(&mut self.released),
                entering: std::mem::take(&mut self.entering),
            });
        }
    }
}
