//! The capture of a turn's baseline (docs/diffs.md#turn-baselines): when an
//! agent starts a turn, the tree of its workspace's checkout is written as git
//! objects, so a later read can diff "what this turn changed". Only objects are written: no ref, commit,
//! index, HEAD or worktree change. Blocking (runs git): call it off the actors.

use std::path::Path;
use std::time::{Duration, Instant};

/// The longest a capture may take.
pub const CAPTURE_DEADLINE: Duration = Duration::from_secs(20);

/// Writes the tree of the checkout containing `cwd` (tracked and unignored
/// untracked files) and returns its id, or why it could not.
pub fn capture_tree(cwd: &Path) -> Result<String, String> {
    let deadline = Instant::now() + CAPTURE_DEADLINE;
    let root = git(cwd, &["rev-parse", "--show-toplevel"], None, deadline)?;
    let root = Path::new(root.trim());
    let git_index = git(root, &["rev-parse", "--git-path", "index"], None, deadline)?;
    let index = root.join(git_index.trim());
    // A private copy of the index: the user's index is never touched.
    let scratch = tempfile_path();
    if index.exists() {
        std::fs::copy(&index, &scratch).map_err(|e| format!("copy the index: {e}"))?;
        keep_mtime(&index, &scratch);
    }
    let result = git(root, &["add", "--all"], Some(&scratch), deadline)
        .and_then(|_| git(root, &["write-tree"], Some(&scratch), deadline))
        .map(|tree| tree.trim().to_owned());
    let _ = std::fs::remove_file(&scratch);
    result
}

/// Gives the copy the index's own mtime: git compares a file's stat with
/// the index's time to tell a file changed in the same second as the index
/// was written ("racily clean"); a copy dated now would hide such a change.
fn keep_mtime(index: &Path, copy: &Path) {
    let mtime = std::fs::metadata(index).and_then(|m| m.modified());
    let file = std::fs::OpenOptions::new().write(true).open(copy);
    if let (Ok(mtime), Ok(file)) = (mtime, file) {
        let _ = file.set_modified(mtime);
    }
}

fn tempfile_path() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "signaltty-turn-index-{}-{:x}",
        std::process::id(),
        crate::ids::random_u128()
    ))
}

/// Runs git in `dir` (with `GIT_INDEX_FILE` when given) until `deadline`.
fn git(
    dir: &Path,
    args: &[&str],
    index: Option<&Path>,
    deadline: Instant,
) -> Result<String, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    let mut git = crate::os::git::Git::new(dir).deadline(left);
    if let Some(index) = index {
        git = git.env("GIT_INDEX_FILE", index);
    }
    git.ok(args)
        .map(|out| out.stdout_text())
        .map_err(|e| format!("git {}: {e}", args.join(" ")))
}

/// Runs [`capture_tree`] for `cwd` on a blocking thread; a capture that could
/// not run reads as a failed one.
pub async fn capture_off_loop(cwd: String) -> Result<String, String> {
    actix_rt::task::spawn_blocking(move || capture_tree(Path::new(&cwd)))
        .await
        .unwrap_or_else(|e| Err(format!("capture failed: {e}")))
}

#[cfg(test)]
mod tests;
