//! One thin function per CLI command: build the params, make one call, print the
//! result as text or, with `--json`, as the raw result.

use crate::{Global, WorkspaceCommand};
use serde::de::DeserializeOwned;
use signaltty_model::Env;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::server::{ServerSchemaResult, ServerStatusResult};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{
    ClosedResult, Workspace, WorkspaceCloseParams, WorkspaceCreateParams, WorkspaceGetParams,
    WorkspaceGetResult, WorkspaceListResult, WorkspaceRenameParams, WorkspaceResult,
};
use signaltty_protocol::{Method, WorkspaceRef};
use std::path::PathBuf;

/// Exit code of a failed command.
pub const EXIT_FAILED: i32 = 1;

/// The socket this invocation talks to: `--socket` > `$SIGNALTTY_SOCKET` >
/// the config file's `[server] socket` > the default (docs/configuration.md).
pub fn resolve_socket(global: &Global) -> PathBuf {
    let env = Env::from_process();
    signaltty_model::settings::load(&env, &socket_flag(global))
        .socket(&env)
        .0
}

/// The settings flags every CLI command has: `--socket` (an empty one is
/// no flag).
pub fn socket_flag(
    global: &Global,
) -> Vec<(
    signaltty_model::settings::knobs::K,
    signaltty_model::settings::knobs::Value,
)> {
    use signaltty_model::settings::knobs::{K, Value};
    global
        .socket
        .iter()
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| (K::Socket, Value::Path(p.clone())))
        .collect()
}

/// Prints `message` on stderr and returns the failure exit code.
pub fn fail(message: &str) -> i32 {
    eprintln!("signaltty: {message}");
    EXIT_FAILED
}

/// Makes one call and hands the typed result to `show` (or prints the raw JSON).
pub fn call<T: DeserializeOwned>(global: &Global, method: Method, show: impl FnOnce(T)) -> i32 {
    let outcome = Client::connect(&resolve_socket(global)).and_then(|mut c| c.call(method));
    match outcome {
        Ok(value) if global.json => {
            say!("{value}");
            0
        },
        Ok(value) => match serde_json::from_value::<T>(value) {
            Ok(typed) => {
                show(typed);
                0
            },
            Err(e) => fail(&format!("INTERNAL: unexpected result shape: {e}")),
        },
        Err(CallError { code, message }) => fail(&format!("{code}: {message}")),
    }
}

/// `signaltty status`.
pub fn status(global: &Global) -> i32 {
    let socket = resolve_socket(global);
    call(
        global,
        Method::ServerStatus(Default::default()),
        |s: ServerStatusResult| {
            say!(
                "signaltty {} ({}) on {}",
                s.version,
                s.protocol,
                socket.display()
            );
            say!("  up {}", human_duration(s.uptime_s));
            say!(
                "  workspaces {}  tabs {}  panes {} ({} live)",
                s.workspaces,
                s.tabs,
                s.panes,
                s.live_panes
            );
            say!("  event seq {}", s.seq);
            if let Some(r) = &s.restore {
                if r.restored + r.resumable > 0 {
                    say!(
                        "  restored {} pane(s) waiting: {} resumable (signaltty restore)",
                        r.restored + r.resumable,
                        r.resumable
                    );
                }
                if let Some(problem) = &r.problem {
                    say!("  ! restore: {problem}");
                }
                for path in &r.set_aside {
                    say!("  ! kept for you to look at: {path}");
                }
            }
            if let Some(file) = &s.config_file {
                say!("  config {file}");
            }
            for problem in &s.config_problems {
                say!("  ! config: {problem}");
            }
        },
    )
}

/// `signaltty schema`.
pub fn schema(global: &Global) -> i32 {
    call(
        global,
        Method::ServerSchema(Default::default()),
        |s: ServerSchemaResult| {
            say!("{} (server {})", s.protocol, s.version);
            say!("methods:");
            s.methods.iter().for_each(|m| say!("  {m}"));
            say!("events:");
            s.events.iter().for_each(|e| say!("  {e}"));
            say!("error codes:");
            s.codes.iter().for_each(|c| say!("  {c}"));
        },
    )
}

/// `signaltty workspace …`.
pub fn workspace(global: &Global, cmd: WorkspaceCommand) -> i32 {
    match cmd {
        WorkspaceCommand::Create { name, cwd } => {
            // The server cannot know this shell's directory: send an absolute path.
            let cwd = match cwd.map(std::path::absolute).transpose() {
                Ok(c) => c,
                Err(e) => return fail(&format!("BAD_PARAMS: cwd: {e}")),
            };
            let params = WorkspaceCreateParams {
                name,
                cwd: cwd.map(|c| c.to_string_lossy().into_owned()),
            };
            call(
                global,
                Method::WorkspaceCreate(params),
                |r: WorkspaceResult| print_workspace(&r.workspace),
            )
        },
        WorkspaceCommand::List => call(
            global,
            Method::WorkspaceList(Default::default()),
            |r: WorkspaceListResult| {
                if r.workspaces.is_empty() {
                    say!("no workspaces");
                    return;
                }
                let width = r
                    .workspaces
                    .iter()
                    .map(|w| w.handle.len())
                    .max()
                    .unwrap_or(6)
                    .max(6);
                say!("{:width$}  {:4}  {:<24}  CWD", "HANDLE", "TABS", "NAME");
                for w in &r.workspaces {
                    say!(
                        "{:width$}  {:4}  {:<24}  {}",
                        w.handle,
                        w.tabs.len(),
                        w.name,
                        w.cwd
                    );
                }
            },
        ),
        WorkspaceCommand::Get { workspace } => {
            let params = WorkspaceGetParams {
                workspace_id: WorkspaceRef(workspace),
            };
            call(
                global,
                Method::WorkspaceGet(params),
                |r: WorkspaceGetResult| {
                    print_workspace(&r.workspace);
                    say!("  tabs {}  panes {}", r.tabs.len(), r.panes.len());
                },
            )
        },
        WorkspaceCommand::Rename { workspace, name } => {
            let params = WorkspaceRenameParams {
                workspace_id: WorkspaceRef(workspace),
                name,
            };
            call(
                global,
                Method::WorkspaceRename(params),
                |r: WorkspaceResult| print_workspace(&r.workspace),
            )
        },
        WorkspaceCommand::AutoResume { workspace, state } => {
            let params = signaltty_protocol::workspace::WorkspaceSetAutoResumeParams {
                workspace_id: WorkspaceRef(workspace),
                auto_resume: state == "on",
            };
            call(
                global,
                Method::WorkspaceSetAutoResume(params),
                |r: WorkspaceResult| {
                    print_workspace(&r.workspace);
                    say!(
                        "  auto-resume {}",
                        if r.workspace.auto_resume { "on" } else { "off" }
                    );
                },
            )
        },
        WorkspaceCommand::Close { workspace, signal } => {
            let Some(signal) = SignalName::parse(&signal) else {
                return fail(&format!("BAD_PARAMS: unknown signal {signal:?}"));
            };
            let params = WorkspaceCloseParams {
                workspace_id: WorkspaceRef(workspace.clone()),
                signal: Some(signal),
            };
            call(global, Method::WorkspaceClose(params), |_: ClosedResult| {
                say!("closed {workspace}")
            })
        },
        WorkspaceCommand::RefreshGit { workspace } => {
            crate::diff_cli::refresh_git(global, workspace)
        },
        WorkspaceCommand::Diff { workspace, turn } => {
            crate::diff_cli::diff(global, workspace, turn)
        },
        WorkspaceCommand::FileDiff {
            workspace,
            path,
            turn,
        } => crate::diff_cli::file_diff(global, workspace, path, turn),
    }
}

/// Prints a workspace's id line and cwd.
pub fn print_workspace(w: &Workspace) {
    say!("{}  {}  ({})", w.handle, w.name, w.id);
    match (&w.git.root, &w.git.branch) {
        (Some(_), Some(branch)) => say!("  cwd {}  [git: {branch}]", w.cwd),
        (Some(_), None) => say!("  cwd {}  [git: detached]", w.cwd),
        _ => say!("  cwd {}", w.cwd),
    }
}

fn human_duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m{}s", secs / 60, secs % 60),
        3600..86_400 => format!("{}h{}m", secs / 3600, (secs % 3600) / 60),
        _ => format!("{}d{}h", secs / 86_400, (secs % 86_400) / 3600),
    }
}
