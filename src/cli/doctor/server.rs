//! Probes of the running server: the socket (where it is, where that came
//! from, its permissions), `server.status` under a deadline, and which live
//! agent panes are read from their screens only.

use super::verdict::{self, Check, Owned, ServerSeen, Verdict};
use crate::cli::failure;
use signaltty_model::client::{CallError, Client};
use signaltty_model::{Env, SocketOrigin};
use signaltty_protocol::pane::{AgentKind, LiveState, PaneTarget};
use signaltty_protocol::server::ServerStatusResult;
use signaltty_protocol::state::PaneExplainResult;
use signaltty_protocol::workspace::{WorkspaceGetParams, WorkspaceGetResult, WorkspaceListResult};
use signaltty_protocol::{ErrorCode, Method, PaneRef, WorkspaceRef};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the server gets to answer each call.
pub const ANSWER_DEADLINE: Duration = Duration::from_secs(2);

/// At most this many live panes are explained.
const MAX_EXPLAINED: usize = 32;

/// The live panes are looked at until this long after the first connect.
const PANES_DEADLINE: Duration = Duration::from_secs(4);

/// The socket this doctor looks at, and a word on where the path came from.
pub struct Socket {
    pub path: PathBuf,
    pub origin: SocketOrigin,
    pub from: &'static str,
}

/// The socket path by the CLI's rules (`--socket` > `$SIGNALTTY_SOCKET` >
/// `$XDG_RUNTIME_DIR` > `/tmp`).
pub fn socket(env: &Env, flag: Option<&Path>) -> Socket {
    let (path, origin) = env.socket_path(flag);
    let from = if flag.is_some_and(|f| !f.as_os_str().is_empty()) {
        "--socket"
    } else if env.signaltty_socket.is_some() {
        "$SIGNALTTY_SOCKET"
    } else if env
        .xdg_runtime_dir
        .as_ref()
        .is_some_and(|d| Path::new(d).is_absolute())
    {
        "$XDG_RUNTIME_DIR"
    } else {
        "/tmp fallback: $XDG_RUNTIME_DIR is not set"
    };
    Socket { path, origin, from }
}

/// The server check and, when it answered, the live panes check;
/// `programs` are the executables of the generic agents signaltty knows
/// (a generic pane running one of them is an agent pane).
pub fn probe(socket: &Socket, programs: &[String]) -> Vec<Check> {
    let shown = socket.path.display().to_string();
    let ours = env!("CARGO_PKG_VERSION");
    let exists = std::fs::symlink_metadata(&socket.path).is_ok();
    let started = Instant::now();
    let mut client = match Client::connect(&socket.path) {
        Ok(c) => c,
        Err(e) => {
            let seen = match e.code {
                ErrorCode::NoSuchServer if exists => ServerSeen::Stale,
                ErrorCode::NoSuchServer => ServerSeen::NoSocket,
                _ => ServerSeen::Error(e.message),
            };
            return vec![verdict::server(&seen, &shown, socket.from, ours)];
        },
    };
    if let Err(e) = client.set_timeout(Some(ANSWER_DEADLINE)) {
        let seen = ServerSeen::Error(e.message);
        return vec![verdict::server(&seen, &shown, socket.from, ours)];
    }
    let status = client
        .call(Method::ServerStatus(Default::default()))
        .and_then(|v| serde_json::from_value::<ServerStatusResult>(v).map_err(shape));
    let storage = status.as_ref().ok().and_then(|s| s.storage.clone());
    let capacity = status
        .as_ref()
        .ok()
        .and_then(|s| Some((s.pane_capacity.clone()?, s.live_panes)));
    let seen = match status {
        Ok(s) => ServerSeen::Answered {
            version: s.version,
            uptime_s: s.uptime_s,
            panes: s.panes,
            live_panes: s.live_panes,
        },
        Err(_) if started.elapsed() >= ANSWER_DEADLINE => ServerSeen::Silent {
            waited_ms: ANSWER_DEADLINE.as_millis() as u64,
        },
        Err(e) => ServerSeen::Error(failure(e.code, e.message)),
    };
    let answered = matches!(seen, ServerSeen::Answered { .. });
    let mut checks = vec![verdict::server(&seen, &shown, socket.from, ours)];
    if answered {
        if let Some(storage) = &storage {
            checks.push(verdict::storage(storage));
        }
        if let Some((capacity, live)) = &capacity {
            checks.push(verdict::pane_capacity(capacity, *live));
        }
        checks.extend(live_panes(&mut client, programs, started + PANES_DEADLINE));
    }
    checks
}

fn shape(e: serde_json::Error) -> CallError {
    CallError {
        code: ErrorCode::Internal,
        message: format!("unexpected result shape: {e}"),
    }
}

/// Which live agent panes have sent a hook, and which are read from their
/// screens only (`pane.explain`'s `hooked`); then the agent versions check.
fn live_panes(client: &mut Client, programs: &[String], until: Instant) -> Vec<Check> {
    let name = "live panes";
    let list = client
        .call(Method::WorkspaceList(Default::default()))
        .and_then(|v| serde_json::from_value::<WorkspaceListResult>(v).map_err(shape));
    let workspaces = match list {
        Ok(l) => l.workspaces,
        Err(e) => {
            return vec![Check::new(
                name,
                Verdict::Skip,
                format!("cannot list: {}", e.message),
            )];
        },
    };
    let mut panes = Vec::new();
    for ws in workspaces {
        let got = client
            .call(Method::WorkspaceGet(WorkspaceGetParams {
                workspace_id: WorkspaceRef(ws.id.to_string()),
            }))
            .and_then(|v| serde_json::from_value::<WorkspaceGetResult>(v).map_err(shape));
        if let Ok(got) = got {
            panes.extend(
                got.panes.into_iter().filter(|p| {
                    matches!(p.live, LiveState::Live) && p.agent.kind != AgentKind::None
                }),
            );
        }
    }
    // A pane is an agent pane when it sent a hook, or when it runs an
    // agent (its kind, or a generic agent's program) that has not yet.
    let mut hooked = 0;
    let mut screen_only = Vec::new();
    let mut versions = verdict::Versions::default();
    for pane in panes.iter().take(MAX_EXPLAINED) {
        if Instant::now() >= until {
            break;
        }
        let explained = client
            .call(Method::PaneExplain(PaneTarget {
                pane_id: PaneRef(pane.id.to_string()),
            }))
            .and_then(|v| serde_json::from_value::<PaneExplainResult>(v).map_err(shape));
        let Ok(e) = explained else { continue };
        let program = pane
            .argv
            .first()
            .and_then(|a| Path::new(a).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let label = pane.name.clone().unwrap_or_else(|| pane.id.to_string());
        if let Some(version) = &pane.agent.version {
            versions.note(&label, &e, version, pane.agent.fidelity);
        }
        if e.hooked {
            hooked += 1;
        } else if e.kind.is_agent() || programs.contains(&program) {
            screen_only.push(format!("{label} ({})", e.process));
        }
    }
    vec![
        verdict::live_panes(hooked, &screen_only),
        verdict::agent_versions(&versions),
    ]
}

/// The socket file's permissions (and its directory's, when it is the
/// default one).
pub fn permissions(socket: &Socket) -> Check {
    let path = socket.path.display().to_string();
    let uid = nix::unistd::geteuid().as_raw();
    let owned = |m: &std::fs::Metadata| Owned {
        mode: m.mode() & 0o7777,
        ours: m.uid() == uid,
    };
    let meta = match std::fs::symlink_metadata(&socket.path) {
        Ok(m) => m,
        Err(_) => return verdict::socket_permissions(&path, None, None),
    };
    if !meta.file_type().is_socket() {
        return Check::new(
            "socket perms",
            Verdict::Fail,
            format!("{path} is not a socket"),
        )
        .fix(format!(
            "move {path} away; the server makes its socket there"
        ));
    }
    let dir = socket
        .path
        .parent()
        .filter(|_| socket.origin == SocketOrigin::Default);
    let dir_meta = dir.and_then(|d| std::fs::symlink_metadata(d).ok());
    let dir_text = dir.map(|d| d.display().to_string());
    let dir_arg = match (&dir_text, &dir_meta) {
        (Some(t), Some(m)) => Some((t.as_str(), owned(m))),
        _ => None,
    };
    verdict::socket_permissions(&path, Some(owned(&meta)), dir_arg)
}
