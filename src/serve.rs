//! `signaltty server`, `start` and `stop`: bootstrap and lifecycle of the server
//! process.

use crate::Global;
use crate::cli::{fail, resolve_socket};
use crate::client::{Client, server_answers};
use signaltty_actors::agents::AgentRules;
use signaltty_actors::{Config, Env, Limits};
use signaltty_protocol::Method;
use signaltty_protocol::server::ServerShutdownParams;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `start` and `stop` wait for the server to come up or go away.
const LIFECYCLE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the server keeps the session of the terminal it was started from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {
    /// Stay in it (`signaltty server` in a shell).
    Inherit,
    /// Leave it, so the starting terminal's hangup never reaches the server
    /// (`signaltty start`).
    Detach,
}

/// What `signaltty server` was started with.
#[derive(Debug, Clone)]
pub struct ServerArgs {
    /// Where the log goes (default: stderr).
    pub log_file: Option<PathBuf>,
    /// Whether to leave the starting terminal's session.
    pub session: Session,
    /// Journal rotation size, overriding the default.
    pub journal_rotate_bytes: Option<u64>,
    /// The process refresh period, overriding the default.
    pub process_refresh_ms: Option<u64>,
    /// The snapshot flusher's period, overriding the default.
    pub snapshot_interval_ms: Option<u64>,
    /// The agent manifests directory (`--agents-dir`).
    pub agents_dir: Option<PathBuf>,
    /// Cursor's approval inference wait, overriding the default.
    pub cursor_approval_ms: Option<u64>,
    /// The task cap (`--max-tasks`).
    pub max_tasks: Option<usize>,
    /// The silent-worker timeout in seconds (`--worker-silent-timeout`).
    pub worker_silent_timeout: Option<u64>,
}

/// Runs the server in the foreground until it stops; returns its exit code.
pub fn server(global: &Global, args: ServerArgs) -> i32 {
    let ServerArgs {
        log_file,
        session,
        journal_rotate_bytes,
        process_refresh_ms,
        snapshot_interval_ms,
        agents_dir,
        cursor_approval_ms,
        max_tasks,
        worker_silent_timeout,
    } = args;
    if session == Session::Detach {
        // Leave the starting terminal's session so its hangup never reaches us.
        if let Err(e) = nix::unistd::setsid() {
            eprintln!("signaltty: cannot start a new session: {e}");
        }
    }
    crate::logger::init(log_file.as_deref());
    let env = Env::from_process();
    let (socket, socket_origin) = env.socket_path(global.socket.as_deref());
    let agents_dir = env.agents_dir(agents_dir.as_deref());
    let config = Config {
        socket,
        socket_origin,
        state_dir: env.state_dir(),
        data_dir: env.data_dir(),
        home: env.home_dir(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        agents_dir: agents_dir.clone(),
        // Loaded before the server listens: a pane must never run without its rules.
        agents: AgentRules::load_at_start(agents_dir.as_deref()),
        limits: Limits {
            journal_rotate_bytes: journal_rotate_bytes
                .unwrap_or(Limits::default().journal_rotate_bytes),
            process_refresh: process_refresh_ms
                .map_or(Limits::default().process_refresh, Duration::from_millis),
            snapshot_interval: snapshot_interval_ms
                .map_or(Limits::default().snapshot_interval, Duration::from_millis),
            cursor_approval_wait: cursor_approval_ms.map_or(
                Limits::default().cursor_approval_wait,
                Duration::from_millis,
            ),
            max_parallel_tasks: env.max_parallel_tasks(max_tasks),
            worker_silent_timeout: env.worker_silent_timeout(worker_silent_timeout),
            worktree_git_deadline: worktree_git_deadline(),
            merge_timeout: millis_var("SIGNALTTY_MERGE_TIMEOUT_MS")
                .unwrap_or(Limits::default().merge_timeout),
            ..Limits::default()
        },
    };
    signaltty_actors::run_server(config)
}

/// The `worktree.*` git deadline: `SIGNALTTY_WORKTREE_TIMEOUT_MS`, read once
/// at start (tests shorten it to see a hook killed), else 20 s.
fn worktree_git_deadline() -> Duration {
    millis_var("SIGNALTTY_WORKTREE_TIMEOUT_MS").unwrap_or(Limits::default().worktree_git_deadline)
}

/// A positive number of milliseconds from the environment variable `name`.
fn millis_var(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
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
    let state_dir = Env::from_process().state_dir();
    // The state dir holds prompts and session ids: private, as the server makes it.
    if let Err(e) = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&state_dir)
    {
        return fail(&format!(
            "IO_ERROR: cannot create {}: {e}",
            state_dir.display()
        ));
    }
    let log_path = state_dir.join("server.log");
    let log = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&log_path)
    {
        Ok(f) => f,
        Err(e) => {
            return fail(&format!(
                "IO_ERROR: cannot open {}: {e}",
                log_path.display()
            ));
        },
    };
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return fail(&format!("IO_ERROR: cannot find the signaltty binary: {e}")),
    };
    let mut cmd = Command::new(exe);
    cmd.arg("server").arg("--detached");
    if let Some(s) = &global.socket {
        cmd.arg("--socket").arg(s);
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return fail(&format!("SPAWN_FAILED: cannot start the server: {e}")),
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
            return fail(&format!(
                "SPAWN_FAILED: the server exited ({status}) before answering; see {}",
                log_path.display()
            ));
        }
        if Instant::now() > deadline {
            return fail(&format!(
                "TIMEOUT: the server did not answer on {} in time; see {}",
                socket.display(),
                log_path.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Asks the server to stop and waits until its socket is gone.
pub fn stop(global: &Global, force: bool) -> i32 {
    let socket = resolve_socket(global);
    let mut client = match Client::connect(&socket) {
        Ok(c) => c,
        Err(e) => return fail(&format!("{}: {}", e.code, e.message)),
    };
    let activated = crate::service_cli::activated_pid(&mut client);
    let result = match client.call(Method::ServerShutdown(ServerShutdownParams {
        force: Some(force),
    })) {
        Ok(r) => r,
        Err(e) => return fail(&format!("{}: {}", e.code, e.message)),
    };
    // The server closes every connection once it has answered; wait for that, then
    // for the socket to stop answering.
    let _ = client.set_timeout(Some(LIFECYCLE_TIMEOUT));
    while let Ok(Some(_)) = client.read_line() {}
    if let Some(pid) = activated {
        return crate::service_cli::stopped_activated(global, pid, &result, LIFECYCLE_TIMEOUT);
    }
    let deadline = Instant::now() + LIFECYCLE_TIMEOUT;
    while server_answers(&socket) {
        if Instant::now() > deadline {
            return fail("TIMEOUT: the server is still answering after shutdown");
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
