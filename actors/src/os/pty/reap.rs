//! Reaping the child (by the PTY loop once its pidfd is readable, or by a waiter
//! thread where pidfds are missing) and killing what is left of a closed pane's
//! session after the grace (one reaper thread for the server: the scan of
//! `/proc` it makes must not hold up the loop).

use super::Shared;
use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::{Pid, getpgrp, getsid};
use std::collections::BTreeSet;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// After the first SIGKILL round, the session is scanned again this often, up to
/// `KILL_ROUNDS` rounds, to catch processes forked while the first round ran.
const KILL_RECHECK: Duration = Duration::from_millis(100);
const KILL_ROUNDS: u8 = 5;

/// The waiter thread, used only where `pidfd_open` is not available: waits for the
/// child to exit, reaps it, stores the code and closes `exit_tx` to wake the loop.
/// Never leaves a zombie.
pub(super) fn wait_child(shared: &Shared, exit_tx: OwnedFd) {
    let pid = shared.pid;
    // Wait without reaping first: the pid stays ours until `reaped` is set under its
    // lock, so `Pty::signal` and `close` can never hit a recycled pid.
    let waited = loop {
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Err(Errno::EINTR) => continue,
            other => break other,
        }
    };
    if let Err(e) = waited {
        log::warn!("pty {pid}: waitid failed: {e}");
    }
    reap(shared);
    drop(exit_tx);
}

/// Reaps the child that has exited (or blocks until it does), by its pid — a
/// child this process started or one it adopted (`Pty::adopt`) — marks it
/// reaped under the `reaped` lock, and stores its exit code before setting
/// `exit_known`. A released PTY's child is left alone.
pub(super) fn reap(shared: &Shared) {
    let status = {
        let mut reaped = shared.reaped.lock();
        if shared.released.load(Ordering::SeqCst) {
            // Released for an upgrade: the child's exit belongs to whoever
            // adopts it, and reaping it here would lose its status.
            return;
        }
        let status = wait_for(shared.pid);
        *reaped = true;
        status
    };
    let code = match status {
        Ok(code) => code,
        Err(e) => {
            log::warn!("pty {}: cannot reap the child: {e}", shared.pid);
            None
        },
    };
    *shared.exit_code.lock() = code;
    shared.exit_known.store(true, Ordering::SeqCst);
}

/// Blocks until `pid` (a child of this process) has exited, reaps it, and returns
/// its exit code (docs/terminal.md#when-the-process-exits).
fn wait_for(pid: Pid) -> Result<Option<i32>, Errno> {
    loop {
        match nix::sys::wait::waitpid(pid, None) {
            Err(Errno::EINTR) => continue,
            Ok(status) => match exit_code(status) {
                Some(code) => return Ok(Some(code)),
                // Stops and continues are reported only with flags not given here.
                None => continue,
            },
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Set by tests to take the waiter-thread path, as on a kernel without pidfds.
    pub(super) static WITHOUT_PIDFD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A pidfd for `pid` (Linux 5.3+): it turns readable when the child exits, so the
/// reader can watch for the exit in the `poll` it already makes, and a pane needs
/// no waiter thread. `None` when the kernel does not have it.
pub(super) fn pidfd_open(pid: Pid) -> Option<OwnedFd> {
    #[cfg(test)]
    if WITHOUT_PIDFD.get() {
        return None;
    }
    // SAFETY: pidfd_open takes a pid and a flags word and returns a new descriptor or
    // -1; it touches no memory of ours.
    let fd = unsafe { nix::libc::syscall(nix::libc::SYS_pidfd_open, pid.as_raw(), 0) };
    let fd = i32::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: the syscall just returned this descriptor and nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The exit code (docs/terminal.md#when-the-process-exits) for a wait status that
/// ends the process: its status code, or 128 + the signal that killed it; `None`
/// for one that does not (stopped, continued).
pub(super) fn exit_code(status: nix::sys::wait::WaitStatus) -> Option<i32> {
    use nix::sys::wait::WaitStatus;
    match status {
        WaitStatus::Exited(_, code) => Some(code),
        WaitStatus::Signaled(_, signal, _) => Some(128 + signal as i32),
        _ => None,
    }
}

/// A session to kill once `at` has passed.
struct Due {
    at: Instant,
    sid: Pid,
    rounds_left: u8,
}

static REAPER: OnceLock<Option<Sender<Due>>> = OnceLock::new();

/// SIGKILLs every process group of session `sid` once `grace` has passed, on the
/// reaper thread; never blocks.
pub(super) fn kill_session_after(sid: Pid, grace: Duration) {
    let due = Due {
        at: Instant::now() + grace,
        sid,
        rounds_left: KILL_ROUNDS,
    };
    let sent = match REAPER.get_or_init(start_reaper) {
        Some(reaper) => reaper.send(due).is_ok(),
        None => false,
    };
    if !sent {
        log::warn!("pty {sid}: no reaper thread; killing the session without a grace");
        kill_session(sid);
    }
}

fn start_reaper() -> Option<Sender<Due>> {
    let (tx, rx) = mpsc::channel();
    match thread::Builder::new()
        .name("pty-reaper".into())
        .spawn(move || run_reaper(&rx))
    {
        Ok(_) => Some(tx),
        Err(e) => {
            log::warn!("cannot start the pty reaper thread: {e}");
            None
        },
    }
}

fn run_reaper(rx: &Receiver<Due>) {
    let mut pending: Vec<Due> = Vec::new();
    loop {
        let now = Instant::now();
        let (due, waiting): (Vec<Due>, Vec<Due>) = pending.drain(..).partition(|d| d.at <= now);
        pending = waiting;
        for d in due {
            let alive = kill_session(d.sid);
            if alive > 0 && d.rounds_left > 1 {
                pending.push(Due {
                    at: now + KILL_RECHECK,
                    sid: d.sid,
                    rounds_left: d.rounds_left - 1,
                });
            }
        }
        let next = pending.iter().map(|d| d.at).min();
        let received = match next {
            Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match received {
            Ok(d) => pending.push(d),
            Err(RecvTimeoutError::Timeout) => {},
            Err(RecvTimeoutError::Disconnected) => match next {
                Some(at) => thread::sleep(at.saturating_duration_since(Instant::now())),
                None => return,
            },
        }
    }
}

/// SIGKILLs every process group that has a member in session `sid`. Returns how
/// many live (non-zombie) members the scan found. Processes that left the session
/// with `setsid` are out of reach, as they are for tmux.
fn kill_session(sid: Pid) -> usize {
    // A pane's session is never the server's own: its leader called setsid.
    if getsid(None).is_ok_and(|own| own == sid) {
        return 0;
    }
    let own_group = getpgrp();
    let (groups, alive) = match session_members(sid) {
        Ok(members) => {
            let groups: BTreeSet<i32> = members.iter().map(|m| m.pgrp).collect();
            let alive = members.iter().filter(|m| m.state != 'Z').count();
            (groups, alive)
        },
        Err(e) => {
            // Without /proc, the leader's group is all that can be named.
            log::debug!("pty {sid}: cannot scan /proc: {e}");
            (BTreeSet::from([sid.as_raw()]), 0)
        },
    };
    for group in groups {
        if group <= 1 || group == own_group.as_raw() {
            continue;
        }
        match killpg(Pid::from_raw(group), Signal::SIGKILL) {
            Ok(()) | Err(Errno::ESRCH) => {},
            Err(e) => log::debug!("pty {sid}: cannot kill process group {group}: {e}"),
        }
    }
    alive
}

/// The fields of `/proc/<pid>/stat` this module needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stat {
    pub pid: i32,
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    pub tty_nr: i32,
    pub tpgid: i32,
}

/// Parses a `/proc/<pid>/stat` line. The command name sits in parentheses and may
/// itself contain spaces and parentheses, so fields are counted from the last `)`.
pub(crate) fn parse_stat(line: &str) -> Option<Stat> {
    let (head, rest) = line.rsplit_once(')')?;
    let pid = head.split_once('(')?.0.trim().parse().ok()?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let mut num = || fields.next()?.parse::<i32>().ok();
    Some(Stat {
        pid,
        state,
        ppid: num()?,
        pgrp: num()?,
        session: num()?,
        tty_nr: num()?,
        tpgid: num()?,
    })
}

/// Every process whose session id is `sid`.
fn session_members(sid: Pid) -> std::io::Result<Vec<Stat>> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc")? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        // The process may have gone since the directory was listed.
        let Ok(line) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some(stat) = parse_stat(&line)
            && stat.session == sid.as_raw()
        {
            members.push(stat);
        }
    }
    Ok(members)
}
