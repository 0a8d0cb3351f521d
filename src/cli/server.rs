//! The server's lifecycle and contract as the CLI sees them: `signaltty
//! status` (server.status), `schema` (server.schema), `start` (a detached
//! server, unless one answers) and `stop` (server.shutdown). The server
//! itself is `signaltty server` (`serve.rs`).

use crate::args::Global;
use crate::cli::{call, fail_call, fail_with, human_duration, resolve_socket};
use signaltty_model::client::{Client, server_answers};
use signaltty_protocol::server::{ServerSchemaResult, ServerShutdownParams, ServerStatusResult};
use signaltty_protocol::{ErrorCode, Method};
use std::time::{Duration, Instant};

/// How long `start` and `stop` wait for the server to come up or go away.
const LIFECYCLE_TIMEOUT: Duration = Duration::from_secs(10);

/// `signaltty status`.
pub fn status(global: &Global) -> i32 {
    let target = match crate::remote::target(global) {
        Ok(t) => t,
        Err(code) => return code,
    };
    call(
        global,
        Method::ServerStatus(Default::default()),
        |s: ServerStatusResult| {
            say!("signaltty {} ({}) on {target}", s.version, s.protocol);
            say!("  up {}", human_duration(s.uptime_s));
            say!(
                "  workspaces {}  tabs {}  panes {} ({} live)",
                s.workspaces,
                s.tabs,
                s.panes,
                s.live_panes
            );
            say!("  event seq {}", s.seq);
            // Said when it is getting tight; `--json` and `signaltty doctor` always
            // have it (docs/panes.md#how-many-panes).
            if let Some(c) = &s.pane_capacity
                && (s.live_panes as u64).saturating_mul(4) >= c.max_live_panes.saturating_mul(3)
            {
                say!(
                    "  ! {} live panes of at most {} (open-file limit {}): raise it with `ulimit -n` before `signaltty start`",
                    s.live_panes,
                    c.max_live_panes,
                    c.open_file_limit
                );
            }
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
    match crate::launch::launch(global) {
        Ok(None) => {
            if !global.json {
                say!("a server is already running on {}", socket.display());
            }
            0
        },
        Ok(Some(pid)) => {
            if global.json {
                say!(
                    "{}",
                    serde_json::json!({"started": true, "pid": pid, "socket": socket})
                );
            } else {
                say!("started signaltty (pid {pid}) on {}", socket.display());
            }
            0
        },
        Err((code, message)) => fail_with(code, message),
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
