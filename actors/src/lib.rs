//! The signaltty server: its actors and the pure domain modules they own.
//!
//! `run` takes a configuration, binds the socket and runs the actor system until
//! shutdown. See docs/ARCHITECTURE.md for the tour.

pub mod agents;
pub mod codec;
pub mod config;
pub mod connection;
pub mod decision;
pub mod error;
pub mod events;
pub mod flow;
pub mod git;
pub mod ids;
pub mod integration;
pub mod journal;
pub mod launch;
pub mod layout;
pub mod listener;
pub mod pane;
pub mod procfs;
pub mod projection;
pub mod pty;
pub mod router;
pub mod slug;
pub mod state;
pub mod subscriber;
pub mod supervisor;
pub mod term;
#[cfg(test)]
pub mod testkit;
pub mod turns;
pub mod workspace;

pub use config::{Config, Env, Limits, SocketOrigin};
pub use error::Error;

use crate::journal::file::FileStore;
use crate::listener::{BindError, Bound, accept_loop, claim, listen, lock_state_dir};
use crate::supervisor::{BeginShutdown, Supervisor};
use actix::prelude::*;
use std::sync::Arc;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// Exit code when another server already owns the socket.
pub const EXIT_ALREADY_RUNNING: i32 = 3;
/// Exit code when the server cannot start (unsafe directory, bad path, …).
pub const EXIT_STARTUP_FAILED: i32 = 1;

/// Binds the socket and runs the server until it is shut down. Returns the
/// process exit code. Logs go through the `log` facade.
pub fn run(config: Config) -> i32 {
    let config = Arc::new(config);
    let system = System::new();
    // Everything that can refuse to start happens inside the runtime, after the
    // signal handlers exist: a client may connect (and a test may signal) as soon
    // as the socket is bound.
    let started = system.block_on(start(config));
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

/// Starts the server inside the actix System: signal handlers, socket, state
/// directory, journal, Supervisor and accept loop. Fails with an exit code.
async fn start(config: Arc<Config>) -> Result<Bound, i32> {
    let mut signals = Vec::new();
    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::interrupt(), "SIGINT"),
    ] {
        match signal(kind) {
            Ok(stream) => signals.push((stream, name)),
            Err(e) => log::warn!("cannot handle {name}: {e}"),
        }
    }
    let claimed = claim(&config.socket, config.socket_origin).map_err(|e| {
        log::error!("{e}");
        match e {
            BindError::AlreadyRunning(_) => EXIT_ALREADY_RUNNING,
            _ => EXIT_STARTUP_FAILED,
        }
    })?;
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
    // One server per state directory, whatever its socket: two would interleave
    // their journals and reuse each other's numbers.
    let state_lock = lock_state_dir(&config.state_dir).map_err(|e| {
        log::error!("{e}");
        match e {
            BindError::StateDirBusy(_) => EXIT_ALREADY_RUNNING,
            _ => EXIT_STARTUP_FAILED,
        }
    })?;
    let (store, disk, report) =
        FileStore::open(&config.state_dir, config.limits.journal_rotate_bytes).map_err(|e| {
            log::error!(
                "cannot open the event journal in {}: {e}",
                config.state_dir.display()
            );
            EXIT_STARTUP_FAILED
        })?;
    for note in &report.notes {
        log::warn!("journal: {note}");
    }
    raise_fd_limit();
    // Bound last: once a client can connect, the server is ready to answer it.
    let bound = listen(claimed).map_err(|e| {
        log::error!("{e}");
        EXIT_STARTUP_FAILED
    })?;
    let listener = bound.listener.try_clone().map_err(|e| {
        log::error!("cannot use the socket: {e}");
        EXIT_STARTUP_FAILED
    })?;

    let (stop_tx, stop_rx) = watch::channel(false);
    // Pane actors run on their own arbiters, one per core, so one pane's output
    // never delays requests or another pane's hook events.
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let pane_arbiters: Vec<ArbiterHandle> = (0..cores).map(|_| Arbiter::new().handle()).collect();
    let supervisor = Supervisor::new(config.clone(), store, Some(disk), stop_tx)
        .with_pane_arbiters(pane_arbiters)
        .start();
    actix_rt::spawn(accept_loop(
        listener,
        supervisor.clone(),
        config.limits.clone(),
        stop_rx,
    ));
    for (mut stream, name) in signals {
        let sup = supervisor.clone();
        actix_rt::spawn(async move {
            while stream.recv().await.is_some() {
                sup.do_send(BeginShutdown {
                    reason: format!("received {name}"),
                });
            }
        });
    }
    log::info!(
        "signaltty {} listening on {}",
        config.version,
        config.socket.display()
    );
    let mut bound = bound;
    bound.state_lock = Some(state_lock);
    Ok(bound)
}

trait DirBuilderMode {
    fn mode_0700(&mut self) -> &mut Self;
}

impl DirBuilderMode for std::fs::DirBuilder {
    fn mode_0700(&mut self) -> &mut Self {
        std::os::unix::fs::DirBuilderExt::mode(self, 0o700)
    }
}

/// Raises the soft open-file limit to the hard limit: every client and pane costs
/// descriptors.
fn raise_fd_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < hard
        && let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
    {
        log::debug!("cannot raise the open-file limit: {e}");
    }
}
