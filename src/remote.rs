//! Which server a command talks to (docs/remote.md#any-command-on-any-host):
//! `--host NAME` or `$SIGNALTTY_HOST` names a configured host, whose server
//! is reached over its link; without one, this machine's socket. Commands
//! that act on a machine itself rather than through its socket (`start`,
//! `stop`, `upgrade`, `config`, `journal`, `integration`, `service`,
//! `doctor`) run the host's own signaltty over ssh instead, with the same
//! arguments.

use crate::args::{Command, Global};
pub mod fleet;

use crate::cli::{EXIT_FAILED, fail_call, fail_with, resolve_socket};
use signaltty_model::Env;
use signaltty_model::client::{CallError, Target};
use signaltty_model::remote::{Host, LOCAL, hosts, ssh};
use signaltty_protocol::ErrorCode;
use std::ffi::OsString;

/// The variable naming the default host.
pub const HOST_VAR: &str = "SIGNALTTY_HOST";

/// The host this invocation names (`--host`, else `$SIGNALTTY_HOST`), if
/// any other than `local`.
pub fn host_name(global: &Global) -> Option<String> {
    global
        .host
        .clone()
        .or_else(|| std::env::var(HOST_VAR).ok())
        .filter(|h| !h.is_empty() && h != LOCAL)
}

/// The configured hosts, in the config file's order, with the problems of
/// entries that were left out.
pub fn configured() -> hosts::Table {
    let env = Env::from_process();
    hosts::load(&signaltty_model::settings::file_path(&env))
}

/// The host named `name`, or the printed failure.
pub fn find(name: &str) -> Result<Host, i32> {
    lookup(name).map_err(fail_call)
}

/// The host named `name`, or why there is none.
pub fn lookup(name: &str) -> Result<Host, CallError> {
    let table = configured();
    if let Some(h) = table.get(name) {
        return Ok(h.clone());
    }
    let known: Vec<&str> = table.hosts.iter().map(|h| h.name.as_str()).collect();
    let known = if known.is_empty() {
        "none is configured".to_owned()
    } else {
        format!("configured: {}", known.join(", "))
    };
    let broken = table
        .problems
        .iter()
        .find(|p| p.starts_with(&format!("hosts.{name}:")))
        .map(|p| format!("; its entry is left out: {p}"))
        .unwrap_or_default();
    Err(CallError {
        code: ErrorCode::BadParams,
        message: format!(
            "no host named {name:?} ({known}{broken}); add one with \
             `signaltty host add {name} SSH_DESTINATION`"
        ),
    })
}

/// The server this invocation talks to, or the printed failure.
pub fn target(global: &Global) -> Result<Target, i32> {
    resolve(global).map_err(fail_call)
}

/// The server this invocation talks to, or why it names none.
pub fn resolve(global: &Global) -> Result<Target, CallError> {
    let Some(name) = host_name(global) else {
        return Ok(Target::Socket(resolve_socket(global)));
    };
    if global
        .socket
        .as_ref()
        .is_some_and(|s| !s.as_os_str().is_empty())
    {
        return Err(CallError {
            code: ErrorCode::BadParams,
            message: format!(
                "--socket names a socket on this machine and cannot go with --host {name}; \
                 a host's own socket is `signaltty host add … --remote-socket PATH`"
            ),
        });
    }
    lookup(&name).map(|h| Target::Host(Box::new(h)))
}

/// Takes the host out of a `HOST:PANE` reference (HOST a configured host or
/// `local`) and makes it this invocation's host: `answer devbox:claude-1 once`
/// is `--host devbox answer claude-1 once`. A prefix that is no host's name
/// stays part of the pane's name.
pub fn take_pane_host(global: &mut Global, command: &mut Command) -> Result<(), i32> {
    let Some(pane) = pane_ref(command) else {
        return Ok(());
    };
    let Some((prefix, rest)) = pane.split_once(':') else {
        return Ok(());
    };
    let table = configured();
    if prefix != LOCAL && table.get(prefix).is_none() {
        return Ok(());
    }
    let (prefix, rest) = (prefix.to_owned(), rest.to_owned());
    if let Some(given) = host_name(global).filter(|g| *g != prefix) {
        return Err(fail_with(
            ErrorCode::BadParams,
            format!("pane {pane:?} is on {prefix}, but this command is for host {given}"),
        ));
    }
    *pane = rest;
    global.host = Some(prefix);
    Ok(())
}

/// The pane reference of the commands that take one.
fn pane_ref(command: &mut Command) -> Option<&mut String> {
    use crate::args::PaneCommand as P;
    match command {
        Command::Answer { pane, .. } => Some(pane),
        Command::Attach { pane }
        | Command::MarkSeen { pane }
        | Command::Explain { pane }
        | Command::Wait { pane, .. } => pane.as_mut(),
        Command::Pane(cmd) => match cmd {
            P::WaitOutput { pane, .. } => Some(pane),
            P::Read { pane, .. }
            | P::Input { pane, .. }
            | P::Submit { pane, .. }
            | P::Get { pane }
            | P::Attach { pane, .. }
            | P::MarkSeen { pane, .. }
            | P::Resize { pane, .. }
            | P::Signal { pane, .. }
            | P::Close { pane, .. }
            | P::Resume { pane, .. }
            | P::Clear { pane } => pane.as_mut(),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `command` acts on the machine itself (its files, its processes)
/// rather than through its server's socket.
fn on_the_machine(command: &Command) -> bool {
    matches!(
        command,
        Command::Start
            | Command::Stop { .. }
            | Command::Upgrade { .. }
            | Command::Config(_)
            | Command::Journal(_)
            | Command::Integration(_)
            | Command::Service(_)
            | Command::Doctor { .. }
    )
}

/// Runs `command` on its host when it names one and acts on the machine:
/// the exit code of the host's signaltty. `None`: run it here.
pub fn forward(global: &Global, command: &Command) -> Option<i32> {
    let name = host_name(global)?;
    if matches!(command, Command::Server(_) | Command::Bridge(_)) {
        return Some(fail_with(
            ErrorCode::BadParams,
            format!(
                "`server` and `bridge` run on the machine they serve; a host's server starts \
                 itself on first use, or with `signaltty --host {name} start`"
            ),
        ));
    }
    if !on_the_machine(command) {
        return None;
    }
    let host = match find(&name) {
        Ok(h) => h,
        Err(code) => return Some(code),
    };
    let args = arguments_without_host();
    Some(run_there(&host, &args))
}

/// This process's arguments after the program, without `--host NAME` (or
/// `--host=NAME`); everything after `--` is kept as it is.
fn arguments_without_host() -> Vec<String> {
    strip_host(std::env::args_os().skip(1).collect())
}

fn strip_host(args: Vec<OsString>) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.into_iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = it.next() {
        if a == "--" {
            out.push(a);
            out.extend(it.by_ref());
            break;
        }
        if a == "--host" {
            it.next();
            continue;
        }
        if a.starts_with("--host=") {
            continue;
        }
        out.push(a);
    }
    out
}

/// Runs the host's signaltty with `args` over ssh, this terminal's stdin,
/// stdout and stderr passed through (with a remote terminal when this one
/// is a terminal); its exit code.
pub fn run_there(host: &Host, args: &[String]) -> i32 {
    use std::io::IsTerminal as _;
    let env = Env::from_process();
    let dir = match ssh::make_control_dir(&env) {
        Ok(dir) => dir,
        Err(e) => {
            let dir = ssh::control_dir(&env);
            return fail_with(
                ErrorCode::IoError,
                format!("cannot make {}: {e}", dir.display()),
            );
        },
    };
    let tty = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let remote = ssh::exec_command(host, args);
    let status = std::process::Command::new("ssh")
        .args(ssh::argv(host, &dir, tty, &remote))
        .status();
    match status {
        Ok(s) => match s.code() {
            Some(127) => fail_with(
                ErrorCode::NoSuchServer,
                ssh::explain_exit(host, Some(127), ""),
            ),
            Some(code) => code,
            None => EXIT_FAILED,
        },
        Err(e) => fail_with(ErrorCode::SpawnFailed, format!("cannot run ssh: {e}")),
    }
}

#[cfg(test)]
mod tests;
