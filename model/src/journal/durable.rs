//! The durable write primitive (docs/persistence.md#durable-writes) and directory
//! syncs.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Replaces `path` with `bytes` so that a crash leaves either the old or the new
/// content: write `<path>.tmp` (mode 0600), fsync it, rename it over `path`, fsync
/// the directory.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = Path::new(&tmp_name);
    let written = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        });
    if let Err(e) = written {
        // A half-written temporary file would only hold space a full disk
        // needs back; the old content is untouched.
        let _ = fs::remove_file(tmp);
        return Err(e);
    }
    fs::rename(tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Fsyncs a directory, making renames and creations in it durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests;
