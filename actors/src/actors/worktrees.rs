//! Worktrees: the owner of `worktree.*` (docs/worktrees.md). One per server.
//! Each request runs as its own workflow in this actor's context: git on
//! blocking threads in the source workspace's checkout, the one `worktree.*`
//! mutation lock and the checkout's path lock held for the whole of it, what
//! only the Supervisor knows asked of it with typed requests
//! (`actors/services.rs`), and `worktree.changed` published by this actor.
//! A workspace bound to a checkout is opened by the Supervisor and announced
//! by its own actor, after this actor's `worktree.changed`.
//!
//! ```text
//!   create: lock · target · git worktree add ─ worktree.changed ─ bind
//!   open:   lock · registered? ─ bind (worktree.changed open, then the workspace)
//!   bind:   entering reference · git facts ─ reuse the workspace there, or open one
//!   remove: lock · refusals · reserve ─ occupants, open workspaces, dirty ─ remove
//! ```

use crate::actors::publish::Publish;
use crate::actors::services::{LivePanes, OpenWorkspace, OpenWorkspaces, WorkspaceAt};
use crate::domain::slug::checked_name;
use crate::domain::worktrees::{Checkouts, MutationLock, PathLock, canonical_target, is_within};
use crate::error::Error;
use crate::os::git::Git;
use crate::os::git::worktree::{self as wt, Untracked};
use crate::os::occupants::{self, Depth};
use actix::prelude::*;
use signaltty_protocol::worktree::{
    Worktree, WorktreeBindResult, WorktreeListResult, WorktreeOperation, WorktreeRemoveResult,
};
use signaltty_protocol::{Event, WorkspaceId};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a request's git runs: the source workspace and its checkout.
#[derive(Debug, Clone)]
pub struct Source {
    /// The source workspace.
    pub id: WorkspaceId,
    /// Its directory.
    pub cwd: String,
}

/// `worktree.list`: every checkout of the source repository, with the open
/// workspace on each.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorktreeListResult, Error>")]
pub struct List(pub Source);

/// `worktree.create`: a new branch at the source HEAD checked out at `path`,
/// then a workspace bound to it (the checkout is kept when binding fails,
/// and the error says so).
#[derive(Debug, Message)]
#[rtype(result = "Result<WorktreeBindResult, Error>")]
pub struct Create {
    /// Where the request's git runs.
    pub source: Source,
    /// The new checkout's path.
    pub path: PathBuf,
    /// The new branch.
    pub branch: String,
    /// The new workspace's name, already checked.
    pub name: Option<String>,
}

/// `worktree.open`: a workspace for a registered checkout, or the one open
/// there already.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorktreeBindResult, Error>")]
pub struct Open {
    /// Where the request's git runs.
    pub source: Source,
    /// The checkout.
    pub path: PathBuf,
    /// The workspace's name, already checked.
    pub name: Option<String>,
}

/// `worktree.remove`: the refusals of docs/worktrees.md#removing-a-checkout in
/// order, then a non-force `git worktree remove` while the path is reserved.
#[derive(Debug, Message)]
#[rtype(result = "Result<WorktreeRemoveResult, Error>")]
pub struct Remove {
    /// Where the request's git runs.
    pub source: Source,
    /// The checkout.
    pub path: PathBuf,
}

/// What a workflow asks of the Supervisor.
#[derive(Clone)]
pub struct Asks {
    /// Opening a workspace.
    pub open: Recipient<OpenWorkspace>,
    /// The workspace open on a checkout already, if any.
    pub at: Recipient<WorkspaceAt>,
    /// The open workspaces and their directories.
    pub workspaces: Recipient<OpenWorkspaces>,
    /// The live panes and their processes.
    pub panes: Recipient<LivePanes>,
}

/// The Worktrees actor.
pub struct Worktrees {
    publish: Recipient<Publish>,
    asks: Asks,
    checkouts: Checkouts,
    /// The deadline of each git run.
    deadline: Duration,
}

impl Worktrees {
    /// The owner of `worktree.*`.
    pub fn new(
        publish: Recipient<Publish>,
        asks: Asks,
        checkouts: Checkouts,
        deadline: Duration,
    ) -> Worktrees {
        Worktrees {
            publish,
            asks,
            checkouts,
            deadline,
        }
    }

    fn git(&self, source: &Source) -> Git {
        Git::new(&source.cwd).deadline(self.deadline)
    }

    fn binder(&self) -> Binder {
        Binder {
            publish: self.publish.clone(),
            asks: self.asks.clone(),
            checkouts: self.checkouts.clone(),
            deadline: self.deadline,
        }
    }
}

impl Actor for Worktrees {
    type Context = Context<Self>;
}

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    match actix_rt::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(Error::Internal(format!("worktree task failed: {e}"))),
    }
}

/// The open workspaces and their directories, asked of the Supervisor.
async fn open_workspaces(asks: &Asks) -> Result<Vec<(WorkspaceId, String)>, Error> {
    Ok(asks.workspaces.send(OpenWorkspaces).await?)
}

/// The first workspace whose canonical cwd satisfies `hit`. Blocking.
fn workspace_where(
    workspaces: &[(WorkspaceId, String)],
    hit: impl Fn(&Path) -> bool,
) -> Option<WorkspaceId> {
    workspaces
        .iter()
        .find(|(_, cwd)| std::fs::canonicalize(cwd).is_ok_and(|c| hit(&c)))
        .map(|(id, _)| id.clone())
}

fn utf8(path: &Path) -> Result<String, Error> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::BadParams(format!("path {} is not valid UTF-8", path.display())))
}

/// An absolute, existing directory, canonicalised. Blocking.
fn existing_dir(path: &Path) -> Result<PathBuf, Error> {
    if !path.is_absolute() {
        return Err(Error::BadParams(format!(
            "path {} is not absolute",
            path.display()
        )));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {},
        Ok(_) => {
            return Err(Error::BadParams(format!(
                "{} is not a directory",
                path.display()
            )));
        },
        Err(e) => return Err(Error::BadParams(format!("{}: {e}", path.display()))),
    }
    std::fs::canonicalize(path).map_err(|e| Error::BadParams(format!("{}: {e}", path.display())))
}

/// The registration of `canonical` in the source repository. Blocking.
fn registered(git: &Git, canonical: &Path) -> Result<wt::Registration, Error> {
    let list = wt::list(git)?;
    wt::find(&list, canonical).cloned().ok_or_else(|| {
        Error::BadParams(format!(
            "{} is not a registered worktree of this repository",
            canonical.display()
        ))
    })
}

/// The canonical path of a checkout to be made: absolute, not existing, in an
/// existing (canonicalised) parent directory. Blocking.
fn new_checkout_target(path: &Path) -> Result<PathBuf, Error> {
    if !path.is_absolute() {
        return Err(Error::BadParams(format!(
            "path {} is not absolute",
            path.display()
        )));
    }
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(Error::BadParams(format!(
            "{} already exists",
            path.display()
        )));
    }
    let (Some(parent), Some(file)) = (path.parent(), path.file_name()) else {
        return Err(Error::BadParams(format!(
            "path {} has no parent directory",
            path.display()
        )));
    };
    existing_dir(parent)?;
    let target = canonical_target(parent)?.join(file);
    utf8(&target)?;
    Ok(target)
}

/// The locks a mutation holds until its reply.
struct Held {
    _mutation: MutationLock,
    _path: Option<PathLock>,
}

impl Handler<List> for Worktrees {
    type Result = ResponseFuture<Result<WorktreeListResult, Error>>;

    fn handle(&mut self, msg: List, _ctx: &mut Self::Context) -> Self::Result {
        let git = self.git(&msg.0);
        let asks = self.asks.clone();
        Box::pin(async move {
            let workspaces = open_workspaces(&asks).await?;
            blocking(move || {
                let registrations = wt::list(&git)?;
                registrations
                    .into_iter()
                    .map(|r| {
                        let canonical =
                            std::fs::canonicalize(&r.path).unwrap_or_else(|_| r.path.clone());
                        Ok(Worktree {
                            path: utf8(&r.path)?,
                            branch: r.branch,
                            head: r.head,
                            main: r.main,
                            bare: r.bare,
                            locked: r.locked,
                            prunable: r.prunable,
                            workspace_id: workspace_where(&workspaces, |c| c == canonical),
                        })
                    })
                    .collect::<Result<Vec<_>, Error>>()
                    .map(|worktrees| WorktreeListResult { worktrees })
            })
            .await
        })
    }
}

impl Handler<Create> for Worktrees {
    type Result = ResponseFuture<Result<WorktreeBindResult, Error>>;

    fn handle(&mut self, msg: Create, _ctx: &mut Self::Context) -> Self::Result {
        let git = self.git(&msg.source);
        let checkouts = self.checkouts.clone();
        let binder = self.binder();
        let Create {
            source,
            path,
            branch,
            name,
        } = msg;
        Box::pin(async move {
            let mutation = checkouts.mutation().await;
            let target = blocking(move || new_checkout_target(&path)).await?;
            let lock = checkouts.lock_path(target.clone()).await;
            let made = target.clone();
            let branch_made = branch.clone();
            blocking(move || {
                // Checked again under the path lock: a task may have taken it.
                if std::fs::symlink_metadata(&made).is_ok() {
                    return Err(Error::BadParams(format!(
                        "{} already exists",
                        made.display()
                    )));
                }
                wt::check_branch_name(&git, &branch_made)?;
                wt::add_user_checkout(&git, &made, &branch_made)
            })
            .await?;
            let held = Held {
                _mutation: mutation,
                _path: Some(lock),
            };
            let path_text = target.to_string_lossy().into_owned();
            let announced = binder
                .publish
                .send(Publish::new(vec![Event::WorktreeChanged {
                    operation: WorktreeOperation::Create,
                    path: path_text.clone(),
                    workspace_id: source.id.clone(),
                }]))
                .await
                .map_err(Error::from)
                .and_then(|r| r);
            if let Err(e) = announced {
                return Err(Error::CheckoutRetained {
                    error: Box::new(e),
                    path: path_text,
                });
            }
            let bound = binder
                .bind(Bind {
                    source: source.id,
                    path: target,
                    name,
                    branch: Some(branch),
                    announce: None,
                    retained: true,
                })
                .await;
            drop(held);
            bound
        })
    }
}

impl Handler<Open> for Worktrees {
    type Result = ResponseFuture<Result<WorktreeBindResult, Error>>;

    fn handle(&mut self, msg: Open, _ctx: &mut Self::Context) -> Self::Result {
        let git = self.git(&msg.source);
        let checkouts = self.checkouts.clone();
        let binder = self.binder();
        let Open { source, path, name } = msg;
        Box::pin(async move {
            let mutation = checkouts.mutation().await;
            let (canonical, registration) = blocking(move || {
                let canonical = existing_dir(&path)?;
                utf8(&canonical)?;
                let registration = registered(&git, &canonical)?;
                if registration.bare || registration.prunable {
                    return Err(Error::BadParams(format!(
                        "{} is {}: it cannot be opened",
                        canonical.display(),
                        if registration.bare {
                            "bare"
                        } else {
                            "prunable"
                        }
                    )));
                }
                Ok((canonical, registration))
            })
            .await?;
            let bound = binder
                .bind(Bind {
                    source: source.id,
                    path: canonical,
                    name,
                    branch: registration.branch,
                    announce: Some(WorktreeOperation::Open),
                    retained: false,
                })
                .await;
            drop(mutation);
            bound
        })
    }
}

/// What binding a workspace to a checkout needs
/// (docs/worktrees.md#binding-a-workspace).
struct Bind {
    source: WorkspaceId,
    /// The canonical checkout path.
    path: PathBuf,
    name: Option<String>,
    branch: Option<String>,
    /// The `worktree.changed` to publish before a new workspace (`open`).
    announce: Option<WorktreeOperation>,
    /// A failure keeps a checkout just made: say where.
    retained: bool,
}

/// What a bind works with.
struct Binder {
    publish: Recipient<Publish>,
    asks: Asks,
    checkouts: Checkouts,
    deadline: Duration,
}

impl Binder {
    /// Binds a workspace: an entering reference on the checkout, its git
    /// facts and `dirty` off the loop, then the Supervisor reuses an open
    /// workspace on the same canonical cwd (if the source still exists), else
    /// opens one, after this actor's `worktree.changed` for an `open`.
    async fn bind(self, b: Bind) -> Result<WorktreeBindResult, Error> {
        let path_text = b.path.to_string_lossy().into_owned();
        let retained = b.retained;
        let kept = path_text.clone();
        let retain = move |e: Error| {
            if retained {
                Error::CheckoutRetained {
                    error: Box::new(e),
                    path: kept.clone(),
                }
            } else {
                e
            }
        };
        let workspaces = open_workspaces(&self.asks).await.map_err(&retain)?;
        let checkouts = self.checkouts.clone();
        let deadline = self.deadline;
        let path = b.path.clone();
        let (entering, git, existing) = blocking(move || {
            let entering = checkouts.enter(&path)?;
            let dirty = wt::is_dirty(&Git::new(&path).deadline(deadline), Untracked::Normal).ok();
            let mut git = crate::os::git::probe(&path);
            git.dirty = dirty;
            let existing = workspace_where(&workspaces, |c| c == path);
            Ok((entering, git, existing))
        })
        .await
        .map_err(&retain)?;
        let name = b
            .name
            .or(b.branch)
            .or_else(|| b.path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .and_then(|n| checked_name(&n).ok())
            .unwrap_or_else(|| "worktree".to_owned());
        let bound = async {
            // The source must still exist; a workspace opened meanwhile on
            // the canonical path counts too.
            let at = WorkspaceAt {
                source: Some(b.source.clone()),
                id: existing,
                cwd: path_text.clone(),
            };
            if let Some(workspace) = self.asks.at.send(at).await?? {
                return Ok((workspace, true));
            }
            if let Some(operation) = b.announce {
                self.publish
                    .send(Publish::new(vec![Event::WorktreeChanged {
                        operation,
                        path: path_text.clone(),
                        workspace_id: b.source.clone(),
                    }]))
                    .await??;
            }
            let open = OpenWorkspace {
                name,
                cwd: path_text.clone(),
                git,
                dirty_later: false,
            };
            let (workspace, _) = self.asks.open.send(open).await??;
            Ok::<_, Error>((workspace, false))
        }
        .await;
        // Registered (or reused): a removal's open-workspace check sees it.
        drop(entering);
        let (workspace, reused) = bound.map_err(&retain)?;
        Ok(WorktreeBindResult {
            workspace,
            path: path_text,
            reused,
        })
    }
}

impl Handler<Remove> for Worktrees {
    type Result = ResponseFuture<Result<WorktreeRemoveResult, Error>>;

    fn handle(&mut self, msg: Remove, _ctx: &mut Self::Context) -> Self::Result {
        let git = self.git(&msg.source);
        let checkouts = self.checkouts.clone();
        let asks = self.asks.clone();
        let publish = self.publish.clone();
        let deadline = self.deadline;
        let Remove { source, path } = msg;
        Box::pin(async move {
            let mutation = checkouts.mutation().await;
            let git_check = git.clone();
            let canonical = blocking(move || {
                let canonical = existing_dir(&path)?;
                let r = registered(&git_check, &canonical)?;
                let refused = [
                    (r.main, "the main worktree"),
                    (r.bare, "bare"),
                    (r.locked, "locked"),
                    (r.prunable, "prunable"),
                ];
                if let Some((_, why)) = refused.iter().find(|(hit, _)| *hit) {
                    return Err(Error::BadParams(format!(
                        "{} is {why}: it is not removed",
                        canonical.display()
                    )));
                }
                Ok(canonical)
            })
            .await?;
            let lock = checkouts.lock_path(canonical.clone()).await;
            let reservation = checkouts.reserve_removal(&canonical)?;
            let held = Held {
                _mutation: mutation,
                _path: Some(lock),
            };
            // Read while reserved: no pane or workspace enters the checkout
            // now, and those entering before the reservation are registered.
            let panes = asks.panes.send(LivePanes).await?;
            let workspaces = open_workspaces(&asks).await?;
            let removed = blocking(move || {
                let inside = occupants::inside(&canonical, &panes, None, Depth::Processes);
                if !inside.is_empty() {
                    return Err(Error::PanesInside {
                        path: canonical.display().to_string(),
                        panes: inside.iter().map(ToString::to_string).collect(),
                    });
                }
                if let Some(ws) = workspace_where(&workspaces, |c| is_within(c, &canonical)) {
                    return Err(Error::BadParams(format!(
                        "workspace {ws} is open in {}: close the workspace first",
                        canonical.display()
                    )));
                }
                if wt::is_dirty(&Git::new(&canonical).deadline(deadline), Untracked::All)? {
                    return Err(Error::BadParams(format!(
                        "{} has tracked or untracked changes: it is not removed",
                        canonical.display()
                    )));
                }
                wt::remove_user_checkout(&git, &canonical)?;
                Ok(canonical)
            })
            .await;
            drop(reservation);
            let canonical = removed?;
            let path = canonical.to_string_lossy().into_owned();
            publish
                .send(Publish::new(vec![Event::WorktreeChanged {
                    operation: WorktreeOperation::Remove,
                    path: path.clone(),
                    workspace_id: source.id,
                }]))
                .await??;
            drop(held);
            Ok(WorktreeRemoveResult {
                removed: true,
                path,
            })
        })
    }
}
