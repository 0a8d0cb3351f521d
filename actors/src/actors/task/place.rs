//! Where a started task's worker goes, steps 10–13 of
//! docs/tasks.md#the-start-steps-in-order: its parent, its workspace (the
//! one rooted at the checkout, else a new one opened with its `task` tab),
//! its tab, and the worker pane, launched as `pane.spawn` launches one. A
//! plain future: the Task actor runs it once its record is committed, and a
//! failure names its stage (docs/tasks.md#when-a-start-fails).
//!
//! ```text
//!   FindPane (a parent) ─ TaskWorkspace (rooted, or new + tab) ─ CreateTab
//!   (a reused workspace without an empty active tab) ─ StartPane
//! ```

use crate::actors::services::{FindPane, Services, StartPane, TaskWorkspace};
use crate::actors::workspace::{CreateTab, DirtyCheck, Launched, check_dir};
use crate::domain::worktrees::{Checkouts, Reservation};
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::seams::Os;
use actix::prelude::*;
use signaltty_protocol::pane::{PaneSpawnParams, Relationship};
use signaltty_protocol::workspace::{GitInfo, Tab};
use signaltty_protocol::{PaneRef, TabId, TaskId, Timestamp, WorkspaceId, WorkspaceRef};
use std::collections::BTreeMap;
use std::path::Path;

/// The title of the tab a worker gets when it needs a new one.
const TAB_TITLE: &str = "task";

/// Where a start failed after its checkout existed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    Parent,
    Workspace,
    Tab,
    Spawn,
}

impl Stage {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Stage::Parent => "parent",
            Stage::Workspace => "workspace",
            Stage::Tab => "tab",
            Stage::Spawn => "spawn",
        }
    }
}

/// The worker's directory as opening a workspace there needs it: checked as
/// `workspace.create` checks one (its `dirty` flag comes later) and entered
/// until the workspace is registered. Read on the start's blocking thread,
/// right after the checkout; a failure is the workspace step's, if a new
/// workspace is needed.
pub(super) type Dir = Result<(String, GitInfo, Option<Reservation>), Error>;

/// Reads [`Dir`] for `path`. Blocking.
pub(super) fn read_dir(os: &Os, checkouts: &Checkouts, path: &Path) -> Dir {
    let (cwd, git) = check_dir(os, path.to_path_buf(), DirtyCheck::Later)?;
    let entering = checkouts.enter_dir(path)?;
    Ok((cwd, git, entering))
}

/// What the worker is.
pub(super) struct Worker {
    pub(super) task: TaskId,
    pub(super) label: String,
    pub(super) checkout: String,
    pub(super) relationship: Relationship,
    pub(super) argv: Vec<String>,
    pub(super) agent: Option<String>,
    pub(super) parent: Option<PaneRef>,
}

/// `msg` asked of `to`; a Supervisor gone answers as a mailbox error.
async fn ask<M, T>(to: &Recipient<M>, msg: M) -> Result<T, Error>
where
    M: Message<Result = Result<T, Error>> + Send + 'static,
    T: Send + 'static,
{
    to.send(msg).await?
}

/// Steps 10–13: the worker launched, or the stage that failed.
pub(super) async fn place(
    services: Services,
    w: Worker,
    dir: Dir,
) -> Result<Launched, (Stage, Error)> {
    let at = |stage: Stage| move |e: Error| (stage, e);
    // Step 10: the parent.
    let parent = match w.parent.clone() {
        Some(r) => Some(
            ask(&services.find_pane, FindPane(r))
                .await
                .map(|entry| entry.id)
                .map_err(at(Stage::Parent))?,
        ),
        None => None,
    };
    // Step 11: the workspace rooted at the checkout, else a new one with
    // its tab.
    let (dir, entering) = match dir {
        Ok((cwd, git, entering)) => (Ok((cwd, git)), entering),
        Err(e) => (Err(e), None),
    };
    let placed = ask(
        &services.workspace,
        TaskWorkspace {
            label: w.label.clone(),
            checkout: w.checkout.clone().into(),
            dir,
            tab_title: TAB_TITLE.to_owned(),
        },
    )
    .await
    .map_err(at(Stage::Workspace))?;
    // Registered: a removal sees the workspace itself from now on.
    drop(entering);
    // Step 12: the empty active tab, else a new `task` tab.
    let tab = match placed.tab {
        Some(tab) => tab,
        None => {
            let tab = new_tab(placed.workspace.clone());
            placed
                .addr
                .send(CreateTab { tab })
                .await
                .map_err(Error::from)
                .and_then(|r| r)
                .map_err(at(Stage::Tab))?
                .id
        },
    };
    // Step 13: the worker, launched like any pane.
    let spawn = spawn_params(&w, placed.workspace, tab, parent);
    ask(&services.start_pane, StartPane(spawn))
        .await
        .map_err(at(Stage::Spawn))
}

/// An empty tab for the worker.
pub(super) fn new_tab(workspace_id: WorkspaceId) -> Tab {
    Tab {
        id: TabId::from_random(random_u128()),
        workspace_id,
        title: TAB_TITLE.to_owned(),
        layout: None,
        active_pane_id: None,
        created_at: Timestamp::now(),
    }
}

/// The worker's `pane.spawn`: in the checkout, with the label,
/// relationship, `task_id`, the agent as its hint, and `SIGNALTTY_TASK`
/// (and `SIGNALTTY_PARENT_PANE`) in its environment.
fn spawn_params(
    w: &Worker,
    workspace: WorkspaceId,
    tab: TabId,
    parent: Option<signaltty_protocol::PaneId>,
) -> PaneSpawnParams {
    let mut env = BTreeMap::new();
    env.insert("SIGNALTTY_TASK".to_owned(), w.task.0.clone());
    if let Some(parent) = &parent {
        env.insert("SIGNALTTY_PARENT_PANE".to_owned(), parent.0.clone());
    }
    let mut spawn = PaneSpawnParams::new(WorkspaceRef(workspace.0), w.argv.clone());
    spawn.tab_id = Some(tab);
    spawn.cwd = Some(w.checkout.clone());
    spawn.env = Some(env);
    spawn.agent_hint = w.agent.clone();
    spawn.parent_pane_id = parent.map(Into::into);
    spawn.label = Some(w.label.clone());
    spawn.relationship = Some(w.relationship);
    spawn.task_id = Some(w.task.0.clone());
    spawn
}
