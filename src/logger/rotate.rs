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
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn passing_the_cap_keeps_one_predecessor_and_never_more() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("server.log");
        let log = RotatingFile::open(&path, 100).unwrap_or_else(|e| panic!("{e}"));
        let line = [b'a'; 39];
        let mut line = line.to_vec();
        line.push(b'\n');
        log.write_record(&line).unwrap_or_else(|e| panic!("{e}"));
        log.write_record(&line).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files(dir.path()), ["server.log"], "80 bytes fit in 100");
        log.write_record(b"third\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files(dir.path()), ["server.log"], "86 bytes still fit");
        log.write_record(&line).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files(dir.path()), ["server.log", "server.log.1"]);
        let old = std::fs::read(predecessor(&path)).unwrap_or_default();
        assert_eq!(old.len(), 86, "the predecessor holds whole records");
        assert_eq!(std::fs::read(&path).unwrap_or_default(), line);
        for n in 0..20 {
            log.write_record(format!("line {n:032}\n").as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(files(dir.path()), ["server.log", "server.log.1"]);
        for p in [path.clone(), predecessor(&path)] {
            let meta = std::fs::metadata(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(meta.len() <= 100, "{} is {} bytes", p.display(), meta.len());
            assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(text.ends_with("line 00000000000000000000000000000019\n"));
    }

    #[test]
    fn an_existing_file_is_appended_to_and_counted_and_made_private() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("server.log");
        std::fs::write(&path, [b'x'; 90]).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        let log = RotatingFile::open(&path, 100).unwrap_or_else(|e| panic!("{e}"));
        let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o600));
        log.write_record(b"0123456789ab\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            std::fs::read(predecessor(&path)).unwrap_or_default().len(),
            90
        );
        // A record bigger than the cap goes whole into a file of its own.
        let big = vec![b'b'; 250];
        log.write_record(&big).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read(&path).unwrap_or_default(), big);
        assert_eq!(files(dir.path()), ["server.log", "server.log.1"]);
    }
}
