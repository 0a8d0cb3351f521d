//! Worktree git against real temporary repositories: porcelain parsing, the
//! default task path, task checkouts made and removed, user checkouts, and a
//! hook outliving its deadline killed with its process group.

use super::*;
use std::fs;
use std::time::{Duration, Instant};

/// A repository with one commit on `main`, canonical.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap().join("proj");
    fs::create_dir(&root).unwrap();
    let git = Git::new(&root);
    git.ok(&["init", "-q", "-b", "main"]).unwrap();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    git.ok(&["add", "a.txt"]).unwrap();
    git.ok(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "-m",
        "one",
    ])
    .unwrap();
    (dir, root)
}

fn head(root: &Path) -> String {
    Git::new(root).text(&["rev-parse", "HEAD"]).unwrap()
}

#[test]
fn porcelain_z_gives_main_branches_detached_locked_and_prunable() {
    let out = b"worktree /r/main\0HEAD 1111\0branch refs/heads/main\0\0\
worktree /r/wt one\0HEAD 2222\0detached\0locked\0\0\
worktree /r/gone\0HEAD 3333\0branch refs/heads/feature/x\0locked in use\0prunable gitdir file points to non-existent location\0\0";
    let list = parse_porcelain(out).unwrap();
    assert_eq!(list.len(), 3);
    assert!(list[0].main && !list[1].main && !list[2].main);
    assert_eq!(list[0].branch.as_deref(), Some("main"));
    assert_eq!(list[0].head.as_deref(), Some("1111"));
    assert_eq!(list[1].path, PathBuf::from("/r/wt one"));
    assert!(list[1].detached && list[1].locked && !list[1].prunable);
    assert_eq!(list[1].branch, None);
    assert_eq!(list[2].branch.as_deref(), Some("feature/x"));
    assert!(list[2].locked && list[2].prunable);
}

#[test]
fn porcelain_z_reads_a_bare_repository_and_refuses_a_non_utf8_path() {
    let list = parse_porcelain(b"worktree /r/bare.git\0bare\0\0").unwrap();
    assert!(list[0].bare && list[0].main);
    assert_eq!(list[0].head, None);
    // Without the final empty attribute the last record still counts.
    assert_eq!(parse_porcelain(b"worktree /r\0HEAD 1\0").unwrap().len(), 1);
    match parse_porcelain(b"worktree /r/\xff\0\0") {
        Err(Error::BadParams(m)) => assert!(m.contains("UTF-8"), "{m}"),
        other => panic!("expected BAD_PARAMS, got {other:?}"),
    }
}

#[test]
fn the_default_task_path_is_under_the_data_dir_with_a_stable_hash() {
    let p = default_task_path(
        Path::new("/data/signaltty"),
        Path::new("/home/u/src/proj"),
        "signaltty/fix-1",
    );
    let hash = hash8(Path::new("/home/u/src/proj"));
    assert_eq!(hash.len(), 8);
    assert!(
        hash.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(
        p,
        PathBuf::from(format!(
            "/data/signaltty/worktrees/proj-{hash}/signaltty-fix-1"
        ))
    );
    // SHA-256("/home/u/src/proj") starts 3b1b2ad5: stable across toolchains.
    assert_eq!(hash, sha256_prefix("/home/u/src/proj"));
    assert_ne!(hash8(Path::new("/home/u/src/proj2")), hash);
    assert_eq!(sanitize_branch("a b/c@d~e.f_g-h"), "a-b-c-d-e.f_g-h");
}

/// The reference prefix, computed by the system's sha256sum.
fn sha256_prefix(s: &str) -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", "printf %s \"$1\" | sha256sum", "sh", s])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..8].to_owned()
}

#[test]
fn the_data_dir_follows_xdg_then_home_then_tmp() {
    assert_eq!(
        data_dir(Some(OsStr::new("/x/data")), Some(Path::new("/home/u"))),
        PathBuf::from("/x/data/signaltty")
    );
    assert_eq!(
        data_dir(Some(OsStr::new("relative")), Some(Path::new("/home/u"))),
        PathBuf::from("/home/u/.local/share/signaltty")
    );
    assert_eq!(data_dir(None, None), PathBuf::from("/tmp/signaltty-data"));
}

#[test]
fn a_task_checkout_is_made_locked_on_a_new_branch_and_removed_with_its_leftovers() {
    let (_t, root) = repo();
    let git = Git::new(&root);
    let data = root.parent().unwrap().join("data");
    let path = default_task_path(&data, &root, "task/one");
    let base = head(&root);
    add_task_checkout(
        &git,
        &path,
        "task/one",
        &TaskBranch::New {
            base_sha: base.clone(),
        },
    )
    .unwrap();
    let listed = list(&git).unwrap();
    let entry = find(&listed, &path).expect("registered");
    assert!(entry.locked);
    assert_eq!(entry.branch.as_deref(), Some("task/one"));
    assert_eq!(entry.head.as_deref(), Some(base.as_str()));
    // Dirty and locked: the guarded removal still removes it.
    fs::write(path.join("scratch.txt"), "x").unwrap();
    assert!(is_dirty(&Git::new(&path), Untracked::All).unwrap());
    remove_task_checkout(&git, &path).unwrap();
    assert!(!path.exists());
    assert!(find(&list(&git).unwrap(), &path).is_none());
    // The branch is kept; the sibling default directory too.
    assert!(branch_exists(&git, "task/one").unwrap());
    assert!(path.parent().unwrap().is_dir());
}

#[test]
fn an_existing_branch_is_adopted_and_an_existing_path_is_refused() {
    let (_t, root) = repo();
    let git = Git::new(&root);
    git.ok(&["branch", "adopted"]).unwrap();
    let path = root.parent().unwrap().join("wts/adopted");
    add_task_checkout(&git, &path, "adopted", &TaskBranch::Existing).unwrap();
    let listed = list(&git).unwrap();
    assert_eq!(
        find(&listed, &path).and_then(|r| r.branch.as_deref()),
        Some("adopted")
    );
    match add_task_checkout(&git, &path, "other", &TaskBranch::Existing) {
        Err(Error::BadParams(m)) => assert!(m.contains("already exists"), "{m}"),
        other => panic!("expected BAD_PARAMS, got {other:?}"),
    }
    unlock(&git, &path).unwrap();
    assert!(!find(&list(&git).unwrap(), &path).unwrap().locked);
}

#[test]
fn a_leftover_directory_git_no_longer_lists_is_deleted_but_nothing_else() {
    let (_t, root) = repo();
    let git = Git::new(&root);
    let path = root.parent().unwrap().join("wts/left");
    let keep = root.parent().unwrap().join("wts/keep");
    fs::create_dir_all(&keep).unwrap();
    fs::write(keep.join("k"), "k").unwrap();
    // A plain directory at the recorded path, never registered.
    fs::create_dir_all(path.join("deep")).unwrap();
    fs::write(path.join("deep/f"), "f").unwrap();
    remove_task_checkout(&git, &path).unwrap();
    assert!(!path.exists());
    assert!(keep.join("k").exists());
    // The repository itself is never removed through this path.
    let err = remove_task_checkout(&git, &root).unwrap_err();
    assert!(err.contains("contains the repository"), "{err}");
    assert!(root.join("a.txt").exists());
    let err = remove_task_checkout(&git, root.parent().unwrap()).unwrap_err();
    assert!(err.contains("contains the repository"), "{err}");
}

#[test]
fn user_checkouts_are_added_at_head_and_removed_without_force() {
    let (_t, root) = repo();
    let git = Git::new(&root);
    let path = root.parent().unwrap().join("user-wt");
    add_user_checkout(&git, &path, "feature").unwrap();
    assert_eq!(head(&path), head(&root));
    assert!(!is_dirty(&Git::new(&path), Untracked::All).unwrap());
    fs::write(path.join("new.txt"), "n").unwrap();
    assert!(is_dirty(&Git::new(&path), Untracked::Normal).unwrap());
    match remove_user_checkout(&git, &path) {
        Err(Error::BadParams(_)) => {},
        other => panic!("a dirty checkout is refused by git, got {other:?}"),
    }
    fs::remove_file(path.join("new.txt")).unwrap();
    remove_user_checkout(&git, &path).unwrap();
    assert!(!path.exists());
    assert!(branch_exists(&git, "feature").unwrap());
}

#[test]
fn bad_branch_names_are_refused() {
    let (_t, root) = repo();
    let git = Git::new(&root);
    for bad in [
        "",
        "  ",
        "-x",
        "refs/heads/main",
        "@{-1}",
        "a..b",
        "a b",
        "x.lock",
    ] {
        assert!(
            matches!(check_branch_name(&git, bad), Err(Error::BadParams(_))),
            "{bad:?} accepted"
        );
    }
    check_branch_name(&git, "feature/ok-1").unwrap();
}

#[test]
fn a_failing_status_is_an_io_error_never_clean() {
    let t = tempfile::tempdir().unwrap();
    match is_dirty(&Git::new(t.path()), Untracked::All) {
        Err(Error::Io { .. }) => {},
        other => panic!("expected IO_ERROR outside a repository, got {other:?}"),
    }
}

#[test]
fn a_post_checkout_hook_outliving_the_deadline_is_killed_with_its_group() {
    let (_t, root) = repo();
    let pid_file = root.parent().unwrap().join("hook.pid");
    let hook = root.join(".git/hooks/post-checkout");
    fs::write(
        &hook,
        format!(
            "#!/bin/sh\nsleep 60 &\necho $! > {}\nsleep 60\n",
            pid_file.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    let git = Git::new(&root).deadline(Duration::from_millis(1500));
    let path = root.parent().unwrap().join("hooked");
    let started = Instant::now();
    match add_user_checkout(&git, &path, "hooked") {
        Err(Error::Timeout { what, .. }) => {
            assert!(what.contains("refresh the list"), "{what}");
        },
        other => panic!("expected TIMEOUT, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(15));
    // The hook wrote its background child's pid before sleeping.
    let until = Instant::now() + Duration::from_secs(10);
    let pid = loop {
        if let Some(pid) = fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
        {
            break pid;
        }
        assert!(Instant::now() < until, "the hook never ran");
        std::thread::sleep(Duration::from_millis(20));
    };
    let gone =
        || fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z "));
    let until = Instant::now() + Duration::from_secs(10);
    while !gone() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        gone(),
        "the hook's background child {pid} outlived the deadline"
    );
}

#[test]
fn checkouts_added_and_removed_at_once_on_one_repository_all_succeed() {
    // Git writes a new checkout's admin directory in steps; without
    // `one_at_a_time` a concurrent `worktree add` that lists the checkouts
    // meanwhile fails reading its `commondir` (seen with eight task.starts;
    // 24 at once fail this test four runs in five without it).
    let (_t, root) = repo();
    let data = root.parent().unwrap().join("data");
    let base = head(&root);
    let adds: Vec<_> = (0..24)
        .map(|i| {
            let (root, data, base) = (root.clone(), data.clone(), base.clone());
            std::thread::spawn(move || {
                let branch = format!("task/{i}");
                let path = default_task_path(&data, &root, &branch);
                let git = Git::new(&root);
                add_task_checkout(&git, &path, &branch, &TaskBranch::New { base_sha: base })
                    .map(|()| path)
            })
        })
        .collect();
    let paths: Vec<PathBuf> = adds
        .into_iter()
        .map(|t| t.join().unwrap().expect("every add succeeds"))
        .collect();
    let git = Git::new(&root);
    assert_eq!(list(&git).unwrap().len(), 25, "main and the checkouts");
    let removes: Vec<_> = paths
        .into_iter()
        .map(|path| {
            let root = root.clone();
            std::thread::spawn(move || remove_task_checkout(&Git::new(&root), &path))
        })
        .collect();
    for r in removes {
        r.join().unwrap().expect("every removal succeeds");
    }
    assert_eq!(list(&git).unwrap().len(), 1);
}
