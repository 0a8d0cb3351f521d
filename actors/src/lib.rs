//! The signaltty server: its actors and the pure domain modules they own.
//!
//! [`run_server`] is the `signaltty server` process: it binds the socket (or
//! takes the one systemd passed, `activation.rs`), opens the state directory
//! and runs [`run`] in an actix System until shutdown. [`run`] itself takes a bound listener and an opened
//! [`StateDir`], so tests can run a whole server in-process. See
//! docs/ARCHITECTURE.md for the tour.

mod actors;
pub mod config;
mod domain;
mod error;
mod ids;
mod os;
mod store;
#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;

pub use config::Config;
pub use error::Error;
pub use os::seams::Os;
pub use os::upgrade::probe_line as upgrade_probe_line;

use crate::actors::connection::{Connection, Hub};
use crate::actors::pane::PaneSink;
use crate::actors::supervisor;
use crate::actors::supervisor::{BeginShutdown, Supervisor};
use crate::os::activation::Notifier;
use crate::os::listener;
use crate::os::listener::{
    BindError, Bound, Claimed, accept_loop, adopt, claim, listen, lock_state_dir,
};
use crate::os::{activation, upgrade};
use crate::store::journal::file::FileStore;
use crate::store::restore;
use actix::prelude::*;
use signaltty_model::SocketOrigin;
use std::sync::Arc;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// Exit code when another server already owns the socket.
pub const EXIT_ALREADY_RUNNING: i32 = 3;
/// Exit code when the server cannot start (unsafe directory, bad path, …).
pub const EXIT_STARTUP_FAILED: i32 = 1;

/// Binds the socket and runs the server until it is shut down. Returns the
/// process exit code. Logs go through the `log` facade.
pub fn run_server(mut config: Config) -> i32 {
    // Before any thread is started, so every thread shares the two arenas.
    log::info!("{}", os::malloc::tune());
    // First, while the process has one thread: what an in-place upgrade left
    // (its descriptors claimed before anything can reuse their numbers) and
    // what systemd handed over, with their variables removed from the
    // environment before any child is started.
    upgrade::remember_origin();
    os::limits::remember_from_upgrade();
    let named = upgrade::takeover::named_by_env();
    let handoff = match activation::take_from_env() {
        Ok(h) => h,
        Err(e) => {
            log::error!("socket activation: {e}");
            return EXIT_STARTUP_FAILED;
        },
    };
    let takeover = match named.map(|n| upgrade::takeover::take_over(n, &PaneSink::boxed)) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            log::error!("upgrade: cannot take over: {e}");
            return EXIT_STARTUP_FAILED;
        },
    };
    let mut takeover = takeover;
    let taken_listener = takeover.as_mut().and_then(|t| t.listener.take());
    let passed = match (&handoff.listen, taken_listener) {
        (_, Some((listener, path, manager_owns))) => {
            log::info!("upgrade: serving {} again", path.display());
            config.socket = path.clone();
            config.socket_origin = SocketOrigin::Explicit;
            Some((listener, path, manager_owns))
        },
        (None, None) => None,
        (Some(fds), None) => match activation::adopt_listener(fds) {
            Ok((listener, path)) => {
                log::info!("socket activation: serving {}", path.display());
                // Panes are told the socket they were really reached on.
                config.socket = path.clone();
                config.socket_origin = SocketOrigin::Explicit;
                activation::mark_socket_activated();
                Some((listener, path, true))
            },
            Err(e) => {
                log::error!("socket activation: {e}");
                return EXIT_STARTUP_FAILED;
            },
        },
    };
    let config = Arc::new(config);
    let system = System::new();
    // Everything that can refuse to start happens inside the runtime, after the
    // signal handlers exist: a client may connect (and a test may signal) as soon
    // as the socket is bound.
    let started = system.block_on(start(config, passed, handoff.notify, takeover));
    let bound = match started {
        Ok(bound) => bound,
        Err(code) => return code,
    };
    let code = match system.run_with_code() {
        Ok(code) => code,
        Err(e) => {
            log::error!("the actor system failed: {e}");
            EXIT_STARTUP_FAILED
        },
    };
    drop(bound);
    log::info!("stopped");
    code
}

/// The state directory, locked for this server, and its journal, opened.
pub struct StateDir {
    store: FileStore,
    disk: Arc<crate::store::journal::file::DiskHistory>,
    /// The world as the snapshot and the journal left it.
    restored: restore::Restored,
    /// Held for the server's life: one server per state directory.
    _lock: std::fs::File,
}

impl StateDir {
    /// Creates (0700) and locks `config.state_dir` and opens its journal. Fails
    /// with the process exit code, having logged why.
    pub fn open(config: &Config) -> Result<StateDir, i32> {
        StateDir::open_keeping(config, &std::collections::HashSet::new())
    }

    /// [`StateDir::open`], keeping the panes in `live` live: an in-place
    /// upgrade handed their processes over (docs/upgrade.md).
    pub fn open_keeping(
        config: &Config,
        live: &std::collections::HashSet<signaltty_protocol::PaneId>,
    ) -> Result<StateDir, i32> {
        if let Err(e) = std::fs::DirBuilder::new()
            .recursive(true)
            .mode_0700()
            .create(&config.state_dir)
        {
            log::error!(
                "cannot create the state directory {}: {e}",
                config.state_dir.display()
            );
            return Err(EXIT_STARTUP_FAILED);
        }
        // One server per state directory, whatever its socket: two would
        // interleave their journals and reuse each other's numbers.
        let lock = lock_state_dir(&config.state_dir).map_err(|e| {
            log::error!("{e}");
            match e {
                BindError::StateDirBusy(_) => EXIT_ALREADY_RUNNING,
                _ => EXIT_STARTUP_FAILED,
            }
        })?;
        let (store, disk, report) =
            FileStore::open(&config.state_dir, config.limits.journal_rotate_bytes).map_err(
                |e| {
                    log::error!(
                        "cannot open the event journal in {}: {e}",
                        config.state_dir.display()
                    );
                    EXIT_STARTUP_FAILED
                },
            )?;
        for note in &report.notes {
            log::warn!("journal: {note}");
        }
        let restored = restore::restore(
            &config.state_dir,
            &disk,
            crate::store::journal::JournalStore::head(&store),
            config.limits.history_tail_bytes,
            live,
        );
        Ok(StateDir {
            store,
            disk,
            restored,
            _lock: lock,
        })
    }
}

/// Asks a running server to shut down: each message is one request (the
/// first drains gracefully, a second stops at once), with its reason.
pub type ShutdownRequests = tokio::sync::mpsc::UnboundedReceiver<String>;

/// Runs a server on an already bound `listener` over an opened state
/// directory, inside the current actix System, until it stops; resolves with
/// its exit code. This is what the `signaltty server` process runs, and what
/// in-process tests start: no subprocess, no process-wide signal handlers.
pub async fn run(
    listener: std::os::unix::net::UnixListener,
    config: Arc<Config>,
    state: StateDir,
    shutdown: ShutdownRequests,
) -> i32 {
    run_notifying(listener, config, state, shutdown, Served::default()).await
}

/// What the server process adds to an in-process [`run`]: the service
/// manager to tell, the socket an upgrade hands over, and what an upgrade
/// handed this binary.
#[derive(Default)]
struct Served {
    notify: Option<Notifier>,
    listener: Option<supervisor::upgrade::ListenerInfo>,
    takeover: Option<supervisor::Takeover>,
}

/// [`run`], telling a service manager (`notify`) when the server answers
/// (`READY=1`) and when it begins to shut down (`STOPPING=1`).
async fn run_notifying(
    listener: std::os::unix::net::UnixListener,
    config: Arc<Config>,
    state: StateDir,
    mut shutdown: ShutdownRequests,
    served: Served,
) -> i32 {
    let Served {
        notify,
        listener: listener_info,
        takeover,
    } = served;
    let (stop_tx, stop_rx) = watch::channel(listener::Accepting::Open);
    let (exit_tx, exit_rx) = tokio::sync::oneshot::channel();
    // Pane actors run on their own arbiters, one per core, so one pane's output
    // never delays requests or another pane's hook events.
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let pane_arbiters: Vec<ArbiterHandle> = (0..cores).map(|_| Arbiter::new().handle()).collect();
    let StateDir {
        store,
        disk,
        restored,
        _lock,
    } = state;
    let mut supervisor = Supervisor::new(config.clone(), store, Some(disk), stop_tx)
        .with_pane_arbiters(pane_arbiters.clone())
        .restored(restored, config.state_dir.clone());
    if let Some(info) = listener_info {
        supervisor = supervisor.with_listener(info);
    }
    if let Some(takeover) = takeover {
        supervisor = supervisor.taken_over(takeover);
    }
    let supervisor = supervisor
        .on_stop(move |code| {
            let _ = exit_tx.send(code);
        })
        .start();
    let mut stopping = stop_rx.clone();
    let hub = Hub::of(&supervisor);
    let limits = config.limits.clone();
    let serve = move |stream| {
        Connection::start(stream, hub.clone(), limits.clone());
    };
    actix_rt::spawn(accept_loop(listener, serve, stop_rx));
    if let Some(notify) = &notify {
        // The state is restored and the Supervisor takes requests: whatever
        // connects from now on (or waits in the backlog) is answered.
        notify.ready(&config.socket);
        let notify = notify.clone();
        actix_rt::spawn(async move {
            // The Supervisor flips this when it stops accepting; a dropped sender
            // means it is gone, which is a stop too.
            let _ = stopping
                .wait_for(|stop| *stop == listener::Accepting::Stopped)
                .await;
            notify.stopping();
        });
    }
    let sup = supervisor.clone();
    let requests = actix_rt::spawn(async move {
        while let Some(reason) = shutdown.recv().await {
            sup.do_send(BeginShutdown { reason });
        }
    });
    log::info!(
        "signaltty {} listening on {}",
        config.version,
        config.socket.display()
    );
    log::info!("{}", os::text::shed_unused_code());
    // The Supervisor reports its exit code once it has stopped; a lost report
    // means it is gone without one, which is a failure.
    let code = exit_rx.await.unwrap_or(EXIT_STARTUP_FAILED);
    if let Some(notify) = &notify {
        notify.stopping();
    }
    requests.abort();
    for arbiter in pane_arbiters {
        arbiter.stop();
    }
    drop(_lock);
    code
}

/// Starts the server process inside the actix System: signal handlers, socket,
/// state directory, then [`run`], whose exit code stops the System. Fails with
/// an exit code.
async fn start(
    config: Arc<Config>,
    passed: Option<(std::os::unix::net::UnixListener, std::path::PathBuf, bool)>,
    notify: Option<Notifier>,
    takeover: Option<supervisor::Takeover>,
) -> Result<Bound, i32> {
    let (requests, shutdown) = tokio::sync::mpsc::unbounded_channel();
    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::interrupt(), "SIGINT"),
    ] {
        match signal(kind) {
            Ok(mut stream) => {
                let requests = requests.clone();
                actix_rt::spawn(async move {
                    while stream.recv().await.is_some() {
                        let _ = requests.send(format!("received {name}"));
                    }
                });
            },
            Err(e) => log::warn!("cannot handle {name}: {e}"),
        }
    }
    let refused = |e: BindError| {
        log::error!("{e}");
        match e {
            BindError::AlreadyRunning(_) => EXIT_ALREADY_RUNNING,
            _ => EXIT_STARTUP_FAILED,
        }
    };
    // A passed socket already listens (clients wait in its backlog until we
    // accept); our own is claimed now and bound last.
    let socket = match passed {
        Some((listener, path, manager_owns)) => {
            let mut bound = adopt(listener, path).map_err(refused)?;
            // A socket an upgrade handed over is this server's own unless a
            // service manager passed it first: removed at stop as usual.
            bound.passed = manager_owns;
            Socket::Passed(bound)
        },
        None => Socket::Claimed(claim(&config.socket, config.socket_origin).map_err(refused)?),
    };
    let live = takeover
        .as_ref()
        .map(upgrade::takeover::Takeover::live)
        .unwrap_or_default();
    let state = StateDir::open_keeping(&config, &live)?;
    if let Some(t) = &takeover {
        log::debug!(
            "upgrade: state restored at {} ms",
            upgrade::takeover::monotonic_ms().saturating_sub(t.requested_at_ms)
        );
    }
    os::limits::raise_at_start();
    // Bound last: once a client can connect, the server is ready to answer it.
    let bound = match socket {
        Socket::Passed(bound) => bound,
        Socket::Claimed(claimed) => listen(claimed).map_err(|e| {
            log::error!("{e}");
            EXIT_STARTUP_FAILED
        })?,
    };
    let listener = bound.listener.try_clone().map_err(|e| {
        log::error!("cannot use the socket: {e}");
        EXIT_STARTUP_FAILED
    })?;
    let listener_info = supervisor::upgrade::ListenerInfo {
        fd: std::os::fd::AsRawFd::as_raw_fd(&listener),
        path: bound.path.clone(),
        passed: bound.passed,
    };
    let served = Served {
        notify,
        listener: Some(listener_info),
        takeover,
    };
    actix_rt::spawn(async move {
        let code = run_notifying(listener, config, state, shutdown, served).await;
        System::current().stop_with_code(code);
    });
    Ok(bound)
}

/// The server's socket before it is served: passed by a service manager, or
/// claimed and bound here.
enum Socket {
    Passed(Bound),
    Claimed(Claimed),
}

trait DirBuilderMode {
    fn mode_0700(&mut self) -> &mut Self;
}

impl DirBuilderMode for std::fs::DirBuilder {
    fn mode_0700(&mut self) -> &mut Self {
        std::os::unix::fs::DirBuilderExt::mode(self, 0o700)
    }
}
