//! Tests of the cheap git probe on plain directories, checkouts, a detached
//! head and a worktree.

use super::*;

#[test]
fn a_plain_directory_has_no_git_root() {
    let t = tempfile::tempdir().unwrap();
    assert_eq!(probe(t.path()), GitInfo::default());
}

#[test]
fn a_subdirectory_of_a_checkout_reports_root_name_and_branch() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("proj");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join("src/deep")).unwrap();
    fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
    let info = probe(&repo.join("src/deep"));
    assert_eq!(info.root.as_deref(), Some(repo.to_str().unwrap()));
    assert_eq!(info.name.as_deref(), Some("proj"));
    assert_eq!(info.branch.as_deref(), Some("feature/x"));
    assert!(!info.detached);
}

#[test]
fn a_detached_head_and_a_worktree_gitfile_are_understood() {
    let t = tempfile::tempdir().unwrap();
    let real = t.path().join("main/.git/worktrees/wt");
    fs::create_dir_all(&real).unwrap();
    fs::write(
        real.join("HEAD"),
        "0123456789abcdef0123456789abcdef01234567\n",
    )
    .unwrap();
    let wt = t.path().join("wt");
    fs::create_dir_all(&wt).unwrap();
    fs::write(wt.join(".git"), format!("gitdir: {}\n", real.display())).unwrap();
    let info = probe(&wt);
    assert_eq!(info.name.as_deref(), Some("wt"));
    assert_eq!(info.branch, None);
    assert!(info.detached);
}
