//! The server's lifecycle and contract as the CLI sees them: `signaltty
//! status` (server.status), `schema` (server.schema), `start` (a detached
//! server, unless one answers) and `stop` (server.shutdown). The server
//! itself is `signaltty server` (`serve.rs`).

use crate::args::Global;
use crate::cli::{call, fail_call, fail_with, human_duration, resolve_socket};
use signaltty_model::Env;
use signaltty_model::client::{Client, server_answers};
use signaltty_model::settings;
use signaltty_model::settings::knobs::{K, Value};
use signaltty_protocol::server::{ServerSchemaResult, ServerShutdownParams, ServerStatusResult};
use signaltty_protocol::{ErrorCode, Method};
use std::os::unix::fs::DirBuilderExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `start` and `stop` wait for the server to come up or go away.
const LIFECYCLE_TIMEOUT: Duration = Duration::from_secs(10);

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
            if let Some(st) = s.storage.as_ref().filter(|st| st.state != "ok") {
                say!(
                    "  ! storage degraded since {}: {} cannot be written ({}: {}); changes are refused, the agents keep running and {} event(s) are held until it can{}",
                    st.since.as_ref().map(|t| t.as_str()).unwrap_or("now"),
                    st.path.as_deref().unwrap_or(&st.dir),
                    st.reason.as_deref().unwrap_or("io"),
                    st.error.as_deref().unwrap_or("write failed"),
                    st.held_events,
                    if st.lost_events > 0 {
                        format!("; {} dropped past the hold bound", st.lost_events)
                    } else {
                        String::new()
                    }
                );
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

/// Starts a detached server unless one already answers, and waits until it does.
pub fn start(global: &Global) -> i32 {
    let socket = resolve_socket(global);
    if server_answers(&socket) {
        if !global.json {
            say!("a server is already running on {}", socket.display());
        }
        return 0;
    }
    let env = Env::from_process();
    let state_dir = env.state_dir();
    // The state dir holds prompts and session ids: private, as the server makes it.
    if let Err(e) = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&state_dir)
    {
        return fail_with(
            ErrorCode::IoError,
            format!("cannot create {}: {e}", state_dir.display()),
        );
    }
    // The server writes (and rotates) its own log: the config file's
    // `[log] file` when it names one, else <state dir>/server.log.
    let flags: Vec<(K, Value)> = global
        .socket
        .iter()
        .map(|p| (K::Socket, Value::Path(p.clone())))
        .collect();
    let configured = settings::load(&env, &flags).path(K::LogFile);
    let log_path = configured
        .clone()
        .unwrap_or_else(|| state_dir.join("server.log"));
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            return fail_with(
                ErrorCode::IoError,
                format!("cannot find the signaltty binary: {e}"),
            );
        },
    };
    let mut cmd = Command::new(exe);
    cmd.arg("server").arg("--detached");
    if let Some(s) = &global.socket {
        cmd.arg("--socket").arg(s);
    }
    if configured.is_none() {
        cmd.arg("--log-file").arg(&log_path);
    }
    // A panic is logged too (logger::init), so nothing needs stderr.
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return fail_with(
                ErrorCode::SpawnFailed,
                format!("cannot start the server: {e}"),
            );
        },
    };
    let deadline = Instant::now() + LIFECYCLE_TIMEOUT;
    loop {
        if server_answers(&socket) {
            if global.json {
                say!(
                    "{}",
                    serde_json::json!({"started": true, "pid": child.id(), "socket": socket})
                );
            } else {
                say!(
                    "started signaltty (pid {}) on {}",
                    child.id(),
                    socket.display()
                );
            }
            return 0;
        }
        if let Ok(Some(status)) = child.try_wait() {
            return fail_with(
                ErrorCode::SpawnFailed,
                format!(
                    "the server exited ({status}) before answering; see {}",
                    log_path.display()
                ),
            );
        }
        if Instant::now() > deadline {
            return fail_with(
                ErrorCode::Timeout,
                format!(
                    "the server did not answer on {} in time; see {}",
                    socket.display(),
                    log_path.display()
                ),
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Asks the server to stop and waits until its socket is gone.
pub fn stop(global: &Global, force: bool) -> i32 {
    let socket = resolve_socket(global);
    let mut client = match Client::connect(&socket) {
        Ok(c) => c,
        Err(e) => return fail_call(e),
    };
    let activated = crate::systemd::activated_pid(&mut client);
    let result = match client.call(Method::ServerShutdown(ServerShutdownParams {
        force: Some(force),
    })) {
        Ok(r) => r,
        Err(e) => return fail_call(e),
    };
    // The server closes every connection once it has answered; wait for that, then
    // for the socket to stop answering.
    let _ = client.set_timeout(Some(LIFECYCLE_TIMEOUT));
    while let Ok(Some(_)) = client.read_line() {}
    if let Some(pid) = activated {
        return stopped_activated(global, pid, &result);
    }
    let deadline = Instant::now() + LIFECYCLE_TIMEOUT;
    while server_answers(&socket) {
        if Instant::now() > deadline {
            return fail_with(
                ErrorCode::Timeout,
                "the server is still answering after shutdown",
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if global.json {
        say!("{result}");
    } else {
        say!("stopped");
    }
    0
}

/// The end of `signaltty stop` for a socket-activated server: waits until
/// process `pid` is gone, then says the socket unit still listens.
fn stopped_activated(global: &Global, pid: u32, result: &serde_json::Value) -> i32 {
    if !crate::systemd::wait_for_exit(pid, LIFECYCLE_TIMEOUT) {
        return fail_with(
            ErrorCode::Timeout,
            format!("the server (pid {pid}) is still running after shutdown"),
        );
    }
    if global.json {
        say!("{result}");
    } else {
        say!(
            "stopped; systemd still listens on {}, so the next command starts the server \
             again (`systemctl --user stop {}` stops listening too)",
            resolve_socket(global).display(),
            crate::systemd::SOCKET
        );
    }
    0
}
