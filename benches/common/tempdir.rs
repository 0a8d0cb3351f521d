//! A private temporary directory for one benchmark run (servers, tmux sockets, files),
//! removed on drop.

use super::{Context, Res, WHO};
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Creates the 0700 directory `path`; fails if it exists.
pub fn mkdir_private(path: &Path) -> Res<()> {
    fs::DirBuilder::new()
        .mode(0o700)
        .create(path)
        .ctx(|| format!("cannot create {}", path.display()))
}

/// A 0700 directory `WHO-PID-NANOS` under $TMPDIR (or another parent), removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Res<TempDir> {
        TempDir::new_in(&std::env::temp_dir())
    }

    pub fn new_in(parent: &Path) -> Res<TempDir> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = parent.join(format!("{WHO}-{}-{nanos:x}", std::process::id()));
        mkdir_private(&path)?;
        Ok(TempDir(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Creates a fresh 0700 subdirectory `name-N` (the first N not taken).
    pub fn fresh(&self, name: &str) -> Res<PathBuf> {
        for n in 0.. {
            let path = self.0.join(format!("{name}-{n}"));
            if !path.exists() {
                mkdir_private(&path)?;
                return Ok(path);
            }
        }
        Err("no free directory name".into())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.0) {
            eprintln!("{WHO}: cannot remove {}: {e}", self.0.display());
        }
    }
}
