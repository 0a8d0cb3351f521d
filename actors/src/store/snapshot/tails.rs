//! Scrollback tails (`history/<pane>.tail`, docs/persistence.md#screen-tails):
//! the last bytes of each pane's lines up to the tail cap (`[history]
//! tail_bytes`, 64 KiB by default, docs/configuration.md#the-file), written
//! beside the snapshot so a restored pane shows some context. Best effort: a
//! tail is never needed to restore.
//!
//! Each save reads every pane's ring directly ([`TailSource`], no message to
//! the pane) and writes only what changed since the last save: the lines new
//! since then and the screen, appended as one record (`tail_format.rs`); a
//! file is rewritten whole (temp file, rename) the first time this run writes
//! it, when the history was cleared, or when it would grow past
//! [`compact_at`] (two tails' worth).
//!
//! ```text
//!   save N:    ring ── mark unchanged? ──► nothing
//!                   └─ new lines + screen ≤ room left ──► append a record
//!                   └─ otherwise ──► whole file: its newest cap's worth
//!                                    of history, the screen (temp + rename)
//!                                    — or, past the save's budget, next save
//! ```
//!
//! A periodic save writes whole files for at most [`WHOLE_BUDGET`] bytes or
//! [`TAILS_TIME_BUDGET`] ([`TailBudget`]): a burst of new panes (200 fresh
//! 64 KiB tails, 13 MB) would otherwise make one save cost 30–160 ms on two
//! busy CPUs. What is left over is counted as deferred and written by the
//! next save, which the Supervisor schedules at once; past the budget only
//! appends are written (and a pane whose ring is locked just then is left
//! for the next save rather than waited for), and tails with no file yet go
//! before compactions, so a flooding pane cannot starve a new one. The save
//! at shutdown writes everything.

use super::Snapshot;
use super::file::ensure_dir;
use super::tail_format::{self, Decoded, Record};
use signaltty_model::journal::durable::sync_dir;
use signaltty_model::term::{RingView, TailMark, TailSlot, TailSource};
use signaltty_protocol::PaneId;
use std::collections::{HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The tail cap when the config does not set one: the most bytes of a tail,
/// each line counted with its newline (`[history] tail_bytes`).
pub const DEFAULT_TAIL_BYTES: usize = signaltty_model::settings::limits::HISTORY_TAIL_BYTES;

/// A tail file of tails capped at `cap` that an append would make longer
/// than this is rewritten whole instead: a file holds at most about two
/// tails' worth (plus the screen, should one rewrite's screen alone be
/// bigger than a tail).
pub const fn compact_at(cap: usize) -> usize {
    cap.saturating_mul(2)
}

/// The bytes of whole tail files one periodic save writes at most (about
/// 32 full tails at the default cap; 5–8 ms of writing once the CPUs are
/// free).
pub const WHOLE_BUDGET: u64 = 2 * 1024 * 1024;

/// How long one periodic save spends on the tails before it leaves the
/// rest to the next: on CPUs saturated by 200 terminals parsing their
/// floods, the writer waits for a CPU longer than it runs, and 2 MiB can
/// take 30–80 ms.
pub const TAILS_TIME_BUDGET: Duration = Duration::from_millis(8);

/// How much of the tails a save writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailBudget {
    /// Every tail that changed (the save at shutdown, tests).
    Everything,
    /// Whole files until `bytes` are written or `time` has passed; after
    /// that, appends only, and a pane whose ring is locked just then is not
    /// waited for. The rest waits for the next save.
    Within { bytes: u64, time: Duration },
}

impl TailBudget {
    /// The budget of a periodic save.
    pub const PERIODIC: TailBudget = TailBudget::Within {
        bytes: WHOLE_BUDGET,
        time: TAILS_TIME_BUDGET,
    };
}

/// The directory of the tails, inside the state dir.
pub(super) const HISTORY_DIR: &str = "history";

const TAIL_SUFFIX: &str = ".tail";
const TMP_SUFFIX: &str = ".tail.tmp";

/// The tail of `lines` (the pane's ring lines, oldest first): the newest lines
/// whose `len + 1` sum stays within `cap` bytes, oldest first, joined with
/// `\n`.
///
/// When even the newest line alone is over the cap, its last bytes are kept
/// (up to the cap, less one for its newline, cut forward to a char boundary):
/// the end of a line is what was printed last, next to the prompt, and an
/// empty tail would lose the only context there is. An older line that does
/// not fit ends the tail instead, so the tail stays one contiguous stretch.
pub fn tail_of<'a>(lines: impl DoubleEndedIterator<Item = &'a str>, cap: usize) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0usize;
    for line in lines.rev() {
        let cost = line.len() + 1;
        if used + cost > cap {
            if kept.is_empty() {
                kept.push(last_bytes(line, cap.saturating_sub(1)));
            }
            break;
        }
        used += cost;
        kept.push(line);
    }
    kept.reverse();
    kept.join("\n")
}

/// The longest suffix of `line` of at most `max` bytes that starts on a char
/// boundary.
fn last_bytes(line: &str, max: usize) -> &str {
    let mut start = line.len().saturating_sub(max);
    // A UTF-8 char is at most 4 bytes, so this moves at most 3 times; index
    // `line.len()` is always a boundary, so the loop ends.
    while !line.is_char_boundary(start) {
        start += 1;
    }
    &line[start..]
}

/// Where a pane's tail lives.
pub fn tail_path(state_dir: &Path, pane: &PaneId) -> PathBuf {
    state_dir
        .join(HISTORY_DIR)
        .join(format!("{}{TAIL_SUFFIX}", safe_id(pane)))
}

/// The pane id filtered to `[A-Za-z0-9_-]`, so it cannot leave `history/`.
fn safe_id(pane: &PaneId) -> String {
    pane.as_str()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

/// A pane's saved tail, cut to `cap` bytes as [`tail_of`] cuts, if there is
/// one: `None` when the file (or `history/`) is missing, holds no whole
/// record, or (version 1) is not text: not UTF-8, or with a NUL (never in a
/// ring line: blocks a power loss left zeroed).
///
/// A file written under a bigger cap (the config lowered between runs) is
/// read as its newest `cap` bytes; one written under a smaller cap is read
/// whole.
pub fn read_tail(state_dir: &Path, pane: &PaneId, cap: usize) -> Option<String> {
    let bytes = fs::read(tail_path(state_dir, pane)).ok()?;
    match tail_format::decode(&bytes) {
        Some(decoded) if decoded.records == 0 => None,
        Some(decoded) => Some(text_of(&decoded, cap)),
        None if memchr::memchr(0, &bytes).is_some() => None,
        None => {
            let text = String::from_utf8(bytes).ok()?;
            Some(tail_of(text.split('\n'), cap))
        },
    }
}

/// The tail a decoded file holds: what [`tail_of`] made of the ring's lines
/// when the last record was written (with the same `cap`).
fn text_of(decoded: &Decoded<'_>, cap: usize) -> String {
    let history: &[&str] = if decoded.alt { &[] } else { &decoded.history };
    tail_of(history.iter().chain(&decoded.screen).copied(), cap)
}

/// What this run knows of each pane's tail file, so that a save writes only
/// what changed, and the cap its tails are cut to. Saves take it in turn
/// (the caller holds it locked).
#[derive(Debug)]
pub struct TailFiles {
    files: HashMap<PaneId, Known>,
    /// The buffer every record is built in, one pane after the other.
    scratch: Vec<u8>,
    /// The most bytes of a tail ([`DEFAULT_TAIL_BYTES`] unless set).
    cap: usize,
}

impl Default for TailFiles {
    fn default() -> TailFiles {
        TailFiles {
            files: HashMap::new(),
            scratch: Vec::new(),
            cap: DEFAULT_TAIL_BYTES,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Known {
    /// Restored at start: the file holds what the pane's ring had when it
    /// was built (the mark in its [`TailSlot`]). Rewritten whole on change.
    Restored,
    /// The file holds the ring as of `mark`. `len` is its length when this
    /// run last wrote it, and only then may a record be appended.
    At { mark: TailMark, len: Option<u64> },
}

impl TailFiles {
    /// After a restore: the tails on disk of these panes are what their
    /// rebuilt screens show.
    pub fn restored(panes: impl IntoIterator<Item = PaneId>) -> TailFiles {
        TailFiles {
            files: panes.into_iter().map(|id| (id, Known::Restored)).collect(),
            ..TailFiles::default()
        }
    }

    /// The same, with tails cut to `cap` bytes (at least 1). A file written
    /// under another cap is rewritten at this one the next time its pane's
    /// screen changes.
    pub fn with_cap(mut self, cap: usize) -> TailFiles {
        self.cap = cap.max(1);
        self
    }

    #[cfg(test)]
    /// The most bytes of a tail.
    pub fn cap(&self) -> usize {
        self.cap
    }
}

/// What one save did with the tails.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TailReport {
    /// Files written whole.
    pub whole: usize,
    /// Files appended to.
    pub appended: usize,
    /// Files removed (an empty tail, or a pane that is gone).
    pub removed: usize,
    /// Files that needed writing whole past the save's budget: the next
    /// save writes them.
    pub deferred: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Time spent reading the rings (their locks held).
    pub read: Duration,
}

impl TailReport {
    /// Files written or appended to.
    pub fn changed(&self) -> usize {
        self.whole + self.appended
    }
}

mod write;
pub(in crate::store::snapshot) use write::write_tails;
