//! The open-file limit: raised at start, the limit the server was started with
//! kept for pane children, and how many live panes the raised one allows
//! (docs/panes.md#how-many-panes).

use nix::sys::resource::{Resource, getrlimit, setrlimit};
use std::sync::atomic::{AtomicU64, Ordering};

/// The descriptors a live pane holds: its PTY master and its child's pidfd
/// (the PTY loop needs nothing else per pane).
pub const FDS_PER_PANE: u64 = 2;

/// Descriptors kept for everything that is not a pane: the socket, clients'
/// connections, the journal, the snapshot, the pipes of git and hook setup, a
/// spawn under way.
pub const RESERVED_FDS: u64 = 512;

/// The soft limit before `raise_at_start`; 0 until it ran.
static STARTED_WITH: AtomicU64 = AtomicU64::new(0);

/// Takes the soft limit the server was first started with from an in-place
/// upgrade's variable: the process it continues had raised its own already.
/// Called while the process has one thread, before the variable is removed
/// from the environment.
pub fn remember_from_upgrade() {
    let passed = std::env::var(crate::domain::launch::UPGRADE_NOFILE_VAR).ok();
    if let Some(soft) = passed.and_then(|v| v.parse::<u64>().ok()) {
        STARTED_WITH.store(soft, Ordering::Relaxed);
    }
}

/// The soft limit the server was started with, when known: what an in-place
/// upgrade passes on.
pub fn started_with() -> Option<u64> {
    Some(STARTED_WITH.load(Ordering::Relaxed)).filter(|s| *s != 0)
}

/// Raises the soft open-file limit to the hard limit (every client and pane
/// costs descriptors) and remembers the soft limit it had, which pane children
/// get back ([`child_nofile`]), unless an upgrade passed the first one on.
pub fn raise_at_start() {
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return;
    };
    let _ = STARTED_WITH.compare_exchange(0, soft, Ordering::Relaxed, Ordering::Relaxed);
    if soft < hard
        && let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
    {
        log::debug!("cannot raise the open-file limit: {e}");
    }
}

/// Pretends the server was started with a soft limit of `soft` (0: not known).
#[cfg(test)]
pub(crate) fn pretend_started_with(soft: u64) {
    STARTED_WITH.store(soft, Ordering::Relaxed);
}

/// The open-file limit a pane's child starts with, `(soft, hard)`: the soft
/// limit the server was started with, when the server raised its own above
/// it; `None` when there is nothing to restore. Programs that use `select()`
/// misbehave with descriptors above 1024, so they must not inherit a raised
/// soft limit (systemd hands its services the same).
pub fn child_nofile() -> Option<(u64, u64)> {
    let started = STARTED_WITH.load(Ordering::Relaxed);
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    (started != 0 && started < soft).then_some((started, hard))
}

/// The server's open-file limits now, `(soft, hard)`.
pub fn nofile() -> Option<(u64, u64)> {
    getrlimit(Resource::RLIMIT_NOFILE).ok()
}

/// How many live panes `soft` descriptors allow.
pub fn pane_capacity(soft: u64) -> u64 {
    soft.saturating_sub(RESERVED_FDS) / FDS_PER_PANE
}

#[cfg(test)]
mod tests;
