//! Workspace: owns one workspace's name, tabs and layouts. Its changes are
//! published through the Supervisor, and it replies only after they are.

use crate::error::Error;
use crate::supervisor::Publish;
use actix::prelude::*;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::Workspace as WorkspaceState;
use signaltty_protocol::{Event, Timestamp, WorkspaceRef};

/// Renames the workspace (the handle never changes). Replies with the workspace
/// after `workspace.updated` is published; `NO_SUCH_WORKSPACE` once it is closing.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct Rename {
    /// The new, already validated name.
    pub name: String,
}

/// Closes every pane and tab the workspace owns, then the workspace itself, and
/// stops the actor. Replies after `workspace.closed` is published.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct Close {
    /// The signal for each live child.
    pub signal: SignalName,
}

/// The Workspace actor.
pub struct Workspace {
    state: WorkspaceState,
    events: Recipient<Publish>,
    closing: bool,
}

impl Workspace {
    /// An actor for a newly created workspace.
    pub fn new(state: WorkspaceState, events: Recipient<Publish>) -> Workspace {
        Workspace {
            state,
            events,
            closing: false,
        }
    }

    fn gone(&self) -> Error {
        Error::NoSuchWorkspace(WorkspaceRef(self.state.id.0.clone()))
    }
}

impl Actor for Workspace {
    type Context = Context<Self>;
}

impl Handler<Rename> for Workspace {
    type Result = ResponseFuture<Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: Rename, _ctx: &mut Self::Context) -> Self::Result {
        if self.closing {
            let e = self.gone();
            return Box::pin(async move { Err(e) });
        }
        self.state.name = msg.name;
        self.state.updated_at = Timestamp::now();
        let workspace = self.state.clone();
        let sent = self.events.send(Publish {
            events: vec![Event::WorkspaceUpdated {
                workspace: workspace.clone(),
            }],
        });
        Box::pin(async move {
            sent.await??;
            Ok(workspace)
        })
    }
}

impl Handler<Close> for Workspace {
    type Result = ResponseActFuture<Self, Result<(), Error>>;

    fn handle(&mut self, msg: Close, _ctx: &mut Self::Context) -> Self::Result {
        if self.closing {
            let e = self.gone();
            return Box::pin(actix::fut::ready(Err(e)));
        }
        self.closing = true;
        // Panes and tabs join here when they exist; their `pane.closed` and
        // `tab.closed` events precede `workspace.closed` (spec/ipc.md §8.2).
        let _signal = msg.signal;
        let id = self.state.id.clone();
        let sent = self.events.send(Publish {
            events: vec![Event::WorkspaceClosed { workspace_id: id }],
        });
        Box::pin(sent.into_actor(self).map(|r, _act, ctx| {
            ctx.stop();
            r?.map(|_| ())
        }))
    }
}
