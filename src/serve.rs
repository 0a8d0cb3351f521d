//! `signaltty server`: the server's bootstrap (settings, log, config) in the
//! foreground, and `signaltty upgrade-probe`, the line an upgrading server
//! reads from its successor. Starting and stopping a server from the CLI is
//! `cli/server.rs`.

use crate::args::Global;
use signaltty_actors::Config;
use signaltty_actors::config::SettingsReport;
use signaltty_model::Env;
use signaltty_model::agents::AgentRules;
use signaltty_model::settings::knobs::{K, Value};
use signaltty_model::settings::{self, Settings};
use std::path::PathBuf;

/// `signaltty server`'s flags (the clap tree names this struct).
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    /// Also write the log to this file, rotated to PATH.1 past [log] max_bytes
    /// (default: [log] file of the config file).
    #[arg(long, value_name = "PATH")]
    pub log_file: Option<PathBuf>,
    /// Leave the terminal's session (used by `signaltty start`).
    #[arg(long, hide = true)]
    pub detached: bool,
    /// Rotate the journal past this many bytes (tests shrink it).
    #[arg(long, hide = true, value_name = "BYTES")]
    pub journal_rotate_bytes: Option<u64>,
    /// Look at panes' processes this often (default 10 s; tests shorten it).
    #[arg(long, hide = true, value_name = "MS")]
    pub process_refresh_ms: Option<u64>,
    /// Write a due snapshot this often (default 2 s; tests lengthen it).
    #[arg(long, hide = true, value_name = "MS")]
    pub snapshot_interval_ms: Option<u64>,
    /// Read agent manifests from this directory ($SIGNALTTY_AGENTS_DIR wins;
    /// default $XDG_CONFIG_HOME/signaltty/agents).
    #[arg(long, value_name = "DIR")]
    pub agents_dir: Option<PathBuf>,
    /// Cursor approval inference wait (default 10 s; tests shorten it).
    #[arg(long, hide = true, value_name = "MS")]
    pub cursor_approval_ms: Option<u64>,
    /// Tasks running at once at most (default 4, or $SIGNALTTY_MAX_PARALLEL_TASKS);
    /// more starts wait in the queue, and 0 starts none.
    #[arg(long, value_name = "N")]
    pub max_tasks: Option<usize>,
    /// A working task whose worker prints and reports nothing this long
    /// needs input (default 600, or $SIGNALTTY_WORKER_SILENT_TIMEOUT_S; 0: never).
    #[arg(long, value_name = "S")]
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
    if args.detached && !leads_session {
        // Leave the starting terminal's session (`signaltty start`) so its
        // hangup never reaches us.
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
        os: signaltty_actors::Os::real(),
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

/// `signaltty upgrade-probe`: the line a running server reads to learn
/// whether this binary can take over its panes (docs/upgrade.md).
pub fn upgrade_probe() -> i32 {
    say!("{}", signaltty_actors::upgrade_probe_line());
    0
}
