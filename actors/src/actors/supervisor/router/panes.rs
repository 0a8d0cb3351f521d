//! Routing of `pane.*` (spec/ipc.md §8.5): validation and id resolution here, the
//! launch and placement in the owning Workspace actor, everything about the
//! running process in the Pane actor. Reads of the pane object come from the
//! projection.

use super::Reply;
use super::{Cx, OnHost, Routed, answer, fail, ready};
use crate::actors::connection::ConnHandle;
use crate::actors::directory::LaunchTicket;
use crate::actors::pane::{
    Attach, ClearPane, Detach, IsLive, Pane, ReadPane, ResizePane, SetName, SignalPane, WriteInput,
};
use crate::actors::workspace::{Arrangement, Launch, Launched, Rearrange, RemovePane, Spawn};
use crate::domain::launch;
use crate::domain::registry::PaneKey;
use crate::error::Error;
use crate::ids::random_u128;
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::pane::PaneLaunchResult;
use signaltty_protocol::pane::{
    AgentKind, DetachedResult, LiveState, MAX_INPUT_B64, MAX_READ_LINES, PaneAttachParams,
    PaneClearResult, PaneCloseParams, PaneGetResult, PaneInputParams, PaneInputResult,
    PaneReadParams, PaneReadResult, PaneRenameParams, PaneResizeParams, PaneResult,
    PaneSignalParams, PaneSpawnParams, PaneSplitParams, PaneTarget, PaneWaitForOutputParams,
    PaneWaitForOutputResult, PtySize, ReadMode, SentResult,
};
use signaltty_protocol::pane::{PaneMoveParams, PaneSwapParams, TabsResult};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{ClosedResult, SplitDir};
use signaltty_protocol::{PaneId, PaneRef};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    let tab_check = match &p.tab_id {
        None => Ok(()),
        Some(tab) => match cx.registry.tab_owner(tab) {
            None => Err(Error::NoSuchTab(tab.clone())),
            Some(owner) if *owner != workspace_id => Err(Error::BadParams(format!(
                "tab {tab} belongs to another workspace"
            ))),
            Some(_) => Ok(()),
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
        tab: p.tab_id,
        tab_check,
        split,
    };
    Ok(((workspace_id, addr), launch))
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

/// `pane.get`: the pane object from the projection.
pub fn get(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    let found = cx.registry.resolve(&p.pane_id).and_then(|id| {
        cx.events
            .projection()
            .pane(&id)
            .cloned()
            .ok_or(Error::NoSuchPane(id.0))
    });
    ready(found.map(|pane| {
        PaneGetResult {
            wait_baseline: cx
                .events
                .projection()
                .progress(&pane.id)
                .map(|p| p.baseline(&pane)),
            pane,
        }
    }))
}

/// Sends `msg` to a pane's actor and wraps its answer. A pane closed while the
/// request was on its way answers `NO_SUCH_PANE`: it no longer exists.
pub(super) fn ask_pane<M, T, R>(
    cx: &mut Cx<'_>,
    r: &(impl PaneKey + std::fmt::Display),
    msg: M,
    wrap: impl FnOnce(T) -> R + 'static,
) -> Routed
where
    M: Message<Result = Result<T, Error>> + Send + 'static,
    T: Send + 'static,
    R: serde::Serialize + 'static,
    Pane: Handler<M>,
{
    let entry = match cx.registry.pane(r) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let gone = Error::NoSuchPane(r.to_string());
    Box::pin(entry.addr.send(msg).on_host().map(move |answer, _, _| {
        Reply::of(answer.map_err(|_| gone).and_then(|inner| inner).map(wrap))
    }))
}

/// `pane.read`.
pub fn read(cx: &mut Cx<'_>, p: PaneReadParams) -> Routed {
    let msg = ReadPane {
        mode: p.mode.unwrap_or(ReadMode::Tail),
        lines: p.lines.unwrap_or(200),
        after_seq: p.after_seq.unwrap_or(0),
        strip_ansi: p.strip_ansi.unwrap_or(true),
    };
    ask_pane(cx, &p.pane_id, msg, |r: PaneReadResult| r)
}

/// `pane.input`.
pub fn input(cx: &mut Cx<'_>, p: PaneInputParams) -> Routed {
    if p.data_b64.len() > MAX_INPUT_B64 {
        return fail(Err(Error::RateLimited(format!(
            "input too large: data_b64 is limited to {MAX_INPUT_B64} characters"
        ))));
    }
    let bytes = match base64::engine::general_purpose::STANDARD.decode(p.data_b64.as_bytes()) {
        Ok(b) => b,
        Err(e) => {
            return fail(Err(Error::BadParams(format!(
                "data_b64 is not valid base64: {e}"
            ))));
        },
    };
    ask_pane(cx, &p.pane_id, WriteInput { bytes }, |n: usize| {
        PaneInputResult { written: n as u64 }
    })
}

/// `pane.resize`.
pub fn resize(cx: &mut Cx<'_>, p: PaneResizeParams) -> Routed {
    let size = PtySize::clamped(p.cols, p.rows);
    ask_pane(cx, &p.pane_id, ResizePane { size }, |pane| PaneResult {
        pane,
    })
}

/// `pane.signal`.
pub fn signal(cx: &mut Cx<'_>, p: PaneSignalParams) -> Routed {
    let msg = SignalPane {
        signal: p.signal,
        group: p.group.unwrap_or(false),
    };
    ask_pane(cx, &p.pane_id, msg, |()| SentResult { sent: true })
}

/// `pane.close`: hang up the process, drop the pane from its tab; its
/// workspace's actor forgets it in the registry.
pub fn close(cx: &mut Cx<'_>, p: PaneCloseParams) -> Routed {
    let id = match cx.registry.resolve(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
    };
    let Some(workspace) = cx
        .registry
        .pane_by_id(&id)
        .and_then(|e| cx.registry.workspace_addr(&e.workspace))
    else {
        return fail(Err(Error::NoSuchPane(id.0)));
    };
    let signal = p.signal.unwrap_or(SignalName::Term);
    let removed = super::ask(
        workspace,
        RemovePane {
            pane_id: id,
            signal,
        },
    );
    answer(async move { removed.await.map(|()| ClosedResult { closed: true }) })
}

/// `pane.attach`: register the connection as a viewer; the reply carries the
/// snapshot and the offset it covers.
pub fn attach(cx: &mut Cx<'_>, conn: &ConnHandle, p: PaneAttachParams) -> Routed {
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let size = match (p.cols, p.rows) {
        (Some(cols), Some(rows)) => Some(PtySize::clamped(cols, rows)),
        _ => None,
    };
    let pane_id = entry.addr.clone();
    let msg = Attach {
        conn: conn.id,
        viewer: conn.pty.clone(),
        size,
        mark_seen: p.mark_seen.unwrap_or(true),
        watch: p.watch.unwrap_or(false),
    };
    let conn_id = conn.id;
    let gone = closed(&p.pane_id);
    Box::pin(pane_id.send(msg).on_host().map(move |r, act, _| {
        let result = r.map_err(|_| gone).and_then(|inner| inner);
        if result.is_ok() {
            act.cx().registry.attach(conn_id, &entry.id);
        }
        Reply::of(result)
    }))
}

/// `pane.detach`: forget the viewer; the process is untouched.
pub fn detach(cx: &mut Cx<'_>, conn: &ConnHandle, p: PaneTarget) -> Routed {
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    entry.addr.do_send(Detach { conn: conn.id });
    cx.registry.detach(conn.id, &entry.id);
    ready(Ok(DetachedResult { detached: true }))
}

/// The error for a pane whose actor stopped while a request was on its way: it
/// was closed meanwhile, so it no longer exists.
fn closed(pane: &PaneRef) -> Error {
    Error::NoSuchPane(pane.0.clone())
}

/// `pane.rename`: a unique name, usable wherever a pane id is; `null` clears it.
pub fn rename(cx: &mut Cx<'_>, p: PaneRenameParams) -> Routed {
    let Some(name) = p.name else {
        return fail(Err(Error::BadParams(
            "name is required (null clears it)".into(),
        )));
    };
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    // Validated and reserved now, in the routing turn, so two renames cannot
    // take one name.
    if let Err(e) = cx.registry.set_pane_name(&entry.id, name.as_deref()) {
        return fail(Err(e));
    }
    ask_pane(cx, &entry.id, SetName { name }, |pane| PaneResult { pane })
}

/// `pane.clear`.
pub fn clear(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    ask_pane(cx, &p.pane_id, ClearPane, |output_offset| PaneClearResult {
        cleared: true,
        output_offset,
    })
}

/// How often `pane.wait_for_output` reads the pane again.
pub const WAIT_POLL: Duration = Duration::from_millis(100);

/// `pane.wait_for_output`: reads every 100 ms until a line matches, the process
/// has exited with no match in a final read (`PANE_EXITED`), or the time is up.
pub fn wait_for_output(cx: &mut Cx<'_>, p: PaneWaitForOutputParams) -> Routed {
    let matcher = match Matcher::new(&p.pattern, p.regex.unwrap_or(false)) {
        Ok(m) => m,
        Err(e) => return fail(Err(e)),
    };
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let timeout = Duration::from_secs(p.timeout_s.unwrap_or(3600));
    let Some(deadline) = Instant::now().checked_add(timeout) else {
        return fail(Err(Error::BadParams("timeout_s is too large".into())));
    };
    let mode = p.mode.unwrap_or(ReadMode::Tail);
    let lines = p.lines.unwrap_or(200);
    let strip_ansi = p.strip_ansi.unwrap_or(true);
    let mut after = p.after_seq.unwrap_or(0);
    let id = entry.id.clone();
    let addr = entry.addr;
    let waited = async move {
        let gone = || Error::NoSuchPane(id.0.clone());
        loop {
            let live = addr.send(IsLive).await.map_err(|_| gone())?;
            // Rendered polls read the whole cap so a burst cannot step past a match.
            let want = if mode == ReadMode::Rendered {
                MAX_READ_LINES
            } else {
                lines
            };
            let read = addr
                .send(ReadPane {
                    mode,
                    lines: want,
                    after_seq: after,
                    strip_ansi,
                })
                .await
                .map_err(|_| gone())??;
            if let Some(line) = read.text.lines().find(|l| matcher.is_match(l)) {
                return Ok(PaneWaitForOutputResult {
                    matched_line: line.to_owned(),
                    read,
                });
            }
            if !live {
                return Err(Error::PaneExited {
                    pane: id.0.clone(),
                    written: None,
                });
            }
            if mode == ReadMode::Rendered {
                after = match (read.dropped, read.next_seq) {
                    (Some(true), _) => 0,
                    (_, Some(next)) => next,
                    _ => after,
                };
            }
            if Instant::now() >= deadline {
                return Err(Error::Timeout {
                    what: "waiting for output".into(),
                    written: None,
                });
            }
            tokio::time::sleep(WAIT_POLL.min(deadline.saturating_duration_since(Instant::now())))
                .await;
        }
    };
    Box::pin(waited.on_host().map(|r, _, _| Reply::of(r)))
}

/// A substring or a regex.
enum Matcher {
    Text(String),
    Regex(regex::Regex),
}

impl Matcher {
    fn new(pattern: &str, regex: bool) -> Result<Matcher, Error> {
        if pattern.is_empty() {
            return Err(Error::BadParams("match must not be empty".into()));
        }
        if regex {
            regex::Regex::new(pattern)
                .map(Matcher::Regex)
                .map_err(|e| Error::BadParams(format!("invalid regex: {e}")))
        } else {
            Ok(Matcher::Text(pattern.to_owned()))
        }
    }

    fn is_match(&self, line: &str) -> bool {
        match self {
            Matcher::Text(t) => line.contains(t.as_str()),
            Matcher::Regex(r) => r.is_match(line),
        }
    }
}

/// `pane.swap` / `pane.move`: both panes must be distinct and in one workspace.
fn rearrange(
    cx: &mut Cx<'_>,
    a: &PaneRef,
    b: &PaneRef,
    arrangement: impl FnOnce(PaneId, PaneId) -> Arrangement,
) -> Routed {
    let (ea, eb) = match (cx.registry.pane(a), cx.registry.pane(b)) {
        (Ok(ea), Ok(eb)) => (ea, eb),
        (Err(e), _) | (_, Err(e)) => return fail(Err(e)),
    };
    if ea.workspace != eb.workspace {
        return fail(Err(Error::BadParams(
            "the panes are in different workspaces".into(),
        )));
    }
    let Some(workspace) = cx.registry.workspace_addr(&ea.workspace) else {
        return fail(Err(Error::NoSuchPane(ea.id.0)));
    };
    let msg = Rearrange {
        arrangement: arrangement(ea.id, eb.id),
    };
    let rearranged = super::ask(workspace, msg);
    answer(async move { rearranged.await.map(|(tabs, _moved)| TabsResult { tabs }) })
}

/// `pane.swap`.
pub fn swap(cx: &mut Cx<'_>, p: PaneSwapParams) -> Routed {
    rearrange(cx, &p.pane_id, &p.target_pane_id, Arrangement::Swap)
}

/// `pane.move`.
pub fn move_pane(cx: &mut Cx<'_>, p: PaneMoveParams) -> Routed {
    let dir = p.direction.unwrap_or(SplitDir::Right);
    rearrange(cx, &p.pane_id, &p.target_pane_id, |pane, target| {
        Arrangement::Move { pane, target, dir }
    })
}

/// `pane.resume`: the tombstone's agent again, with its adapter's resume
/// command, in the same pane (spec/ipc.md §8.5).
pub fn resume(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let Some(pane) = cx.events.projection().pane(&entry.id).cloned() else {
        return fail(Err(Error::NoSuchPane(entry.id.0.clone())));
    };
    if pane.live == LiveState::Live {
        return fail(Err(Error::BadParams(format!(
            "pane {} is already live",
            pane.id
        ))));
    }
    if launch::resume_command(&pane).is_none() {
        return fail(Err(Error::BadParams(format!(
            "pane {} is not resumable: its agent reported no session to resume",
            pane.id
        ))));
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
        return fail(Err(Error::BadParams(format!(
            "pane {} is not resumed: its session {session} is already live in pane {}",
            pane.id, other.id
        ))));
    }
    let Some(me) = cx.me.clone() else {
        return fail(Err(Error::Internal("the Supervisor is not running".into())));
    };
    let gone = Error::NoSuchPane(pane.id.0.clone());
    let resumed = entry.addr.send(crate::actors::pane::Resume {
        socket: cx.config.socket.clone(),
        os: cx.config.os.clone(),
        directory: me.recipient(),
    });
    answer(async move {
        let (pane, integration) = resumed.await.map_err(|_| gone)??;
        Ok(PaneLaunchResult { pane, integration })
    })
}
