//! Tests of capturing a turn's baseline: the tree is written without touching
//! the index or `HEAD`.

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
