//! The radar's git against real repositories: branch tips, a checkout's
//! uncommitted work as a commit (the user's index untouched), and merges
//! tried in one batch (docs/tasks.md#conflict-radar).

use super::*;
use std::fs;

fn git(dir: &Path, args: &[&str]) -> String {
    Git::new(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .text(args)
        .unwrap()
}

/// A repository on `main` with `f` (three lines) and `g`, and three task
/// checkouts: `t1` and `t2` change the same line of `f`, `t3` adds `h`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("repo");
    fs::create_dir(&r).unwrap();
    git(&r, &["init", "-q", "-b", "main"]);
    fs::write(r.join("f"), "a\nb\nc\n").unwrap();
    fs::write(r.join("g"), "x\n").unwrap();
    git(&r, &["add", "."]);
    git(&r, &["commit", "-qm", "base"]);
    for (name, file, text) in [
        ("t1", "f", "a\nB1\nc\n"),
        ("t2", "f", "a\nB2\nc\n"),
        ("t3", "h", "new\n"),
    ] {
        let wt = dir.path().join(name);
        git(
            &r,
            &["worktree", "add", "-q", "-b", name, wt.to_str().unwrap()],
        );
        fs::write(wt.join(file), text).unwrap();
        git(&wt, &["add", "."]);
        git(&wt, &["commit", "-qm", name]);
    }
    dir
}

#[test]
fn heads_reads_the_exact_branches_and_leaves_out_missing_ones() {
    let dir = repo();
    let r = dir.path().join("repo");
    // A branch below a missing one is not taken for it.
    git(&r, &["branch", "gone/below", "t2"]);
    let tips = heads(&r, &["main".to_owned(), "t1".to_owned(), "gone".to_owned()]).unwrap();
    assert_eq!(tips.len(), 2, "{tips:?}");
    assert_eq!(tips["t1"], git(&r, &["rev-parse", "t1"]));
    assert_eq!(tips["main"], git(&r, &["rev-parse", "main"]));
}

#[test]
fn merges_report_conflicting_paths_and_clean_pairs_in_order() {
    let dir = repo();
    let r = dir.path().join("repo");
    let tip = |b: &str| git(&r, &["rev-parse", b]);
    let pairs = vec![
        (tip("t1"), tip("t2")),
        (tip("t1"), tip("t3")),
        (tip("t2"), tip("main")),
    ];
    let found = merges(&r, &pairs).unwrap();
    assert_eq!(
        found,
        vec![
            Found::Conflict(vec!["f".to_owned()]),
            Found::Clean,
            Found::Clean
        ]
    );
    assert!(merges(&r, &[]).unwrap().is_empty());
    // Nothing of the repository moved: no ref, no index change.
    assert_eq!(git(&r, &["status", "--porcelain"]), "");
}

#[test]
fn a_bad_commit_fails_the_batch_with_gits_message() {
    let dir = repo();
    let r = dir.path().join("repo");
    let t1 = git(&r, &["rev-parse", "t1"]);
    let err = merges(&r, &[(t1, "0".repeat(40))]).unwrap_err();
    assert!(err.contains("merge-tree"), "{err}");
}

#[test]
fn uncommitted_work_becomes_a_commit_and_the_index_is_untouched() {
    let dir = repo();
    let r = dir.path().join("repo");
    let t3 = dir.path().join("t3");
    let head = git(&t3, &["rev-parse", "HEAD"]);
    // Clean: HEAD itself.
    let clean = snapshot(&t3).unwrap();
    assert_eq!(clean.commit, head);
    assert_eq!(clean.head, head);
    // A tracked change and an untracked file, neither staged.
    fs::write(t3.join("f"), "a\nB3\nc\n").unwrap();
    fs::write(t3.join("new.txt"), "n\n").unwrap();
    let dirty = snapshot(&t3).unwrap();
    assert_eq!(dirty.head, head);
    assert_ne!(dirty.commit, head);
    assert_eq!(
        git(&t3, &["rev-parse", &format!("{}^", dirty.commit)]),
        head
    );
    assert_eq!(
        git(&t3, &["diff", "--cached", "--name-only"]),
        "",
        "nothing was staged in the user's index"
    );
    assert_eq!(
        git(&t3, &["ls-files", "--others", "--exclude-standard"]),
        "new.txt"
    );
    // The same work gives the same commit.
    assert_eq!(snapshot(&t3).unwrap().commit, dirty.commit);
    // And the uncommitted change is seen: it conflicts with t1.
    let t1 = git(&r, &["rev-parse", "t1"]);
    let found = merges(&r, &[(dirty.commit, t1)]).unwrap();
    assert_eq!(found, vec![Found::Conflict(vec!["f".to_owned()])]);
}
