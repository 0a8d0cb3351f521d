//! Routing of `pane.*` (spec/ipc.md §8.5): validation and id resolution here, the
//! launch and placement in the owning Workspace actor, everything about the
//! running process in the Pane actor. Reads of the pane object come from the
//! projection.

use super::{Routed, ready};
use crate::error::Error;
use crate::ids::random_u128;
use crate::launch;
use crate::pane::{
    Attach, ClearPane, Detach, IsLive, Pane, ReadPane, ResizePane, SetName, SignalPane, WriteInput,
};
use crate::pty::SpawnSpec;
use crate::supervisor::{ConnHandle, PaneEntry, Reply, Supervisor};
use crate::workspace::{Arrangement, Rearrange, RemovePane, SpawnPane};
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::pane::{
    AgentInfo, AgentKind, Attention, DetachedResult, Lifecycle, LiveState, MAX_INPUT_B64,
    MAX_READ_LINES, Pane as PaneObject, PaneAttachParams, PaneAttachResult, PaneClearResult,
    PaneCloseParams, PaneGetResult, PaneInputParams, PaneInputResult, PaneReadParams,
    PaneReadResult, PaneRenameParams, PaneResizeParams, PaneResult, PaneSignalParams,
    PaneSpawnParams, PaneSplitParams, PaneTarget, PaneWaitForOutputParams, PaneWaitForOutputResult,
    PtySize, ReadMode, Relationship, RestoreState, SentResult,
};
use signaltty_protocol::pane::{Integration, PaneLaunchResult};
use signaltty_protocol::pane::{PaneMoveParams, PaneSwapParams, TabsResult};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{ClosedResult, SplitDir};
use signaltty_protocol::{PaneId, Timestamp};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The most bytes of a human label.
pub const MAX_LABEL_CHARS: usize = 128;

/// `pane.spawn`.
pub fn spawn(sup: &mut Supervisor, p: PaneSpawnParams, ctx: &mut Context<Supervisor>) -> Routed {
    match prepare_spawn(sup, p) {
        Ok(prepared) => launch(sup, prepared, ctx),
        Err(e) => ready::<PaneResult>(Err(e)),
    }
}

/// Everything a spawn needs, checked in the order of spec/pty-terminal.md §2.2.
struct Prepared {
    workspace: signaltty_protocol::WorkspaceId,
    addr: Addr<crate::workspace::Workspace>,
    tab: Option<signaltty_protocol::TabId>,
    pane: PaneObject,
    spec: SpawnSpec,
    split: Option<(PaneId, SplitDir)>,
}

fn prepare_spawn(sup: &mut Supervisor, p: PaneSpawnParams) -> Result<Prepared, Error> {
    let (workspace_id, addr) = sup.resolve_workspace(&p.workspace_id)?;
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
    let (parent, root) = match &p.parent_pane_id {
        Some(r) => {
            let parent = sup.resolve_pane_ref(r)?;
            let root = sup
                .projection
                .pane(&parent)
                .and_then(|pp| pp.root_pane_id.clone())
                .unwrap_or_else(|| parent.clone());
            (Some(parent), Some(root))
        },
        None => (None, None),
    };
    if let Some(label) = &p.label
        && label.chars().count() > MAX_LABEL_CHARS
    {
        return Err(Error::BadParams(format!(
            "label is longer than {MAX_LABEL_CHARS} characters"
        )));
    }
    let workspace = sup
        .projection
        .workspace(&workspace_id)
        .cloned()
        .ok_or_else(|| Error::NoSuchWorkspace(p.workspace_id.clone()))?;
    let cwd = PathBuf::from(p.cwd.as_deref().unwrap_or(&workspace.cwd));
    if !cwd.is_absolute() {
        return Err(Error::BadParams(format!(
            "cwd {} is not an absolute path",
            cwd.display()
        )));
    }
    // A metadata call on a local directory: cheap enough for the routing turn, and it
    // must happen before any tab is touched.
    if !cwd.is_dir() {
        return Err(Error::BadParams(format!(
            "cwd {} is not a directory",
            cwd.display()
        )));
    }
    if let Some(tab) = &p.tab_id {
        match sup.tabs.get(tab) {
            None => return Err(Error::NoSuchTab(tab.clone())),
            Some(owner) if *owner != workspace_id => {
                return Err(Error::BadParams(format!(
                    "tab {tab} belongs to another workspace"
                )));
            },
            Some(_) => {},
        }
    }
    let argv = launch::anchor_argv(p.argv, &cwd);
    let pane_id = PaneId::from_random(random_u128());
    let request_env = p.env.clone().unwrap_or_default();
    let mut env_in = request_env.clone();
    if let Some(parent) = &parent {
        env_in.insert("SIGNALTTY_PARENT_PANE".into(), parent.0.clone());
    }
    let env = launch::child_env(
        std::env::vars(),
        &env_in,
        pane_id.as_str(),
        &sup.config.socket,
    );
    let now = Timestamp::now();
    let pane = PaneObject {
        id: pane_id,
        workspace_id: workspace_id.clone(),
        tab_id: signaltty_protocol::TabId(String::new()),
        name: None,
        title: launch::initial_title(&argv),
        cwd: cwd.to_string_lossy().into_owned(),
        argv: argv.clone(),
        pty_size: size,
        live: LiveState::Live,
        restore_state: RestoreState::Live,
        agent: AgentInfo {
            kind,
            agent_session_id: None,
            resume_argv: None,
            model: None,
            config_env: launch::config_env(&request_env, &cwd),
        },
        lifecycle: Lifecycle::Unknown,
        last_lifecycle: Lifecycle::Unknown,
        lifecycle_since: Some(now.clone()),
        last_run_secs: None,
        attention: Attention::None,
        attention_since: None,
        last_message: None,
        created_at: now.clone(),
        last_activity_at: now,
        last_seen_at: None,
        relationship: parent
            .as_ref()
            .map(|_| p.relationship.unwrap_or(Relationship::Subagent)),
        parent_pane_id: parent,
        root_pane_id: root,
        label: p.label,
        task_id: p.task_id,
        pending_decision: None,
    };
    let spec = SpawnSpec {
        argv,
        cwd,
        env,
        rows: size.rows,
        cols: size.cols,
    };
    Ok(Prepared {
        workspace: workspace_id,
        addr,
        tab: p.tab_id,
        pane,
        spec,
        split: None,
    })
}

fn launch(sup: &mut Supervisor, prepared: Prepared, ctx: &mut Context<Supervisor>) -> Routed {
    let Prepared {
        workspace,
        addr,
        tab,
        pane,
        spec,
        split,
    } = prepared;
    let pty_out = ctx.address().recipient();
    // Counted from now: a hook of the new process may arrive before it is placed.
    sup.launching += 1;
    let config_env = pane.agent.config_env.clone().unwrap_or_default();
    with_integration(sup, spec, config_env, move |sup, spec, integration| {
        let arbiter = sup.next_pane_arbiter();
        let sent = addr.send(SpawnPane {
            pane,
            tab,
            spec,
            arbiter,
            pty_out,
            split,
            config: sup.config.clone(),
        });
        Box::pin(sent.into_actor(sup).map(move |r, act, _| {
            let placed = r.map_err(Error::from).and_then(|inner| inner);
            act.launching -= 1;
            // Hooks from the new process that arrived too early retry now.
            act.launched.send_modify(|n| *n += 1);
            Reply::of(placed.map(|(pane, pane_addr, pid)| {
                // A tab the spawn created is addressable like any other.
                act.tabs
                    .entry(pane.tab_id.clone())
                    .or_insert_with(|| workspace.clone());
                act.panes.insert(
                    pane.id.clone(),
                    PaneEntry {
                        id: pane.id.clone(),
                        addr: pane_addr,
                        workspace: workspace.clone(),
                        tab: pane.tab_id.clone(),
                        pid,
                    },
                );
                PaneLaunchResult { pane, integration }
            }))
        }))
    })
}

/// Prepares a supported agent's hooks before its process starts (spec/agents.md
/// §11.7), off the event loop, then goes on with the spec to execute (Codex may
/// gain `--no-daemon`) and the integration report. Other programs go straight on.
fn with_integration(
    sup: &mut Supervisor,
    spec: SpawnSpec,
    config_env: std::collections::BTreeMap<String, String>,
    then: impl FnOnce(&mut Supervisor, SpawnSpec, Option<Integration>) -> Routed + 'static,
) -> Routed {
    if crate::integration::launch::agent_of(&spec.argv).is_none() {
        return then(sup, spec, None);
    }
    let fallback = spec.clone();
    let setup = actix_rt::task::spawn_blocking(move || {
        crate::integration::launch::prepare(&spec.argv, &config_env, &spec.cwd, &spec.env)
    });
    Box::pin(setup.into_actor(sup).then(move |done, act, _| {
        let mut spec = fallback;
        match done {
            Ok(prepared) => {
                if let Some(argv) = prepared.exec_argv {
                    spec.argv = argv;
                }
                then(act, spec, prepared.integration)
            },
            // The setup itself failed: the launch still goes ahead.
            Err(e) => {
                let integration =
                    crate::integration::launch::agent_of(&spec.argv).map(|a| Integration {
                        agent: a.name().to_owned(),
                        status: "error".to_owned(),
                        changed: false,
                        file: None,
                        notice: Some(format!(
                            "{} status setup failed: {e}. The terminal remains available.",
                            a.name()
                        )),
                    });
                then(act, spec, integration)
            },
        }
    }))
}

/// `pane.split`: a new pane beside an existing one, in its tab.
pub fn split(sup: &mut Supervisor, p: PaneSplitParams, ctx: &mut Context<Supervisor>) -> Routed {
    let prepared = sup.pane_entry(&p.pane_id).and_then(|entry| {
        let source = sup
            .projection
            .pane(&entry.id)
            .cloned()
            .ok_or_else(|| Error::NoSuchPane(entry.id.0.clone()))?;
        let argv = p.argv.clone().unwrap_or_else(|| vec![user_shell()]);
        let params = PaneSpawnParams {
            cwd: Some(p.cwd.clone().unwrap_or_else(|| source.cwd.clone())),
            cols: Some(source.pty_size.cols),
            rows: Some(source.pty_size.rows),
            ..PaneSpawnParams::new(
                signaltty_protocol::WorkspaceRef(source.workspace_id.0.clone()),
                argv,
            )
        };
        let mut prepared = prepare_spawn(sup, params)?;
        prepared.split = Some((entry.id.clone(), p.direction.unwrap_or(SplitDir::Right)));
        Ok(prepared)
    });
    match prepared {
        Ok(prepared) => launch(sup, prepared, ctx),
        Err(e) => ready::<PaneResult>(Err(e)),
    }
}

/// The user's shell for a pane started without a command: `$SHELL`, else `sh`.
fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "sh".to_owned())
}

/// `pane.get`: the pane object from the projection.
pub fn get(sup: &mut Supervisor, p: PaneTarget) -> Routed {
    let found = sup.resolve_pane_ref(&p.pane_id).and_then(|id| {
        sup.projection
            .pane(&id)
            .cloned()
            .ok_or(Error::NoSuchPane(id.0))
    });
    ready(found.map(|pane| PaneGetResult {
        wait_baseline: sup.projection.progress(&pane.id).map(|p| p.baseline(&pane)),
        pane,
    }))
}

/// Sends `msg` to a pane's actor and wraps its answer. A pane closed while the
/// request was on its way answers `NO_SUCH_PANE`: it no longer exists.
pub(super) fn ask_pane<M, T, R>(
    sup: &mut Supervisor,
    r: &PaneId,
    msg: M,
    wrap: impl FnOnce(T) -> R + 'static,
) -> Routed
where
    M: Message<Result = Result<T, Error>> + Send + 'static,
    T: Send + 'static,
    R: serde::Serialize + 'static,
    Pane: Handler<M>,
{
    let entry = match sup.pane_entry(r) {
        Ok(e) => e,
        Err(e) => return ready::<R>(Err(e)),
    };
    let gone = Error::NoSuchPane(r.0.clone());
    Box::pin(
        entry
            .addr
            .send(msg)
            .into_actor(sup)
            .map(move |answer, _, _| {
                Reply::of(answer.map_err(|_| gone).and_then(|inner| inner).map(wrap))
            }),
    )
}

/// `pane.read`.
pub fn read(sup: &mut Supervisor, p: PaneReadParams) -> Routed {
    let msg = ReadPane {
        mode: p.mode.unwrap_or(ReadMode::Tail),
        lines: p.lines.unwrap_or(200),
        after_seq: p.after_seq.unwrap_or(0),
    };
    ask_pane(sup, &p.pane_id, msg, |r: PaneReadResult| r)
}

/// `pane.input`.
pub fn input(sup: &mut Supervisor, p: PaneInputParams) -> Routed {
    if p.data_b64.len() > MAX_INPUT_B64 {
        return ready::<PaneInputResult>(Err(Error::RateLimited(format!(
            "input too large: data_b64 is limited to {MAX_INPUT_B64} characters"
        ))));
    }
    let bytes = match base64::engine::general_purpose::STANDARD.decode(p.data_b64.as_bytes()) {
        Ok(b) => b,
        Err(e) => {
            return ready::<PaneInputResult>(Err(Error::BadParams(format!(
                "data_b64 is not valid base64: {e}"
            ))));
        },
    };
    ask_pane(sup, &p.pane_id, WriteInput { bytes }, |n: usize| {
        PaneInputResult { written: n as u64 }
    })
}

/// `pane.resize`.
pub fn resize(sup: &mut Supervisor, p: PaneResizeParams) -> Routed {
    let size = PtySize::clamped(p.cols, p.rows);
    ask_pane(sup, &p.pane_id, ResizePane { size }, |pane| PaneResult {
        pane,
    })
}

/// `pane.signal`.
pub fn signal(sup: &mut Supervisor, p: PaneSignalParams) -> Routed {
    let msg = SignalPane {
        signal: p.signal,
        group: p.group.unwrap_or(false),
    };
    ask_pane(sup, &p.pane_id, msg, |()| SentResult { sent: true })
}

/// `pane.close`: hang up the process, drop the pane from its tab.
pub fn close(sup: &mut Supervisor, p: PaneCloseParams) -> Routed {
    let id = match sup.resolve_pane_ref(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return ready::<ClosedResult>(Err(e)),
    };
    let Some(workspace) = sup
        .panes
        .get(&id)
        .and_then(|e| sup.workspaces.get(&e.workspace))
        .cloned()
    else {
        return ready::<ClosedResult>(Err(Error::NoSuchPane(id.0)));
    };
    let signal = p.signal.unwrap_or(SignalName::Term);
    Box::pin(
        workspace
            .send(RemovePane {
                pane_id: id.clone(),
                signal,
            })
            .into_actor(sup)
            .map(move |r, act, _| {
                let result = r.map_err(Error::from).and_then(|inner| inner);
                if result.is_ok() {
                    act.panes.remove(&id);
                    act.forget_closed_names();
                }
                Reply::of(result.map(|()| ClosedResult { closed: true }))
            }),
    )
}

/// `pane.attach`: register the connection as a viewer; the reply carries the
/// snapshot and the offset it covers.
pub fn attach(sup: &mut Supervisor, conn: &ConnHandle, p: PaneAttachParams) -> Routed {
    let entry = match sup.pane_entry(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return ready::<PaneAttachResult>(Err(e)),
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
    };
    let conn_id = conn.id;
    let gone = closed(&p.pane_id);
    Box::pin(pane_id.send(msg).into_actor(sup).map(move |r, act, _| {
        let result = r.map_err(|_| gone).and_then(|inner| inner);
        if result.is_ok() {
            act.attachments
                .entry(conn_id)
                .or_default()
                .insert(entry.addr.clone());
        }
        Reply::of(result)
    }))
}

/// `pane.detach`: forget the viewer; the process is untouched.
pub fn detach(sup: &mut Supervisor, conn: &ConnHandle, p: PaneTarget) -> Routed {
    let entry = match sup.pane_entry(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return ready::<DetachedResult>(Err(e)),
    };
    entry.addr.do_send(Detach { conn: conn.id });
    if let Some(set) = sup.attachments.get_mut(&conn.id) {
        set.remove(&entry.addr);
    }
    ready(Ok(DetachedResult { detached: true }))
}

/// The error for a pane whose actor stopped while a request was on its way: it
/// was closed meanwhile, so it no longer exists.
fn closed(pane: &PaneId) -> Error {
    Error::NoSuchPane(pane.0.clone())
}

/// The longest pane name, in bytes.
pub const MAX_PANE_NAME_BYTES: usize = 32;

/// Is `name` a valid pane name: `[a-z][a-z0-9_-]*`, at most 32 bytes?
pub fn valid_pane_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_PANE_NAME_BYTES
        && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// `pane.rename`: a unique name, usable wherever a pane id is; `null` clears it.
pub fn rename(sup: &mut Supervisor, p: PaneRenameParams) -> Routed {
    let Some(name) = p.name else {
        return ready::<PaneResult>(Err(Error::BadParams(
            "name is required (null clears it)".into(),
        )));
    };
    let entry = match sup.pane_entry(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return ready::<PaneResult>(Err(e)),
    };
    if let Some(n) = &name {
        if !valid_pane_name(n) {
            return ready::<PaneResult>(Err(Error::BadParams(format!(
                "invalid pane name {n:?}: use a lowercase letter, then lowercase letters, digits, _ or -, at most {MAX_PANE_NAME_BYTES} bytes"
            ))));
        }
        if sup
            .pane_names
            .get(n)
            .is_some_and(|holder| *holder != entry.id)
        {
            return ready::<PaneResult>(Err(Error::BadParams(format!(
                "the name {n:?} is taken by another pane"
            ))));
        }
    }
    // Reserved now, in the routing turn, so two renames cannot take one name.
    sup.pane_names.retain(|_, holder| *holder != entry.id);
    if let Some(n) = &name {
        sup.pane_names.insert(n.clone(), entry.id.clone());
    }
    ask_pane(sup, &entry.id, SetName { name }, |pane| PaneResult { pane })
}

/// `pane.clear`.
pub fn clear(sup: &mut Supervisor, p: PaneTarget) -> Routed {
    ask_pane(sup, &p.pane_id, ClearPane, |output_offset| {
        PaneClearResult {
            cleared: true,
            output_offset,
        }
    })
}

/// How often `pane.wait_for_output` reads the pane again.
pub const WAIT_POLL: Duration = Duration::from_millis(100);

/// `pane.wait_for_output`: reads every 100 ms until a line matches, the process
/// has exited with no match in a final read (`PANE_EXITED`), or the time is up.
pub fn wait_for_output(sup: &mut Supervisor, p: PaneWaitForOutputParams) -> Routed {
    let matcher = match Matcher::new(&p.pattern, p.regex.unwrap_or(false)) {
        Ok(m) => m,
        Err(e) => return ready::<PaneWaitForOutputResult>(Err(e)),
    };
    let entry = match sup.pane_entry(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return ready::<PaneWaitForOutputResult>(Err(e)),
    };
    let timeout = Duration::from_secs(p.timeout_s.unwrap_or(3600));
    let Some(deadline) = Instant::now().checked_add(timeout) else {
        return ready::<PaneWaitForOutputResult>(Err(Error::BadParams(
            "timeout_s is too large".into(),
        )));
    };
    let mode = p.mode.unwrap_or(ReadMode::Tail);
    let lines = p.lines.unwrap_or(200);
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
    Box::pin(waited.into_actor(sup).map(|r, _, _| Reply::of(r)))
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
    sup: &mut Supervisor,
    a: &PaneId,
    b: &PaneId,
    arrangement: impl FnOnce(PaneId, PaneId) -> Arrangement,
) -> Routed {
    let (ea, eb) = match (sup.pane_entry(a), sup.pane_entry(b)) {
        (Ok(ea), Ok(eb)) => (ea, eb),
        (Err(e), _) | (_, Err(e)) => return ready::<TabsResult>(Err(e)),
    };
    if ea.workspace != eb.workspace {
        return ready::<TabsResult>(Err(Error::BadParams(
            "the panes are in different workspaces".into(),
        )));
    }
    let Some(workspace) = sup.workspaces.get(&ea.workspace).cloned() else {
        return ready::<TabsResult>(Err(Error::NoSuchPane(ea.id.0)));
    };
    let msg = Rearrange {
        arrangement: arrangement(ea.id, eb.id),
    };
    Box::pin(workspace.send(msg).into_actor(sup).map(|r, act, _| {
        let result = r.map_err(Error::from).and_then(|inner| inner);
        Reply::of(result.map(|(tabs, moved)| {
            for (id, tab) in moved {
                if let Some(entry) = act.panes.get_mut(&id) {
                    entry.tab = tab;
                }
            }
            TabsResult { tabs }
        }))
    }))
}

/// `pane.swap`.
pub fn swap(sup: &mut Supervisor, p: PaneSwapParams) -> Routed {
    rearrange(sup, &p.pane_id, &p.target_pane_id, Arrangement::Swap)
}

/// `pane.move`.
pub fn move_pane(sup: &mut Supervisor, p: PaneMoveParams) -> Routed {
    let dir = p.direction.unwrap_or(SplitDir::Right);
    rearrange(sup, &p.pane_id, &p.target_pane_id, |pane, target| {
        Arrangement::Move { pane, target, dir }
    })
}

/// `pane.resume`: the tombstone's agent again, with its adapter's resume
/// command, in the same pane (spec/ipc.md §8.5).
pub fn resume(sup: &mut Supervisor, p: PaneTarget) -> Routed {
    let entry = match sup.pane_entry(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return ready::<PaneResult>(Err(e)),
    };
    let Some(pane) = sup.projection.pane(&entry.id).cloned() else {
        return ready::<PaneResult>(Err(Error::NoSuchPane(entry.id.0.clone())));
    };
    if pane.live == LiveState::Live {
        return ready::<PaneResult>(Err(Error::BadParams(format!(
            "pane {} is already live",
            pane.id
        ))));
    }
    let Some(argv) = pane.agent.resume_argv.clone() else {
        return ready::<PaneResult>(Err(Error::BadParams(format!(
            "pane {} is not resumable: its agent reported no session to resume",
            pane.id
        ))));
    };
    // Only the retained config variables are passed again (CLAUDE_CONFIG_DIR, …).
    let config_env = pane.agent.config_env.clone().unwrap_or_default();
    let env = launch::child_env(
        std::env::vars(),
        &config_env,
        pane.id.as_str(),
        &sup.config.socket,
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
    with_integration(sup, spec, config_env, move |sup, spec, integration| {
        Box::pin(addr.send(crate::pane::Resume { spec }).into_actor(sup).map(
            move |answer, act, _| {
                let result = answer.map_err(|_| gone).and_then(|inner| inner);
                Reply::of(result.map(|(pane, pid)| {
                    if let Some(e) = act.panes.get_mut(&id) {
                        e.pid = pid;
                    }
                    PaneLaunchResult { pane, integration }
                }))
            },
        ))
    })
}
