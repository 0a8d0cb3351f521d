//! Routing of `worktree.*` (docs/worktrees.md): the source workspace is
//! resolved here, then the Worktrees actor, which owns these operations and
//! their `worktree.changed` events, runs them.

use super::{Cx, Routed, answer, ask, fail, validate_name};
use crate::actors::worktrees::{Create, List, Open, Remove, Source, Worktrees};
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::WorkspaceRef;
use signaltty_protocol::worktree::{
    WorktreeCreateParams, WorktreeListParams, WorktreeOpenParams, WorktreeRemoveParams,
};
use std::path::PathBuf;

/// The source workspace and the Worktrees actor.
fn source(cx: &Cx<'_>, r: &WorkspaceRef) -> Result<(Source, Addr<Worktrees>), Error> {
    let (id, _) = cx.registry.workspace(r)?;
    let cwd = cx
        .events
        .projection()
        .workspace(&id)
        .map(|w| w.cwd.clone())
        .ok_or_else(|| Error::NoSuchWorkspace(r.clone()))?;
    let owner = cx
        .worktrees
        .clone()
        .ok_or_else(|| Error::Internal("the worktrees' actor is not running".into()))?;
    Ok((Source { id, cwd }, owner))
}

/// A name for a new workspace, checked.
fn name_of(name: Option<&str>) -> Result<Option<String>, Error> {
    name.map(validate_name).transpose()
}

/// `worktree.list`.
pub fn list(cx: &mut Cx<'_>, p: WorktreeListParams) -> Routed {
    match source(cx, &p.workspace_id) {
        Ok((source, owner)) => answer(ask(owner, List(source))),
        Err(e) => fail(Err(e)),
    }
}

/// `worktree.create`.
pub fn create(cx: &mut Cx<'_>, p: WorktreeCreateParams) -> Routed {
    let name = match name_of(p.name.as_deref()) {
        Ok(n) => n,
        Err(e) => return fail(Err(e)),
    };
    match source(cx, &p.workspace_id) {
        Ok((source, owner)) => answer(ask(
            owner,
            Create {
                source,
                path: PathBuf::from(&p.path),
                branch: p.branch,
                name,
            },
        )),
        Err(e) => fail(Err(e)),
    }
}

/// `worktree.open`.
pub fn open(cx: &mut Cx<'_>, p: WorktreeOpenParams) -> Routed {
    let name = match name_of(p.name.as_deref()) {
        Ok(n) => n,
        Err(e) => return fail(Err(e)),
    };
    match source(cx, &p.workspace_id) {
        Ok((source, owner)) => answer(ask(
            owner,
            Open {
                source,
                path: PathBuf::from(&p.path),
                name,
            },
        )),
        Err(e) => fail(Err(e)),
    }
}

/// `worktree.remove`.
pub fn remove(cx: &mut Cx<'_>, p: WorktreeRemoveParams) -> Routed {
    match source(cx, &p.workspace_id) {
        Ok((source, owner)) => answer(ask(
            owner,
            Remove {
                source,
                path: PathBuf::from(&p.path),
            },
        )),
        Err(e) => fail(Err(e)),
    }
}
