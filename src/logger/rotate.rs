//! A log file capped in size: when a record would take it past the cap, the
//! file is renamed to `<file>.1` (replacing the one before) and a fresh file
//! is started, so at most one predecessor is kept. Files are created 0600.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tracing_subscriber::fmt::MakeWriter;

/// The log file and its size so far.
pub struct RotatingFile {
    path: PathBuf,
    max_bytes: u64,
    state: Mutex<State>,
}

struct State {
    file: File,
    len: u64,
}

/// `<file>.1`.
pub fn predecessor(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}

fn open_private(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    // An existing file keeps its mode on open: make it private too.
    let meta = file.metadata()?;
    if meta.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

impl RotatingFile {
    /// Opens (appends to) `path`; it rotates past `max_bytes`.
    pub fn open(path: &Path, max_bytes: u64) -> io::Result<RotatingFile> {
        let file = open_private(path)?;
        let len = file.metadata()?.len();
        Ok(RotatingFile {
            path: path.to_path_buf(),
            max_bytes: max_bytes.max(1),
            state: Mutex::new(State { file, len }),
        })
    }

    /// Writes one whole record, rotating first when it would pass the cap.
    /// A record larger than the cap still goes whole into a fresh file.
    pub fn write_record(&self, buf: &[u8]) -> io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let incoming = u64::try_from(buf.len()).unwrap_or(u64::MAX);
        if state.len > 0 && state.len.saturating_add(incoming) > self.max_bytes {
            // When the rename or the new file fails, keep writing where we
            // are: a log past its cap beats a lost log.
            if std::fs::rename(&self.path, predecessor(&self.path)).is_ok()
                && let Ok(fresh) = open_private(&self.path)
            {
                state.file = fresh;
                state.len = 0;
            }
        }
        state.file.write_all(buf)?;
        state.len = state.len.saturating_add(incoming);
        Ok(())
    }
}

/// What the formatter writes one record through.
pub struct RecordWriter<'a>(&'a RotatingFile);

impl Write for RecordWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write_record(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for RotatingFile {
    type Writer = RecordWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        RecordWriter(self)
    }
}

#[cfg(test)]
mod tests;
