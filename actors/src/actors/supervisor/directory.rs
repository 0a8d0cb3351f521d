//! The Supervisor's side of the directory (`actors/directory.rs`): the
//! registry changes owners tell it, opening workspaces, and the lookups
//! workflows ask of it (`actors/services.rs`), each answered from the
//! registry and the projection in one turn.

use super::Supervisor;
use crate::actors::directory::Directory;
use crate::actors::pane::{Pane, Relaunched};
use crate::actors::services::{
    AddRoute, CloseWorkspacesAt, FindPane, FindWorkspace, LivePanes, OpenWorkspace, OpenWorkspaces,
    PaneView, Placement, RegisterWait, Reporters, ReportersSeen, StartPane, TaskWorkspace,
    ViewPane, WorkspaceAt,
};
use crate::actors::workspace::{Announce as AnnounceOpened, Workspace as WorkspaceActor};
use crate::actors::workspace::{Close, Launched, validate_name};
use crate::domain::registry::PaneEntry;
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::occupants::LivePane;
use actix::prelude::*;
use signaltty_protocol::pane::LiveState;
use signaltty_protocol::workspace::{GitInfo, Tab, Workspace};
use signaltty_protocol::{TabId, Timestamp, WorkspaceId, WorkspaceRef};
use std::path::Path;

impl Handler<Directory> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: Directory, _ctx: &mut Self::Context) {
        match msg {
            Directory::Launched {
                panes,
                released,
                entering,
            } => {
                // Names held for the new panes are theirs from now on.
                self.registry.release_names(&released);
                for (entry, name) in panes {
                    let id = entry.id.clone();
                    self.registry.add_pane(entry);
                    if let Some(name) = name
                        && let Err(e) = self.registry.set_pane_name(&id, Some(&name))
                    {
                        log::warn!("pane {id} keeps no name: {e}");
                    }
                }
                // Registered: a removal now sees the panes themselves.
                drop(entering);
                // Hooks from the new processes that arrived too early retry now.
                self.launches.end();
            },
            Directory::LaunchFailed { released, entering } => {
                self.registry.release_names(&released);
                drop(entering);
                self.launches.end();
            },
            Directory::PaneClosed(id) => {
                self.registry.remove_pane(&id);
            },
            Directory::PaneMoved { pane, tab } => self.registry.move_pane(&pane, tab),
            Directory::TabOpened { tab, workspace } => self.registry.add_tab(tab, workspace),
            Directory::TabClosed(tab) => {
                self.registry.remove_tab(&tab);
            },
            Directory::WorkspaceClosed(id) => {
                self.registry.remove_workspace(&id);
            },
        }
    }
}

impl Handler<Relaunched> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: Relaunched, _ctx: &mut Self::Context) {
        self.registry.set_pid(&msg.pane, msg.pid);
    }
}

impl Supervisor {
    /// Starts the owner of `worktree.*`.
    pub(crate) fn start_worktrees(
        &self,
        ctx: &mut Context<Self>,
    ) -> Addr<crate::actors::worktrees::Worktrees> {
        let me = ctx.address();
        crate::actors::worktrees::Worktrees::new(
            me.clone().recipient(),
            crate::actors::worktrees::Asks {
                open: me.clone().recipient(),
                at: me.clone().recipient(),
                workspaces: me.clone().recipient(),
                panes: me.recipient(),
            },
            self.checkouts.clone(),
            self.config.limits.worktree_git_deadline,
        )
        .start()
    }

    /// Starts and registers a new workspace (not announced yet). Its handle
    /// is chosen and registered with no await in between, so two concurrent
    /// opens can never take the same handle.
    pub(crate) fn register_workspace(
        &mut self,
        ctx: &mut Context<Self>,
        name: String,
        cwd: String,
        git: GitInfo,
    ) -> Result<(Workspace, Addr<WorkspaceActor>), Error> {
        if self.shutting_down {
            return Err(Error::ShuttingDown);
        }
        let id = WorkspaceId::from_random(random_u128());
        let handle = self.registry.free_handle(&name);
        let now = Timestamp::now();
        let workspace = Workspace {
            id: id.clone(),
            name,
            handle: handle.clone(),
            cwd,
            git,
            tabs: Vec::new(),
            active_tab_id: None,
            auto_resume: false,
            hibernate_after_s: None,
            auto_continue: false,
            auto_continue_prompt: None,
            created_at: now.clone(),
            updated_at: now,
        };
        let me = ctx.address();
        let addr = WorkspaceActor::new(
            workspace.clone(),
            me.clone().recipient(),
            me.recipient(),
            self.config.os.clone(),
        )
        .start();
        self.registry.add_workspace(id, handle, addr.clone())?;
        Ok((workspace, addr))
    }
}

impl Handler<OpenWorkspace> for Supervisor {
    type Result = ResponseFuture<Result<(Workspace, Addr<WorkspaceActor>), Error>>;

    fn handle(&mut self, msg: OpenWorkspace, ctx: &mut Self::Context) -> Self::Result {
        let OpenWorkspace {
            name,
            cwd,
            git,
            dirty_later,
        } = msg;
        let registered = self.register_workspace(ctx, name, cwd, git);
        Box::pin(async move {
            let (_, addr) = registered?;
            let workspace = addr
                .send(AnnounceOpened {
                    dirty_later,
                    first_tab: None,
                })
                .await??;
            Ok((workspace, addr))
        })
    }
}

impl Handler<FindPane> for Supervisor {
    type Result = Result<PaneEntry<Addr<Pane>>, Error>;

    fn handle(&mut self, msg: FindPane, _ctx: &mut Self::Context) -> Self::Result {
        self.registry.pane(&msg.0)
    }
}

impl Handler<FindWorkspace> for Supervisor {
    type Result = Result<Addr<WorkspaceActor>, Error>;

    fn handle(&mut self, msg: FindWorkspace, _ctx: &mut Self::Context) -> Self::Result {
        self.registry
            .workspace_addr(&msg.0)
            .ok_or_else(|| Error::NoSuchWorkspace(WorkspaceRef(msg.0.0)))
    }
}

impl Handler<StartPane> for Supervisor {
    type Result = ResponseFuture<Result<Launched, Error>>;

    fn handle(&mut self, msg: StartPane, _ctx: &mut Self::Context) -> Self::Result {
        Box::pin(super::router::start_pane(&mut self.cx(), msg.0))
    }
}

impl Handler<WorkspaceAt> for Supervisor {
    type Result = Result<Option<Workspace>, Error>;

    fn handle(&mut self, msg: WorkspaceAt, _ctx: &mut Self::Context) -> Self::Result {
        if let Some(source) = &msg.source {
            self.registry
                .workspace(&WorkspaceRef(source.0.clone()))
                .map_err(|_| Error::NoSuchWorkspace(WorkspaceRef(source.0.clone())))?;
        }
        let projection = self.events.projection();
        Ok(msg
            .id
            .and_then(|id| projection.workspace(&id).cloned())
            .or_else(|| {
                projection
                    .workspaces()
                    .into_iter()
                    .find(|w| w.cwd == msg.cwd)
            }))
    }
}

impl Handler<OpenWorkspaces> for Supervisor {
    type Result = MessageResult<OpenWorkspaces>;

    fn handle(&mut self, _msg: OpenWorkspaces, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(
            self.events
                .projection()
                .workspaces()
                .into_iter()
                .map(|w| (w.id, w.cwd))
                .collect(),
        )
    }
}

impl Handler<TaskWorkspace> for Supervisor {
    type Result = ResponseFuture<Result<Placement, Error>>;

    fn handle(&mut self, msg: TaskWorkspace, ctx: &mut Self::Context) -> Self::Result {
        let projection = self.events.projection();
        let rooted = projection
            .workspaces()
            .into_iter()
            .find(|w| Path::new(&w.cwd) == msg.checkout.as_path());
        if let Some(w) = rooted {
            // Its active tab, if that has no panes yet.
            let tab = w
                .active_tab_id
                .clone()
                .filter(|tab| projection.tab(tab).is_some_and(|t| t.layout.is_none()));
            let placed = self
                .registry
                .workspace_addr(&w.id)
                .map(|addr| Placement {
                    workspace: w.id.clone(),
                    addr,
                    tab,
                })
                .ok_or(Error::NoSuchWorkspace(WorkspaceRef(w.id.0)));
            return Box::pin(std::future::ready(placed));
        }
        let TaskWorkspace {
            label,
            dir,
            tab_title,
            ..
        } = msg;
        let registered = validate_name(&label).and_then(|name| {
            let (cwd, git) = dir?;
            self.register_workspace(ctx, name, cwd, git)
        });
        Box::pin(async move {
            let (workspace, addr) = registered?;
            let tab = Tab {
                id: TabId::from_random(random_u128()),
                workspace_id: workspace.id.clone(),
                title: tab_title,
                layout: None,
                active_pane_id: None,
                created_at: Timestamp::now(),
            };
            let tab_id = tab.id.clone();
            // The checkout was just cut: its dirty check comes after the reply.
            addr.send(AnnounceOpened {
                dirty_later: true,
                first_tab: Some(tab),
            })
            .await??;
            Ok(Placement {
                workspace: workspace.id,
                addr,
                tab: Some(tab_id),
            })
        })
    }
}

impl Handler<ViewPane> for Supervisor {
    type Result = MessageResult<ViewPane>;

    fn handle(&mut self, msg: ViewPane, _ctx: &mut Self::Context) -> Self::Result {
        let projection = self.events.projection();
        let pane = projection.pane(&msg.0).cloned();
        let baseline = pane
            .as_ref()
            .and_then(|p| projection.progress(&msg.0).map(|pr| pr.baseline(p)));
        let addr = self.registry.pane_by_id(&msg.0).map(|e| e.addr.clone());
        MessageResult(PaneView {
            pane,
            baseline,
            addr,
        })
    }
}

impl Handler<RegisterWait> for Supervisor {
    type Result = MessageResult<RegisterWait>;

    fn handle(&mut self, msg: RegisterWait, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.events.wait(msg.conn, msg.wanted))
    }
}

impl Handler<LivePanes> for Supervisor {
    type Result = MessageResult<LivePanes>;

    fn handle(&mut self, _msg: LivePanes, _ctx: &mut Self::Context) -> Self::Result {
        let projection = self.events.projection();
        MessageResult(
            self.registry
                .panes()
                .filter_map(|entry| {
                    let pane = projection.pane(&entry.id)?;
                    (pane.live == LiveState::Live).then(|| LivePane {
                        id: entry.id.clone(),
                        pid: entry.pid,
                        cwd: pane.cwd.clone(),
                    })
                })
                .collect(),
        )
    }
}

impl Handler<Reporters> for Supervisor {
    type Result = MessageResult<Reporters>;

    fn handle(&mut self, msg: Reporters, _ctx: &mut Self::Context) -> Self::Result {
        let launching = self.launches.any().then(|| self.launches.watch());
        let (named, live) = match msg.pane {
            Some(r) => (Some(self.registry.pane(&r)), Default::default()),
            None => {
                let projection = self.events.projection();
                let live = self
                    .registry
                    .panes()
                    .filter(|e| {
                        projection
                            .pane(&e.id)
                            .is_some_and(|p| p.live == LiveState::Live)
                    })
                    .map(|e| (e.pid, e.clone()))
                    .collect();
                (None, live)
            },
        };
        MessageResult(ReportersSeen {
            named,
            live,
            launching,
        })
    }
}

impl Handler<AddRoute> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: AddRoute, _ctx: &mut Self::Context) {
        self.routes.add(msg.conn, msg.route);
    }
}

impl Handler<CloseWorkspacesAt> for Supervisor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, msg: CloseWorkspacesAt, _ctx: &mut Self::Context) -> Self::Result {
        let rooted: Vec<_> = self
            .events
            .projection()
            .workspaces()
            .into_iter()
            .filter(|w| Path::new(&w.cwd) == msg.path.as_path())
            .filter_map(|w| self.registry.workspace_addr(&w.id))
            .collect();
        let signal = msg.signal;
        Box::pin(async move {
            for addr in rooted {
                if let Err(e) = addr.send(Close { signal }).await.map_err(Error::from) {
                    log::debug!("a workspace at a finished task's checkout was not closed: {e}");
                }
            }
        })
    }
}
