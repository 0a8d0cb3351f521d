//! The git part of `task.start` against real repositories (a bad base or branch
//! leaves no checkout, docs/tasks.md#the-start-steps-in-order, at the library
//! level; the e2e tests go through the server).

use super::*;

fn git(dir: &Path, args: &[&str]) -> String {
    Git::new(dir)
        .text(args)
        .unwrap_or_else(|e| panic!("git {args:?}: {e}"))
}

/// A repository with one commit on `main`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    git(r, &["init", "-q", "-b", "main"]);
    git(r, &["config", "user.email", "t@example.com"]);
    git(r, &["config", "user.name", "T"]);
    std::fs::write(r.join("a.txt"), "a\n").unwrap();
    git(r, &["add", "a.txt"]);
    git(r, &["commit", "-q", "-m", "one"]);
    dir
}

fn plan(repo: &Path, worktrees: &Path) -> Plan {
    Plan {
        task: TaskId("task_0123456789abcdef0123456789abcdef".into()),
        repo: repo.to_path_buf(),
        base_ref: "HEAD".into(),
        fetch_first: false,
        branch: None,
        label: Some("fix parser".into()),
        path: None,
        data_dir: worktrees.to_path_buf(),
        contract: Contract {
            objective: "fix it".into(),
            constraints: None,
            acceptance_criteria: None,
            output_format: None,
        },
        checkouts: None,
    }
}

#[test]
fn a_checkout_is_cut_locked_on_a_new_branch_at_the_base() {
    let r = repo();
    let data = tempfile::tempdir().unwrap();
    let c = prepare(&plan(r.path(), data.path())).expect("prepared");
    assert_eq!(c.branch, "signaltty/fix-parser-89abcdef");
    assert_eq!(c.base_sha, git(r.path(), &["rev-parse", "HEAD"]));
    assert_eq!(c.target_branch.as_deref(), Some("main"));
    assert!(!c.preexisting_branch);
    let canonical = r.path().canonicalize().unwrap();
    assert_eq!(
        c.path,
        worktree::default_task_path(data.path(), &canonical, &c.branch)
    );
    let dir = c
        .path
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let name = canonical
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        dir.starts_with(&format!("{name}-")) && dir.len() == name.len() + 9,
        "{dir}"
    );
    assert_eq!(c.path.file_name().unwrap(), "signaltty-fix-parser-89abcdef");
    assert_eq!(git(&c.path, &["branch", "--show-current"]), c.branch);
    let list = git(r.path(), &["worktree", "list", "--porcelain"]);
    assert!(list.contains("locked"), "{list}");
}

#[test]
fn an_existing_branch_is_adopted_and_a_taken_path_refused() {
    let r = repo();
    git(r.path(), &["branch", "feature"]);
    let data = tempfile::tempdir().unwrap();
    let mut p = plan(r.path(), data.path());
    p.branch = Some("feature".into());
    let c = prepare(&p).expect("adopted");
    assert!(c.preexisting_branch);
    assert_eq!(git(&c.path, &["branch", "--show-current"]), "feature");
    // The same path again: refused, nothing touched.
    let mut again = plan(r.path(), data.path());
    again.branch = Some("other".into());
    again.path = Some(c.path.clone());
    assert!(matches!(prepare(&again), Err(Error::BadParams(_))));
    assert!(git(r.path(), &["branch", "--list", "other"]).is_empty());
}

/// docs/tasks.md#the-start-steps-in-order: a bad base or branch makes no
/// checkout.
#[test]
fn bad_bases_and_branch_names_are_refused_with_nothing_on_disk() {
    let r = repo();
    let data = tempfile::tempdir().unwrap();
    for base in ["", "-x", "no-such-ref", "a..b", &"f".repeat(40)] {
        let mut p = plan(r.path(), data.path());
        p.base_ref = base.into();
        assert!(
            matches!(prepare(&p), Err(Error::BadParams(_))),
            "base {base:?}"
        );
    }
    for branch in ["-x", "refs/heads/main", "@{-1}", "a..b", ""] {
        let mut p = plan(r.path(), data.path());
        p.branch = Some(branch.into());
        assert!(
            matches!(prepare(&p), Err(Error::BadParams(_))),
            "branch {branch:?}"
        );
    }
    let empty = tempfile::tempdir().unwrap();
    git(empty.path(), &["init", "-q"]);
    assert!(matches!(
        prepare(&plan(empty.path(), data.path())),
        Err(Error::BadParams(_))
    ));
    let plain = tempfile::tempdir().unwrap();
    assert!(matches!(
        prepare(&plan(plain.path(), data.path())),
        Err(Error::BadParams(_))
    ));
    assert_eq!(
        std::fs::read_dir(data.path()).unwrap().count(),
        0,
        "nothing on disk"
    );
    let list = git(r.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 1, "{list}");
}

#[test]
fn a_contract_over_the_prompt_budget_is_refused_before_any_checkout() {
    let r = repo();
    let data = tempfile::tempdir().unwrap();
    let mut p = plan(r.path(), data.path());
    p.contract.objective = "x".repeat(signaltty_protocol::task::MAX_OBJECTIVE_BYTES);
    p.contract.constraints = Some("one more section".into());
    assert!(matches!(prepare(&p), Err(Error::BadParams(_))));
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}

#[test]
fn files_named_by_worktreeinclude_are_copied_into_a_new_checkout() {
    let r = repo();
    std::fs::write(r.path().join(".gitignore"), ".env\nlocal/\nbuild/\n").unwrap();
    std::fs::write(r.path().join(".worktreeinclude"), ".env\nlocal/\n").unwrap();
    git(r.path(), &["add", ".gitignore"]);
    git(r.path(), &["commit", "-q", "-m", "ignore"]);
    std::fs::write(r.path().join(".env"), "TOKEN=1\n").unwrap();
    std::fs::create_dir_all(r.path().join("local/deep")).unwrap();
    std::fs::write(r.path().join("local/deep/conf.toml"), "x = 1\n").unwrap();
    std::fs::create_dir_all(r.path().join("build")).unwrap();
    std::fs::write(r.path().join("build/out.o"), "obj").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", r.path().join("local/link")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let c = prepare(&plan(r.path(), data.path())).expect("prepared");
    assert_eq!(
        std::fs::read_to_string(c.path.join(".env")).unwrap(),
        "TOKEN=1\n"
    );
    assert_eq!(
        std::fs::read_to_string(c.path.join("local/deep/conf.toml")).unwrap(),
        "x = 1\n"
    );
    assert!(
        !c.path.join("build/out.o").exists(),
        "not named: not copied"
    );
    assert!(
        c.path.join("local/link").symlink_metadata().is_err(),
        "symlinks are skipped"
    );
    assert!(
        !c.path.join(".worktreeinclude").exists(),
        "untracked itself and not named"
    );
}
