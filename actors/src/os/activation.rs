//! What a service manager (systemd) hands the server (docs/service.md): the
//! listening socket of socket activation (`LISTEN_PID`, `LISTEN_FDS`,
//! `LISTEN_FDNAMES`, the sockets from fd 3 on) and the readiness socket
//! (`NOTIFY_SOCKET`), which hears `READY=1` once the server answers and
//! `STOPPING=1` when it begins to shut down.
//!
//! [`take_from_env`] reads the variables once at start and removes them from
//! the process environment, so no child (pane, git, hook) ever sees them; the
//! pane environment drops them too (`launch::child_env`).

// The workspace denies `unsafe_code`. This module needs it twice: to take
// ownership of the descriptors the service manager passed (there is no safe
// way to turn a raw descriptor number into an `OwnedFd`), and to remove the
// variables from the environment (`remove_var` is unsafe in edition 2024).
// Every unsafe block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

use nix::sys::socket::{SockType, getsockopt, sockopt};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The first descriptor a service manager passes (`SD_LISTEN_FDS_START`).
pub const LISTEN_FDS_START: RawFd = 3;

/// The variables [`take_from_env`] reads and removes (the launch rules keep
/// them from every child too).
pub use crate::domain::launch::MANAGER_VARS;

/// Whether this process serves a socket its service manager passed. One server
/// runs per process, so this is process-wide; `server.status` reports it.
static SOCKET_ACTIVATED: AtomicBool = AtomicBool::new(false);

/// Whether this process's server listens on a socket passed by its service
/// manager.
pub fn socket_activated() -> bool {
    SOCKET_ACTIVATED.load(Ordering::Relaxed)
}

/// Records that this process's server listens on a passed socket.
pub fn mark_socket_activated() {
    SOCKET_ACTIVATED.store(true, Ordering::Relaxed);
}

/// The sockets a service manager passed: `count` descriptors from fd 3, with
/// their names when `LISTEN_FDNAMES` gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenFds {
    /// How many descriptors, from fd 3 on.
    pub count: usize,
    /// Their names, one per descriptor, or empty when none were given.
    pub names: Vec<String>,
}

/// What the service manager handed this process.
#[derive(Debug, Default)]
pub struct Handoff {
    /// The passed sockets, when the variables name this process.
    pub listen: Option<ListenFds>,
    /// Where readiness goes, when `NOTIFY_SOCKET` is set and usable.
    pub notify: Option<Notifier>,
}

/// Parses the socket-activation variables the way `sd_listen_fds` reads them.
/// `None` when they are absent, when `LISTEN_FDS` is 0, or when `LISTEN_PID`
/// names another process (they were meant for a parent); an error when a value
/// is not a number or the names do not match the count.
pub fn parse_listen(
    our_pid: u32,
    listen_pid: Option<&str>,
    listen_fds: Option<&str>,
    listen_fdnames: Option<&str>,
) -> Result<Option<ListenFds>, String> {
    let (Some(pid), Some(fds)) = (listen_pid, listen_fds) else {
        return Ok(None);
    };
    let pid: u32 = pid
        .trim()
        .parse()
        .map_err(|_| format!("LISTEN_PID is not a process id: {pid:?}"))?;
    if pid != our_pid {
        return Ok(None);
    }
    let count: usize = fds
        .trim()
        .parse()
        .map_err(|_| format!("LISTEN_FDS is not a number: {fds:?}"))?;
    if count == 0 {
        return Ok(None);
    }
    // Leave room for every descriptor number the count implies.
    if RawFd::try_from(count).map_or(true, |n| n > RawFd::MAX - LISTEN_FDS_START) {
        return Err(format!("LISTEN_FDS is too large: {count}"));
    }
    let names: Vec<String> = match listen_fdnames {
        None => Vec::new(),
        Some(text) => text.split(':').map(str::to_owned).collect(),
    };
    if !names.is_empty() && names.len() != count {
        return Err(format!(
            "LISTEN_FDNAMES names {} socket(s) but LISTEN_FDS passes {count}",
            names.len()
        ));
    }
    Ok(Some(ListenFds { count, names }))
}

/// Reads the service manager's variables and removes them from the process
/// environment. Call it first thing in the server process: the removal is
/// done only while the process has a single thread (checked), since another
/// thread reading the environment at the same moment would be undefined
/// behaviour; otherwise the variables stay (logged) and only the pane block
/// list keeps them from children.
pub fn take_from_env() -> Result<Handoff, String> {
    let text = |name: &str| -> Result<Option<String>, String> {
        match std::env::var_os(name) {
            None => Ok(None),
            Some(v) => v
                .into_string()
                .map(Some)
                .map_err(|_| format!("{name} is not valid UTF-8")),
        }
    };
    let listen = parse_listen(
        std::process::id(),
        text("LISTEN_PID")?.as_deref(),
        text("LISTEN_FDS")?.as_deref(),
        text("LISTEN_FDNAMES")?.as_deref(),
    );
    let notify = std::env::var_os("NOTIFY_SOCKET").filter(|v| !v.is_empty());
    remove_manager_vars();
    let notify = match notify.map(|v| Notifier::from_value(&v)) {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(e)) => {
            log::warn!("ignoring NOTIFY_SOCKET: {e}");
            None
        },
    };
    Ok(Handoff {
        listen: listen?,
        notify,
    })
}

/// Removes [`MANAGER_VARS`] from the environment if this is the only thread.
fn remove_manager_vars() {
    if !MANAGER_VARS.iter().any(|v| std::env::var_os(v).is_some()) {
        return;
    }
    match thread_count() {
        Some(1) => {
            for name in MANAGER_VARS {
                // SAFETY: this process has exactly one thread (counted just above
                // in /proc/self/task, and only this thread could start another),
                // so nothing can read or write the environment concurrently.
                unsafe { std::env::remove_var(name) };
            }
        },
        other => log::warn!(
            "the service manager's variables stay in the environment ({} threads run); \
             panes still never see them",
            other.map_or_else(|| "an unknown number of".to_owned(), |n| n.to_string())
        ),
    }
}

/// The number of threads of this process, from `/proc/self/task`.
fn thread_count() -> Option<usize> {
    std::fs::read_dir("/proc/self/task")
        .ok()
        .map(|dir| dir.filter(Result::is_ok).count())
}

/// Takes the first passed socket (fd 3) as the server's listener and returns
/// it (close-on-exec, non-blocking) with the path it is bound to. Any further
/// passed descriptors are closed. Fails, saying why, when fd 3 is not a
/// listening Unix stream socket bound to a path.
pub fn adopt_listener(listen: &ListenFds) -> Result<(UnixListener, PathBuf), String> {
    let name = listen
        .names
        .first()
        .map_or_else(String::new, |n| format!(" ({n})"));
    let what = format!(
        "fd {LISTEN_FDS_START}{name}, passed by the service manager (LISTEN_FDS={})",
        listen.count
    );
    check_is_socket(LISTEN_FDS_START).map_err(|e| format!("{what}: {e}"))?;
    // SAFETY: fd 3 is open and is a socket (checked just above through
    // /proc/self/fd). By the socket-activation protocol, which `LISTEN_PID`
    // confirms is addressed to this process, the descriptors from 3 on belong
    // to the process and nothing else in it uses them: this runs once, before
    // the runtime starts, and the environment that named them is gone.
    let fd = unsafe { OwnedFd::from_raw_fd(LISTEN_FDS_START) };
    close_extra(listen.count);
    listener_from(fd, &what)
}

/// Checks that `fd` (described as `what`) is a listening Unix stream socket
/// bound to an absolute path and makes it the server's listener:
/// close-on-exec, non-blocking. Shared with the in-place upgrade, whose
/// listener crosses the exec (`crate::os::upgrade`).
pub fn listener_from(fd: OwnedFd, what: &str) -> Result<(UnixListener, PathBuf), String> {
    let kind = getsockopt(&fd, sockopt::SockType).map_err(|e| format!("{what}: {e}"))?;
    if kind != SockType::Stream {
        return Err(format!(
            "{what} is a {kind:?} socket, not a stream socket (ListenStream=)"
        ));
    }
    let listening = getsockopt(&fd, sockopt::AcceptConn).map_err(|e| format!("{what}: {e}"))?;
    if !listening {
        return Err(format!("{what} is a socket that does not listen"));
    }
    nix::fcntl::fcntl(
        &fd,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    )
    .map_err(|e| format!("{what}: cannot set close-on-exec: {e}"))?;
    let listener = UnixListener::from(fd);
    let addr = listener
        .local_addr()
        .map_err(|e| format!("{what} is not a Unix socket: {e}"))?;
    let path = match addr.as_pathname() {
        Some(p) if p.is_absolute() => p.to_path_buf(),
        _ => {
            return Err(format!(
                "{what} is not bound to an absolute path: clients find the server by its socket file"
            ));
        },
    };
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("{what}: cannot make it non-blocking: {e}"))?;
    Ok((listener, path))
}

/// Whether descriptor `fd` is open and a socket, read from `/proc/self/fd`.
pub fn check_is_socket(fd: RawFd) -> Result<(), String> {
    let link = Path::new("/proc/self/fd").join(fd.to_string());
    match std::fs::read_link(&link) {
        Ok(target) if target.as_os_str().as_bytes().starts_with(b"socket:") => Ok(()),
        Ok(target) => Err(format!(
            "it is not a socket but {}",
            describe_target(&target)
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err("it is not open".to_owned()),
        Err(e) => Err(format!("cannot inspect {}: {e}", link.display())),
    }
}

/// How `/proc/self/fd/N`'s target reads for people.
fn describe_target(target: &Path) -> String {
    let text = target.to_string_lossy();
    if target.is_absolute() {
        match std::fs::metadata(target) {
            Ok(m) if m.is_file() => format!("the regular file {text}"),
            Ok(m) if m.is_dir() => format!("the directory {text}"),
            _ => text.into_owned(),
        }
    } else {
        // `pipe:[…]`, `anon_inode:[…]`: the kernel's own description.
        text.into_owned()
    }
}

/// Closes the passed descriptors after the first: the server listens on one
/// socket only.
fn close_extra(count: usize) {
    for offset in 1..count {
        let Ok(offset) = RawFd::try_from(offset) else {
            return;
        };
        let fd = LISTEN_FDS_START + offset;
        if std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_err() {
            continue;
        }
        log::warn!("ignoring the extra descriptor {fd} the service manager passed");
        // SAFETY: the descriptor is open (it is listed in /proc/self/fd) and was
        // passed by the service manager for this process alone (see
        // `adopt_listener`); owning it here only to close it is the only use.
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
    }
}

/// Where readiness is reported: `NOTIFY_SOCKET`, a Unix datagram socket given
/// as an absolute path or, with a leading `@`, a name in the abstract
/// namespace.
#[derive(Debug, Clone)]
pub struct Notifier {
    target: NotifyTarget,
    /// `STOPPING=1` is sent once.
    stopping_sent: Arc<AtomicBool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum NotifyTarget {
    Path(PathBuf),
    Abstract(Vec<u8>),
}

impl Notifier {
    /// Parses a `NOTIFY_SOCKET` value.
    pub fn from_value(value: &OsStr) -> Result<Notifier, String> {
        let bytes = value.as_bytes();
        let target = match bytes.first() {
            Some(b'@') if bytes.len() > 1 => NotifyTarget::Abstract(bytes[1..].to_vec()),
            Some(b'/') => NotifyTarget::Path(PathBuf::from(value)),
            _ => {
                return Err(format!(
                    "{:?} is neither an absolute path nor an abstract name (@…)",
                    OsString::from(value)
                ));
            },
        };
        Ok(Notifier {
            target,
            stopping_sent: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Sends one notification (`KEY=VALUE` lines) as one datagram.
    pub fn send(&self, state: &str) -> io::Result<()> {
        let socket = UnixDatagram::unbound()?;
        // A full or absent manager must never stall the server.
        socket.set_nonblocking(true)?;
        match &self.target {
            NotifyTarget::Path(p) => socket.send_to(state.as_bytes(), p).map(drop),
            NotifyTarget::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
                socket.send_to_addr(state.as_bytes(), &addr).map(drop)
            },
        }
    }

    /// The server answers on `socket`: `READY=1` with our pid.
    pub fn ready(&self, socket: &Path) {
        let state = format!(
            "READY=1\nMAINPID={}\nSTATUS=listening on {}\n",
            std::process::id(),
            socket.display()
        );
        if let Err(e) = self.send(&state) {
            log::warn!("cannot tell the service manager the server is ready: {e}");
        }
    }

    /// The server execs a new binary in place (docs/upgrade.md):
    /// `RELOADING=1` with the monotonic clock; the new binary's `READY=1`
    /// ends it.
    pub fn reloading(&self) {
        let usec = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
            .map(|t| t.tv_sec() * 1_000_000 + t.tv_nsec() / 1000)
            .unwrap_or(0);
        let state = format!("RELOADING=1\nMONOTONIC_USEC={usec}\nSTATUS=upgrading in place\n");
        if let Err(e) = self.send(&state) {
            log::warn!("cannot tell the service manager about the upgrade: {e}");
        }
    }

    /// The server begins to shut down: `STOPPING=1`, once.
    pub fn stopping(&self) {
        if self.stopping_sent.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Err(e) = self.send("STOPPING=1\nSTATUS=shutting down\n") {
            log::warn!("cannot tell the service manager the server is stopping: {e}");
        }
    }
}

#[cfg(test)]
mod tests;
