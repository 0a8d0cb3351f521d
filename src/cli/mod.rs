//! The CLI's shared client plumbing: the socket a command talks to, one call
//! with its result printed as text or, with `--json`, as the raw result,
//! failures printed as `CODE: message`, and the arguments and lines several
//! commands share. Each command noun users type is a module of its own
//! (`pane.rs`, `task.rs`, …); none of them uses another (`tests.rs` checks),
//! and `main.rs` routes every command to its one function.

pub mod agents;
pub mod ask;
pub mod attention;
pub mod board;
pub mod bridge;
pub mod config;
pub mod decision;
pub mod diff;
pub mod doctor;
pub mod events;
pub mod hook;
pub mod host;
pub mod integration;
pub mod layout;
pub mod manual;
pub mod notifications;
pub mod pane;
pub mod restore;
pub mod server;
pub mod service;
pub mod tab;
pub mod task;
pub mod upgrade;
pub mod web;
pub mod workspace;
pub mod worktree;

#[cfg(test)]
mod tests;

use crate::args::Global;
use serde::de::DeserializeOwned;
use signaltty_model::Env;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::pane::PaneSpawnParams;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::state::{Decision, Severity};
use signaltty_protocol::tab::{TabCloseParams, TabCreateParams, TabResult};
use signaltty_protocol::workspace::{
    Workspace, WorkspaceCloseParams, WorkspaceCreateParams, WorkspaceResult,
};
use signaltty_protocol::{ErrorCode, Method, PaneRef, TabId, WorkspaceId, WorkspaceRef};
use std::collections::BTreeMap;
use std::fmt::Display;
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

/// Prints `message` on stderr and returns the failure exit code. A closed
/// stderr is no reason to panic either.
pub fn fail(message: &str) -> i32 {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "signaltty: {message}");
    EXIT_FAILED
}

/// A failure as every command prints it: `CODE: message`, the code as the
/// wire writes it (`BAD_PARAMS`).
pub fn failure(code: ErrorCode, message: impl Display) -> String {
    format!("{code}: {message}")
}

/// Prints a failure with its code ([`failure`]) and returns the failure exit
/// code.
pub fn fail_with(code: ErrorCode, message: impl Display) -> i32 {
    fail(&failure(code, message))
}

/// Prints a failed call, as the server (or the client) coded it, with the
/// command to run instead when the server's message names a protocol method
/// or flag ([`hint`]).
pub fn fail_call(e: CallError) -> i32 {
    let code = fail_with(e.code, &e.message);
    if let Some(hint) = hint(&e) {
        say_err(&format!("  hint: {hint}"));
    }
    code
}

/// A line on stderr, never a panic.
pub fn say_err(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// What a person types instead, for the server's errors that speak the
/// protocol's words (a method, a param) rather than the CLI's
/// (docs/cli.md#errors-and-hints). The server's message stays as it is.
pub fn hint(e: &CallError) -> Option<String> {
    match e.code {
        ErrorCode::BadParams if e.message.contains("already has panes") => Some(
            "a spawn takes an empty tab: add a pane beside one with \
             `signaltty pane split PANE -- COMMAND`, or start it in a new tab with \
             `signaltty new --workspace WORKSPACE -- COMMAND`"
                .to_owned(),
        ),
        ErrorCode::PanesAlive => Some(
            "`signaltty stop --force` stops anyway: the panes' processes end, and at \
             the next start they come back as restorable panes (`signaltty restore` \
             lists them, `signaltty pane resume PANE` starts an agent again)"
                .to_owned(),
        ),
        ErrorCode::BadParams if e.message.contains("only a completed task can be merged") => Some(
            "throw its work away with `signaltty task finish TASK --discard` \
                 (the branch is kept unless you add --delete-branch)"
                .to_owned(),
        ),
        _ => None,
    }
}

/// A connection to this invocation's server (its socket, or `--host`'s), or
/// the printed failure.
pub fn connect(global: &Global) -> Result<Client, i32> {
    let target = crate::remote::target(global)?;
    Client::open(&target).map_err(fail_call)
}

/// A call's result as `T`, or the printed failure.
pub fn fetch<T: DeserializeOwned>(client: &mut Client, method: Method) -> Result<T, i32> {
    typed(client.call(method).map_err(fail_call)?)
}

/// A raw result as `T`, or the printed failure.
pub fn typed<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, i32> {
    serde_json::from_value(value)
        .map_err(|e| fail_with(ErrorCode::Internal, format!("unexpected result shape: {e}")))
}

/// Makes one call and hands the typed result to `show` (or prints the raw JSON).
pub fn call<T: DeserializeOwned>(global: &Global, method: Method, show: impl FnOnce(T)) -> i32 {
    let target = match crate::remote::target(global) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let outcome = Client::open(&target).and_then(|mut c| c.call(method));
    match outcome {
        Ok(value) if global.json => {
            say!("{value}");
            0
        },
        Ok(value) => match typed::<T>(value) {
            Ok(typed) => {
                show(typed);
                0
            },
            Err(code) => code,
        },
        Err(e) => fail_call(e),
    }
}

/// `$SIGNALTTY_PANE`, when set.
pub fn env_pane() -> Option<String> {
    std::env::var("SIGNALTTY_PANE")
        .ok()
        .filter(|s| !s.is_empty())
}

/// The pane given, else `$SIGNALTTY_PANE`, else the printed failure.
pub fn pane_or_env(given: Option<String>) -> Result<PaneRef, i32> {
    given.or_else(env_pane).map(PaneRef).ok_or_else(|| {
        fail_with(
            ErrorCode::BadParams,
            "name a pane (or run inside one, where $SIGNALTTY_PANE is set)",
        )
    })
}

/// A `--cwd` made absolute: the server cannot know this shell's directory.
pub fn absolute_cwd(dir: Option<PathBuf>) -> Result<Option<String>, i32> {
    dir.map(std::path::absolute)
        .transpose()
        .map(|d| d.map(|p| p.to_string_lossy().into_owned()))
        .map_err(|e| fail_with(ErrorCode::BadParams, format!("cwd: {e}")))
}

/// A `--signal` name (INT TERM KILL HUP QUIT WINCH USR1 USR2).
pub fn parse_signal(name: &str) -> Result<SignalName, i32> {
    SignalName::parse(name)
        .ok_or_else(|| fail_with(ErrorCode::BadParams, format!("unknown signal {name:?}")))
}

/// A `--severity`: info, warning or error.
pub fn parse_severity(given: Option<String>) -> Result<Option<Severity>, i32> {
    given
        .map(|s| {
            serde_json::from_value(serde_json::Value::String(s.clone())).map_err(|_| {
                fail_with(
                    ErrorCode::BadParams,
                    format!("severity {s:?} is not info, warning or error"),
                )
            })
        })
        .transpose()
}

/// One `--env KEY=VALUE`: a usage error (clap's, exit 2) unless it has a
/// non-empty key before its first `=`. The server checks the rest.
pub fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}

/// The `env` param of repeated `--env` flags; absent when none was given.
pub fn env_param(pairs: Vec<(String, String)>) -> Option<BTreeMap<String, String>> {
    (!pairs.is_empty()).then(|| pairs.into_iter().collect())
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

/// Prints a decision: its prompt and its numbered options, each line after
/// `indent`. A read-only one says where to answer it.
pub fn print_decision(d: &Decision, indent: &str) {
    let paint = crate::paint::current();
    // The question is wrapped, never cut: it is what the person must read.
    for line in d.prompt.lines().flat_map(|l| paint.wrap(indent, l)) {
        say!("{line}");
    }
    let options: Vec<String> = d
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}) {} [{}]", i + 1, o.label, o.id))
        .collect();
    let how = if d.answerable {
        ""
    } else {
        "   (answer in the terminal)"
    };
    let line = format!("{indent}{}{how}", options.join("  "));
    match paint.width() {
        // On a terminal, options that do not fit one line get a line each.
        Some(w) if crate::paint::columns(&line) > w => {
            for o in &options {
                say!("{}", paint.fit(&format!("{indent}{o}")));
            }
            if !how.is_empty() {
                say!("{}", paint.fit(&format!("{indent}{}", how.trim_start())));
            }
        },
        _ => say!("{line}"),
    }
}

/// A duration for people: `42s`, `3m5s`, `2h10m`, `4d1h`.
pub fn human_duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m{}s", secs / 60, secs % 60),
        3600..86_400 => format!("{}h{}m", secs / 3600, (secs % 3600) / 60),
        _ => format!("{}d{}h", secs / 86_400, (secs % 86_400) / 3600),
    }
}

/// Spawns `argv` (the user's shell when empty) in a new tab of `workspace`,
/// else in a new workspace; returns what it made and the spawn's result.
pub fn launch(
    client: &mut Client,
    workspace: Option<String>,
    name: Option<String>,
    tab: Option<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    argv: Vec<String>,
) -> Result<(Made, serde_json::Value), i32> {
    let cwd = absolute_cwd(cwd)?;
    // A new workspace gets its first tab from the spawn; an existing one gets a new
    // tab, since a spawn needs an empty one. Whichever this made is closed
    // again when the spawn fails: a failed `new` leaves nothing behind.
    let (workspace, made) = match workspace {
        Some(w) => {
            let created: TabResult = fetch(
                client,
                Method::TabCreate(TabCreateParams {
                    workspace_id: WorkspaceRef(w.clone()),
                    title: tab,
                }),
            )?;
            (WorkspaceRef(w), Made::Tab(created.tab.id))
        },
        None => {
            let created: WorkspaceResult = fetch(
                client,
                Method::WorkspaceCreate(WorkspaceCreateParams {
                    name,
                    cwd: cwd.clone(),
                }),
            )?;
            let ws = created.workspace;
            (
                WorkspaceRef(ws.id.0.clone()),
                Made::Workspace(ws.handle, ws.id),
            )
        },
    };
    let argv = if argv.is_empty() {
        vec![user_shell()]
    } else {
        argv
    };
    let params = PaneSpawnParams {
        tab_id: match &made {
            Made::Tab(id) => Some(id.clone()),
            Made::Workspace(..) => None,
        },
        cwd,
        env: env_param(env),
        ..PaneSpawnParams::new(workspace, argv)
    };
    match client.call(Method::PaneSpawn(params)) {
        Ok(value) => Ok((made, value)),
        Err(e) => {
            let code = fail_call(e);
            // Best effort: the spawn's error is the one to report.
            let _ = client.call(match made {
                Made::Tab(tab_id) => Method::TabClose(TabCloseParams {
                    tab_id,
                    signal: None,
                }),
                Made::Workspace(_, id) => Method::WorkspaceClose(WorkspaceCloseParams {
                    workspace_id: WorkspaceRef(id.0),
                    signal: None,
                }),
            });
            Err(code)
        },
    }
}

/// What [`launch`] made before its spawn.
pub enum Made {
    /// A tab in the workspace it was given.
    Tab(TabId),
    /// A workspace of its own: its handle and id.
    Workspace(String, WorkspaceId),
}

/// The user's shell, for a spawn without a command.
pub fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "sh".to_owned())
}
