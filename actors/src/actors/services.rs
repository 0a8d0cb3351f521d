//! What workflows that run outside the Supervisor (a task's start, a finish,
//! a first prompt, a route's later step) ask of it: typed requests answered
//! from the registry and the projection in one turn, or the start of
//! something only the Supervisor may start (a workspace's actor). The
//! handlers are in `actors/supervisor/directory.rs`.

use crate::actors::pane::Pane;
use crate::actors::workspace::{Launched, Workspace};
use crate::domain::registry::PaneEntry;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::workspace::{GitInfo, Workspace as WorkspaceObject};
use signaltty_protocol::{PaneRef, WorkspaceId};

/// Opens a new workspace: a free handle from `name`, its actor started and
/// registered in one turn (two opens can never take one handle), then
/// `workspace.created` published by the new actor. Replies with the
/// workspace and its actor; `SHUTTING_DOWN` while the server stops.
#[derive(Message)]
#[rtype(result = "Result<(WorkspaceObject, Addr<Workspace>), Error>")]
pub struct OpenWorkspace {
    /// Its name, already checked.
    pub name: String,
    /// Its directory, checked to be an absolute directory.
    pub cwd: String,
    /// What is known of its git checkout so far.
    pub git: GitInfo,
    /// Recompute `dirty` after the reply (a task's fresh checkout, whose
    /// `git status` would hold the worker's start back) instead of before.
    pub dirty_later: bool,
}

/// A pane by reference, with its actor; `NO_SUCH_PANE` when none is
/// registered under it.
#[derive(Message)]
#[rtype(result = "Result<PaneEntry<Addr<Pane>>, Error>")]
pub struct FindPane(pub PaneRef);

/// A workspace's actor by id; `NO_SUCH_WORKSPACE` once it is gone.
#[derive(Message)]
#[rtype(result = "Result<Addr<Workspace>, Error>")]
pub struct FindWorkspace(pub WorkspaceId);

/// Launches a pane as `pane.spawn` does (docs/methods.md#panespawn), for a
/// workflow that needs the pane's actor and process too: a task's worker.
#[derive(Message)]
#[rtype(result = "Result<Launched, Error>")]
pub struct StartPane(pub signaltty_protocol::pane::PaneSpawnParams);

/// The workspace open at `cwd` (or `id`, when it is still open), if any:
/// what a bind or a task's start reuses instead of opening another. With
/// `source`, that workspace must still be open (`NO_SUCH_WORKSPACE`).
#[derive(Debug, Message)]
#[rtype(result = "Result<Option<WorkspaceObject>, Error>")]
pub struct WorkspaceAt {
    /// A workspace that must still be open.
    pub source: Option<WorkspaceId>,
    /// A workspace found on the path before, by id.
    pub id: Option<WorkspaceId>,
    /// The directory.
    pub cwd: String,
}

/// Every open workspace's id and directory.
#[derive(Debug, Message)]
#[rtype(result = "Vec<(WorkspaceId, String)>")]
pub struct OpenWorkspaces;

/// Every live pane with its process and directory, for the checks of who is
/// inside a checkout (docs/worktrees.md).
#[derive(Debug, Message)]
#[rtype(result = "Vec<crate::os::occupants::LivePane>")]
pub struct LivePanes;

/// Who a hook reporter may be: the pane it names (resolved now), or, when
/// it names none, every live pane by the pid of its process; and whether
/// launches are under way (a new process may report before its pane is
/// registered), with how to wait for the next one to end.
#[derive(Debug, Message)]
#[rtype(result = "ReportersSeen")]
pub struct Reporters {
    /// The pane the hook names, if it names one.
    pub pane: Option<PaneRef>,
}

/// What [`Reporters`] found.
#[derive(Debug)]
pub struct ReportersSeen {
    /// The named pane, resolved (`NO_SUCH_PANE` when nothing is registered
    /// under it); none when the hook named none.
    pub named: Option<Result<PaneEntry<Addr<Pane>>, Error>>,
    /// Without a named pane: the live panes by their process's pid.
    pub live: std::collections::HashMap<u32, PaneEntry<Addr<Pane>>>,
    /// While launches are under way: changes when one ends.
    pub launching: Option<tokio::sync::watch::Receiver<u64>>,
}

/// Records the answer route of a reporter waiting on `conn`: it ends,
/// unanswered, when the connection goes away or the server stops.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct AddRoute {
    /// The reporter's connection.
    pub conn: crate::ids::ConnId,
    /// Its route.
    pub route: Addr<crate::actors::decision::Decision>,
}

/// Stops the server as `server.shutdown` asks: `server.will_shutdown` is
/// published, then the shutdown begins. Replies once the event is durable;
/// the journal's failure otherwise.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct Shutdown;

/// Marks a pane's unread notifications read (`pane.mark_seen`): one
/// `notification.read` for those the ring keeps, published by the Supervisor,
/// whose read model the ring is. Replies once it is durable (at once when
/// there is none).
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct ReadNotificationsOf(pub signaltty_protocol::PaneId);

/// The agent rules were replaced (`agents.reload`): every pane reads them
/// again.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct RulesReplaced;
