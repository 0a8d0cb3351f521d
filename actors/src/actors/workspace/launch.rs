//! A pane's launch in its workspace (docs/panes.md#the-walk-of-a-spawn): the
//! checks that touch the file system and the agent's hook setup run off the
//! event loop, concurrently with other launches; then the placement
//! ([`SpawnPane`], atomic with respect to closing the tab or the workspace)
//! starts the process and publishes its pane.
//!
//! ```text
//!   Spawn ─ blocking: cwd is a directory, entering reference ─ tab check
//!         ─ build the pane ─ blocking: hook setup ─ SpawnPane (atomic)
//! ```

use super::Workspace;
use super::panes::SpawnPane;
use crate::actors::directory::LaunchTicket;
use crate::config::Config;
use crate::domain::launch::{self, Lineage, PaneRecipe};
use crate::domain::worktrees::Checkouts;
use crate::error::Error;
use crate::os::seams::{FileKind, prepare_hooks};
use actix::prelude::*;
use signaltty_protocol::pane::{AgentKind, Integration, Pane as PaneState, PtySize, Relationship};
use signaltty_protocol::workspace::SplitDir;
use signaltty_protocol::{PaneId, TabId, Timestamp, WorkspaceRef};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A spawn whose references are resolved and whose params passed every
/// check that needs neither the file system nor the workspace's tabs.
#[derive(Debug)]
pub struct Launch {
    /// The new pane's id.
    pub id: PaneId,
    /// What to run.
    pub argv: Vec<String>,
    /// Where, absolute (checked to be a directory next).
    pub cwd: PathBuf,
    /// Its terminal.
    pub size: PtySize,
    /// Its agent kind.
    pub kind: AgentKind,
    /// The request's environment overrides, already checked.
    pub request_env: BTreeMap<String, String>,
    /// Its parent pane and root.
    pub parent: Option<Lineage>,
    /// How it relates to its parent.
    pub relationship: Option<Relationship>,
    /// A person's label.
    pub label: Option<String>,
    /// The task it works for.
    pub task_id: Option<String>,
    /// An explicit tab of this workspace.
    pub tab: Option<TabId>,
    /// What the registry said of `tab` when the request was routed: it is
    /// reported after the directory check, in the order of
    /// docs/methods.md#panespawn.
    pub tab_check: Result<(), Error>,
    /// `pane.split`: the pane to split and the direction.
    pub split: Option<(PaneId, SplitDir)>,
}

/// Launches [`Launch`] in this workspace. Replies with the pane, its actor
/// and process, and the agent's integration report once `pane.created` is
/// published and the pane registered. `BAD_PARAMS` for a cwd that is not a
/// directory or a tab that cannot take it, `NO_SUCH_TAB`,
/// `NO_SUCH_WORKSPACE` once the workspace is closing, `SPAWN_FAILED`.
#[derive(Message)]
#[rtype(result = "Result<Launched, Error>")]
pub struct Spawn {
    /// The checked request.
    pub launch: Launch,
    /// Where the pane actor runs.
    pub arbiter: ArbiterHandle,
    /// Where the pane sends `pty.data` to be numbered.
    pub pty_out: crate::actors::publish::PtyOut,
    /// The server's configuration (socket, agent rules, limits, seams).
    pub config: Arc<Config>,
    /// Checkout reservations: the cwd is entered until the pane is registered.
    pub checkouts: Checkouts,
    /// The launch under way.
    pub ticket: LaunchTicket,
}

/// A pane launched.
#[derive(Debug)]
pub struct Launched {
    /// The pane object as published.
    pub pane: PaneState,
    /// Its process.
    pub pid: u32,
    /// The agent's hook setup, for a supported agent.
    pub integration: Option<Integration>,
}

impl Handler<Spawn> for Workspace {
    type Result = ResponseFuture<Result<Launched, Error>>;

    fn handle(&mut self, msg: Spawn, ctx: &mut Self::Context) -> Self::Result {
        let Spawn {
            launch,
            arbiter,
            pty_out,
            config,
            checkouts,
            mut ticket,
        } = msg;
        let me = ctx.address();
        let workspace = self.state.id.clone();
        Box::pin(async move {
            let os = config.os.clone();
            let cwd = launch.cwd.clone();
            let entered = actix_rt::task::spawn_blocking(move || {
                if !matches!(os.files.kind(&cwd), Ok(FileKind::Dir)) {
                    return Ok(None);
                }
                checkouts.enter_dir(&cwd).map(Some)
            })
            .await;
            // Keeps a `worktree.remove` of the cwd out until the pane is registered.
            match entered {
                Ok(Ok(Some(entering))) => {
                    if let Some(entering) = entering {
                        ticket.hold(entering);
                    }
                },
                Ok(Err(e)) => return Err(e),
                Ok(Ok(None)) => {
                    return Err(Error::BadParams(format!(
                        "cwd {} is not a directory",
                        launch.cwd.display()
                    )));
                },
                Err(e) => {
                    return Err(Error::Io {
                        what: "pane cwd check".into(),
                        source: std::io::Error::other(e.to_string()),
                    });
                },
            }
            launch.tab_check?;
            let (pane, spec) = launch::build_pane(PaneRecipe {
                id: launch.id,
                workspace: workspace.clone(),
                argv: launch.argv,
                cwd: launch.cwd,
                size: launch.size,
                kind: launch.kind,
                request_env: launch.request_env,
                parent: launch.parent,
                relationship: launch.relationship,
                label: launch.label,
                task_id: launch.task_id,
                server_env: std::env::vars().collect(),
                socket: &config.socket,
                now: Timestamp::now(),
            });
            let config_env = pane.agent.config_env.clone().unwrap_or_default();
            let (spec, integration) = prepare_hooks(&config.os, spec, config_env)
                .await
                .map_err(|e| Error::SpawnFailed(e.to_string()))?;
            let placed = me
                .send(SpawnPane {
                    pane,
                    tab: launch.tab,
                    spec,
                    arbiter,
                    pty_out,
                    split: launch.split,
                    config: config.clone(),
                    tail: signaltty_model::term::TailSlot::default(),
                    ticket,
                })
                .await
                // The workspace's actor stopped meanwhile: it was closed.
                .map_err(|_| Error::NoSuchWorkspace(WorkspaceRef(workspace.0.clone())))??;
            let (pane, _, pid) = placed;
            Ok(Launched {
                pane,
                pid,
                integration,
            })
        })
    }
}

#[cfg(test)]
mod tests;
