//! Routing of `worktree.*` (spec/ipc.md §8.3, spec/tasks.md §11): git runs in
//! the source workspace's cwd on blocking threads (`git/worktree.rs`), the
//! mutations take the one `worktree.*` lock, and the registry is read and
//! changed only back on the host. A removal reserves its path
//! (`worktrees/`), so no workspace or pane enters the checkout while git
//! removes it; binding a workspace holds an entering reference for the same
//! reason.

use super::{Cx, OnHost, Reply, Routed, fail, flatten, validate_name};
use crate::domain::worktrees::{MutationLock, PathLock, canonical_target, is_within};
use crate::error::Error;
use crate::os::git::Git;
use crate::os::git::worktree::{self as wt, Untracked};
use crate::os::occupants::{self, Depth, LivePane};
use actix::prelude::*;
use signaltty_protocol::pane::LiveState;
use signaltty_protocol::worktree::{
    Worktree, WorktreeBindResult, WorktreeCreateParams, WorktreeListParams, WorktreeListResult,
    WorktreeOpenParams, WorktreeOperation, WorktreeRemoveParams, WorktreeRemoveResult,
};
use signaltty_protocol::{Event, WorkspaceId, WorkspaceRef};
use std::path::{Path, PathBuf};

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    match actix_rt::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(Error::Internal(format!("worktree task failed: {e}"))),
    }
}

/// The source workspace's id and a git running in its cwd.
fn source(cx: &Cx<'_>, r: &WorkspaceRef) -> Result<(WorkspaceId, Git), Error> {
    let (id, _) = cx.registry.workspace(r)?;
    let cwd = cx
        .events
        .projection()
        .workspace(&id)
        .map(|w| w.cwd.clone())
        .ok_or_else(|| Error::NoSuchWorkspace(r.clone()))?;
    let git = Git::new(cwd).deadline(cx.config.limits.worktree_git_deadline);
    Ok((id, git))
}

/// Every open workspace's id and cwd.
fn workspace_cwds(cx: &Cx<'_>) -> Vec<(WorkspaceId, String)> {
    cx.events
        .projection()
        .workspaces()
        .into_iter()
        .map(|w| (w.id, w.cwd))
        .collect()
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

/// The locks a mutation holds until its reply.
struct Held {
    _mutation: MutationLock,
    _path: Option<PathLock>,
}

/// `worktree.list`.
pub fn list(cx: &mut Cx<'_>, p: WorktreeListParams) -> Routed {
    let (_, git) = match source(cx, &p.workspace_id) {
        Ok(s) => s,
        Err(e) => return fail(Err(e)),
    };
    let workspaces = workspace_cwds(cx);
    let listed = blocking(move || {
        let registrations = wt::list(&git)?;
        registrations
            .into_iter()
            .map(|r| {
                let canonical = std::fs::canonicalize(&r.path).unwrap_or_else(|_| r.path.clone());
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
    });
    Box::pin(listed.on_host().map(|r, _, _| Reply::of(r)))
}

/// `worktree.create`: a new branch at the source HEAD checked out at `path`,
/// then a workspace bound to it (kept when binding fails).
pub fn create(cx: &mut Cx<'_>, p: WorktreeCreateParams) -> Routed {
    let name = match p.name.as_deref().map(validate_name).transpose() {
        Ok(n) => n,
        Err(e) => return fail(Err(e)),
    };
    let (source_id, git) = match source(cx, &p.workspace_id) {
        Ok(s) => s,
        Err(e) => return fail(Err(e)),
    };
    let checkouts = cx.checkouts.clone();
    let path = PathBuf::from(&p.path);
    let branch = p.branch;
    let work = async move {
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
        Ok::<_, Error>((target, branch, held))
    };
    Box::pin(work.on_host().then(move |done, act, _| {
        let (target, branch, held) = match done {
            Ok(d) => d,
            Err(e) => return fail(Err(e)),
        };
        let path_text = target.to_string_lossy().into_owned();
        let rx = act.cx().events.publish(vec![Event::WorktreeChanged {
            operation: WorktreeOperation::Create,
            path: path_text.clone(),
            workspace_id: source_id.clone(),
        }]);
        Box::pin(
            async move { flatten(rx.await) }
                .on_host()
                .then(move |published, act, _| {
                    if let Err(e) = published {
                        return fail(Err(Error::CheckoutRetained {
                            error: Box::new(e),
                            path: path_text,
                        }));
                    }
                    bind(
                        &mut act.cx(),
                        Bind {
                            source: source_id,
                            path: target,
                            name,
                            branch: Some(branch),
                            announce: None,
                            retained: true,
                        },
                        held,
                    )
                }),
        )
    }))
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

/// `worktree.open`: a workspace for a registered checkout, or the open one.
pub fn open(cx: &mut Cx<'_>, p: WorktreeOpenParams) -> Routed {
    let name = match p.name.as_deref().map(validate_name).transpose() {
        Ok(n) => n,
        Err(e) => return fail(Err(e)),
    };
    let (source_id, git) = match source(cx, &p.workspace_id) {
        Ok(s) => s,
        Err(e) => return fail(Err(e)),
    };
    let checkouts = cx.checkouts.clone();
    let path = PathBuf::from(&p.path);
    let work = async move {
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
        Ok::<_, Error>((canonical, registration, mutation))
    };
    Box::pin(work.on_host().then(move |done, act, _| {
        let (canonical, registration, mutation) = match done {
            Ok(d) => d,
            Err(e) => return fail(Err(e)),
        };
        bind(
            &mut act.cx(),
            Bind {
                source: source_id,
                path: canonical,
                name,
                branch: registration.branch,
                announce: Some(WorktreeOperation::Open),
                retained: false,
            },
            Held {
                _mutation: mutation,
                _path: None,
            },
        )
    }))
}

/// What binding a workspace to a checkout needs (spec/tasks.md §11.5).
struct Bind {
    source: WorkspaceId,
    /// The canonical checkout path.
    path: PathBuf,
    name: Option<String>,
    branch: Option<String>,
    /// The `worktree.changed` to publish with a new workspace (`open`).
    announce: Option<WorktreeOperation>,
    /// A failure keeps a checkout just made: say where.
    retained: bool,
}

/// Binds a workspace: an entering reference on the checkout, its git facts
/// and `dirty` off the loop, then on the host the source must still exist and
/// an open workspace on the same canonical cwd is reused, else one is created.
fn bind(cx: &mut Cx<'_>, b: Bind, held: Held) -> Routed {
    let workspaces = workspace_cwds(cx);
    let checkouts = cx.checkouts.clone();
    let deadline = cx.config.limits.worktree_git_deadline;
    let path = b.path.clone();
    let probed = blocking(move || {
        let entering = checkouts.enter(&path)?;
        let dirty = wt::is_dirty(&Git::new(&path).deadline(deadline), Untracked::Normal).ok();
        let mut git = crate::os::git::probe(&path);
        git.dirty = dirty;
        let existing = workspace_where(&workspaces, |c| c == path);
        Ok((entering, git, existing))
    });
    Box::pin(probed.on_host().then(move |probed, act, ctx| {
        let path_text = b.path.to_string_lossy().into_owned();
        let outcome = probed.and_then(|(entering, git, existing)| {
            let cx = act.cx();
            cx.registry
                .workspace(&WorkspaceRef(b.source.0.clone()))
                .map_err(|_| Error::NoSuchWorkspace(WorkspaceRef(b.source.0.clone())))?;
            let projection = cx.events.projection();
            // A workspace created meanwhile on the canonical path counts too.
            let reused = existing
                .and_then(|id| projection.workspace(&id).cloned())
                .or_else(|| {
                    projection
                        .workspaces()
                        .into_iter()
                        .find(|w| w.cwd == path_text)
                });
            if let Some(workspace) = reused {
                return Ok((workspace, true));
            }
            let name = b
                .name
                .or(b.branch)
                .or_else(|| b.path.file_name().map(|n| n.to_string_lossy().into_owned()))
                .and_then(|n| validate_name(&n).ok())
                .unwrap_or_else(|| "worktree".to_owned());
            let (workspace, _) = act.register_workspace(ctx, name, path_text.clone(), git)?;
            // Registered: a removal's open-workspace check sees it from now on.
            drop(entering);
            Ok((workspace, false))
        });
        let retain = |e: Error| {
            if b.retained {
                Error::CheckoutRetained {
                    error: Box::new(e),
                    path: path_text.clone(),
                }
            } else {
                e
            }
        };
        let (workspace, reused) = match outcome {
            Ok(o) => o,
            Err(e) => return fail(Err(retain(e))),
        };
        let result = WorktreeBindResult {
            workspace: workspace.clone(),
            path: path_text.clone(),
            reused,
        };
        if reused {
            drop(held);
            return Box::pin(actix::fut::ready(Reply::of(Ok(result))));
        }
        let mut events = Vec::new();
        if let Some(operation) = b.announce {
            events.push(Event::WorktreeChanged {
                operation,
                path: path_text.clone(),
                workspace_id: b.source.clone(),
            });
        }
        events.push(Event::WorkspaceCreated { workspace });
        let rx = act.cx().events.publish(events);
        let retained = b.retained;
        Box::pin(
            async move { flatten(rx.await) }
                .on_host()
                .map(move |published, _, _| {
                    drop(held);
                    Reply::of(published.map(|_| result).map_err(|e| {
                        if retained {
                            Error::CheckoutRetained {
                                error: Box::new(e),
                                path: path_text,
                            }
                        } else {
                            e
                        }
                    }))
                }),
        )
    }))
}

/// `worktree.remove`: refusals in spec/tasks.md §11.4 order, then a non-force
/// `git worktree remove` while the path is reserved.
pub fn remove(cx: &mut Cx<'_>, p: WorktreeRemoveParams) -> Routed {
    let (source_id, git) = match source(cx, &p.workspace_id) {
        Ok(s) => s,
        Err(e) => return fail(Err(e)),
    };
    let checkouts = cx.checkouts.clone();
    let path = PathBuf::from(&p.path);
    let git_check = git.clone();
    let work = async move {
        let mutation = checkouts.mutation().await;
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
        Ok::<_, Error>((canonical, held, reservation))
    };
    Box::pin(work.on_host().then(move |done, act, _| {
        let (canonical, held, reservation) = match done {
            Ok(d) => d,
            Err(e) => return fail(Err(e)),
        };
        let cx = act.cx();
        // Read while reserved: no pane or workspace enters the checkout now,
        // and those entering before the reservation are registered already.
        let panes: Vec<LivePane> = cx
            .registry
            .panes()
            .filter_map(|entry| {
                let pane = cx.events.projection().pane(&entry.id)?;
                (pane.live == LiveState::Live).then(|| LivePane {
                    id: entry.id.clone(),
                    pid: entry.pid,
                    cwd: pane.cwd.clone(),
                })
            })
            .collect();
        let workspaces = workspace_cwds(&cx);
        let deadline = cx.config.limits.worktree_git_deadline;
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
        });
        Box::pin(removed.on_host().then(move |removed, act, _| {
            drop(reservation);
            let canonical = match removed {
                Ok(c) => c,
                Err(e) => return fail(Err(e)),
            };
            let path = canonical.to_string_lossy().into_owned();
            let rx = act.cx().events.publish(vec![Event::WorktreeChanged {
                operation: WorktreeOperation::Remove,
                path: path.clone(),
                workspace_id: source_id,
            }]);
            Box::pin(
                async move { flatten(rx.await) }
                    .on_host()
                    .map(move |published, _, _| {
                        drop(held);
                        Reply::of(published.map(|_| WorktreeRemoveResult {
                            removed: true,
                            path,
                        }))
                    }),
            )
        }))
    }))
}
