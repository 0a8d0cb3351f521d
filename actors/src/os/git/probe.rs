//! A cheap git probe for the workspace cache (docs/objects.md#gitinfo): finds the
//! checkout containing a directory and its branch by reading `.git` and `HEAD`
//! directly. It never runs git and never reports `dirty` (that needs a real status).
//! Blocking file I/O: call it off the event loop.

use signaltty_protocol::workspace::GitInfo;
use std::fs;
use std::path::{Path, PathBuf};

/// Git facts about the checkout containing `dir`, or the default (no root) when
/// `dir` is not inside one.
pub fn probe(dir: &Path) -> GitInfo {
    let Some((root, git_dir)) = find_checkout(dir) else {
        return GitInfo::default();
    };
    let head = fs::read_to_string(git_dir.join("HEAD")).unwrap_or_default();
    let (branch, detached) = match head.trim().strip_prefix("ref:") {
        Some(r) => {
            let r = r.trim();
            (
                Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned()),
                false,
            )
        },
        None if head.trim().is_empty() => (None, false),
        None => (None, true),
    };
    GitInfo {
        name: root.file_name().map(|n| n.to_string_lossy().into_owned()),
        root: Some(root.to_string_lossy().into_owned()),
        branch,
        detached,
        dirty: None,
    }
}

/// Walks up from `dir` to the first directory holding `.git`; returns it and the
/// git directory (`.git` itself, or where a worktree's `.git` file points).
fn find_checkout(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut cur = Some(dir);
    while let Some(d) = cur {
        let dot_git = d.join(".git");
        if let Ok(meta) = fs::metadata(&dot_git) {
            if meta.is_dir() {
                return Some((d.to_path_buf(), dot_git));
            }
            if meta.is_file() {
                let text = fs::read_to_string(&dot_git).ok()?;
                let target = text.trim().strip_prefix("gitdir:")?.trim();
                let target = Path::new(target);
                let git_dir = if target.is_absolute() {
                    target.to_path_buf()
                } else {
                    d.join(target)
                };
                return Some((d.to_path_buf(), git_dir));
            }
        }
        cur = d.parent();
    }
    None
}

#[cfg(test)]
mod tests;
