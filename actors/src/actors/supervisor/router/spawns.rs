//! Routing of the launches of `pane.*` (docs/methods.md#panespawn,
//! #panesplit, #paneresume): the checks that need neither the file system
//! nor a workspace's tabs here, the launch in the workspace's actor
//! (`actors/workspace/launch.rs`), a resume in the pane's own actor.

use super::{Cx, Routed, answer, fail};

use crate::actors::directory::LaunchTicket;
use crate::actors::workspace::{Launch, Launched, Spawn};
use crate::domain::launch;
use crate::error::Error;
use crate::ids::random_u128;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{
    AgentKind, LiveState, PaneLaunchResult, PaneSpawnParams, PaneSplitParams, PaneTarget, PtySize,
};
use signaltty_protocol::workspace::SplitDir;
use std::path::PathBuf;

/// The most bytes of a human label.
pub const MAX_LABEL_CHARS: usize = 128;

/// `pane.spawn`, for a workflow: the launch, typed.
pub(crate) fn start(
    cx: &mut Cx<'_>,
    p: PaneSpawnParams,
) -> impl std::future::Future<Output = Result<Launched, Error>> + 'static {
    let checked = check_spawn(cx, p, None);
    let launched = checked.map(|(at, launch)| launch_in(cx, at, launch));
    async move { launched?.await }
}

/// `pane.spawn`.
pub fn spawn(cx: &mut Cx<'_>, p: PaneSpawnParams) -> Routed {
    match check_spawn(cx, p, None) {
        Ok((at, launch)) => {
            let launched = launch_in(cx, at, launch);
            answer(async move {
                launched.await.map(|l| PaneLaunchResult {
                    pane: l.pane,
                    integration: l.integration,
                })
            })
        },
        Err(e) => fail(Err(e)),
    }
}

/// The checks of a spawn that need neither the file system nor the
/// workspace's tabs, in the order of docs/methods.md#panespawn; the
/// workspace's actor checks the cwd next, then the tab.
fn check_spawn(
    cx: &mut Cx<'_>,
    p: PaneSpawnParams,
    split: Option<(PaneId, SplitDir)>,
) -> Result<(WorkspaceAt, Launch), Error> {
    let (workspace_id, addr) = cx.registry.workspace(&p.workspace_id)?;
    room_for(cx, 1)?;
    if p.argv.is_empty() || p.argv[0].is_empty() {
        return Err(Error::BadParams("argv must name a program".into()));
    }
    let size = PtySize::clamped(
        p.cols.unwrap_or(PtySize::DEFAULT.cols),
        p.rows.unwrap_or(PtySize::DEFAULT.rows),
    );
    let kind = match &p.agent_hint {
        Some(hint) => AgentKind::parse(hint).unwrap_or(AgentKind::None),
        None => launch::detect_kind(&p.argv),
    };
    let parent = match &p.parent_pane_id {
        Some(r) => {
            let parent = cx.registry.resolve(r)?;
            let root = cx
                .events
                .projection()
                .pane(&parent)
                .and_then(|pp| pp.root_pane_id.clone())
                .unwrap_or_else(|| parent.clone());
            Some(launch::Lineage { parent, root })
        },
        None => None,
    };
    if let Some(env) = &p.env {
        launch::check_overrides(env).map_err(Error::BadParams)?;
    }
    if let Some(label) = &p.label
        && label.chars().count() > MAX_LABEL_CHARS
    {
        return Err(Error::BadParams(format!(
            "label is longer than {MAX_LABEL_CHARS} characters"
        )));
    }
    let workspace = cx
        .events
        .projection()
        .workspace(&workspace_id)
        .ok_or_else(|| Error::NoSuchWorkspace(p.workspace_id.clone()))?;
    let cwd = PathBuf::from(p.cwd.as_deref().unwrap_or(&workspace.cwd));
    if !cwd.is_absolute() {
        return Err(Error::BadParams(format!(
            "cwd {} is not an absolute path",
            cwd.display()
        )));
    }
    // Whether the tab named is this workspace's, as the registry knows now;
    // reported after the cwd check.
    let (tab, tab_check) = match &p.tab_id {
        None => (None, Ok(())),
        Some(tab) => match cx.registry.tab_of(tab)? {
            None => (Some(tab.clone()), Err(Error::NoSuchTab(tab.clone()))),
            Some((full, owner)) if *owner != workspace_id => (
                Some(full),
                Err(Error::BadParams(format!(
                    "tab {tab} belongs to another workspace"
                ))),
            ),
            Some((full, _)) => (Some(full), Ok(())),
        },
    };
    let launch = Launch {
        id: PaneId::from_random(random_u128()),
        argv: p.argv,
        cwd,
        size,
        kind,
        request_env: p.env.unwrap_or_default(),
        parent,
        relationship: p.relationship,
        label: p.label,
        task_id: p.task_id,
        tab,
        tab_check,
        split,
    };
    Ok(((workspace_id, addr), launch))
}

/// `SPAWN_FAILED` when `more` live panes would pass what the open-file limit
/// allows (docs/panes.md#how-many-panes): refused before anything starts,
/// rather than a server that runs out of descriptors.
pub(super) fn room_for(cx: &Cx<'_>, more: usize) -> Result<(), Error> {
    let capacity = super::server::pane_capacity();
    let live = cx.events.projection().live_pane_count();
    let max = usize::try_from(capacity.max_live_panes).unwrap_or(usize::MAX);
    if live.saturating_add(more) <= max {
        return Ok(());
    }
    Err(Error::SpawnFailed(format!(
        "{live} panes are live and the server's open-file limit ({}) allows at most {max}: \
         close panes, or raise the limit (`ulimit -n` before `signaltty start`, or \
         LimitNOFILE= in its systemd unit; docs/panes.md#how-many-panes)",
        capacity.open_file_limit
    )))
}

/// A workspace and its actor.
type WorkspaceAt = (
    signaltty_protocol::WorkspaceId,
    Addr<crate::actors::workspace::Workspace>,
);

/// Asks the workspace's actor to launch `launch`, counted as a launch under
/// way from now: a hook of the new process may arrive before its pane is
/// registered, and the workspace ends the launch when it registers it.
pub(super) fn launch_in(
    cx: &mut Cx<'_>,
    (workspace, addr): WorkspaceAt,
    launch: Launch,
) -> impl std::future::Future<Output = Result<Launched, Error>> + 'static {
    let Some(me) = cx.me.clone() else {
        return futures_util::future::Either::Left(std::future::ready(Err(Error::Internal(
            "the Supervisor is not running".into(),
        ))));
    };
    cx.launches.begin();
    let sent = addr.send(Spawn {
        launch,
        arbiter: cx.arbiters.next_arbiter(),
        pty_out: cx.events.pty_out(),
        config: cx.config.clone(),
        checkouts: cx.checkouts.clone(),
        ticket: LaunchTicket::new(me.recipient(), Vec::new()),
    });
    futures_util::future::Either::Right(async move {
        // A workspace whose actor stopped meanwhile was closed: it is gone.
        sent.await
            .map_err(|_| Error::NoSuchWorkspace(signaltty_protocol::WorkspaceRef(workspace.0)))?
    })
}

/// `pane.split`: a new pane beside an existing one, in its tab.
pub fn split(cx: &mut Cx<'_>, p: PaneSplitParams) -> Routed {
    let prepared = cx.registry.pane(&p.pane_id).and_then(|entry| {
        let source = cx
            .events
            .projection()
            .pane(&entry.id)
            .cloned()
            .ok_or_else(|| Error::NoSuchPane(entry.id.0.clone()))?;
        let argv = p.argv.clone().unwrap_or_else(|| vec![user_shell()]);
        let params = PaneSpawnParams {
            cwd: Some(p.cwd.clone().unwrap_or_else(|| source.cwd.clone())),
            cols: Some(source.pty_size.cols),
            rows: Some(source.pty_size.rows),
            env: p.env.clone(),
            ..PaneSpawnParams::new(
                signaltty_protocol::WorkspaceRef(source.workspace_id.0.clone()),
                argv,
            )
        };
        let split = (entry.id.clone(), p.direction.unwrap_or(SplitDir::Right));
        check_spawn(cx, params, Some(split))
    });
    match prepared {
        Ok((at, launch)) => {
            let launched = launch_in(cx, at, launch);
            answer(async move {
                launched.await.map(|l| PaneLaunchResult {
                    pane: l.pane,
                    integration: l.integration,
                })
            })
        },
        Err(e) => fail(Err(e)),
    }
}

/// The user's shell for a pane started without a command: `$SHELL`, else `sh`.
pub(super) fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "sh".to_owned())
}

/// `pane.resume`: the tombstone's agent again, with its adapter's resume
/// command, in the same pane (docs/methods.md#paneresume).
pub fn resume(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    // A hibernated pane resumed by hand is woken (docs/restore.md#waking-up).
    let hibernated = cx.registry.resolve(&p.pane_id).is_ok_and(|id| {
        cx.events
            .projection()
            .pane(&id)
            .is_some_and(|p| p.restore_state == signaltty_protocol::pane::RestoreState::Hibernated)
    });
    match resume_pane(cx, &p.pane_id, hibernated.then_some("resume")) {
        Ok(resumed) => answer(resumed),
        Err(e) => fail(Err(e)),
    }
}

/// The checks of `pane.resume` now, and the resume in the pane's actor to
/// await; a wake (docs/restore.md#waking-up) names what woke the pane.
pub(crate) fn resume_pane(
    cx: &mut Cx<'_>,
    target: &signaltty_protocol::PaneRef,
    woke_by: Option<&'static str>,
) -> Result<
    impl std::future::Future<Output = Result<PaneLaunchResult, Error>> + 'static + use<>,
    Error,
> {
    let entry = cx.registry.pane(target)?;
    let Some(pane) = cx.events.projection().pane(&entry.id).cloned() else {
        return Err(Error::NoSuchPane(entry.id.0.clone()));
    };
    // A wake finds the pane live when another wake came first: the pane's
    // actor answers it as woken (docs/restore.md#waking-up).
    if pane.live == LiveState::Live && woke_by.is_none() {
        return Err(Error::BadParams(format!(
            "pane {} is already live",
            pane.id
        )));
    }
    room_for(cx, 1)?;
    if launch::resume_command(&pane).is_none() {
        return Err(Error::BadParams(
            signaltty_model::agents::programs::not_resumable_because(&pane),
        ));
    }
    // One conversation runs in one pane: a session already live elsewhere is
    // not resumed a second time.
    if let Some(session) = &pane.agent.agent_session_id
        && let Some(other) = cx
            .events
            .projection()
            .panes_with_session(pane.agent.kind, session)
            .into_iter()
            .find(|p| p.id != pane.id && p.live == LiveState::Live)
    {
        return Err(Error::BadParams(format!(
            "pane {} is not resumed: its session {session} is already live in pane {}",
            pane.id, other.id
        )));
    }
    let Some(me) = cx.me.clone() else {
        return Err(Error::Internal("the Supervisor is not running".into()));
    };
    let gone = Error::NoSuchPane(pane.id.0.clone());
    let resumed = entry.addr.send(crate::actors::pane::Resume {
        socket: cx.config.socket.clone(),
        os: cx.config.os.clone(),
        directory: me.recipient(),
        woke_by,
    });
    Ok(async move {
        let (pane, integration) = resumed.await.map_err(|_| gone)??;
        Ok(PaneLaunchResult { pane, integration })
    })
}
