//! A `signaltty server` child on private XDG directories: started and waited for
//! until it answers on its socket, stopped with SIGTERM (then SIGKILL) and reaped on
//! drop.

use super::client::Conn;
use super::tempdir::{TempDir, mkdir_private};
use super::{Context, Res, WHO, check_interrupted, spawn_unmasked};
use nix::sys::signal::Signal;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to answer after its start, and to exit after SIGTERM.
const START_STOP_LIMIT: Duration = Duration::from_secs(10);

pub struct Server {
    child: Child,
    /// Its stderr.
    log: PathBuf,
    /// Where it listens.
    socket: PathBuf,
    /// A state directory outside the base directory, removed after the server stops.
    _outside_state: Option<TempDir>,
}

impl Server {
    /// Starts `bin server ARGS` in `base` (a fresh directory): XDG_RUNTIME_DIR,
    /// XDG_STATE_HOME and HOME are `base/run`, `base/state` and `base/home`, stderr
    /// goes to `base/server.log`.
    pub fn start(bin: &Path, base: &Path, args: &[&str]) -> Res<Server> {
        Server::start_with_state(bin, base, args, None)
    }

    /// The same, with XDG_STATE_HOME (where the journal lives) in a fresh directory
    /// under `state_parent` when given.
    pub fn start_with_state(
        bin: &Path,
        base: &Path,
        args: &[&str],
        state_parent: Option<&Path>,
    ) -> Res<Server> {
        let run = base.join("run");
        let home = base.join("home");
        mkdir_private(&run)?;
        let outside = state_parent.map(TempDir::new_in).transpose()?;
        let state = match &outside {
            Some(d) => d.path().to_path_buf(),
            None => {
                let state = base.join("state");
                mkdir_private(&state)?;
                state
            },
        };
        mkdir_private(&home)?;
        let log = base.join("server.log");
        let log_file =
            std::fs::File::create(&log).ctx(|| format!("cannot create {}", log.display()))?;
        let socket = run.join("signaltty").join("signaltty.sock");
        let mut cmd = Command::new(bin);
        cmd.arg("server")
            .args(args)
            .env("XDG_RUNTIME_DIR", &run)
            .env("XDG_STATE_HOME", &state)
            .env("HOME", &home)
            .env_remove("SIGNALTTY_SOCKET")
            .current_dir(base)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file);
        let child =
            spawn_unmasked(&mut cmd).ctx(|| format!("cannot start {} server", bin.display()))?;
        let mut server = Server {
            child,
            log,
            socket,
            _outside_state: outside,
        };
        server.wait_ready()?;
        Ok(server)
    }

    /// Waits until the server answers `server.status`.
    fn wait_ready(&mut self) -> Res<()> {
        let deadline = Instant::now() + START_STOP_LIMIT;
        loop {
            check_interrupted()?;
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "the server exited early ({status}); its log:\n{}",
                    self.log_text()
                ));
            }
            if self.answers() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the server did not answer on {} within 10 s; its log:\n{}",
                    self.socket.display(),
                    self.log_text()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn answers(&self) -> bool {
        Conn::connect(&self.socket, START_STOP_LIMIT, 4096)
            .is_ok_and(|mut c| c.call("server.status", json!({})).is_ok())
    }

    /// Where it listens.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, then wait up to 10 s, then SIGKILL. Returns the exit status text.
    pub fn stop(&mut self) -> String {
        if let Ok(Some(status)) = self.child.try_wait() {
            return format!("already exited ({status})");
        }
        let pid = nix::unistd::Pid::from_raw(self.child.id().cast_signed());
        let _ = nix::sys::signal::kill(pid, Signal::SIGTERM);
        let deadline = Instant::now() + START_STOP_LIMIT;
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

impl Drop for Server {
    fn drop(&mut self) {
        let how = self.stop();
        if !how.contains("exit status: 0") {
            eprintln!("{WHO}: server stopped: {how}");
        }
    }
}
