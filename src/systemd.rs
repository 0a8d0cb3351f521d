//! What `signaltty service`, `signaltty stop` and the doctor share about
//! systemd: the user units' names and directory, `systemctl --user is-…`
//! under a deadline, and the pid and the end of a socket-activated server.
//! The deadline-bound program runner behind the query is `command`, which
//! the doctor's other probes (`claude --version`) use too; reading a unit
//! file back is `unit_file`.

pub mod command;
pub mod unit_file;

use command::Ran;
use serde_json::Value;
use signaltty_model::Env;
use signaltty_model::client::Client;
use signaltty_protocol::Method;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The service unit's file name.
pub const SERVICE: &str = "signaltty.service";
/// The socket unit's file name.
pub const SOCKET: &str = "signaltty.socket";
/// The web view's unit (`service install --web`).
pub const WEB: &str = "signaltty-web.service";

/// How long one `systemctl --user is-…` question may take.
const QUERY_DEADLINE: Duration = Duration::from_secs(3);

/// Where the user's unit files live: `$XDG_CONFIG_HOME/systemd/user`, else
/// `~/.config/systemd/user` (`None` when neither is an absolute path).
pub fn unit_dir(env: &Env) -> Option<PathBuf> {
    let absolute =
        |v: &Option<std::ffi::OsString>| v.as_ref().map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(config) = absolute(&env.xdg_config_home) {
        return Some(config.join("systemd/user"));
    }
    absolute(&env.home).map(|home| home.join(".config/systemd/user"))
}

/// One word of `systemctl --user is-enabled|is-active UNIT` (it answers on
/// stdout and says no through its exit code), or the reason there is no
/// answer: no systemctl, no user manager, or no answer within its deadline
/// (`signaltty doctor` says which).
pub fn ask(verb: &str, unit: &str) -> Result<String, String> {
    match command::run(
        std::ffi::OsStr::new("systemctl"),
        &["--user", verb, unit],
        QUERY_DEADLINE,
    ) {
        Ran::Exited { stdout, .. } => match stdout.lines().next().map(str::trim) {
            Some(word) if !word.is_empty() => Ok(word.to_owned()),
            _ => Err("no answer from the user manager (no user session bus?)".to_owned()),
        },
        Ran::NotStarted(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("systemctl is not installed".to_owned())
        },
        Ran::NotStarted(e) => Err(format!("cannot run systemctl: {e}")),
        Ran::TimedOut => Err(format!(
            "systemctl did not answer within {} s",
            QUERY_DEADLINE.as_secs()
        )),
    }
}

/// The pid of the server behind `client` when systemd started it (socket
/// activation): `signaltty stop` then waits for that process, since the
/// socket keeps answering (and a new connection would start a new server).
pub fn activated_pid(client: &mut Client) -> Option<u32> {
    let status = client.call(Method::ServerStatus(Default::default())).ok()?;
    if status.get("socket_activated").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    status
        .get("pid")
        .and_then(Value::as_u64)
        .and_then(|p| u32::try_from(p).ok())
}

/// Waits until process `pid` is gone; `false` when it still runs after
/// `timeout`.
pub fn wait_for_exit(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while !process_gone(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Whether process `pid` no longer runs: gone from `/proc`, or a zombie
/// waiting for its parent (systemd) to reap it.
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command name in parentheses, which may itself
        // hold spaces or parentheses.
        Ok(stat) => stat.rfind(')').is_some_and(|end| {
            matches!(stat[end + 1..].trim_start().chars().next(), Some('Z' | 'X'))
        }),
    }
}
