//! Git worktrees (docs/worktrees.md): the registrations git reports (`git
//! worktree list --porcelain -z`), the checks before a checkout is made or
//! removed, user checkouts (`worktree.*`) and the task checkouts `task.start`
//! and `task.finish` make and remove. Every git runs through [`Git`], so the
//! deadline kills hooks with their process group. Blocking: call these on a
//! blocking thread.

use super::run::{Git, GitError};
use crate::domain::worktrees::is_within;
use crate::error::Error;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Runs `change` (a `git worktree add`, `remove` or `prune` of `repo`) while
/// no other such change of the same repository runs in this server. Git
/// writes a new checkout's admin directory (`.git/worktrees/<name>/`) in
/// steps, and a `git worktree add` that lists the checkouts meanwhile fails
/// ("failed to read .git/worktrees/<name>/commondir"): eight `task.start`s at
/// once on one repository did. Other repositories are not held up.
fn one_at_a_time<T>(repo: &Git, change: impl FnOnce() -> T) -> T {
    use parking_lot::Mutex;
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};
    static REPOS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    let key = std::fs::canonicalize(repo.dir()).unwrap_or_else(|_| repo.dir().to_path_buf());
    let lock = {
        let mut repos = REPOS.get_or_init(Default::default).lock();
        // Forget repositories nobody is changing, so the map stays small.
        repos.retain(|_, l| Arc::strong_count(l) > 1);
        repos.entry(key).or_default().clone()
    };
    let _held = lock.lock();
    change()
}

/// One registration of `git worktree list --porcelain -z`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registration {
    /// The checkout's path as git records it.
    pub path: PathBuf,
    /// Its HEAD commit (absent for a bare repository).
    pub head: Option<String>,
    /// Its branch, without `refs/heads/` (absent when detached or bare).
    pub branch: Option<String>,
    /// The first entry: the main worktree.
    pub main: bool,
    /// A bare repository.
    pub bare: bool,
    /// HEAD is detached.
    pub detached: bool,
    /// Locked, with or without a reason.
    pub locked: bool,
    /// Prunable, with or without a reason.
    pub prunable: bool,
}

/// Parses `git worktree list --porcelain -z`: attributes end with NUL, an
/// empty attribute ends a record. A path that is not UTF-8 is an error
/// (`BAD_PARAMS`: the wire carries paths as strings).
pub fn parse_porcelain(out: &[u8]) -> Result<Vec<Registration>, Error> {
    let mut list: Vec<Registration> = Vec::new();
    let mut current: Option<Registration> = None;
    for field in out.split(|&b| b == 0) {
        if field.is_empty() {
            list.extend(current.take());
            continue;
        }
        let (key, value) = match field.iter().position(|&b| b == b' ') {
            Some(i) => (&field[..i], Some(&field[i + 1..])),
            None => (field, None),
        };
        if key == b"worktree" {
            list.extend(current.take());
            let raw = value.unwrap_or_default();
            let path = std::str::from_utf8(raw).map_err(|_| {
                Error::BadParams(format!(
                    "worktree path {} is not valid UTF-8",
                    String::from_utf8_lossy(raw)
                ))
            })?;
            current = Some(Registration {
                path: PathBuf::from(path),
                main: list.is_empty(),
                ..Registration::default()
            });
            continue;
        }
        // Attributes before any `worktree` line are ignored: git never prints them.
        let Some(entry) = current.as_mut() else {
            continue;
        };
        let text = value.map(|v| String::from_utf8_lossy(v).into_owned());
        match key {
            b"HEAD" => entry.head = text,
            b"branch" => {
                entry.branch = text.map(|b| match b.strip_prefix("refs/heads/") {
                    Some(short) => short.to_owned(),
                    None => b,
                })
            },
            b"bare" => entry.bare = true,
            b"detached" => entry.detached = true,
            b"locked" => entry.locked = true,
            b"prunable" => entry.prunable = true,
            // Attributes a newer git may add are not ours to interpret.
            _ => {},
        }
    }
    list.extend(current);
    Ok(list)
}

/// The registrations of the repository `git` runs in.
pub fn list(git: &Git) -> Result<Vec<Registration>, Error> {
    let out = git
        .ok(&["worktree", "list", "--porcelain", "-z"])
        .map_err(|e| git_error("git worktree list", e))?;
    parse_porcelain(&out.stdout)
}

/// The registration whose path resolves to `canonical`, if any.
pub fn find<'a>(list: &'a [Registration], canonical: &Path) -> Option<&'a Registration> {
    list.iter().find(|r| {
        r.path == canonical || std::fs::canonicalize(&r.path).is_ok_and(|c| c == canonical)
    })
}

/// A git failure as a wire error (docs/worktrees.md#running-git): its deadline
/// is `TIMEOUT`, a non-zero exit `BAD_PARAMS` with git's message, a spawn or
/// wait failure `IO_ERROR`.
pub fn git_error(what: &str, e: GitError) -> Error {
    match e {
        GitError::Timeout(_) => Error::Timeout {
            what: format!("{what} (its process group was killed)"),
            written: None,
        },
        GitError::Failed { .. } => Error::BadParams(format!("{what}: {e}")),
        GitError::Spawn(source) | GitError::Io(source) => Error::Io {
            what: what.to_owned(),
            source,
        },
        GitError::StdoutOver(_) | GitError::StderrOver(_) => Error::Io {
            what: what.to_owned(),
            source: std::io::Error::other(e.to_string()),
        },
    }
}

/// Checks a new branch name: not blank, not an option, not a full ref or a
/// `@{…}` shorthand, and accepted unchanged by `git check-ref-format --branch`.
pub fn check_branch_name(git: &Git, branch: &str) -> Result<(), Error> {
    if branch.trim().is_empty() {
        return Err(Error::BadParams("branch must not be empty".into()));
    }
    if branch.starts_with('-') {
        return Err(Error::BadParams(format!(
            "branch {branch:?} must not start with '-'"
        )));
    }
    if branch.starts_with("refs/") || branch.contains("@{") {
        return Err(Error::BadParams(format!(
            "branch {branch:?}: give a plain branch name, not a ref"
        )));
    }
    match git.run(&["check-ref-format", "--branch", branch]) {
        Ok(out) if out.status.success() && out.stdout_text().trim() == branch => Ok(()),
        Ok(_) => Err(Error::BadParams(format!(
            "branch {branch:?} is not a valid branch name"
        ))),
        Err(e) => Err(git_error("git check-ref-format", e)),
    }
}

#[cfg(test)]
/// Does `refs/heads/<branch>` exist?
pub fn branch_exists(git: &Git, branch: &str) -> Result<bool, Error> {
    let full = format!("refs/heads/{branch}");
    match git.run(&["rev-parse", "--verify", "--quiet", &full]) {
        Ok(out) => Ok(out.status.success()),
        Err(e) => Err(git_error("git rev-parse", e)),
    }
}

/// Which untracked files count as changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untracked {
    /// Untracked directories as one entry (`--untracked-files=normal`).
    Normal,
    /// Every untracked file (`--untracked-files=all`).
    All,
}

/// Does the checkout `git` runs in have tracked or untracked changes? A
/// failing status is `IO_ERROR`, never "clean".
pub fn is_dirty(git: &Git, untracked: Untracked) -> Result<bool, Error> {
    let flag = match untracked {
        Untracked::Normal => "--untracked-files=normal",
        Untracked::All => "--untracked-files=all",
    };
    match git.ok(&["status", "--porcelain=v1", "-z", flag]) {
        Ok(out) => Ok(!out.stdout.is_empty()),
        Err(GitError::Timeout(d)) => Err(git_error("git status", GitError::Timeout(d))),
        Err(e) => Err(Error::Io {
            what: format!("git status in {}", git.dir().display()),
            source: std::io::Error::other(e.to_string()),
        }),
    }
}

// ── user checkouts (worktree.*) ───────────────────────────────────────────

/// `worktree.create`'s git: a new branch at the source HEAD, checked out at
/// `path` (`git worktree add -b <branch> -- <path> HEAD`).
pub fn add_user_checkout(git: &Git, path: &Path, branch: &str) -> Result<(), Error> {
    let args: [&OsStr; 6] = [
        "worktree".as_ref(),
        "add".as_ref(),
        "-b".as_ref(),
        branch.as_ref(),
        "--".as_ref(),
        path.as_os_str(),
    ];
    let mut args = args.to_vec();
    args.push("HEAD".as_ref());
    one_at_a_time(git, || git.ok(&args)).map(drop).map_err(|e| match e {
        GitError::Timeout(_) => Error::Timeout {
            what: format!(
                "git worktree add {}: the checkout or branch {branch:?} may exist; refresh the list before retrying",
                path.display()
            ),
            written: None,
        },
        e => git_error("git worktree add", e),
    })
}

/// `worktree.remove`'s git: a non-force removal; the branch is kept.
pub fn remove_user_checkout(git: &Git, path: &Path) -> Result<(), Error> {
    let args: [&OsStr; 4] = [
        "worktree".as_ref(),
        "remove".as_ref(),
        "--".as_ref(),
        path.as_os_str(),
    ];
    one_at_a_time(git, || git.ok(&args))
        .map(drop)
        .map_err(|e| git_error("git worktree remove", e))
}

// ── task checkouts (task.start, task.finish) ──────────────────────────────

#[cfg(test)]
/// The data directory (docs/persistence.md#where-files-live):
/// `$XDG_DATA_HOME/signaltty`, else `~/.local/share/signaltty`, else
/// `/tmp/signaltty-data`. Relative values are ignored, as the XDG spec says.
pub fn data_dir(xdg_data_home: Option<&OsStr>, home: Option<&Path>) -> PathBuf {
    if let Some(xdg) = xdg_data_home.map(Path::new).filter(|p| p.is_absolute()) {
        return xdg.join("signaltty");
    }
    if let Some(home) = home.filter(|p| p.is_absolute()) {
        return home.join(".local/share/signaltty");
    }
    PathBuf::from("/tmp/signaltty-data")
}

/// A branch name as one path component: every character outside
/// `[A-Za-z0-9._-]` becomes `-` (`signaltty/fix-1` → `signaltty-fix-1`).
pub fn sanitize_branch(branch: &str) -> String {
    branch
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The first 8 lowercase hex digits of the SHA-256 of a canonical path's bytes.
pub fn hash8(canonical: &Path) -> String {
    use sha2::Digest as _;
    use std::os::unix::ffi::OsStrExt as _;
    let digest = sha2::Sha256::digest(canonical.as_os_str().as_bytes());
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// The default task checkout path
/// (docs/worktrees.md#where-task-checkouts-live): `<data dir>/worktrees/<repo
/// dirname>-<hash8>/<sanitized branch>`. `canonical_repo` must already be
/// canonical.
pub fn default_task_path(data_dir: &Path, canonical_repo: &Path, branch: &str) -> PathBuf {
    let dirname = canonical_repo
        .file_name()
        .map_or_else(|| "repo".to_owned(), |n| n.to_string_lossy().into_owned());
    data_dir
        .join("worktrees")
        .join(format!("{dirname}-{}", hash8(canonical_repo)))
        .join(sanitize_branch(branch))
}

/// What a task checkout is cut from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskBranch {
    /// A new branch at `base_sha`.
    New {
        /// The 40-hex base commit.
        base_sha: String,
    },
    /// A branch that already exists, adopted as it is.
    Existing,
}

/// Makes a task checkout (docs/worktrees.md#how-a-task-checkout-is-made):
/// `path` must not exist; its parent is created; then `git worktree add --lock
/// -b <branch> -- <path> <base_sha>`, or `git worktree add --lock -- <path>
/// <branch>` for an existing branch. `repo` runs in the source repository.
pub fn add_task_checkout(
    repo: &Git,
    path: &Path,
    branch: &str,
    from: &TaskBranch,
) -> Result<(), Error> {
    if !path.is_absolute() {
        return Err(Error::BadParams(format!(
            "worktree path {} is not absolute",
            path.display()
        )));
    }
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(Error::BadParams(format!(
            "worktree path {} already exists",
            path.display()
        )));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| Error::Io {
            what: format!("creating {}", parent.display()),
            source,
        })?;
    }
    let mut args: Vec<&OsStr> = vec!["worktree".as_ref(), "add".as_ref(), "--lock".as_ref()];
    match from {
        TaskBranch::New { base_sha } => {
            args.extend::<[&OsStr; 4]>([
                "-b".as_ref(),
                branch.as_ref(),
                "--".as_ref(),
                path.as_os_str(),
            ]);
            args.push(base_sha.as_ref());
        },
        TaskBranch::Existing => {
            args.extend::<[&OsStr; 3]>(["--".as_ref(), path.as_os_str(), branch.as_ref()]);
        },
    }
    one_at_a_time(repo, || repo.ok(&args))
        .map(drop)
        .map_err(|e| git_error("git worktree add", e))
}

/// Unlocks a task checkout (after a start failure: it stays for inspection
/// and can be removed by a plain `git worktree remove`).
pub fn unlock(repo: &Git, path: &Path) -> Result<(), Error> {
    let args: [&OsStr; 3] = ["worktree".as_ref(), "unlock".as_ref(), path.as_os_str()];
    repo.ok(&args)
        .map(drop)
        .map_err(|e| git_error("git worktree unlock", e))
}

/// Guarded removal of a task checkout
/// (docs/worktrees.md#removing-a-task-checkout): unlock (errors ignored), `git
/// worktree remove --force --force`, `git worktree prune`, then a leftover
/// directory is deleted only when git no longer lists it. Only `path` itself is
/// ever deleted, and never a path containing the repository. Returns the
/// cleanup error, if any, as a sentence.
pub fn remove_task_checkout(repo: &Git, path: &Path) -> Result<(), String> {
    let repo_dir = std::fs::canonicalize(repo.dir()).unwrap_or_else(|_| repo.dir().to_path_buf());
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if is_within(&repo_dir, &target) {
        return Err(format!(
            "{} contains the repository {}: not removed",
            path.display(),
            repo_dir.display()
        ));
    }
    let p = path.as_os_str();
    // Not locked, or not a checkout any more: either way removal goes on.
    let _ = repo.run(&["worktree".as_ref(), "unlock".as_ref(), p]);
    let (removed, pruned) = one_at_a_time(repo, || {
        let removed = repo.ok(&[
            "worktree".as_ref(),
            "remove".as_ref(),
            "--force".as_ref(),
            "--force".as_ref(),
            p,
        ]);
        (removed, repo.ok(&["worktree", "prune"]))
    });
    let mut problems = Vec::new();
    if let Err(e) = &removed {
        problems.push(format!("git worktree remove: {e}"));
    }
    if let Err(e) = pruned {
        return Err(join(problems, format!("git worktree prune: {e}")));
    }
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let registered = match list(repo) {
        Ok(list) => find(&list, &target).is_some() || list.iter().any(|r| r.path == path),
        Err(e) => return Err(join(problems, format!("git worktree list: {e}"))),
    };
    if registered {
        return Err(join(
            problems,
            format!("{} left in place (still registered)", path.display()),
        ));
    }
    // Not a checkout any more: the leftover is the recorded path's own
    // directory. remove_dir_all does not follow a symlink at `path`.
    match std::fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) => Err(join(
            problems,
            format!("deleting the leftover {}: {e}", path.display()),
        )),
    }
}

fn join(mut problems: Vec<String>, last: String) -> String {
    problems.push(last);
    problems.join("; ")
}

#[cfg(test)]
mod tests;
