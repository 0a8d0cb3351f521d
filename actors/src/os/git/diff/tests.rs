//! Diffs against real temporary repositories.

use super::patch::parse_patch;
use super::summary::merge_preview;
use super::summary::{parse_numstat, rolled_up_for_tests};
use super::*;
use signaltty_protocol::diff::{FileContent, FileStat, LineKind};
use std::fs;

fn git(dir: &Path, args: &[&str]) -> String {
    match Git::new(dir)
        .config("user.name", "t")
        .config("user.email", "t@example.com")
        .config("commit.gpgsign", "false")
        .text(args)
    {
        Ok(out) => out,
        Err(e) => panic!("git {args:?}: {e}"),
    }
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    dir
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

fn write(dir: &Path, path: &str, text: impl AsRef<[u8]>) {
    let full = dir.join(path);
    if let Some(parent) = full.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(full, text).expect("write");
}

fn stat<'a>(s: &'a Summary, path: &str) -> &'a FileStat {
    s.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} in {:?}", s.files))
}

fn text(content: FileContent) -> (Vec<signaltty_protocol::diff::Hunk>, bool) {
    match content {
        FileContent::Text {
            hunks, truncated, ..
        } => (hunks, truncated),
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn numstat_records_parse_with_binary_dashes_and_literal_tabs() {
    let files = parse_numstat(b"3\t1\ta.txt\0-\t-\tbin.dat\x000\t2\twith\ttab\0").unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(
        (files[0].added, files[0].removed, files[0].binary),
        (3, 1, false)
    );
    assert!(files[1].binary && files[1].added == 0);
    assert_eq!(files[2].path, "with\ttab");
    assert!(parse_numstat(b"x\t1\ta\0").is_err());
}

#[test]
fn rollups_group_by_parent_and_leave_untracked_out_of_head_totals() {
    let f = |path: &str, added, removed, untracked| FileStat {
        path: path.into(),
        added,
        removed,
        untracked,
        binary: false,
    };
    let files = vec![
        f("src/b.rs", 2, 1, false),
        f("a.md", 1, 0, false),
        f("src/new.rs", 9, 0, true),
    ];
    let head = rolled_up_for_tests(files.clone(), false);
    assert_eq!((head.added, head.removed), (3, 1));
    assert_eq!(head.files[0].path, "a.md");
    let dirs: Vec<(&str, u64)> = head
        .dirs
        .iter()
        .map(|d| (d.dir.as_str(), d.added))
        .collect();
    assert_eq!(dirs, vec![(".", 1), ("src", 2)]);
    let all = rolled_up_for_tests(files, true);
    assert_eq!(all.added, 12);
}

#[test]
fn head_summary_counts_tracked_changes_lists_untracked_and_shows_renames_as_delete_add() {
    let r = repo();
    let d = r.path();
    write(d, "a.txt", "one\ntwo\n");
    write(d, "old/name.txt", "x\ny\n");
    write(d, "bin.dat", b"\0\x01\x02");
    commit_all(d, "first");
    write(d, "a.txt", "one\nTWO\nthree\n");
    fs::create_dir(d.join("new")).unwrap();
    git(d, &["mv", "old/name.txt", "new/name.txt"]);
    write(d, "bin.dat", b"\0\x01\x03");
    write(d, "fresh/untracked.txt", "a\nb\n");
    write(d, ".gitignore", "ignored.log\n");
    write(d, "ignored.log", "noise\n");
    let s = head_summary(d).unwrap();
    assert_eq!((stat(&s, "a.txt").added, stat(&s, "a.txt").removed), (2, 1));
    assert_eq!(stat(&s, "old/name.txt").removed, 2);
    assert_eq!(stat(&s, "new/name.txt").added, 2);
    assert!(stat(&s, "bin.dat").binary);
    let u = stat(&s, "fresh/untracked.txt");
    assert!(u.untracked && u.added == 0);
    assert!(s.files.iter().all(|f| f.path != "ignored.log"));
    assert!(stat(&s, ".gitignore").untracked);
    assert_eq!((s.added, s.removed), (4, 3));
    assert!(s.dirs.iter().all(|d| d.dir != "fresh"), "{:?}", s.dirs);
}

#[test]
fn an_unborn_repository_compares_against_the_empty_tree() {
    let r = repo();
    write(r.path(), "staged.txt", "1\n2\n");
    git(r.path(), &["add", "staged.txt"]);
    let s = head_summary(r.path()).unwrap();
    assert_eq!(stat(&s, "staged.txt").added, 2);
    let d = file_diff(r.path(), "staged.txt", &Base::Head).unwrap();
    let (hunks, _) = text(d.content);
    assert_eq!(hunks[0].old_start, 0);
    assert_eq!(hunks[0].lines.len(), 2);
    assert!(!d.untracked);
}

#[test]
fn not_a_checkout_is_bad_params() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        head_summary(dir.path()),
        Err(DiffError::BadParams(_))
    ));
    assert!(matches!(
        file_diff(dir.path(), "a", &Base::Head),
        Err(DiffError::BadParams(_))
    ));
}

#[test]
fn the_path_rules_refuse_every_unsafe_form() {
    for bad in [
        "",
        "/etc/passwd",
        "a\0b",
        "a//b",
        "a/",
        "./a",
        "a/./b",
        "../x",
        "a/../b",
        ".git",
        ".git/config",
        "sub/.git/HEAD",
        ".GIT/config",
    ] {
        assert!(validate_path(bad).is_err(), "{bad:?} is refused");
    }
    for good in [
        "a",
        "src/lib.rs",
        "*.rs",
        "a b/[c]",
        ".gitignore",
        "x/.github/y",
    ] {
        assert!(validate_path(good).is_ok(), "{good:?} is accepted");
    }
}

#[test]
fn a_tracked_change_parses_into_numbered_hunks() {
    let r = repo();
    let d = r.path();
    let body: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    write(d, "f.txt", &body);
    commit_all(d, "first");
    write(d, "f.txt", body.replace("line 10\n", "line ten\n"));
    let out = file_diff(d, "f.txt", &Base::Head).unwrap();
    let (hunks, truncated) = text(out.content);
    assert!(!truncated);
    assert_eq!(hunks.len(), 1);
    let h = &hunks[0];
    assert_eq!(
        (h.old_start, h.old_count, h.new_start, h.new_count),
        (7, 7, 7, 7)
    );
    let kinds: Vec<LineKind> = h.lines.iter().map(|l| l.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == LineKind::Context).count(), 6);
    let removed = h
        .lines
        .iter()
        .find(|l| l.kind == LineKind::Removed)
        .unwrap();
    assert_eq!(
        (removed.text.as_str(), removed.old_line, removed.new_line),
        ("line 10", Some(10), None)
    );
    let added = h.lines.iter().find(|l| l.kind == LineKind::Added).unwrap();
    assert_eq!(
        (added.text.as_str(), added.new_line),
        ("line ten", Some(10))
    );
    // A file with no change is unchanged; a directory is refused.
    write(d, "dir/inner.txt", "x\n");
    commit_all(d, "dir");
    assert_eq!(
        file_diff(d, "dir/inner.txt", &Base::Head).unwrap().content,
        FileContent::Unchanged {}
    );
    assert!(matches!(
        file_diff(d, "dir", &Base::Head),
        Err(DiffError::BadParams(_))
    ));
    assert!(matches!(
        file_diff(d, "nope.txt", &Base::Head),
        Err(DiffError::BadParams(_))
    ));
}

#[test]
fn no_newline_deletions_and_mode_changes_are_shown() {
    let r = repo();
    let d = r.path();
    write(d, "n.txt", "a\nb");
    write(d, "gone.txt", "bye\n");
    write(d, "run.sh", "echo\n");
    commit_all(d, "first");
    write(d, "n.txt", "a\nc");
    fs::remove_file(d.join("gone.txt")).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(d.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    let (hunks, _) = text(file_diff(d, "n.txt", &Base::Head).unwrap().content);
    let kinds: Vec<LineKind> = hunks[0].lines.iter().map(|l| l.kind).collect();
    assert_eq!(
        kinds,
        vec![
            LineKind::Context,
            LineKind::Removed,
            LineKind::NoNewline,
            LineKind::Added,
            LineKind::NoNewline
        ]
    );
    let gone = file_diff(d, "gone.txt", &Base::Head).unwrap();
    let (hunks, _) = text(gone.content);
    assert_eq!(hunks[0].lines[0].kind, LineKind::Removed);
    match file_diff(d, "run.sh", &Base::Head).unwrap().content {
        FileContent::Text { hunks, notice, .. } => {
            assert!(hunks.is_empty());
            assert!(notice.unwrap().contains("100755"));
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn untracked_files_are_read_without_following_links_and_within_the_cap() {
    let r = repo();
    let d = r.path();
    write(d, "keep.txt", "k\n");
    commit_all(d, "first");
    write(d, "new.txt", "x\ny");
    let out = file_diff(d, "new.txt", &Base::Head).unwrap();
    assert!(out.untracked);
    let (hunks, _) = text(out.content);
    assert_eq!(hunks[0].new_count, 2);
    assert_eq!(hunks[0].lines.last().unwrap().kind, LineKind::NoNewline);

    std::os::unix::fs::symlink("/etc/hostname", d.join("link")).unwrap();
    assert!(matches!(
        file_diff(d, "link", &Base::Head).unwrap().content,
        FileContent::Unavailable { .. }
    ));
    fs::create_dir(d.join("real")).unwrap();
    write(d, "real/inside.txt", "secret\n");
    std::os::unix::fs::symlink("real", d.join("via")).unwrap();
    // Listed by git only under its real path; through the link it is no file of ours.
    assert!(file_diff(d, "via/inside.txt", &Base::Head).is_err());
    assert!(matches!(
        untracked::read(d, "via/inside.txt", PREVIEW_BYTES).unwrap(),
        untracked::Untracked::Unavailable(_)
    ));

    write(d, "big.txt", vec![b'a'; 513 * 1024]);
    assert!(matches!(
        file_diff(d, "big.txt", &Base::Head).unwrap().content,
        FileContent::Unavailable { .. }
    ));
    write(d, "nul.bin", b"a\0b\n");
    assert_eq!(
        file_diff(d, "nul.bin", &Base::Head).unwrap().content,
        FileContent::Binary {}
    );
    write(d, "latin1.txt", b"caf\xe9\n");
    assert!(matches!(
        file_diff(d, "latin1.txt", &Base::Head).unwrap().content,
        FileContent::Unavailable { .. }
    ));
    nix::unistd::mkfifo(
        &d.join("fifo"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    assert!(matches!(
        untracked::read(d, "fifo", PREVIEW_BYTES).unwrap(),
        untracked::Untracked::Unavailable(_)
    ));
    assert!(matches!(
        untracked::read(d, "vanished", PREVIEW_BYTES),
        Err(DiffError::BadParams(_))
    ));
}

#[test]
fn long_files_are_cut_at_ten_thousand_lines_and_huge_patches_are_unavailable() {
    let r = repo();
    let d = r.path();
    write(d, "keep.txt", "k\n");
    commit_all(d, "first");
    let long: String = (0..10_001).map(|i| format!("{i}\n")).collect();
    write(d, "long.txt", &long);
    let (hunks, truncated) = text(file_diff(d, "long.txt", &Base::Head).unwrap().content);
    assert!(truncated);
    assert_eq!(hunks[0].lines.len(), MAX_LINES);
    assert_eq!(hunks[0].lines.last().unwrap().text, "9999");
    git(d, &["add", "long.txt"]);
    let (hunks, truncated) = text(file_diff(d, "long.txt", &Base::Head).unwrap().content);
    assert!(truncated && hunks[0].lines.len() == MAX_LINES);
    // A tracked patch over 512 KiB.
    let wide: String = (0..9_000).map(|i| format!("{i:0>70}\n")).collect();
    write(d, "wide.txt", &wide);
    git(d, &["add", "wide.txt"]);
    assert_eq!(
        file_diff(d, "wide.txt", &Base::Head).unwrap().content,
        FileContent::Unavailable {
            reason: PREVIEW_TOO_LARGE.to_owned()
        }
    );
}

#[test]
fn git_diff_opts_in_the_environment_never_changes_the_context() {
    // Run as git would see it: the variable set for the child is removed.
    let r = repo();
    let d = r.path();
    let body: String = (1..=20).map(|i| format!("{i}\n")).collect();
    write(d, "f.txt", &body);
    commit_all(d, "first");
    write(d, "f.txt", body.replace("10\n", "ten\n"));
    let budget = Budget::new(FILE_DIFF_DEADLINE);
    let out = budget
        .git(d)
        .unwrap()
        .env("GIT_DIFF_OPTS", "--unified=0")
        .env_remove("GIT_DIFF_OPTS")
        .ok(&["diff", "--no-ext-diff", "--unified=3", "--", "f.txt"])
        .unwrap();
    let (hunks, _) = text(parse_patch(&out.stdout));
    assert_eq!(hunks[0].lines.len(), 8);
}

#[test]
fn turn_reads_compare_the_baseline_tree_with_the_checkout_now() {
    let r = repo();
    let d = r.path();
    write(d, "a.txt", "1\n");
    commit_all(d, "first");
    write(d, "dirt.txt", "before the turn\n");
    let baseline = crate::os::git::turns::capture_tree(d).unwrap();
    write(d, "a.txt", "1\n2\n");
    write(d, "made.txt", "m\n");
    let s = turn_summary(d, &baseline).unwrap();
    let paths: Vec<&str> = s.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["a.txt", "made.txt"], "earlier dirt is excluded");
    assert!(stat(&s, "made.txt").untracked);
    assert_eq!(s.added, 2, "untracked turn work counts");
    let made = file_diff(d, "made.txt", &Base::Turn(baseline.clone())).unwrap();
    assert!(made.untracked);
    assert_eq!(text(made.content).0[0].lines[0].text, "m");
    assert_eq!(
        file_diff(d, "dirt.txt", &Base::Turn(baseline.clone()))
            .unwrap()
            .content,
        FileContent::Unchanged {}
    );
    let missing = "0123456789abcdef0123456789abcdef01234567";
    assert!(matches!(turn_summary(d, missing), Err(DiffError::Io(_))));
}

#[test]
fn task_summaries_count_untracked_lines_and_preview_the_merge() {
    let r = repo();
    let d = r.path();
    write(d, "shared.txt", "base\n");
    commit_all(d, "base");
    let base = git(d, &["rev-parse", "HEAD"]);
    git(d, &["checkout", "-q", "-b", "task"]);
    write(d, "shared.txt", "task\n");
    write(d, "committed.txt", "c1\nc2\n");
    commit_all(d, "task work");
    write(d, "loose.txt", "1\n2\n3");
    write(d, "big.bin", vec![b'z'; 513 * 1024]);
    std::os::unix::fs::symlink("shared.txt", d.join("ln")).unwrap();
    git(d, &["checkout", "-q", "main"]);
    // loose/big/ln are untracked and follow the checkout; go back to the task.
    git(d, &["checkout", "-q", "task"]);
    let t = task_summary(d, &base, "task", "main").unwrap();
    let s = &t.summary;
    assert_eq!(stat(s, "committed.txt").added, 2);
    assert_eq!(stat(s, "loose.txt").added, 3);
    assert!(stat(s, "big.bin").binary && stat(s, "ln").binary);
    assert_eq!(s.added, 1 + 2 + 3);
    let preview = t.merge_preview.expect("a preview");
    assert!(preview.clean, "{preview:?}");

    git(d, &["checkout", "-q", "main"]);
    write(d, "shared.txt", "main\n");
    git(d, &["commit", "-q", "-am", "main moves"]);
    git(d, &["checkout", "-q", "task"]);
    let preview = merge_preview(d, "main", "task").expect("a preview");
    assert!(!preview.clean);
    assert_eq!(preview.conflicted, vec!["shared.txt".to_owned()]);
    assert!(merge_preview(d, "no-such-branch", "task").is_none());
    let missing = "0123456789abcdef0123456789abcdef01234567";
    assert!(matches!(
        task_summary(d, missing, "task", "main"),
        Err(DiffError::Io(_))
    ));
}

#[test]
fn the_dirty_check_sees_untracked_and_tracked_changes() {
    let r = repo();
    let d = r.path();
    write(d, "a.txt", "1\n");
    commit_all(d, "first");
    assert_eq!(crate::os::git::status::dirty(d), Some(false));
    write(d, "b.txt", "new\n");
    assert_eq!(crate::os::git::status::dirty(d), Some(true));
    let info = crate::os::git::status::git_info(d);
    assert_eq!(
        (info.branch.as_deref(), info.dirty),
        (Some("main"), Some(true))
    );
    let plain = tempfile::tempdir().unwrap();
    assert_eq!(crate::os::git::status::git_info(plain.path()).dirty, None);
}
