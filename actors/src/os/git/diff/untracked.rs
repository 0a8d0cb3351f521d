//! Reading an untracked file without following links
//! (docs/diffs.md#one-files-diff): from the checkout root's descriptor, one
//! path component at a time, with `openat(O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)`
//! (directories `O_DIRECTORY`), so a symlink anywhere on the path, or a swap of
//! a directory for one during the walk, never reads outside content. FIFOs,
//! sockets and devices are refused after `fstat`; the read is capped.

use super::DiffError;
use nix::errno::Errno;
use nix::fcntl::{OFlag, open, openat};
use nix::sys::stat::Mode;
use std::fs::File;
use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::path::Path;

/// What reading an untracked file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untracked {
    /// A regular file of at most the cap, all its bytes.
    Bytes(Vec<u8>),
    /// Cannot be shown; the literal reason.
    Unavailable(String),
}

/// The reason for a file over the cap.
pub const TOO_LARGE: &str = "File exceeds the 512 KiB size limit.";

/// Reads `path` (already validated: relative, no empty, `.`, `..` or `.git`
/// component) under `root`, up to `cap` bytes. A vanished file is
/// `BAD_PARAMS`; a symlink, a non-regular file or one over the cap is
/// `Unavailable`.
pub fn read(root: &Path, path: &str, cap: usize) -> Result<Untracked, DiffError> {
    let io = |what: &str, e: Errno| DiffError::Io(format!("{what} {path}: {}", e.desc()));
    let dir_flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let mut dir: OwnedFd =
        open(root, dir_flags, Mode::empty()).map_err(|e| io("opening the checkout for", e))?;
    let mut components = path.split('/').peekable();
    while let Some(component) = components.next() {
        let last = components.peek().is_none();
        let flags = if last {
            OFlag::O_RDONLY
                | OFlag::O_NOFOLLOW
                | OFlag::O_CLOEXEC
                | OFlag::O_NONBLOCK
                | OFlag::O_NOCTTY
        } else {
            dir_flags | OFlag::O_NOFOLLOW
        };
        let fd = match openat(&dir, component, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::ENOENT) => {
                return Err(DiffError::BadParams(format!("{path} no longer exists")));
            },
            // A symlink (ELOOP), a file where a directory was expected
            // (ENOTDIR), a socket (ENXIO), a device we may not open.
            Err(Errno::ELOOP | Errno::ENOTDIR | Errno::EMLINK) => {
                return Ok(Untracked::Unavailable(
                    "The path is a symbolic link or passes through one; it is not followed."
                        .to_owned(),
                ));
            },
            Err(Errno::ENXIO | Errno::ENODEV | Errno::EACCES | Errno::EPERM) => {
                return Ok(Untracked::Unavailable("Not a regular file.".to_owned()));
            },
            Err(e) => return Err(io("opening", e)),
        };
        if last {
            return read_regular(File::from(fd), cap, path);
        }
        dir = fd;
    }
    Err(DiffError::BadParams(format!("{path:?} names no file")))
}

/// Reads an opened file when it is regular and within the cap.
fn read_regular(mut file: File, cap: usize, path: &str) -> Result<Untracked, DiffError> {
    let meta = file
        .metadata()
        .map_err(|e| DiffError::Io(format!("stat {path}: {e}")))?;
    if !meta.file_type().is_file() {
        return Ok(Untracked::Unavailable("Not a regular file.".to_owned()));
    }
    if meta.len() > cap as u64 {
        return Ok(Untracked::Unavailable(TOO_LARGE.to_owned()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte more than the cap tells a file that grew since the stat.
    (&mut file)
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| DiffError::Io(format!("reading {path}: {e}")))?;
    if bytes.len() > cap {
        return Ok(Untracked::Unavailable(TOO_LARGE.to_owned()));
    }
    Ok(Untracked::Bytes(bytes))
}
