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
    }
    let result = git(root, &["add", "--all"], Some(&scratch), deadline)
        .and_then(|_| git(root, &["write-tree"], Some(&scratch), deadline))
        .map(|tree| tree.trim().to_owned());
    let _ = std::fs::remove_file(&scratch);
    result
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
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        if let Err(e) = crate::os::git::Git::new(dir).ok(args) {
            panic!("git {args:?}: {e}");
        }
    }

    #[test]
    fn a_capture_writes_the_tree_without_touching_the_index_or_head() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path();
        run(repo, &["init", "-q"]);
        std::fs::write(repo.join("tracked.txt"), "one\n").expect("write");
        run(repo, &["add", "tracked.txt"]);
        std::fs::write(repo.join("new.txt"), "untracked\n").expect("write");
        let index_before = std::fs::read(repo.join(".git/index")).expect("index");
        let tree = capture_tree(repo).expect("a tree");
        assert_eq!(tree.len(), 40, "{tree}");
        assert_eq!(
            std::fs::read(repo.join(".git/index")).expect("index"),
            index_before
        );
        // The tree holds the untracked file too.
        let listing = git(
            repo,
            &["ls-tree", "--name-only", &tree],
            None,
            Instant::now() + CAPTURE_DEADLINE,
        )
        .expect("ls-tree");
        assert!(
            listing.contains("new.txt") && listing.contains("tracked.txt"),
            "{listing}"
        );
        assert!(capture_tree(&std::env::temp_dir().join("no-such-dir-xyz")).is_err());
    }
}
