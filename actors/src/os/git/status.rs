//! The workspace's git cache with its `dirty` flag
//! (docs/diffs.md#the-git-cache-and-dirty): the cheap probe plus one `git
//! status --porcelain=v1 -z --untracked-files=normal`. It never writes the
//! index (`GIT_OPTIONAL_LOCKS=0`). Blocking: call it off the event loop.

use super::{Git, GitError};
use signaltty_protocol::workspace::GitInfo;
use std::path::Path;
use std::time::Duration;

/// The longest a dirty check may take; past it `dirty` stays unknown.
pub const STATUS_DEADLINE: Duration = Duration::from_secs(10);

/// The git facts about `dir`, `dirty` included when git can tell.
pub fn git_info(dir: &Path) -> GitInfo {
    let mut info = super::probe(dir);
    if let Some(root) = &info.root {
        info.dirty = dirty(Path::new(root));
    }
    info
}

/// Whether the checkout at `root` has changes (staged, unstaged or untracked
/// and unignored); `None` when git cannot tell.
pub fn dirty(root: &Path) -> Option<bool> {
    let out = Git::new(root)
        .deadline(STATUS_DEADLINE)
        // One entry is enough to know; more only costs memory.
        .stdout_cap(1 << 20)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .run(&["status", "--porcelain=v1", "-z", "--untracked-files=normal"]);
    match out {
        Ok(out) if out.status.success() => Some(!out.stdout.is_empty()),
        Err(GitError::StdoutOver(_)) => Some(true),
        Ok(out) => {
            log::debug!("git status in {}: {}", root.display(), out.stderr_text());
            None
        },
        Err(e) => {
            log::debug!("git status in {}: {e}", root.display());
            None
        },
    }
}
