//! Starting a pane's process on a PTY: whether the program can be found,
//! spawning it as a session leader on a new PTY, adopting a child that already
//! runs (as an in-place upgrade hands it over), and handing either to the
//! PTY loop.

use super::event_loop::{self, Entry, Handle};
use super::{Pty, PtySink, SPAWN_LOCK, Shared, SpawnSpec, open, reap};
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::WaitPidFlag;
use nix::unistd::Pid;
use parking_lot::Mutex;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::Duration;

/// Whether `spec`'s program can be started: a path (relative to `spec.cwd`
/// when it is not absolute) that is an executable file, or a bare name found
/// as one on the child's `PATH` (the server's when the child has none, else
/// `/bin:/usr/bin`), as the exec will look for it. The error is the one the
/// spawn would fail with, so a launch can find out before it prepares
/// anything for a program that is not there (docs/panes.md#the-walk-of-a-spawn).
pub fn locate(spec: &SpawnSpec) -> Result<(), SpawnError> {
    use std::os::unix::fs::PermissionsExt;
    let Some(program) = spec.argv.first() else {
        return Err(SpawnError::EmptyArgv);
    };
    let failed = |kind: io::ErrorKind| SpawnError::Io {
        argv0: program.clone(),
        source: io::Error::from(kind),
    };
    let executable = |path: &std::path::Path| match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(()),
        Ok(_) => Err(io::ErrorKind::PermissionDenied),
        Err(e) => Err(e.kind()),
    };
    if program.contains('/') {
        return executable(&spec.cwd.join(program)).map_err(failed);
    }
    let path = spec
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_else(|| "/bin:/usr/bin".to_owned());
    let mut denied = false;
    for dir in path.split(':').filter(|d| !d.is_empty()) {
        match executable(&std::path::Path::new(dir).join(program)) {
            Ok(()) => return Ok(()),
            Err(io::ErrorKind::PermissionDenied) => denied = true,
            Err(_) => {},
        }
    }
    Err(failed(if denied {
        io::ErrorKind::PermissionDenied
    } else {
        io::ErrorKind::NotFound
    }))
}

/// Why `spawn` failed. Nothing is left behind: no process, no thread, no fd.
#[derive(Debug)]
pub enum SpawnError {
    /// `argv` was empty.
    EmptyArgv,
    /// The working directory does not exist or is not a directory.
    MissingCwd {
        /// The program that was to run.
        argv0: String,
        /// The directory asked for.
        cwd: PathBuf,
    },
    /// Opening the PTY, starting the program (not found, not executable, …) or
    /// handing it to the PTY loop failed.
    Io {
        /// The program that was to run.
        argv0: String,
        /// What the system said.
        source: io::Error,
    },
}

impl SpawnError {
    /// The program that failed to start (empty for an empty argv).
    pub fn argv0(&self) -> &str {
        match self {
            SpawnError::EmptyArgv => "",
            SpawnError::MissingCwd { argv0, .. } | SpawnError::Io { argv0, .. } => argv0,
        }
    }
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed to spawn \"{}\": ", self.argv0())?;
        match self {
            SpawnError::EmptyArgv => f.write_str("empty argv"),
            SpawnError::MissingCwd { cwd, .. } => {
                write!(f, "no such directory {}", cwd.display())
            },
            SpawnError::Io { source, .. } => match source.kind() {
                io::ErrorKind::NotFound => f.write_str("not found"),
                io::ErrorKind::PermissionDenied => f.write_str("permission denied"),
                _ => write!(f, "{source}"),
            },
        }
    }
}

impl std::error::Error for SpawnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SpawnError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Opens a PTY of `spec.rows` × `spec.cols`, starts `spec.argv` on it as a session
/// leader with the PTY as its controlling terminal, and hands it to the PTY loop
/// (which owns `sink` from then on). Fails synchronously when the
/// program cannot be started or the working directory is missing.
pub fn spawn(spec: &SpawnSpec, sink: Box<dyn PtySink>) -> Result<Pty, SpawnError> {
    let argv0 = spec.argv.first().ok_or(SpawnError::EmptyArgv)?.clone();
    let fail = |source: io::Error| SpawnError::Io {
        argv0: argv0.clone(),
        source,
    };
    // std would report a missing cwd as ENOENT, indistinguishable from a missing
    // program; checking first gives the better message (exec still catches a race).
    if !spec.cwd.is_dir() {
        return Err(SpawnError::MissingCwd {
            argv0,
            cwd: spec.cwd.clone(),
        });
    }
    // Everything that can fail without a process to clean up comes first.
    let handle = event_loop::handle().map_err(fail)?;
    let (master, child) = {
        let _one_at_a_time = SPAWN_LOCK.lock();
        let pair = open::open_pty(spec.rows, spec.cols).map_err(fail)?;
        let child = open::spawn_child(spec, &pair.slave).map_err(fail)?;
        // `pair.slave` drops here: the parent keeps no slave descriptor, so the master
        // sees EOF as soon as every process of the pane has closed the terminal.
        (pair.master, child)
    };
    let Ok(raw_pid) = i32::try_from(child.id()) else {
        return Err(fail(io::Error::other("pid out of range")));
    };
    // The child is reaped by its pid from here on (reap.rs): the same path
    // serves a child this process adopts after an in-place upgrade.
    start(&handle, master, Pid::from_raw(raw_pid), sink).map_err(fail)
}

/// Takes over a PTY whose child already runs: `master` is its master end and
/// `pid` a child of this process (the session leader on it), as an in-place
/// upgrade hands them to the new binary. The master is made close-on-exec and
/// non-blocking; the child is watched, signalled and reaped by its pid exactly
/// as a spawned one. Fails, touching neither, when `pid` is not a child of
/// this process.
pub fn adopt(master: OwnedFd, pid: u32, sink: Box<dyn PtySink>) -> io::Result<Pty> {
    let pid = i32::try_from(pid)
        .map(Pid::from_raw)
        .map_err(|_| io::Error::other("pid out of range"))?;
    // Ours and not yet reaped: a look that reaps nothing (ECHILD otherwise).
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    nix::sys::wait::waitid(nix::sys::wait::Id::Pid(pid), flags)
        .map_err(|e| io::Error::other(format!("pid {pid} is not a child of this process: {e}")))?;
    fcntl(&master, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
    let fl = OFlag::from_bits_retain(fcntl(&master, FcntlArg::F_GETFL)?);
    fcntl(&master, FcntlArg::F_SETFL(fl | OFlag::O_NONBLOCK))?;
    start(&event_loop::handle()?, master, pid, sink)
}

/// Hands a running child `pid` on `master` to the loop: its exit is watched by
/// a pidfd, or where the kernel has none by a waiter thread and a pipe.
fn start(handle: &Handle, master: OwnedFd, pid: Pid, sink: Box<dyn PtySink>) -> io::Result<Pty> {
    let master = Arc::new(master);
    let shared = Arc::new(Shared {
        pid,
        token: handle.next_token(),
        handle: handle.clone(),
        master: Mutex::new(Some(master.clone())),
        canceled: AtomicBool::new(false),
        reaped: Mutex::new(false),
        exit_code: Mutex::new(None),
        exit_known: AtomicBool::new(false),
        closed: AtomicBool::new(false),
        released: AtomicBool::new(false),
    });
    let (exit_fd, reaps) = match reap::pidfd_open(pid) {
        Some(pidfd) => (pidfd, true),
        None => match start_waiter(&shared) {
            Ok(pipe) => (pipe, false),
            Err(e) => {
                kill_and_reap(pid);
                return Err(e);
            },
        },
    };
    let entry = Entry::new(shared.token, shared.clone(), sink, master, exit_fd, reaps);
    let pty = Pty { shared };
    if let Err(e) = handle.watch(entry) {
        pty.close_with_grace(Signal::SIGKILL, Duration::ZERO);
        if reaps {
            // No loop and no waiter watches it: reap it here.
            kill_and_reap(pid);
        }
        return Err(e);
    }
    Ok(pty)
}

/// Where the kernel has no pidfds: a thread blocks in `waitid`, reaps the child
/// and closes a pipe whose read end the loop watches. Returns that read end.
fn start_waiter(shared: &Arc<Shared>) -> io::Result<OwnedFd> {
    let (exit_rx, exit_tx) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let waiter = shared.clone();
    thread::Builder::new()
        .name(format!("pty-exit-{}", shared.pid))
        .spawn(move || reap::wait_child(&waiter, exit_tx))?;
    Ok(exit_rx)
}

/// Kills a child nobody will wait for and reaps it by pid.
fn kill_and_reap(pid: Pid) {
    let _ = killpg(pid, Signal::SIGKILL);
    let _ = kill(pid, Signal::SIGKILL);
    let _ = nix::sys::wait::waitpid(pid, None);
}
