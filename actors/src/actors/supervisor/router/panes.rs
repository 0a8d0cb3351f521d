//! Routing of `pane.*` (spec/ipc.md §8.5): validation and id resolution here, the
//! launch and placement in the owning Workspace actor, everything about the
//! running process in the Pane actor. Reads of the pane object come from the
//! projection.

use super::Reply;
use super::{Cx, OnHost, Routed, fail, ready};
use crate::actors::connection::ConnHandle;
use crate::actors::pane::{
    Attach, ClearPane, Detach, IsLive, Pane, ReadPane, ResizePane, SetName, SignalPane, WriteInput,
};
use crate::actors::supervisor::Supervisor;
use crate::actors::workspace::{Arrangement, Rearrange, RemovePane, SpawnPane};
use crate::domain::launch;
use crate::domain::registry::{PaneEntry, PaneKey};
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::pty::SpawnSpec;
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::pane::{
    AgentKind, DetachedResult, LiveState, MAX_INPUT_B64, MAX_READ_LINES, Pane as PaneObject,
    PaneAttachParams, PaneClearResult, PaneCloseParams, PaneGetResult, PaneInputParams,
    PaneInputResult, PaneReadParams, PaneReadResult, PaneRenameParams, PaneResizeParams,
    PaneResult, PaneSignalParams, PaneSpawnParams, PaneSplitParams, PaneTarget,
    PaneWaitForOutputParams, PaneWaitForOutputResult, PtySize, ReadMode, Relationship, SentResult,
};
use signaltty_protocol::pane::{Integration, PaneLaunchResult};
use signaltty_protocol::pane::{PaneMoveParams, PaneSwapParams, TabsResult};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{ClosedResult, SplitDir};
use signaltty_protocol::{PaneId, PaneRef, Timestamp};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The most bytes of a human label.
pub const MAX_LABEL_CHARS: usize = 128;

/// `pane.spawn`.
pub fn spawn(cx: &mut Cx<'_>, p: PaneSpawnParams) -> Routed {
    match check_spawn(cx, p) {
        Ok(checked) => spawn_checked(checked, None),
        Err(e) => fail(Err(e)),
    }
}

/// A spawn whose params passed the checks that need no filesystem, in the
/// order of spec/pty-terminal.md §2.2; the cwd is checked next, off the event
/// loop, and the tab after it.
struct Checked {
    workspace_ref: signaltty_protocol::WorkspaceRef,
    workspace: signaltty_protocol::WorkspaceId,
    tab: Option<signaltty_protocol::TabId>,
    argv: Vec<String>,
    cwd: PathBuf,
    size: PtySize,
    kind: AgentKind,
    request_env: std::collections::BTreeMap<String, String>,
    parent: Option<launch::Lineage>,
    relationship: Option<Relationship>,
    label: Option<String>,
    task_id: Option<String>,
    checkouts: crate::domain::worktrees::Checkouts,
}

/// Everything a launch needs: the pane object and its process's spawn.
struct Prepared {
    workspace: signaltty_protocol::WorkspaceId,
    addr: Addr<crate::actors::workspace::Workspace>,
    tab: Option<signaltty_protocol::TabId>,
    pane: PaneObject,
    spec: SpawnSpec,
    split: Option<(PaneId, SplitDir)>,
    /// Keeps a `worktree.remove` of the cwd out until the pane is registered.
    entering: Option<crate::domain::worktrees::Reservation>,
}

fn check_spawn(cx: &mut Cx<'_>, p: PaneSpawnParams) -> Result<Checked, Error> {
    let (workspace_id, _) = cx.registry.workspace(&p.workspace_id)?;
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
    Ok(Checked {
        workspace_ref: p.workspace_id,
        workspace: workspace_id,
        tab: p.tab_id,
        argv: p.argv,
        cwd,
        size,
        kind,
        request_env: p.env.unwrap_or_default(),
        parent,
        relationship: p.relationship,
        label: p.label,
        task_id: p.task_id,
        checkouts: cx.checkouts.clone(),
    })
}

/// Checks the cwd on a blocking thread, then (back on the host, where the
/// registry may have changed meanwhile) the workspace and the tab, builds the
/// pane and launches it.
fn spawn_checked(checked: Checked, split: Option<(PaneId, SplitDir)>) -> Routed {
    let cwd = checked.cwd.clone();
    let checkouts = checked.checkouts.clone();
    let is_dir = actix_rt::task::spawn_blocking(move || {
        if !cwd.is_dir() {
            return Ok(None);
        }
        checkouts.enter_dir(&cwd).map(Some)
    });
    Box::pin(is_dir.on_host().then(move |is_dir, act, ctx| {
        let cx = &mut act.cx();
        let prepared = match is_dir {
            Ok(Ok(Some(entering))) => finish_spawn(cx, checked, split, entering),
            Ok(Err(e)) => Err(e),
            Ok(Ok(None)) => Err(Error::BadParams(format!(
                "cwd {} is not a directory",
                checked.cwd.display()
            ))),
            Err(e) => Err(Error::Io {
                what: "pane cwd check".into(),
                source: std::io::Error::other(e.to_string()),
            }),
        };
        match prepared {
            Ok(prepared) => launch(cx, prepared, ctx),
            Err(e) => fail(Err(e)),
        }
    }))
}

/// The checks after the cwd's, then the pane itself (`launch::build_pane`).
fn finish_spawn(
    cx: &mut Cx<'_>,
    checked: Checked,
    split: Option<(PaneId, SplitDir)>,
    entering: Option<crate::domain::worktrees::Reservation>,
) -> Result<Prepared, Error> {
    let (workspace_id, addr) = cx.registry.workspace(&checked.workspace_ref)?;
    if let Some(tab) = &checked.tab {
        match cx.registry.tab_owner(tab) {
            None => return Err(Error::NoSuchTab(tab.clone())),
            Some(owner) if *owner != workspace_id => {
                return Err(Error::BadParams(format!(
                    "tab {tab} belongs to another workspace"
                )));
            },
            Some(_) => {},
        }
    }
    let (pane, spec) = launch::build_pane(launch::PaneRecipe {
        id: PaneId::from_random(random_u128()),
        workspace: checked.workspace.clone(),
        argv: checked.argv,
        cwd: checked.cwd,
        size: checked.size,
        kind: checked.kind,
        request_env: checked.request_env,
        parent: checked.parent,
        relationship: checked.relationship,
        label: checked.label,
        task_id: checked.task_id,
        server_env: std::env::vars().collect(),
        socket: &cx.config.socket,
        now: Timestamp::now(),
    });
    Ok(Prepared {
        workspace: workspace_id,
        addr,
        tab: checked.tab,
        pane,
        spec,
        split,
        entering,
    })
}

fn launch(cx: &mut Cx<'_>, prepared: Prepared, ctx: &mut Context<Supervisor>) -> Routed {
    let Prepared {
        workspace,
        addr,
        tab,
        pane,
        spec,
        split,
        entering,
    } = prepared;
    let pty_out = ctx.address().recipient();
    // Counted from now: a hook of the new process may arrive before it is placed.
    cx.launches.begin();
    let config_env = pane.agent.config_env.clone().unwrap_or_default();
    with_integration(cx, spec, config_env, move |cx, spec, integration| {
        let arbiter = cx.arbiters.next_arbiter();
        let tail = signaltty_model::term::TailSlot::default();
        let sent = addr.send(SpawnPane {
            pane,
            tab,
            spec,
            arbiter,
            pty_out,
            split,
            config: cx.config.clone(),
            tail: tail.clone(),
        });
        // A workspace whose actor stopped meanwhile was closed: it is gone.
        let gone = Error::NoSuchWorkspace(signaltty_protocol::WorkspaceRef(workspace.0.clone()));
        Box::pin(sent.on_host().map(move |r, act, _| {
            let placed = r.map_err(|_| gone).and_then(|inner| inner);
            let cx = act.cx();
            // Hooks from the new process that arrived too early retry now.
            cx.launches.end();
            let reply = Reply::of(placed.map(|(pane, pane_addr, pid)| {
                // A tab the spawn created is addressable like any other.
                cx.registry.add_pane(PaneEntry {
                    id: pane.id.clone(),
                    addr: pane_addr,
                    workspace: workspace.clone(),
                    tab: pane.tab_id.clone(),
                    pid,
                    tail,
                });
                PaneLaunchResult { pane, integration }
            }));
            // Registered (or failed): a removal now sees the pane itself.
            drop(entering);
            reply
        }))
    })
}

/// Prepares a supported agent's hooks before its process starts (spec/agents.md
/// §11.7), off the event loop, then goes on with the spec to execute (Codex may
/// gain `--no-daemon`) and the integration report. Other programs go straight on.
fn with_integration(
    cx: &mut Cx<'_>,
    spec: SpawnSpec,
    config_env: std::collections::BTreeMap<String, String>,
    then: impl FnOnce(&mut Cx<'_>, SpawnSpec, Option<Integration>) -> Routed + 'static,
) -> Routed {
    if signaltty_model::integration::launch::agent_of(&spec.argv).is_none() {
        return then(cx, spec, None);
    }
    let fallback = spec.clone();
    let setup = actix_rt::task::spawn_blocking(move || {
        signaltty_model::integration::launch::prepare(&spec.argv, &config_env, &spec.cwd, &spec.env)
    });
    Box::pin(setup.on_host().then(move |done, act, _| {
        let mut spec = fallback;
        match done {
            Ok(prepared) => {
                if let Some(argv) = prepared.exec_argv {
                    spec.argv = argv;
                }
                then(&mut act.cx(), spec, prepared.integration)
            },
            // The setup itself failed: the launch still goes ahead.
            Err(e) => {
                let integration =
                    signaltty_model::integration::launch::agent_of(&spec.argv).map(|a| {
                        Integration {
                            agent: a.name().to_owned(),
                            status: "error".to_owned(),
                            changed: false,
                            file: None,
                            notice: Some(format!(
                                "{} status setup failed: {e}. The terminal remains available.",
                                a.name()
                            )),
                        }
                    });
                then(&mut act.cx(), spec, integration)
            },
        }
    }))
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
        let checked = check_spawn(cx, params)?;
        Ok((
            checked,
            (entry.id.clone(), p.direction.unwrap_or(SplitDir::Right)),
        ))
    });
    match prepared {
        Ok((checked, split)) => spawn_checked(checked, Some(split)),
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

/// `pane.close`: hang up the process, drop the pane from its tab.
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
    Box::pin(
        workspace
            .send(RemovePane {
                pane_id: id.clone(),
                signal,
            })
            .on_host()
            .map(move |r, act, _| {
                let result = r.map_err(Error::from).and_then(|inner| inner);
                if result.is_ok() {
                    act.cx().registry.remove_pane(&id);
                }
                Reply::of(result.map(|()| ClosedResult { closed: true }))
            }),
    )
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
    Box::pin(workspace.send(msg).on_host().map(|r, act, _| {
        let result = r.map_err(Error::from).and_then(|inner| inner);
        Reply::of(result.map(|(tabs, moved)| {
            for (id, tab) in moved {
                act.cx().registry.move_pane(&id, tab);
            }
            TabsResult { tabs }
        }))
    }))
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
    let Some(argv) = launch::resume_command(&pane) else {
        return fail(Err(Error::BadParams(format!(
            "pane {} is not resumable: its agent reported no session to resume",
            pane.id
        ))));
    };
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
    // Only the retained config variables are passed again (CLAUDE_CONFIG_DIR, …).
    let config_env = pane.agent.config_env.clone().unwrap_or_default();
    let env = launch::child_env(
        std::env::vars(),
        &config_env,
        pane.id.as_str(),
        &cx.config.socket,
    );
    let spec = SpawnSpec {
        argv,
        cwd: PathBuf::from(&pane.cwd),
        env,
        rows: pane.pty_size.rows,
        cols: pane.pty_size.cols,
    };
    let gone = Error::NoSuchPane(pane.id.0.clone());
    let id = entry.id.clone();
    let addr = entry.addr.clone();
    with_integration(cx, spec, config_env, move |_cx, spec, integration| {
        Box::pin(
            addr.send(crate::actors::pane::Resume { spec })
                .on_host()
                .map(move |answer, act, _| {
                    let result = answer.map_err(|_| gone).and_then(|inner| inner);
                    Reply::of(result.map(|(pane, pid)| {
                        act.cx().registry.set_pid(&id, pid);
                        PaneLaunchResult { pane, integration }
                    }))
                }),
        )
    })
}
