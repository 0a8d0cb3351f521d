//! Whether the state directory takes writes (docs/reliability.md#a-full-disk).
//!
//! The journal thread reports here what its writes met: a write that failed
//! for want of room, a quota, a read-only or vanished directory, an I/O
//! error, and clears it when a write succeeds again. The router asks
//! [`StorageHealth::check`] before every change a client asks for, which also
//! looks at the filesystem itself (free space below the reserve, mounted
//! read-only, gone), so a change is refused with `IO_ERROR` before it does
//! anything rather than after. `server.status` reports [`StorageHealth::status`].
//!
//! ```text
//!  journal thread ──report(path, io error) / clear()──► StorageHealth ◄──check()── router gate
//!                                                            └──status()──► server.status, doctor, board
//! ```

use crate::error::Error;
use nix::errno::Errno;
use parking_lot::Mutex;
use signaltty_protocol::server::StorageStatus;
use signaltty_protocol::{ErrorCode, Timestamp};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why the state directory takes no writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The filesystem is full (or below the reserve).
    NoSpace,
    /// The user's disk quota is used up.
    Quota,
    /// The filesystem or the directory is read-only, or not writable to us.
    ReadOnly,
    /// The directory, or a journal file in it, is gone.
    Vanished,
    /// Any other failed write.
    Io,
}

impl Reason {
    /// What a failed write's error says.
    pub fn of(e: &io::Error) -> Reason {
        match e.raw_os_error().map(Errno::from_raw) {
            Some(Errno::ENOSPC) => Reason::NoSpace,
            Some(Errno::EDQUOT) => Reason::Quota,
            Some(Errno::EROFS | Errno::EACCES | Errno::EPERM) => Reason::ReadOnly,
            Some(Errno::ENOENT | Errno::ESTALE) => Reason::Vanished,
            _ if e.kind() == io::ErrorKind::NotFound => Reason::Vanished,
            _ => Reason::Io,
        }
    }

    /// The wire word (`details.reason`, `storage.reason`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NoSpace => "no_space",
            Reason::Quota => "quota",
            Reason::ReadOnly => "read_only",
            Reason::Vanished => "vanished",
            Reason::Io => "io",
        }
    }

    fn advice(self) -> &'static str {
        match self {
            Reason::NoSpace | Reason::Quota => "free some space there",
            Reason::ReadOnly => "make it writable again",
            Reason::Vanished => "restore the directory, or stop the server and start it again",
            Reason::Io => "check the disk",
        }
    }
}

/// What went wrong, and since when.
#[derive(Debug, Clone)]
pub struct Trouble {
    /// Why.
    pub reason: Reason,
    /// The file or directory that could not be written.
    pub path: PathBuf,
    /// The error as the system gave it.
    pub error: String,
    /// When it began.
    pub since: Timestamp,
}

impl Trouble {
    /// The `IO_ERROR` a refused change answers.
    pub fn to_error(&self) -> Error {
        Error::Detailed {
            code: ErrorCode::IoError,
            message: format!(
                "the state directory takes no writes ({}: {}), so nothing was changed; the agents keep running and what they do is recorded once writes succeed again: {}",
                self.path.display(),
                self.error,
                self.reason.advice()
            ),
            details: serde_json::json!({
                "reason": self.reason.as_str(),
                "path": self.path.display().to_string(),
                "error": self.error,
                "since": self.since,
            }),
        }
    }
}

/// Whether the state directory takes writes. See the module header.
#[derive(Debug)]
pub struct StorageHealth {
    dir: PathBuf,
    reserve: u64,
    /// What the last write met, until one succeeds.
    trouble: Mutex<Option<Trouble>>,
    /// State events held in memory now.
    held: AtomicU64,
    /// State events dropped past the hold bound since the server started.
    lost: AtomicU64,
}

impl StorageHealth {
    /// The health of `dir`, refusing changes below `reserve` free bytes.
    pub fn new(dir: &Path, reserve: u64) -> Arc<StorageHealth> {
        Arc::new(StorageHealth {
            dir: dir.to_path_buf(),
            reserve,
            trouble: Mutex::new(None),
            held: AtomicU64::new(0),
            lost: AtomicU64::new(0),
        })
    }

    /// A write of `path` failed with `e`. The first report of a reason
    /// keeps its `since`.
    pub fn report(&self, path: &Path, e: &io::Error) {
        let reason = Reason::of(e);
        let mut trouble = self.trouble.lock();
        let since = match &*trouble {
            Some(t) if t.reason == reason => t.since.clone(),
            _ => Timestamp::now(),
        };
        *trouble = Some(Trouble {
            reason,
            path: path.to_path_buf(),
            error: e.to_string(),
            since,
        });
    }

    /// A write succeeded. Returns whether there was trouble before.
    pub fn clear(&self) -> bool {
        self.trouble.lock().take().is_some()
    }

    /// What the last write met, if it failed.
    pub fn trouble(&self) -> Option<Trouble> {
        self.trouble.lock().clone()
    }

    /// Whether a change may be made now: no write has failed since the last
    /// success, and the directory is there, writable and has the reserve free.
    pub fn check(&self) -> Result<(), Trouble> {
        if let Some(t) = self.trouble() {
            return Err(t);
        }
        match self.look() {
            Look::Fine(_) => Ok(()),
            Look::Bad(t) => Err(t),
        }
    }

    /// The filesystem as it is now.
    fn look(&self) -> Look {
        let trouble = |reason, error: String| {
            Look::Bad(Trouble {
                reason,
                path: self.dir.clone(),
                error,
                since: Timestamp::now(),
            })
        };
        match nix::sys::statvfs::statvfs(&self.dir) {
            Err(e) => {
                let e = io::Error::from(e);
                trouble(Reason::of(&e), e.to_string())
            },
            Ok(fs) => {
                let free = free_of(&fs);
                if fs.flags().contains(nix::sys::statvfs::FsFlags::ST_RDONLY) {
                    trouble(
                        Reason::ReadOnly,
                        "the filesystem is mounted read-only".into(),
                    )
                } else if free < self.reserve {
                    trouble(
                        Reason::NoSpace,
                        format!(
                            "{free} bytes free, below the {} bytes kept in reserve ([journal] reserve_bytes)",
                            self.reserve
                        ),
                    )
                } else {
                    Look::Fine(free)
                }
            },
        }
    }

    /// How many state events are held in memory now.
    pub fn set_held(&self, n: usize) {
        self.held.store(n as u64, Ordering::Relaxed);
    }

    /// `n` more state events were dropped past the hold bound.
    pub fn add_lost(&self, n: u64) {
        self.lost.fetch_add(n, Ordering::Relaxed);
    }

    /// What `server.status` says.
    pub fn status(&self) -> StorageStatus {
        let look = self.look();
        let free_bytes = match &look {
            Look::Fine(free) => Some(*free),
            Look::Bad(_) => nix::sys::statvfs::statvfs(&self.dir)
                .ok()
                .map(|fs| free_of(&fs)),
        };
        let trouble = match (self.trouble(), look) {
            (Some(t), _) | (None, Look::Bad(t)) => Some(t),
            (None, Look::Fine(_)) => None,
        };
        StorageStatus {
            state: if trouble.is_some() { "degraded" } else { "ok" }.to_owned(),
            dir: self.dir.display().to_string(),
            free_bytes,
            reason: trouble.as_ref().map(|t| t.reason.as_str().to_owned()),
            path: trouble.as_ref().map(|t| t.path.display().to_string()),
            error: trouble.as_ref().map(|t| t.error.clone()),
            since: trouble.map(|t| t.since),
            held_events: self.held.load(Ordering::Relaxed),
            lost_events: self.lost.load(Ordering::Relaxed),
        }
    }
}

/// Bytes free for an unprivileged user.
fn free_of(fs: &nix::sys::statvfs::Statvfs) -> u64 {
    fs.blocks_available().saturating_mul(fs.fragment_size())
}

enum Look {
    Fine(u64),
    Bad(Trouble),
}

#[cfg(test)]
mod tests;
