//! The handoff record an in-place upgrade leaves for the next binary
//! (docs/upgrade.md), and the small envelope beside it in the environment.
//!
//! ```text
//!   SIGNALTTY_UPGRADE_FDS = listener=3;managed=1;reply=9:636c692d30;panes=11:4242,12:4250
//!       the descriptors that crossed the exec and the processes behind them;
//!       a fixed format every version reads, so that even a binary that cannot
//!       read the record finds its socket and lets the panes go cleanly
//!   SIGNALTTY_UPGRADE     = <state dir>/upgrade.json (0600, removed once read)
//!       {version: 1, …, panes: [{fd, pid, carried: {pane, carry, output_offset, term}}]}
//! ```
//!
//! A record of another version, or one that does not parse, is refused
//! whole: the next binary then restores from the snapshot, as after a
//! restart, and says why.

use crate::domain::state::tracker::Carry;
use serde::{Deserialize, Serialize};
use signaltty_model::term::TermState;
use signaltty_protocol::pane::Pane as PaneState;
use std::io::Write;
use std::os::fd::RawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// What of a pane crosses the exec, serialisable (the master and the pid
/// travel beside it in the record).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Carried {
    /// The pane object: lifecycle, attention, decision, size, names.
    pub pane: PaneState,
    /// The tracker's evidence.
    pub carry: Carry,
    /// Output bytes so far: the next byte read continues from here.
    pub output_offset: u64,
    /// The terminal: grid, modes, ring with its seqs, parser carry.
    pub term: TermState,
}

/// The record version this binary writes and reads.
pub const VERSION: u32 = 1;
/// Names the record file, and carries the envelope.
pub use crate::domain::launch::{UPGRADE_FDS_VAR as FDS_ENV, UPGRADE_RECORD_VAR as RECORD_ENV};
/// The record's file name in the state directory.
pub const FILE_NAME: &str = "upgrade.json";

/// Everything the next binary needs to continue.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    /// [`VERSION`].
    pub version: u32,
    /// The version that wrote it.
    pub from_version: String,
    /// The binary the exec runs.
    pub binary: String,
    /// When `server.upgrade` was received, in milliseconds of the monotonic
    /// clock (`takeover::monotonic_ms`).
    pub requested_at_ms: u64,
    /// The journal's head: every event up to it is durable.
    pub seq: u64,
    /// The listening socket.
    pub listener: ListenerRecord,
    /// Upgrades this process went through before this one.
    pub upgrades: u64,
    /// The connection that asked, answered by the next binary.
    pub reply: Option<ReplyRecord>,
    /// Every pane.
    pub panes: Vec<PaneRecord>,
}

/// The listening socket as it crosses.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ListenerRecord {
    /// Its descriptor.
    pub fd: RawFd,
    /// The path it is bound to.
    pub path: PathBuf,
    /// Passed by a service manager, which owns the socket file.
    pub passed: bool,
}

/// The connection that asked for the upgrade.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReplyRecord {
    /// Its descriptor.
    pub fd: RawFd,
    /// The request id to answer.
    pub id: String,
}

/// One pane as it crosses.
#[derive(Debug, Serialize, Deserialize)]
pub struct PaneRecord {
    /// Its master, when its process runs.
    pub fd: Option<RawFd>,
    /// Its process, when it runs.
    pub pid: Option<u32>,
    /// When its reader stopped, in milliseconds of the monotonic clock.
    pub unread_since_ms: u64,
    /// The pane itself.
    pub carried: Carried,
}

/// The fixed-format part: what crossed the exec, readable by any version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Envelope {
    /// The listening socket.
    pub listener: RawFd,
    /// A service manager passed the socket (it owns the socket file).
    pub managed: bool,
    /// The connection that asked, and its request id (hex in the text).
    pub reply: Option<(RawFd, String)>,
    /// Each pane's master and process.
    pub panes: Vec<(RawFd, u32)>,
}

impl Envelope {
    /// Its text, for [`FDS_ENV`].
    pub fn to_env(&self) -> String {
        let panes: Vec<String> = self
            .panes
            .iter()
            .map(|(fd, pid)| format!("{fd}:{pid}"))
            .collect();
        let mut text = format!("listener={}", self.listener);
        if self.managed {
            text.push_str(";managed=1");
        }
        if let Some((fd, id)) = &self.reply {
            let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
            text.push_str(&format!(";reply={fd}:{hex}"));
        }
        text.push_str(&format!(";panes={}", panes.join(",")));
        text
    }

    /// Parses [`FDS_ENV`]'s text; unknown keys are skipped (a later version
    /// may add some).
    pub fn parse(text: &str) -> Result<Envelope, String> {
        let fd = |v: &str| {
            v.parse::<RawFd>()
                .ok()
                .filter(|fd| *fd > 2)
                .ok_or_else(|| format!("{v:?} is not a descriptor number above 2"))
        };
        let mut listener = None;
        let mut envelope = Envelope::default();
        for part in text.split(';').filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} is not key=value"))?;
            match key {
                "listener" => listener = Some(fd(value)?),
                "managed" => envelope.managed = value == "1",
                "reply" => {
                    let (f, hex) = value.split_once(':').unwrap_or((value, ""));
                    envelope.reply = Some((fd(f)?, unhex(hex)?));
                },
                "panes" => {
                    for pane in value.split(',').filter(|p| !p.is_empty()) {
                        let (f, pid) = pane
                            .split_once(':')
                            .ok_or_else(|| format!("{pane:?} is not fd:pid"))?;
                        let pid = pid
                            .parse::<u32>()
                            .ok()
                            .filter(|p| *p > 0)
                            .ok_or_else(|| format!("{pid:?} is not a process id"))?;
                        envelope.panes.push((fd(f)?, pid));
                    }
                },
                _ => {},
            }
        }
        envelope.listener = listener.ok_or("no listener")?;
        Ok(envelope)
    }

    /// Every descriptor it names.
    pub fn fds(&self) -> Vec<RawFd> {
        let mut fds = vec![self.listener];
        fds.extend(self.reply.as_ref().map(|(fd, _)| *fd));
        fds.extend(self.panes.iter().map(|(fd, _)| *fd));
        fds
    }
}

/// The text of a hex string.
fn unhex(hex: &str) -> Result<String, String> {
    let bad = || format!("{hex:?} is not hex text");
    if !hex.len().is_multiple_of(2) {
        return Err(bad());
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
                .ok_or_else(bad)
        })
        .collect::<Result<Vec<u8>, String>>()?;
    String::from_utf8(bytes).map_err(|_| bad())
}

impl Record {
    /// The envelope of this record.
    pub fn envelope(&self) -> Envelope {
        Envelope {
            listener: self.listener.fd,
            managed: self.listener.passed,
            reply: self.reply.as_ref().map(|r| (r.fd, r.id.clone())),
            panes: self
                .panes
                .iter()
                .filter_map(|p| Some((p.fd?, p.pid?)))
                .collect(),
        }
    }
}

/// The directory of `socket` when only this user can enter it (mode
/// `0700` or stricter, owned by this user): where the record is written,
/// rather than the state directory, when it qualifies.
pub fn private_dir(socket: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dir = socket.parent()?;
    let meta = std::fs::symlink_metadata(dir).ok()?;
    (meta.is_dir() && meta.uid() == nix::unistd::getuid().as_raw() && meta.mode() & 0o077 == 0)
        .then(|| dir.to_path_buf())
}

/// Writes `record` into `dir` (0600) and returns its path.
pub fn write(dir: &Path, record: &Record) -> std::io::Result<PathBuf> {
    let path = dir.join(FILE_NAME);
    let text = serde_json::to_vec(record).map_err(std::io::Error::other)?;
    // A leftover of a failed upgrade goes first: the new file is created,
    // never opened through whatever is there.
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {},
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    file.write_all(&text)?;
    Ok(path)
}

/// Reads the record at `path` and removes the file. Any failure says why;
/// the caller falls back to the snapshot.
pub fn read(path: &Path) -> Result<Record, String> {
    let text = std::fs::read(path);
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        log::warn!("cannot remove {}: {e}", path.display());
    }
    let text = text.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text)
}

/// Parses a record; another version is refused by its number first. The
/// number is read without building the document (a record of 50 panes with
/// full histories is megabytes), then the record straight from the text.
pub fn parse(text: &[u8]) -> Result<Record, String> {
    #[derive(Deserialize)]
    struct Version {
        version: Option<u64>,
    }
    let corrupt = |e: serde_json::Error| format!("the record is corrupt: {e}");
    let version: Version = serde_json::from_slice(text).map_err(corrupt)?;
    match version.version {
        Some(v) if v == u64::from(VERSION) => {},
        Some(v) => {
            return Err(format!(
                "the record is of version {v}; this binary reads version {VERSION}"
            ));
        },
        None => return Err("the record has no version".into()),
    }
    serde_json::from_slice(text).map_err(corrupt)
}

#[cfg(test)]
mod tests;
