//! Routing of `workspace.*` (docs/methods.md#workspacecreate and below): the
//! directory check of a new workspace runs off the event loop, then the
//! Supervisor opens it ([`OpenWorkspace`]: a free handle, a started and
//! registered actor, which publishes `workspace.created` itself); every
//! other change is asked of the workspace's own actor.

use super::{Cx, Routed, answer, ask, fail, ready};
use crate::actors::services::OpenWorkspace;
use crate::actors::workspace::{
    Close, Rename, SetAutoContinue, SetAutoResume, SetHibernate, Workspace as WorkspaceActor,
    check_dir,
};
use crate::domain::worktrees::Checkouts;
use crate::error::Error;
use crate::os::seams::Os;
use actix::prelude::*;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{
    ClosedResult, WorkspaceCreateParams, WorkspaceGetResult, WorkspaceResult,
    WorkspaceSetAutoContinueParams,
};
use signaltty_protocol::{WorkspaceId, WorkspaceRef};
use std::path::PathBuf;

use crate::actors::workspace::DirtyCheck;
pub(super) use crate::actors::workspace::validate_name;

/// `workspace.create`.
pub fn create(cx: &mut Cx<'_>, p: WorkspaceCreateParams) -> Routed {
    let name = match p.name.as_deref().map(validate_name).transpose() {
        Ok(n) => n.unwrap_or_else(|| "workspace".to_owned()),
        Err(e) => return fail(Err(e)),
    };
    let cwd = match p.cwd {
        Some(c) => PathBuf::from(c),
        None => cx
            .config
            .home
            .clone()
            .unwrap_or_else(|| PathBuf::from("/tmp")),
    };
    let Some(me) = cx.me.clone() else {
        return fail(Err(Error::Internal("the Supervisor is not running".into())));
    };
    let opened = open(
        me.recipient(),
        cx.config.os.clone(),
        cx.checkouts.clone(),
        name,
        cwd,
        DirtyCheck::Now,
    );
    answer(async move { opened.await.map(|workspace| WorkspaceResult { workspace }) })
}

/// Checks `cwd` off the event loop, then has the Supervisor open a workspace
/// there. The entering reference on the directory keeps a `worktree.remove`
/// out until the workspace is registered.
pub async fn open(
    supervisor: Recipient<OpenWorkspace>,
    os: Os,
    checkouts: Checkouts,
    name: String,
    cwd: PathBuf,
    dirty: DirtyCheck,
) -> Result<signaltty_protocol::workspace::Workspace, Error> {
    let checked = actix_rt::task::spawn_blocking(move || {
        let checked = check_dir(&os, cwd.clone(), dirty)?;
        let entering = checkouts.enter_dir(&cwd)?;
        Ok::<_, Error>((checked, entering))
    })
    .await
    .map_err(|e| Error::Io {
        what: "workspace cwd check".into(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let ((cwd, git), _entering) = checked?;
    let (workspace, _) = supervisor
        .send(OpenWorkspace {
            name,
            cwd,
            git,
            dirty_later: dirty == DirtyCheck::Later,
        })
        .await??;
    Ok(workspace)
}

/// `workspace.get`: by id, else by handle, from the projection.
pub fn get(cx: &Cx<'_>, r: &WorkspaceRef) -> Result<WorkspaceGetResult, Error> {
    let projection = cx.events.projection();
    let workspace = projection
        .workspace(&WorkspaceId(r.0.clone()))
        .cloned()
        .or_else(|| {
            projection
                .workspaces()
                .into_iter()
                .find(|w| w.handle == r.0)
        })
        .ok_or_else(|| Error::NoSuchWorkspace(r.clone()))?;
    Ok(WorkspaceGetResult {
        tabs: projection.tabs_of(&workspace),
        panes: projection.panes_of(&workspace),
        workspace,
    })
}

/// `workspace.rename`.
pub fn rename(cx: &mut Cx<'_>, r: &WorkspaceRef, name: &str) -> Routed {
    let name = match validate_name(name) {
        Ok(n) => n,
        Err(e) => return fail(Err(e)),
    };
    update(cx, r, Rename { name })
}

/// `workspace.set_auto_resume`.
pub fn set_auto_resume(cx: &mut Cx<'_>, r: &WorkspaceRef, on: bool) -> Routed {
    update(cx, r, SetAutoResume { on })
}

/// The longest `workspace.set_hibernate` idle time: a week.
pub const MAX_HIBERNATE_AFTER_S: u64 = 7 * 86_400;

/// `workspace.set_hibernate` (docs/methods.md#workspaceset_hibernate).
pub fn set_hibernate(cx: &mut Cx<'_>, r: &WorkspaceRef, after_s: u64) -> Routed {
    if after_s > MAX_HIBERNATE_AFTER_S {
        return fail(Err(Error::BadParams(format!(
            "after_s must be 0 (off) to {MAX_HIBERNATE_AFTER_S} seconds, not {after_s}"
        ))));
    }
    update(cx, r, SetHibernate { after_s })
}

/// The longest auto-continue prompt, in bytes.
pub const MAX_CONTINUE_PROMPT: usize = 1024;

/// `workspace.set_auto_continue` (docs/methods.md#workspaceset_auto_continue).
pub fn set_auto_continue(cx: &mut Cx<'_>, p: WorkspaceSetAutoContinueParams) -> Routed {
    let prompt = p.prompt.map(|t| t.trim().to_owned());
    if let Some(t) = &prompt
        && (t.is_empty()
            || t.len() > MAX_CONTINUE_PROMPT
            || t.contains("\x1b[200~")
            || t.contains("\x1b[201~"))
    {
        return fail(Err(Error::BadParams(format!(
            "prompt must be 1 to {MAX_CONTINUE_PROMPT} bytes of text with no bracketed-paste marker"
        ))));
    }
    update(
        cx,
        &p.workspace_id,
        SetAutoContinue {
            enabled: p.enabled,
            prompt,
        },
    )
}

/// Asks the workspace's actor for a change that answers with the workspace.
fn update<M>(cx: &mut Cx<'_>, r: &WorkspaceRef, msg: M) -> Routed
where
    M: Message<Result = Result<signaltty_protocol::workspace::Workspace, Error>> + Send + 'static,
    WorkspaceActor: Handler<M>,
{
    match cx.registry.workspace(r) {
        Ok((_, addr)) => {
            let asked = ask(addr, msg);
            answer(async move { asked.await.map(|workspace| WorkspaceResult { workspace }) })
        },
        Err(e) => fail(Err(e)),
    }
}

/// `workspace.close`: the workspace's actor closes its tabs and panes,
/// publishes, and tells the registry.
pub fn close(cx: &mut Cx<'_>, r: &WorkspaceRef, signal: Option<SignalName>) -> Routed {
    let signal = signal.unwrap_or(SignalName::Term);
    match cx.registry.workspace(r) {
        Ok((_, addr)) => {
            let asked = ask(addr, Close { signal });
            answer(async move { asked.await.map(|()| ClosedResult { closed: true }) })
        },
        Err(e) => fail(Err(e)),
    }
}

/// The list, in creation order.
pub fn list(cx: &Cx<'_>) -> Routed {
    ready(Ok(signaltty_protocol::workspace::WorkspaceListResult {
        workspaces: cx.events.projection().workspaces(),
    }))
}
