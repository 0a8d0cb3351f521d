//! What both benchmark binaries share: error context, and signal handling that lets
//! an interrupted run stop its servers and remove its directories.

// Each binary uses a different subset.
#![allow(dead_code)]

use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};

/// A benchmark step's result; the error says what failed.
pub type Res<T> = Result<T, String>;

/// Adds context to an error.
pub trait Context<T> {
    /// Maps the error to "what: error".
    fn ctx(self, what: impl FnOnce() -> String) -> Res<T>;
}

impl<T, E: std::fmt::Display> Context<T> for Result<T, E> {
    fn ctx(self, what: impl FnOnce() -> String) -> Res<T> {
        self.map_err(|e| format!("{}: {e}", what()))
    }
}

/// Set by the signal thread on SIGINT/SIGTERM; every measuring loop checks it.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Fails once the run was interrupted.
pub fn check_interrupted() -> Res<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

fn caught_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    set.add(Signal::SIGTERM);
    set
}

/// Blocks SIGINT and SIGTERM in this thread (and so in every thread spawned later)
/// and waits for them on a dedicated thread (no signal handler, hence no `unsafe`).
pub fn catch_signals() -> Res<()> {
    let set = caught_signals();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None).ctx(|| "sigprocmask".into())?;
    std::thread::spawn(move || {
        while set.wait().is_ok() {
            INTERRUPTED.store(true, Ordering::Relaxed);
        }
    });
    Ok(())
}

/// Spawns a child with SIGINT and SIGTERM unblocked: std's `Command` (posix_spawn
/// path) passes the parent thread's signal mask on to the child, so without this a
/// server would ignore our SIGTERM.
pub fn spawn_unmasked(cmd: &mut Command) -> std::io::Result<Child> {
    let set = caught_signals();
    pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&set), None)?;
    let child = cmd.spawn();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None)?;
    child
}

/// A `signaltty server` child on the given XDG directories, with stderr in
/// `log`; stopped with SIGTERM (then SIGKILL) on drop.
pub struct ServerProcess {
    child: Child,
    log: std::path::PathBuf,
    /// Where it listens.
    pub socket: std::path::PathBuf,
    /// Names the benchmark in the message printed when a stop goes wrong.
    who: &'static str,
}

/// The directories a benchmark server runs on.
pub struct ServerDirs<'a> {
    pub run: &'a std::path::Path,
    pub state: &'a std::path::Path,
    pub home: &'a std::path::Path,
    pub log: std::path::PathBuf,
    /// The server's working directory (default: inherited).
    pub cwd: Option<&'a std::path::Path>,
    /// More arguments after `server`.
    pub args: &'a [&'a str],
}

impl ServerProcess {
    /// Starts `bin server` and waits up to 10 s until `ready(socket)` holds.
    pub fn start(
        who: &'static str,
        bin: &std::path::Path,
        dirs: ServerDirs<'_>,
        mut ready: impl FnMut(&std::path::Path) -> bool,
    ) -> Res<ServerProcess> {
        use std::process::Stdio;
        use std::time::{Duration, Instant};
        let log_file = std::fs::File::create(&dirs.log)
            .ctx(|| format!("cannot create {}", dirs.log.display()))?;
        let socket = dirs.run.join("signaltty").join("signaltty.sock");
        let mut cmd = Command::new(bin);
        cmd.arg("server")
            .args(dirs.args)
            .env("XDG_RUNTIME_DIR", dirs.run)
            .env("XDG_STATE_HOME", dirs.state)
            .env("HOME", dirs.home)
            .env_remove("SIGNALTTY_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file);
        if let Some(cwd) = dirs.cwd {
            cmd.current_dir(cwd);
        }
        let child =
            spawn_unmasked(&mut cmd).ctx(|| format!("cannot start {} server", bin.display()))?;
        let mut server = ServerProcess {
            child,
            log: dirs.log,
            socket,
            who,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            check_interrupted()?;
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "the server exited early ({status}); its log:\n{}",
                    server.log_text()
                ));
            }
            if ready(&server.socket) {
                return Ok(server);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the server did not answer on {} within 10 s; its log:\n{}",
                    server.socket.display(),
                    server.log_text()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, then wait up to 10 s, then SIGKILL. Returns the exit status text.
    pub fn stop(&mut self) -> String {
        use std::time::{Duration, Instant};
        if let Ok(Some(status)) = self.child.try_wait() {
            return format!("already exited ({status})");
        }
        let pid = nix::unistd::Pid::from_raw(self.child.id().cast_signed());
        let _ = nix::sys::signal::kill(pid, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                },
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return "did not stop within 10 s of SIGTERM; killed".into();
                },
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let how = self.stop();
        if !how.contains("exit status: 0") {
            eprintln!("{}: server stopped: {how}", self.who);
        }
    }
}
