//! Starting a detached server unless one answers: what `signaltty start`
//! does, and what `signaltty bridge` does before it relays.

use crate::args::Global;
use crate::cli::resolve_socket;
use signaltty_model::Env;
use signaltty_model::client::server_answers;
use signaltty_model::settings;
use signaltty_model::settings::knobs::{K, Value};
use signaltty_protocol::ErrorCode;
use std::os::unix::fs::DirBuilderExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a start waits for the server to answer.
const LIFECYCLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts a detached server unless one already answers on this
/// invocation's socket, and waits until it does: `Some(pid)` when it
/// started one, `None` when one was there (`start`, and `bridge` before it
/// relays).
pub fn launch(global: &Global) -> Result<Option<u32>, (ErrorCode, String)> {
    let socket = resolve_socket(global);
    if server_answers(&socket) {
        return Ok(None);
    }
    let env = Env::from_process();
    let state_dir = env.state_dir();
    // The state dir holds prompts and session ids: private, as the server makes it.
    if let Err(e) = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&state_dir)
    {
        return Err((
            ErrorCode::IoError,
            format!("cannot create {}: {e}", state_dir.display()),
        ));
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
    let exe = std::env::current_exe().map_err(|e| {
        (
            ErrorCode::IoError,
            format!("cannot find the signaltty binary: {e}"),
        )
    })?;
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
    let mut child = cmd.spawn().map_err(|e| {
        (
            ErrorCode::SpawnFailed,
            format!("cannot start the server: {e}"),
        )
    })?;
    let deadline = Instant::now() + LIFECYCLE_TIMEOUT;
    loop {
        if server_answers(&socket) {
            let pid = child.id();
            // A long-lived caller (a bridge) reaps it when it ends.
            std::thread::spawn(move || child.wait());
            return Ok(Some(pid));
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err((
                ErrorCode::SpawnFailed,
                format!(
                    "the server exited ({status}) before answering; see {}",
                    log_path.display()
                ),
            ));
        }
        if Instant::now() > deadline {
            return Err((
                ErrorCode::Timeout,
                format!(
                    "the server did not answer on {} in time; see {}",
                    socket.display(),
                    log_path.display()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
