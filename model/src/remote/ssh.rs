//! How signaltty runs the user's OpenSSH client (docs/remote.md#how-ssh-is-run):
//! the options it adds, the remote command line it quotes, and what an ssh
//! failure means for a person. Nothing here starts a process.

use super::hosts::Host;
use crate::env::Env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Seconds ssh waits for the TCP connection and the handshake.
pub const CONNECT_TIMEOUT_S: u32 = 10;
/// Seconds a control master lingers after its last session.
pub const CONTROL_PERSIST_S: u32 = 600;
/// ssh's own keepalive: a probe after this many silent seconds, and the
/// session dropped after [`SERVER_ALIVE_COUNT`] unanswered probes.
pub const SERVER_ALIVE_S: u32 = 3;
/// See [`SERVER_ALIVE_S`].
pub const SERVER_ALIVE_COUNT: u32 = 3;
/// The longest Unix socket path (`sun_path` holds 108 bytes with its NUL);
/// ssh also adds a 17-character suffix while it binds a master's socket.
const SOCKET_PATH_MAX: usize = 107;

/// The directory of the control masters' sockets: `ssh/` beside the server's
/// default socket (`$XDG_RUNTIME_DIR/signaltty/ssh`), or a short one in `/tmp`
/// when that path would be too long for ssh to bind.
pub fn control_dir(env: &Env) -> PathBuf {
    let beside = env
        .default_socket()
        .parent()
        .map_or_else(|| PathBuf::from("/tmp"), Path::to_path_buf)
        .join("ssh");
    // `%C` is 40 hex digits; the master binds `<path>.<16 random>` first.
    if beside.as_os_str().len() + 1 + 40 + 17 <= SOCKET_PATH_MAX {
        beside
    } else {
        PathBuf::from(format!("/tmp/signaltty-{}-ssh", env.uid))
    }
}

/// Makes [`control_dir`] if needed, private to this user (0700, as the
/// sockets in it let anyone who can reach them use the sessions), and
/// returns it. Every ssh signaltty runs uses it.
pub fn make_control_dir(env: &Env) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
    let dir = control_dir(env);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    if std::fs::metadata(&dir)?.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(dir)
}

/// The arguments of `ssh` before the destination: the host's own options
/// first (ssh keeps the first value it is given, so they win), then
/// signaltty's: batch mode (never a password prompt on a terminal that is
/// not there), a connect timeout, keepalives, and a control master in
/// `control_dir` so that every later session skips the handshake.
pub fn options(host: &Host, control_dir: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    if let Some(cfg) = &host.ssh_config {
        args.push("-F".into());
        args.push(cfg.into());
    }
    for o in &host.ssh_options {
        args.push("-o".into());
        args.push(o.into());
    }
    let mut control = OsString::from("ControlPath=");
    control.push(control_dir.join("%C"));
    for o in [
        "BatchMode=yes".into(),
        format!("ConnectTimeout={CONNECT_TIMEOUT_S}").into(),
        format!("ServerAliveInterval={SERVER_ALIVE_S}").into(),
        format!("ServerAliveCountMax={SERVER_ALIVE_COUNT}").into(),
        "ControlMaster=auto".into(),
        control,
        format!("ControlPersist={CONTROL_PERSIST_S}").into(),
    ] {
        args.push("-o".into());
        args.push(o);
    }
    args
}

/// The full `ssh` argument list that runs `remote` (a shell command line)
/// on `host`: `-T` (no terminal) or `-tt` (a terminal, for an interactive
/// command), the options, `--` so a destination can never be read as an
/// option, the destination and the command.
pub fn argv(host: &Host, control_dir: &Path, tty: bool, remote: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![if tty { "-tt" } else { "-T" }.into()];
    args.extend(options(host, control_dir));
    args.push("--".into());
    args.push((&host.dest).into());
    args.push(remote.into());
    args
}

/// `word` quoted for a POSIX shell. A leading `~/` stays outside the quotes
/// so the remote shell expands it (`--remote-bin ~/.cargo/bin/signaltty`).
pub fn quote(word: &str) -> String {
    let (tilde, rest) = match word.strip_prefix("~/") {
        Some(rest) => ("~/", rest),
        None => ("", word),
    };
    if !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        return format!("{tilde}{rest}");
    }
    format!("{tilde}'{}'", rest.replace('\'', r"'\''"))
}

/// The remote command line of the link: the host's signaltty as a mux bridge.
pub fn bridge_command(host: &Host) -> String {
    let mut line = format!("exec {} bridge --mux", quote(host.program()));
    if let Some(socket) = &host.remote_socket {
        line.push_str(" --socket ");
        line.push_str(&quote(socket));
    }
    line
}

/// The remote command line that runs `args` with the host's signaltty
/// (commands that act on the remote machine itself: `start`, `stop`,
/// `integration install`, `doctor`, …).
pub fn exec_command(host: &Host, args: &[String]) -> String {
    let mut line = format!("exec {}", quote(host.program()));
    if let Some(socket) = &host.remote_socket {
        line.push_str(" --socket ");
        line.push_str(&quote(socket));
    }
    for a in args {
        line.push(' ');
        line.push_str(&quote(a));
    }
    line
}

/// What an ssh session that ended before it said anything means, from its
/// exit status and the end of its stderr.
pub fn explain_exit(host: &Host, status: Option<i32>, stderr: &str) -> String {
    let said = stderr.trim();
    let last = said.lines().last().unwrap_or("").trim();
    let name = &host.name;
    match status {
        Some(127) => format!(
            "{name}: `{}` was not found on the remote PATH of a non-interactive ssh session \
             ({last}); name it with `signaltty host add {name} {} --remote-bin PATH` \
             (for example ~/.cargo/bin/signaltty)",
            host.program(),
            host.dest
        ),
        Some(126) => format!(
            "{name}: `{}` is not executable there ({last})",
            host.program()
        ),
        Some(2)
            if said.contains("unexpected argument") || said.contains("unrecognized subcommand") =>
        {
            format!(
                "{name}: the remote signaltty is too old for remote hosts (it has no `bridge --mux`): \
                 upgrade it to this version ({}) — it said: {last}",
                env!("CARGO_PKG_VERSION")
            )
        },
        Some(255) if !said.is_empty() => format!("{name}: ssh failed: {}", one_line(said)),
        Some(255) => format!("{name}: ssh failed (exit 255) without saying why"),
        Some(code) if !said.is_empty() => {
            format!(
                "{name}: the remote command exited with {code}: {}",
                one_line(said)
            )
        },
        Some(code) => format!("{name}: the remote command exited with {code} without a word"),
        None if !said.is_empty() => format!("{name}: ssh was killed: {}", one_line(said)),
        None => format!("{name}: ssh was killed by a signal"),
    }
}

/// The last few lines of ssh's stderr on one line.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(3);
    lines[start..].join(" / ")
}

#[cfg(test)]
mod tests;
