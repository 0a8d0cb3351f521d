//! The machine's processes as `/proc` shows them, for finding the processes
//! of one sshd and of its accounts, and signalling a process only while its
//! pid still names the process that was found (same start time).

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::fs;

/// One process, read from `/proc/<pid>/stat` and `/proc/<pid>/status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    /// The state letter: `R`, `S`, `D`, `T` (stopped), `Z` (zombie)…
    pub state: char,
    /// The command name (`comm`, at most 15 bytes).
    pub comm: String,
    /// The real user id.
    pub uid: u32,
    /// The effective user id.
    pub euid: u32,
    /// The start time in clock ticks since boot: with the pid, it names one process.
    pub start: u64,
}

impl Proc {
    /// Whether the process still runs (is not a zombie).
    pub fn alive(&self) -> bool {
        !matches!(self.state, 'Z' | 'X' | 'x')
    }

    /// Whether the process is stopped by a signal (or traced).
    pub fn stopped(&self) -> bool {
        matches!(self.state, 'T' | 't')
    }

    /// Whether the program is sshd's: `sshd` itself, or the `sshd-session` and
    /// `sshd-auth` programs newer versions run per connection.
    pub fn is_sshd(&self) -> bool {
        self.comm.starts_with("sshd")
    }

    /// Whether the process runs as `uid` (real or effective).
    pub fn runs_as(&self, uid: u32) -> bool {
        self.uid == uid || self.euid == uid
    }

    /// Whether `other` is the same process (same pid, same start time).
    pub fn same(&self, other: &Proc) -> bool {
        self.pid == other.pid && self.start == other.start
    }
}

/// Process `pid`, or `None` once it is gone.
pub fn read(pid: u32) -> Option<Proc> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is parenthesised and may contain spaces or parentheses.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_owned();
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    // Field 22 of stat(5); the list starts at field 3, the state.
    let start = fields.get(19)?.parse().ok()?;
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let uids: Vec<u32> = status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))?
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    Some(Proc {
        pid,
        ppid,
        state,
        comm,
        uid: *uids.first()?,
        euid: *uids.get(1)?,
        start,
    })
}

/// Every process of the machine (the ones that exit while the list is read
/// are left out).
pub fn all() -> Vec<Proc> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(read)
        .collect()
}

/// `p` as it is now, or `None` once it has exited or its pid names another process.
pub fn now(p: &Proc) -> Option<Proc> {
    read(p.pid).filter(|q| q.same(p))
}

/// Whether `p` has exited: gone, a zombie, or its pid reused.
pub fn gone(p: &Proc) -> bool {
    !now(p).is_some_and(|q| q.alive())
}

/// Whether `p` is stopped, or has exited.
pub fn stopped_or_gone(p: &Proc) -> bool {
    now(p).is_none_or(|q| q.stopped() || !q.alive())
}

/// Sends `signal` to `p` if it still runs; returns whether it was sent.
pub fn signal(p: &Proc, signal: Signal) -> bool {
    match now(p) {
        Some(q) if q.alive() => kill(Pid::from_raw(p.pid as i32), signal).is_ok(),
        _ => false,
    }
}

/// The live processes running as `uid`.
pub fn of_uid(uid: u32) -> Vec<Proc> {
    all()
        .into_iter()
        .filter(|p| p.alive() && p.runs_as(uid))
        .collect()
}

/// The live sshd processes serving the connections of the listener `listener`:
/// its descendants that run sshd's programs (the walk goes through sshd
/// processes only, so the accounts' own programs are left out), and every
/// sshd process running as one of `uids` (in case one lost its parent).
pub fn sshd_serving(listener: Option<u32>, uids: &[u32]) -> Vec<Proc> {
    let all = all();
    let mut found: Vec<Proc> = Vec::new();
    let mut parents: Vec<u32> = listener.into_iter().collect();
    while let Some(parent) = parents.pop() {
        for p in all.iter().filter(|p| p.ppid == parent && p.is_sshd()) {
            if !found.iter().any(|f| f.same(p)) {
                parents.push(p.pid);
                found.push(p.clone());
            }
        }
    }
    for p in all
        .iter()
        .filter(|p| p.is_sshd() && uids.iter().any(|&uid| p.runs_as(uid)))
    {
        if !found.iter().any(|f| f.same(p)) && Some(p.pid) != listener {
            found.push(p.clone());
        }
    }
    found.retain(Proc::alive);
    found
}
