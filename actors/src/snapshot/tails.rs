//! Scrollback tails (`history/<pane>.tail`, spec/persistence.md §6.4): the
//! last 64 KiB of each pane's lines, written beside the snapshot so a restored
//! pane shows some context. Best effort: a tail is never needed to restore.

use super::Snapshot;
use super::file::ensure_dir;
use crate::journal::durable::sync_dir;
use signaltty_protocol::PaneId;
use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The most bytes of a tail (each line counted with its newline).
pub const MAX_TAIL_BYTES: usize = 65_536;

/// The directory of the tails, inside the state dir.
pub(super) const HISTORY_DIR: &str = "history";

const TAIL_SUFFIX: &str = ".tail";
const TMP_SUFFIX: &str = ".tail.tmp";

/// The tail of `lines` (the pane's ring lines, oldest first): the newest lines
/// whose `len + 1` sum stays within [`MAX_TAIL_BYTES`], oldest first, joined
/// with `\n`.
///
/// When even the newest line alone is over the cap, its last bytes are kept
/// (up to the cap, less one for its newline, cut forward to a char boundary):
/// the end of a line is what was printed last, next to the prompt, and an
/// empty tail would lose the only context there is. An older line that does
/// not fit ends the tail instead, so the tail stays one contiguous stretch.
pub fn tail_of<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0usize;
    for line in lines.rev() {
        let cost = line.len() + 1;
        if used + cost > MAX_TAIL_BYTES {
            if kept.is_empty() {
                kept.push(last_bytes(line, MAX_TAIL_BYTES - 1));
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

/// A pane's saved tail, if there is one: `None` when the file (or `history/`)
/// is missing or cannot be read as UTF-8 text.
pub fn read_tail(state_dir: &Path, pane: &PaneId) -> Option<String> {
    fs::read_to_string(tail_path(state_dir, pane)).ok()
}

/// Writes every non-empty tail (temp file, fsync, rename), removes the file of
/// an empty one, and prunes the tails of panes that are neither in `tails` nor
/// in `snapshot.panes`. Keeps going past a failing pane so one bad file does
/// not cost the others, and returns the first error.
pub(super) fn write_tails(
    state_dir: &Path,
    snapshot: &Snapshot,
    tails: &[(PaneId, String)],
) -> io::Result<()> {
    let history = state_dir.join(HISTORY_DIR);
    ensure_dir(&history)?;
    let mut first_error: Option<io::Error> = None;
    let mut note = |r: io::Result<()>| {
        if let Err(e) = r {
            first_error.get_or_insert(e);
        }
    };

    for (pane, text) in tails {
        let path = tail_path(state_dir, pane);
        if text.is_empty() {
            note(remove_if_present(&path));
        } else {
            note(write_tail(&path, text));
        }
    }

    // A pane in the snapshot without a tail this time (a restored tombstone,
    // say) keeps the tail it had: it is still the newest context we have.
    let keep: HashSet<String> = tails
        .iter()
        .map(|(pane, _)| safe_id(pane))
        .chain(snapshot.panes.iter().map(|p| safe_id(&p.id)))
        .collect();
    note(prune(&history, &keep));

    // Beyond the spec (no fsync there): one directory sync per save makes the
    // renames and removals above durable together, for the cost of one call.
    note(sync_dir(&history));
    first_error.map_or(Ok(()), Err)
}

/// Replaces the tail at `path` through `<path>.tmp`, so a reader sees either
/// the old tail or the new one, never half of one. Not synced file by file:
/// tails are best-effort context, 200 fsyncs would cost a second on a slow
/// disk, and the one directory sync of the save covers the renames.
fn write_tail(path: &Path, text: &str) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    super::file::write_private(&tmp, text.as_bytes())?;
    fs::rename(&tmp, path)
}

/// Removes `history/<id>.tail` (and a `.tail.tmp` left by a crashed save)
/// for every id not in `keep`. Other files are not ours and stay.
fn prune(history: &Path, keep: &HashSet<String>) -> io::Result<()> {
    for entry in fs::read_dir(history)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let id = name
            .strip_suffix(TAIL_SUFFIX)
            .or_else(|| name.strip_suffix(TMP_SUFFIX));
        if let Some(id) = id
            && !keep.contains(id)
        {
            remove_if_present(&entry.path())?;
        }
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
