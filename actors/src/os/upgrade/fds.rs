//! The descriptors that cross an in-place upgrade's exec: keeping exactly
//! those open over the `execve` on the old side, and claiming them on the new
//! side before anything else can open a descriptor with the same number.

// The workspace denies `unsafe_code`. This module needs it to name raw
// descriptor numbers: the ones this process clears close-on-exec on just
// before its exec, and the ones the previous image of this process left
// open for it. Every unsafe block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

use super::record::Envelope;
use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use std::collections::HashMap;
use std::ffi::{CString, OsString};
use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

/// Replaces this process's image with `binary` (argv `args`, environment
/// `env`), keeping `keep` open across it: only the calling thread goes on,
/// in the new program, with the same pid, children and descriptors listed.
/// Returns only when the exec failed, with why, every descriptor's
/// close-on-exec flag restored.
///
/// The caller holds every descriptor in `keep` open until this returns.
pub fn exec(
    binary: &Path,
    args: &[OsString],
    env: &[(OsString, OsString)],
    keep: &[RawFd],
) -> std::io::Error {
    let cstr = |bytes: Vec<u8>| CString::new(bytes).map_err(std::io::Error::other);
    let built = (|| -> std::io::Result<(CString, Vec<CString>, Vec<CString>)> {
        let path = cstr(binary.as_os_str().to_owned().into_vec())?;
        let argv = args
            .iter()
            .map(|a| cstr(a.clone().into_vec()))
            .collect::<Result<Vec<_>, _>>()?;
        let envp = env
            .iter()
            .map(|(k, v)| {
                let mut kv = k.clone().into_vec();
                kv.push(b'=');
                kv.extend(v.clone().into_vec());
                cstr(kv)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((path, argv, envp))
    })();
    let (path, argv, envp) = match built {
        Ok(b) => b,
        Err(e) => return e,
    };
    // No pane is spawned while descriptors are inheritable: a child forked
    // now would get every master.
    let _no_spawns = crate::os::pty::hold_spawns();
    let set = |flags: FdFlag| {
        for fd in keep {
            // SAFETY: the caller keeps `fd` open until this function returns
            // (documented above), and nothing here closes it.
            let fd = unsafe { BorrowedFd::borrow_raw(*fd) };
            if let Err(e) = fcntl(fd, FcntlArg::F_SETFD(flags)) {
                return Err(std::io::Error::from(e));
            }
        }
        Ok(())
    };
    if let Err(e) = set(FdFlag::empty()) {
        let _ = set(FdFlag::FD_CLOEXEC);
        return e;
    }
    let failed = match nix::unistd::execve(&path, &argv, &envp) {
        Err(errno) => std::io::Error::from(errno),
        Ok(never) => match never {},
    };
    let _ = set(FdFlag::FD_CLOEXEC);
    failed
}

/// The descriptors an envelope names, owned now; each is close-on-exec.
#[derive(Debug, Default)]
pub struct Claimed {
    /// The listening socket.
    pub listener: Option<OwnedFd>,
    /// The connection that asked for the upgrade.
    pub reply: Option<OwnedFd>,
    /// Each pane's master by its number, with its process.
    pub panes: HashMap<RawFd, (OwnedFd, u32)>,
    /// What was named but is not open (said in the log and the report).
    pub missing: Vec<String>,
}

/// Takes the descriptors `envelope` names. Call it once, first thing in the
/// process, before anything opens a descriptor.
pub fn claim(envelope: &Envelope) -> Claimed {
    let mut claimed = Claimed::default();
    let mut seen = std::collections::HashSet::new();
    let mut take = |fd: RawFd, what: &str, missing: &mut Vec<String>| -> Option<OwnedFd> {
        if !seen.insert(fd) {
            missing.push(format!("{what}: descriptor {fd} is named twice"));
            return None;
        }
        if std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_err() {
            missing.push(format!("{what}: descriptor {fd} is not open"));
            return None;
        }
        // SAFETY: `fd` is open (listed in /proc/self/fd) and was left open
        // for this process by its previous image, which named it in the
        // upgrade envelope; it is taken once (checked just above), before
        // anything else in this process runs that could own that number.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        if let Err(e) = fcntl(&owned, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)) {
            log::warn!("upgrade: cannot make descriptor {fd} close-on-exec: {e}");
        }
        Some(owned)
    };
    let mut missing = Vec::new();
    claimed.listener = take(envelope.listener, "the listening socket", &mut missing);
    claimed.reply = envelope
        .reply
        .as_ref()
        .and_then(|(fd, _)| take(*fd, "the asking connection", &mut missing));
    for (fd, pid) in &envelope.panes {
        if let Some(owned) = take(*fd, &format!("the terminal of process {pid}"), &mut missing) {
            claimed.panes.insert(*fd, (owned, *pid));
        }
    }
    claimed.missing = missing;
    claimed
}

/// Masters of processes this binary could not continue, held open so that
/// their sessions are never hung up.
static KEPT: parking_lot::Mutex<Vec<OwnedFd>> = parking_lot::Mutex::new(Vec::new());

/// Holds `masters` open for the life of the process.
pub fn keep(masters: Vec<OwnedFd>) {
    KEPT.lock().extend(masters);
}
