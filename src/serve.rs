//! `signaltty server`, `start` and `stop`: bootstrap and lifecycle of the server
//! process.

use crate::Global;
use crate::cli::{fail, resolve_socket};
use signaltty_actors::Config;
use signaltty_actors::config::SettingsReport;
use signaltty_model::Env;
use signaltty_model::agents::AgentRules;
use signaltty_model::client::{Client, server_answers};
use signaltty_model::settings::knobs::{K, Value};
use signaltty_model::settings::{self, Settings};
use signaltty_protocol::Method;
use signaltty_protocol::server::ServerShutdownParams;
use std::os::unix::fs::DirBuilderExt;
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

impl ServerArgs {
    /// The values given on the command line, for the settings resolver.
    pub fn flags(&self, global: &Global) -> Vec<(K, Value)> {
        let path = |p: &Option<PathBuf>| {
            p.as_ref()
                .filter(|p| !p.as_os_str().is_empty())
                .map(|p| Value::Path(p.clone()))
        };
        let int = |n: Option<u64>| n.map(Value::Int);
        [
            (K::Socket, path(&global.socket)),
            (K::LogFile, path(&self.log_file)),
            (K::AgentsDir, path(&self.agents_dir)),
            (K::JournalRotate, int(self.journal_rotate_bytes)),
            (K::ProcessRefresh, int(self.process_refresh_ms)),
            (K::SnapshotInterval, int(self.snapshot_interval_ms)),
            (K::CursorApproval, int(self.cursor_approval_ms)),
            (
                K::MaxParallelTasks,
                int(self.max_tasks.map(|n| u64::try_from(n).unwrap_or(u64::MAX))),
            ),
            (K::WorkerSilent, int(self.worker_silent_timeout)),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
    }
}

/// Runs the server in the foreground until it stops; returns its exit code.
pub fn server(global: &Global, args: ServerArgs) -> i32 {
    // A server upgraded in place (docs/upgrade.md) already leads its session.
    let leads_session = nix::unistd::getsid(None).ok() == Some(nix::unistd::getpid());
    if args.session == Session::Detach && !leads_session {
        // Leave the starting terminal's session so its hangup never reaches us.
        if let Err(e) = nix::unistd::setsid() {
            eprintln!("signaltty: cannot start a new session: {e}");
        }
    }
    let env = Env::from_process();
    let settings = settings::load(&env, &args.flags(global));
    let trouble = crate::logger::init(&settings);
    report_settings(&settings, &trouble);
    let (socket, socket_origin) = settings.socket(&env);
    let agents_dir = settings.path(K::AgentsDir);
    let config = Config {
        socket,
        socket_origin,
        state_dir: env.state_dir(),
        data_dir: settings.path(K::DataDir).unwrap_or_else(|| env.data_dir()),
        home: env.home_dir(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        agents_dir: agents_dir.clone(),
        // Loaded before the server listens: a pane must never run without its rules.
        agents: AgentRules::load_at_start(agents_dir.as_deref()),
        limits: settings.limits(),
        settings: SettingsReport {
            file: settings.file_found.then(|| settings.file_path.clone()),
            problems: settings
                .problems
                .iter()
                .map(ToString::to_string)
                .chain(trouble)
                .collect(),
        },
    };
    signaltty_actors::run_server(config)
}

/// Logs which config file is in use and every problem with the settings:
/// a bad entry is ignored (its default kept), never fatal.
fn report_settings(settings: &Settings, trouble: &[String]) {
    let path = settings.file_path.display();
    if settings.file_found {
        log::info!("config file {path}");
    } else {
        log::debug!("no config file at {path}; defaults apply");
    }
    for problem in &settings.problems {
        log::warn!("config: {problem}");
    }
    if settings.file_ignored {
        log::warn!(
            "config: NONE of {path} is used; every setting has its flag, \
             environment or default value until the file is fixed and the server restarted"
        );
    }
    for line in trouble {
        log::warn!("config: {line}");
    }
}

/// Starts a detached server unless one already answers, and waits until it does.
/// `signaltty upgrade-probe`: the line a running server reads to learn
/// whether this binary can take over its panes (docs/upgrade.md).
pub fn upgrade_probe() -> i32 {
    say!("{}", signaltty_actors::upgrade_probe_line());
    0
}

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
        return fail(&format!(
            "IO_ERROR: cannot create {}: {e}",
            state_dir.display()
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
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return fail(&format!("IO_ERROR: cannot find the signaltty binary: {e}")),
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
    let activated = crate::systemd::activated_pid(&mut client);
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
        return stopped_activated(global, pid, &result);
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

/// The end of `signaltty stop` for a socket-activated server: waits until
/// process `pid` is gone, then says the socket unit still listens.
fn stopped_activated(global: &Global, pid: u32, result: &serde_json::Value) -> i32 {
    if !crate::systemd::wait_for_exit(pid, LIFECYCLE_TIMEOUT) {
        return fail(&format!(
            "TIMEOUT: the server (pid {pid}) is still running after shutdown"
        ));
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
