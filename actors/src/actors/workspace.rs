//! Workspace: owns one workspace's name, its tabs and their layouts. Every change
//! is published through the Supervisor, and each message is answered only after
//! its events are published.

use crate::actors::directory::Directory;
use crate::actors::pane::Pane;
use crate::actors::publish::Publish;
use crate::domain::layout;
use crate::error::Error;
use crate::os::seams::Os;
use actix::prelude::*;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{Layout, Tab, Workspace as WorkspaceState};
use signaltty_protocol::{Event, PaneId, TabId, Timestamp, WorkspaceRef};
use std::collections::HashMap;

mod apply;
mod launch;
mod panes;
pub use apply::{Apply, ApplyLeaf};
pub use launch::{Launch, Launched, Spawn};
pub use panes::{Arrangement, Rearrange, RemovePane};
use std::collections::HashSet;

/// Renames the workspace (the handle never changes). Replies with the workspace
/// after `workspace.updated` is published; `NO_SUCH_WORKSPACE` once it is closing.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct Rename {
    /// The new, already validated name.
    pub name: String,
}

/// Turns auto-resume on or off. Replies with the workspace after
/// `workspace.updated` is published.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct SetAutoResume {
    /// On or off.
    pub on: bool,
}

/// Sets after how long idle the workspace's agents hibernate; 0: never
/// (docs/restore.md#hibernation). Replies with the workspace after
/// `workspace.updated` is published.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct SetHibernate {
    /// Seconds, already checked.
    pub after_s: u64,
}

/// Turns auto-continue on or off, with the prompt to type instead of the
/// agent's own (docs/states.md#auto-continue). Replies with the workspace
/// after `workspace.updated` is published.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct SetAutoContinue {
    /// On or off.
    pub enabled: bool,
    /// The prompt, already checked.
    pub prompt: Option<String>,
}

/// Replaces the workspace's git cache (`workspace.refresh_git`, a turn's end).
/// Publishes `workspace.updated`, and `git.branch_changed` first when the
/// branch differs; with `Announce::IfChanged` an unchanged cache publishes
/// nothing. Replies with the workspace.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct SetGit {
    /// The recomputed cache.
    pub git: signaltty_protocol::workspace::GitInfo,
    /// Whether an unchanged cache is announced.
    pub announce: Refresh,
}

/// When [`SetGit`] publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// Always (`workspace.refresh_git`).
    Always,
    /// Only when the cache changed (the refresh at a turn's end).
    IfChanged,
}

/// Recomputes the git cache (branch, `dirty`) of the workspace checked out at
/// `cwd` on a blocking thread, then hands it to the workspace's actor
/// (`SetGit`), which publishes as `announce` says. The one path of
/// `workspace.refresh_git`, a spawn's later dirty check and a turn's end.
pub async fn refresh_git(
    addr: Addr<Workspace>,
    os: Os,
    cwd: std::path::PathBuf,
    announce: Refresh,
) -> Result<WorkspaceState, Error> {
    let git = actix_rt::task::spawn_blocking(move || os.git.git_info(&cwd))
        .await
        .map_err(|e| Error::Io {
            what: "git status".to_owned(),
            source: std::io::Error::other(e.to_string()),
        })?;
    addr.send(SetGit { git, announce }).await?
}

pub use crate::domain::slug::checked_name as validate_name;

/// When a new workspace's `dirty` flag is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirtyCheck {
    /// Before the reply (`workspace.create`).
    Now,
    /// After it, on a blocking thread, announced when known: a task's fresh
    /// checkout, whose `git status` over a large tree would hold the worker's
    /// start back (docs/performance.md, tasks). Until then it is unknown.
    Later,
}

/// A workspace's directory: absolute, a directory, UTF-8; with what is known
/// of its git checkout (the whole cache now, or only the branch). Blocking.
pub fn check_dir(
    os: &Os,
    cwd: std::path::PathBuf,
    dirty: DirtyCheck,
) -> Result<(String, signaltty_protocol::workspace::GitInfo), Error> {
    use crate::os::seams::FileKind;
    if !cwd.is_absolute() {
        return Err(Error::BadParams(format!(
            "cwd {} is not an absolute path",
            cwd.display()
        )));
    }
    match os.files.kind(&cwd) {
        Ok(FileKind::Dir) => {},
        Ok(FileKind::Other) => {
            return Err(Error::BadParams(format!(
                "cwd {} is not a directory",
                cwd.display()
            )));
        },
        Err(e) => return Err(Error::BadParams(format!("cwd {}: {e}", cwd.display()))),
    }
    let text = cwd
        .to_str()
        .ok_or_else(|| Error::BadParams(format!("cwd {} is not valid UTF-8", cwd.display())))?
        .to_owned();
    let git = match dirty {
        DirtyCheck::Now => os.git.git_info(&cwd),
        DirtyCheck::Later => os.git.probe(&cwd),
    };
    Ok((text, git))
}

/// Closes every pane and tab the workspace owns, then the workspace itself, and
/// stops the actor. Replies after `tab.closed`… and `workspace.closed` are published.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct Close {
    /// The signal for each live child.
    pub signal: SignalName,
}

/// Adds a tab (id allocated by the Supervisor) at the end; it becomes the active
/// tab. Replies with the tab after `tab.created`.
#[derive(Debug, Message)]
#[rtype(result = "Result<Tab, Error>")]
pub struct CreateTab {
    /// The new tab, with an empty layout.
    pub tab: Tab,
}

/// Closes a tab and every pane in it; if it was active, the last remaining tab
/// becomes active. Replies after `pane.closed`… and `tab.closed`.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct CloseTab {
    /// The tab.
    pub tab_id: TabId,
    /// The signal for each live child.
    pub signal: SignalName,
}

/// Replaces a tab's layout with an arrangement of exactly its panes (leaves already
/// resolved to pane ids). `BAD_PARAMS` without change for missing, foreign or
/// repeated panes or a non-finite ratio. Replies with the tab after `tab.updated`.
#[derive(Debug, Message)]
#[rtype(result = "Result<Tab, Error>")]
pub struct SetLayout {
    /// The tab.
    pub tab_id: TabId,
    /// The new layout.
    pub layout: Layout,
}

/// Moves one divider: the split at `path` gets `ratio` (clamped). `BAD_PARAMS` when
/// the path does not end on a split. Replies with the tab after `tab.updated`.
#[derive(Debug, Message)]
#[rtype(result = "Result<Tab, Error>")]
pub struct SetRatio {
    /// The tab.
    pub tab_id: TabId,
    /// 0/1 choices from the root.
    pub path: Vec<u8>,
    /// The first side's share.
    pub ratio: f32,
}

/// Publishes `workspace.created` for a workspace the Supervisor just opened
/// and replies with it; with `dirty_later`, the git cache's `dirty` flag is
/// computed after the reply and announced if it changed. With `first_tab`,
/// the workspace opens with that tab (a task's, docs/tasks.md#the-start-steps-in-order):
/// `tab.created` follows `workspace.created` in the same publication.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorkspaceState, Error>")]
pub struct Announce {
    /// Recompute `dirty` after the reply.
    pub dirty_later: bool,
    /// A tab, empty, to open with.
    pub first_tab: Option<Tab>,
}

/// The Workspace actor.
pub struct Workspace {
    state: WorkspaceState,
    /// The tabs, in `state.tabs` order.
    tabs: Vec<Tab>,
    /// The live pane actors this workspace placed.
    panes: HashMap<PaneId, Addr<Pane>>,
    events: Recipient<Publish>,
    /// Told of every tab and pane this workspace adds or removes.
    directory: Recipient<Directory>,
    /// What the workspace asks of the OS (git status).
    os: Os,
    closing: bool,
}

impl Workspace {
    /// An actor for a newly created workspace.
    pub fn new(
        state: WorkspaceState,
        events: Recipient<Publish>,
        directory: Recipient<Directory>,
        os: Os,
    ) -> Workspace {
        Workspace {
            state,
            tabs: Vec::new(),
            panes: HashMap::new(),
            events,
            directory,
            os,
            closing: false,
        }
    }

    /// The actor of a restored workspace (docs/restore.md#rebuilding-the-world):
    /// its tabs with their layouts and the tombstone actors of its panes.
    pub fn restored(
        state: WorkspaceState,
        tabs: Vec<Tab>,
        panes: HashMap<PaneId, Addr<Pane>>,
        events: Recipient<Publish>,
        directory: Recipient<Directory>,
        os: Os,
    ) -> Workspace {
        // In the workspace's own tab order; a tab it does not list is dropped.
        let tabs = state
            .tabs
            .iter()
            .filter_map(|id| tabs.iter().find(|t| t.id == *id).cloned())
            .collect();
        Workspace {
            state,
            tabs,
            panes,
            events,
            directory,
            os,
            closing: false,
        }
    }

    /// Changes the workspace object and replies with it once
    /// `workspace.updated` is published.
    fn update(
        &mut self,
        change: impl FnOnce(&mut WorkspaceState),
    ) -> ResponseFuture<Result<WorkspaceState, Error>> {
        if self.closing {
            return fail(self.gone());
        }
        change(&mut self.state);
        self.state.updated_at = Timestamp::now();
        let workspace = self.state.clone();
        self.publish(
            vec![Event::WorkspaceUpdated {
                workspace: workspace.clone(),
            }],
            workspace,
        )
    }

    fn gone(&self) -> Error {
        Error::NoSuchWorkspace(WorkspaceRef(self.state.id.0.clone()))
    }

    fn tab_mut(&mut self, id: &TabId) -> Result<&mut Tab, Error> {
        if self.closing {
            return Err(Error::NoSuchTab(id.clone()));
        }
        self.tabs
            .iter_mut()
            .find(|t| t.id == *id)
            .ok_or_else(|| Error::NoSuchTab(id.clone()))
    }

    /// Publishes `events` and replies with `value` once they are published.
    fn publish<T: Send + 'static>(
        &self,
        events: Vec<Event>,
        value: T,
    ) -> ResponseFuture<Result<T, Error>> {
        let sent = self.events.send(Publish::new(events));
        Box::pin(async move {
            sent.await??;
            Ok(value)
        })
    }

    /// Publishes a tab change and replies with the tab.
    fn publish_tab(&self, tab: Tab) -> ResponseFuture<Result<Tab, Error>> {
        self.publish(vec![Event::TabUpdated { tab: tab.clone() }], tab)
    }
}

fn fail<T: Send + 'static>(e: Error) -> ResponseFuture<Result<T, Error>> {
    Box::pin(async move { Err(e) })
}

impl Actor for Workspace {
    type Context = Context<Self>;
}

impl Handler<Announce> for Workspace {
    type Result = ResponseActFuture<Self, Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: Announce, _ctx: &mut Self::Context) -> Self::Result {
        let mut events = vec![Event::WorkspaceCreated {
            workspace: self.state.clone(),
        }];
        if let Some(tab) = msg.first_tab {
            self.state.tabs.push(tab.id.clone());
            self.state.active_tab_id = Some(tab.id.clone());
            self.tabs.push(tab.clone());
            self.directory.do_send(Directory::TabOpened {
                tab: tab.id.clone(),
                workspace: self.state.id.clone(),
            });
            events.push(Event::TabCreated { tab });
        }
        let published = self.publish(events, self.state.clone());
        Box::pin(published.into_actor(self).map(move |r, act, ctx| {
            if r.is_ok() && msg.dirty_later {
                let cwd = std::path::PathBuf::from(&act.state.cwd);
                let work = refresh_git(ctx.address(), act.os.clone(), cwd, Refresh::IfChanged);
                ctx.spawn(actix::fut::wrap_future(async move {
                    drop(work.await);
                }));
            }
            r
        }))
    }
}

impl Handler<SetAutoResume> for Workspace {
    type Result = ResponseFuture<Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: SetAutoResume, _ctx: &mut Self::Context) -> Self::Result {
        self.update(|state| state.auto_resume = msg.on)
    }
}

impl Handler<SetHibernate> for Workspace {
    type Result = ResponseFuture<Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: SetHibernate, _ctx: &mut Self::Context) -> Self::Result {
        self.update(|state| state.hibernate_after_s = Some(msg.after_s))
    }
}

impl Handler<SetAutoContinue> for Workspace {
    type Result = ResponseFuture<Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: SetAutoContinue, _ctx: &mut Self::Context) -> Self::Result {
        self.update(|state| {
            state.auto_continue = msg.enabled;
            state.auto_continue_prompt = msg.prompt;
        })
    }
}

impl Handler<SetGit> for Workspace {
    type Result = ResponseFuture<Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: SetGit, _ctx: &mut Self::Context) -> Self::Result {
        if self.closing {
            return fail(self.gone());
        }
        if self.state.git == msg.git && msg.announce == Refresh::IfChanged {
            let workspace = self.state.clone();
            return Box::pin(async move { Ok(workspace) });
        }
        let branch_changed = self.state.git.branch != msg.git.branch;
        self.state.git = msg.git;
        self.state.updated_at = Timestamp::now();
        let workspace = self.state.clone();
        let mut events = vec![Event::WorkspaceUpdated {
            workspace: workspace.clone(),
        }];
        if branch_changed {
            events.push(Event::GitBranchChanged {
                workspace_id: workspace.id.clone(),
                branch: workspace.git.branch.clone(),
            });
        }
        self.publish(events, workspace)
    }
}

impl Handler<Rename> for Workspace {
    type Result = ResponseFuture<Result<WorkspaceState, Error>>;

    fn handle(&mut self, msg: Rename, _ctx: &mut Self::Context) -> Self::Result {
        self.update(|state| state.name = msg.name)
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
        // Each tab's `pane.closed` events, then its `tab.closed`, then the
        // workspace (docs/methods.md#workspaceclose).
        let mut events = Vec::new();
        for tab in std::mem::take(&mut self.tabs) {
            events.extend(self.close_panes_of(&tab, msg.signal));
            events.push(Event::TabClosed { tab_id: tab.id });
        }
        events.push(Event::WorkspaceClosed {
            workspace_id: self.state.id.clone(),
        });
        let sent = self.events.send(Publish::new(events));
        Box::pin(sent.into_actor(self).map(|r, act, ctx| {
            ctx.stop();
            r??;
            act.directory
                .do_send(Directory::WorkspaceClosed(act.state.id.clone()));
            Ok(())
        }))
    }
}

impl Handler<CreateTab> for Workspace {
    type Result = ResponseFuture<Result<Tab, Error>>;

    fn handle(&mut self, msg: CreateTab, _ctx: &mut Self::Context) -> Self::Result {
        if self.closing {
            return fail(self.gone());
        }
        let tab = msg.tab;
        self.state.tabs.push(tab.id.clone());
        self.state.active_tab_id = Some(tab.id.clone());
        self.tabs.push(tab.clone());
        self.directory.do_send(Directory::TabOpened {
            tab: tab.id.clone(),
            workspace: self.state.id.clone(),
        });
        self.publish(vec![Event::TabCreated { tab: tab.clone() }], tab)
    }
}

impl Handler<CloseTab> for Workspace {
    type Result = ResponseFuture<Result<(), Error>>;

    fn handle(&mut self, msg: CloseTab, _ctx: &mut Self::Context) -> Self::Result {
        let tab = match self.tab_mut(&msg.tab_id) {
            Ok(t) => t.clone(),
            Err(e) => return fail(e),
        };
        let mut events = self.close_panes_of(&tab, msg.signal);
        events.push(Event::TabClosed {
            tab_id: msg.tab_id.clone(),
        });
        self.tabs.retain(|t| t.id != msg.tab_id);
        self.state.tabs.retain(|id| *id != msg.tab_id);
        if self.state.active_tab_id.as_ref() == Some(&msg.tab_id) {
            self.state.active_tab_id = self.state.tabs.last().cloned();
        }
        let published = self.publish(events, ());
        let directory = self.directory.clone();
        Box::pin(async move {
            published.await?;
            directory.do_send(Directory::TabClosed(msg.tab_id));
            Ok(())
        })
    }
}

impl Handler<SetLayout> for Workspace {
    type Result = ResponseFuture<Result<Tab, Error>>;

    fn handle(&mut self, msg: SetLayout, _ctx: &mut Self::Context) -> Self::Result {
        let tab = match self.tab_mut(&msg.tab_id) {
            Ok(t) => t,
            Err(e) => return fail(e),
        };
        let owned: HashSet<_> = tab
            .layout
            .as_ref()
            .map(layout::leaves)
            .unwrap_or_default()
            .into_iter()
            .collect();
        if owned.is_empty() {
            return fail(Error::BadParams(format!(
                "tab {} has no panes to arrange",
                msg.tab_id
            )));
        }
        match layout::validate(msg.layout, &owned) {
            Ok(valid) => {
                tab.layout = Some(valid);
                let tab = tab.clone();
                self.publish_tab(tab)
            },
            Err(why) => fail(Error::BadParams(why)),
        }
    }
}

impl Handler<SetRatio> for Workspace {
    type Result = ResponseFuture<Result<Tab, Error>>;

    fn handle(&mut self, msg: SetRatio, _ctx: &mut Self::Context) -> Self::Result {
        let tab = match self.tab_mut(&msg.tab_id) {
            Ok(t) => t,
            Err(e) => return fail(e),
        };
        let Some(current) = tab.layout.as_mut() else {
            return fail(Error::BadParams(format!(
                "tab {} has no layout",
                msg.tab_id
            )));
        };
        // Work on a copy so a bad path changes nothing.
        let mut updated = current.clone();
        if let Err(why) = layout::set_ratio(&mut updated, &msg.path, msg.ratio) {
            return fail(Error::BadParams(why));
        }
        *current = updated;
        let tab = tab.clone();
        self.publish_tab(tab)
    }
}

#[cfg(test)]
mod tests;
