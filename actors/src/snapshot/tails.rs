//! Scrollback tails (`history/<pane>.tail`, spec/persistence.md §6.4).

use signaltty_protocol::PaneId;
use std::path::{Path, PathBuf};

/// The most bytes of a tail (each line counted with its newline).
pub const MAX_TAIL_BYTES: usize = 65_536;

/// The tail of `lines` (oldest first). TODO(issue 14).
pub fn tail_of<'a>(lines: impl DoubleEndedIterator<Item = &'a str>) -> String {
    let _ = lines;
    String::new()
}

/// Where a pane's tail lives.
pub fn tail_path(state_dir: &Path, pane: &PaneId) -> PathBuf {
    let safe: String = pane
        .as_str()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    state_dir.join("history").join(format!("{safe}.tail"))
}

/// A pane's saved tail, if there is one. TODO(issue 14).
pub fn read_tail(state_dir: &Path, pane: &PaneId) -> Option<String> {
    let _ = (state_dir, pane);
    None
}
