//! Safe edits of an agent's config file
//! (docs/integrations.md#how-files-are-edited): follow a symlink to its target,
//! take an advisory lock beside it with a bounded wait, read it without hanging
//! on a FIFO or loading a huge file, and replace it atomically (temp file,
//! fsync, rename, fsync of the directory). The original is never touched when
//! nothing changes or anything fails.

use std::fs::{self, File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The largest config file read.
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;
/// How long a writer waits for another signaltty writer's lock.
pub const LOCK_WAIT: Duration = Duration::from_millis(100);

/// What to do with a file, given its current bytes (`None`: absent).
pub enum Edit {
    /// Leave it as it is.
    Keep,
    /// Replace it with these bytes.
    Write(Vec<u8>),
    /// Remove it.
    Remove,
}

/// Whether the file changed.
pub type Changed = bool;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The file a path names, following a symlink (the link stays a link).
fn resolve(path: &Path) -> Result<PathBuf, String> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).or_else(|_| {
            // A dangling link: write where it points.
            let target = fs::read_link(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(match path.parent() {
                Some(dir) if target.is_relative() => dir.join(target),
                _ => target,
            })
        }),
        _ => Ok(path.to_path_buf()),
    }
}

fn side_file(path: &Path, suffix: &str) -> Result<PathBuf, String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("{} names no file", path.display()))?;
    Ok(path.with_file_name(format!(".{}.{suffix}", name.to_string_lossy())))
}

/// An advisory lock on a config file, held while it lives: the lock file
/// `.<name>.signaltty.lock` beside the file. It is removed before it is
/// released, so the user's folder is left as it was found
/// (docs/integrations.md#how-files-are-edited).
struct Lock {
    file: File,
    path: PathBuf,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held: a writer waiting on this inode gets it
        // only after the name is gone, sees that, and starts again on a new
        // file; nobody ever holds a lock on a file another lock replaced.
        let _ = fs::remove_file(&self.path);
        let _ = fs4::FileExt::unlock(&self.file);
    }
}

/// Whether the open `file` is still the one at `path` (not removed or
/// replaced since it was opened).
fn still_there(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// Takes the exclusive lock `.<name>.signaltty.lock` beside `path`, retrying
/// every 5 ms up to `LOCK_WAIT`.
fn lock(path: &Path) -> Result<Lock, String> {
    let lock_path = side_file(path, "signaltty.lock")?;
    let until = Instant::now() + LOCK_WAIT;
    loop {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc_flags::NONBLOCK | libc_flags::NOFOLLOW)
            .open(&lock_path)
            .map_err(|e| format!("cannot open the lock {}: {e}", lock_path.display()))?;
        if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
            return Err(format!("{} is not a regular file", lock_path.display()));
        }
        match fs4::FileExt::try_lock(&file) {
            // Held, and still the lock file: ours.
            Ok(()) if still_there(&file, &lock_path) => {
                return Ok(Lock {
                    file,
                    path: lock_path,
                });
            },
            // The holder removed it as it finished: open the name again.
            Ok(()) => drop(file),
            Err(fs4::TryLockError::WouldBlock) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(5));
            },
            Err(_) => {
                return Err(format!(
                    "configuration lock unavailable: {} is held by another writer",
                    lock_path.display()
                ));
            },
        }
        if Instant::now() >= until {
            return Err(format!(
                "configuration lock unavailable: {} keeps changing",
                lock_path.display()
            ));
        }
    }
}

/// The open(2) flags the std API does not name.
mod libc_flags {
    pub const NONBLOCK: i32 = nix::fcntl::OFlag::O_NONBLOCK.bits();
    pub const NOFOLLOW: i32 = nix::fcntl::OFlag::O_NOFOLLOW.bits();
}

/// Reads the file: `None` when absent; an error when it is not a regular file
/// or is over `MAX_BYTES`. Opened non-blocking, so a FIFO cannot hang us.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags::NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} must be a regular file", path.display()));
    }
    if meta.len() > MAX_BYTES {
        return Err(format!(
            "{} is larger than {} MiB",
            path.display(),
            MAX_BYTES >> 20
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(Some(bytes))
}

/// Writes `bytes` over `path` atomically, with the permissions of the file it
/// replaces (0600 for a new one).
fn replace(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = side_file(path, &format!("signaltty-{}-{n}", std::process::id()))?;
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)
            .map_err(|e| format!("cannot create {}: {e}", temp.display()))?;
        if let Ok(meta) = fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o7777;
            file.set_permissions(fs::Permissions::from_mode(mode))
                .map_err(|e| format!("cannot set the mode of {}: {e}", temp.display()))?;
        }
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
        fs::rename(&temp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
        if let Some(dir) = path.parent() {
            File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| format!("cannot sync {}: {e}", dir.display()))?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Applies `edit` to the file at `path` under the lock. `edit` sees the current
/// bytes; the file is replaced only if it still holds them when the edit is
/// written (a writer that ignored the lock makes this fail, not lose a change).
/// Returns the file edited (a symlink's target) and whether it changed.
pub fn update(
    path: &Path,
    edit: impl FnOnce(Option<&[u8]>) -> Result<Edit, String>,
) -> Result<(PathBuf, Changed), String> {
    let target = resolve(path)?;
    if let Some(dir) = target.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let _lock = lock(&target)?;
    let before = read(&target)?;
    let decided = edit(before.as_deref())?;
    let changed = match decided {
        Edit::Keep => false,
        Edit::Write(bytes) if before.as_deref() == Some(bytes.as_slice()) => false,
        Edit::Remove if before.is_none() => false,
        Edit::Write(bytes) => {
            if read(&target)? != before {
                return Err(format!("{} changed during setup; retry", target.display()));
            }
            replace(&target, &bytes)?;
            true
        },
        Edit::Remove => {
            fs::remove_file(&target)
                .map_err(|e| format!("cannot remove {}: {e}", target.display()))?;
            true
        },
    };
    Ok((target, changed))
}

#[cfg(test)]
mod tests;
