//! What workflows that run outside the Supervisor (a task's start, a finish,
//! a first prompt, a route's later step) ask of it: typed requests answered
//! from the registry and the projection in one turn, or the start of
//! something only the Supervisor may start (a workspace's actor). The
//! handlers are in `actors/supervisor/directory.rs`.

use crate::actors::pane::Pane;
use crate::actors::publish::Publish;
use crate::actors::workspace::{Launched, Workspace};
use crate::domain::registry::PaneEntry;
use crate::domain::task::wait::{Wanted as TaskWanted, Watched};
use crate::domain::waits::{WaitAnswer, Wanted};
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use signaltty_protocol::pane::Pane as PaneObject;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::state::WaitBaseline;
use signaltty_protocol::task::{Task, TaskStartParams, TaskStartResult};
use signaltty_protocol::workspace::{GitInfo, Workspace as WorkspaceObject};
use signaltty_protocol::{PaneId, PaneRef, TabId, TaskId, WorkspaceId};
use std::path::PathBuf;

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
/// The workspace a task's worker goes in (docs/tasks.md#the-start-steps-in-order,
/// steps 11–12), in one turn: the one whose cwd is the checkout, with its
/// active tab if that has no panes; else a new one named after `label` (a
/// bad name is `BAD_PARAMS`) in the checked `dir`, opened as
/// [`OpenWorkspace`] opens one and announced with its first tab, titled
/// `tab_title`, in the same publication. `dirty` is computed after the reply.
#[derive(Message)]
#[rtype(result = "Result<Placement, Error>")]
pub struct TaskWorkspace {
    /// The task's label, the new workspace's name.
    pub label: String,
    /// The checkout.
    pub checkout: PathBuf,
    /// The checkout checked to be an absolute directory, as text, with what
    /// is known of its git checkout so far; or why it cannot be one.
    pub dir: Result<(String, GitInfo), Error>,
    /// The title of the tab a new workspace opens with.
    pub tab_title: String,
}

/// Where a task's worker goes.
#[derive(Debug)]
pub struct Placement {
    /// The workspace.
    pub workspace: WorkspaceId,
    /// Its actor.
    pub addr: Addr<Workspace>,
    /// The empty tab the worker goes in; none when a new one is needed.
    pub tab: Option<TabId>,
}

/// A pane as the projection and the registry have it now: its object, its
/// wait baseline and its actor (each none once it is gone).
#[derive(Message)]
#[rtype(result = "PaneView")]
pub struct ViewPane(pub PaneId);

/// The answer to [`ViewPane`].
#[derive(Debug, Default)]
pub struct PaneView {
    /// The pane object, from the projection.
    pub pane: Option<PaneObject>,
    /// The `wait_baseline` of `pane.get`, from the same turn.
    pub baseline: Option<WaitBaseline>,
    /// Its actor, from the registry.
    pub addr: Option<Addr<Pane>>,
}

/// Registers a wait of the Sequencer (docs/methods.md#wait): checked now,
/// then after every published batch; filed under `conn`, so it ends with
/// that connection (the server's own waits use `SERVER_CONN`). Dropping the
/// answer abandons it.
#[derive(Message)]
#[rtype(result = "WaitAnswer")]
pub struct RegisterWait {
    /// Whose wait it is.
    pub conn: ConnId,
    /// What it waits for.
    pub wanted: Wanted,
}

/// Closes every workspace whose cwd is `path`, one after the other, as
/// `workspace.close` does (docs/methods.md#workspaceclose); answers once they
/// are closed (a failure is only logged).
#[derive(Message)]
#[rtype(result = "()")]
pub struct CloseWorkspacesAt {
    /// The removed checkout.
    pub path: PathBuf,
    /// The signal for each live child.
    pub signal: SignalName,
}

/// A task start ended its hold on the cap's slot and its idempotency key
/// (docs/tasks.md#the-parallel-task-cap, docs/tasks.md#repeated-starts):
/// its task is committed, or the start failed before that (then its actor
/// is forgotten too). Sent through the start's ticket.
#[derive(Message)]
#[rtype(result = "()")]
pub struct StartEnded {
    /// The task it started.
    pub task: TaskId,
    /// Its idempotency key.
    pub key: Option<String>,
    /// Whether `task.created` is in the journal.
    pub committed: bool,
    /// Whether it held a slot of the cap (a start does, queuing does not).
    pub slot: bool,
}

/// `task.start` routed again: a start whose idempotency key another start
/// holds looks again (docs/tasks.md#repeated-starts).
#[derive(Message)]
#[rtype(result = "Result<TaskStartResult, Error>")]
pub struct StartTask(pub TaskStartParams);

/// One look of `task.wait` (docs/tasks.md#waiting-for-tasks): the watched
/// tasks once each is in a wanted state, none while some is not;
/// `NO_SUCH_TASK`, or `SHUTTING_DOWN` when the server stops or the waiting
/// connection is gone.
#[derive(Message)]
#[rtype(result = "Result<Option<Vec<Task>>, Error>")]
pub struct WatchTasks {
    /// The task or the context.
    pub watched: Watched,
    /// The states any of which ends the wait.
    pub wanted: Vec<TaskWanted>,
    /// The connection waiting.
    pub conn: ConnId,
}

/// What a task's workflows ask of the Supervisor (its recipients, so that a
/// Task actor never holds the Supervisor's address type).
#[derive(Clone)]
pub struct Services {
    /// Publication of the task's events.
    pub publish: Recipient<Publish>,
    /// The worker's workspace.
    pub workspace: Recipient<TaskWorkspace>,
    /// The worker's launch.
    pub start_pane: Recipient<StartPane>,
    /// A pane by reference (the parent).
    pub find_pane: Recipient<FindPane>,
    /// A pane now.
    pub view_pane: Recipient<ViewPane>,
    /// The Sequencer's waits.
    pub waits: Recipient<RegisterWait>,
    /// The live panes.
    pub live_panes: Recipient<LivePanes>,
    /// Closing the workspaces rooted at a checkout.
    pub close_at: Recipient<CloseWorkspacesAt>,
}

/// `pane.submit` for a `pane.ask` that waited for its pane
/// (docs/ask.md#how-it-works): answers once the prompt is taken, with the
/// gate's result and the wait baseline taken before the paste.
#[derive(Message)]
#[rtype(
    result = "Result<(signaltty_protocol::state::PaneSubmitResult, Option<signaltty_protocol::state::WaitBaseline>), Error>"
)]
pub struct SubmitFor {
    /// The asking connection (its waits end with it).
    pub conn: ConnId,
    /// The prompt.
    pub params: signaltty_protocol::state::PaneSubmitParams,
}

/// The payload of the state event numbered `seq`, while the event ring holds
/// it (what `pane.ask` reads of the event that ended its turn).
#[derive(Message)]
#[rtype(result = "Option<serde_json::Value>")]
pub struct EventAt(pub signaltty_protocol::Seq);
