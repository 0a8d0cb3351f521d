//! Routing of `pane.*` (spec/ipc.md §8.5): validation and id resolution here, the
//! launch and placement in the owning Workspace actor, everything about the
//! running process in the Pane actor. Reads of the pane object come from the
//! projection.

use super::{Routed, ready};
use crate::error::Error;
use crate::ids::random_u128;
use crate::launch;
use crate::pane::{Attach, Detach, Pane, ReadPane, ResizePane, SignalPane, WriteInput};
use crate::pty::SpawnSpec;
use crate::supervisor::{ConnHandle, PaneEntry, Reply, Supervisor};
use crate::workspace::{RemovePane, SpawnPane};
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::pane::{
    AgentInfo, AgentKind, Attention, DetachedResult, Lifecycle, LiveState, MAX_INPUT_B64,
    Pane as PaneObject, PaneAttachParams, PaneAttachResult, PaneCloseParams, PaneGetResult,
    PaneInputParams, PaneInputResult, PaneReadParams, PaneReadResult, PaneResizeParams, PaneResult,
    PaneSignalParams, PaneSpawnParams, PaneTarget, PtySize, ReadMode, Relationship, RestoreState,
    SentResult,
};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::ClosedResult;
use signaltty_protocol::{PaneId, Timestamp};
use std::path::PathBuf;

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
        attention: Attention::None,
        attention_since: None,
        last_message: None,
        created_at: now.clone(),
        last_activity_at: now,
        relationship: parent
            .as_ref()
            .map(|_| p.relationship.unwrap_or(Relationship::Subagent)),
        parent_pane_id: parent,
        root_pane_id: root,
        label: p.label,
        task_id: p.task_id,
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
    })
}

fn launch(sup: &mut Supervisor, prepared: Prepared, ctx: &mut Context<Supervisor>) -> Routed {
    let Prepared {
        workspace,
        addr,
        tab,
        pane,
        spec,
    } = prepared;
    let arbiter = sup.next_pane_arbiter();
    let pty_out = ctx.address().recipient();
    let sent = addr.send(SpawnPane {
        pane,
        tab,
        spec,
        arbiter,
        pty_out,
    });
    Box::pin(sent.into_actor(sup).map(move |r, act, _| {
        let placed = r.map_err(Error::from).and_then(|inner| inner);
        Reply::of(placed.map(|(pane, pane_addr)| {
            // A tab the spawn created is addressable like any other.
            act.tabs
                .entry(pane.tab_id.clone())
                .or_insert_with(|| workspace.clone());
            act.panes.insert(
                pane.id.clone(),
                PaneEntry {
                    addr: pane_addr,
                    workspace: workspace.clone(),
                    tab: pane.tab_id.clone(),
                },
            );
            PaneResult { pane }
        }))
    }))
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
        pane,
        wait_baseline: None,
    }))
}

/// Sends `msg` to a pane's actor and wraps its answer. A pane closed while the
/// request was on its way answers `NO_SUCH_PANE`: it no longer exists.
fn ask_pane<M, T, R>(
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
