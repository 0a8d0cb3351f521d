//! The git part of `task.start` (tasks.md §2.2 steps 5–8, §2.6, §2.7):
//! resolve the base, check the branch, derive the checkout path and create
//! the checkout. Blocking (runs git): call it on a blocking thread. Every
//! failure here leaves nothing on disk and creates no task.

use super::contract::{PromptFacts, compose_prompt, prompt_budget};
use crate::error::Error;
use crate::git::{Git, GitError};
use signaltty_protocol::TaskId;
use signaltty_protocol::task::Contract;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long `fetch_first`'s `git fetch origin` may take (tasks.md §15).
pub const FETCH_DEADLINE: Duration = Duration::from_secs(60);

/// What a start asks of git.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The task to be.
    pub task: TaskId,
    /// The source repository, absolute.
    pub repo: PathBuf,
    /// The base asked for.
    pub base_ref: String,
    /// `git fetch origin` first.
    pub fetch_first: bool,
    /// The branch asked for, else the default.
    pub branch: Option<String>,
    /// The task's label (names the default branch).
    pub label: Option<String>,
    /// The checkout path asked for, else the default.
    pub path: Option<PathBuf>,
    /// Where default checkouts go (`<data dir>/worktrees`).
    pub worktrees_dir: PathBuf,
    /// The contract, for the prompt's size.
    pub contract: Contract,
}

/// A created checkout.
#[derive(Debug, Clone)]
pub struct Checkout {
    /// The source repository's top directory.
    pub repo: PathBuf,
    /// The base, resolved.
    pub base_sha: String,
    /// The source repository's branch (none on a detached HEAD).
    pub target_branch: Option<String>,
    /// The task's branch.
    pub branch: String,
    /// The branch existed before.
    pub preexisting_branch: bool,
    /// The checkout.
    pub path: PathBuf,
}

/// The last 8 characters of a task id (tasks.md §2.1).
pub fn short_id(task: &TaskId) -> String {
    let s = task.as_str();
    s[s.len().saturating_sub(8)..].to_owned()
}

/// `<label or "task">` with every character outside `[A-Za-z0-9._-]`
/// replaced by `-`.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The default branch: `signaltty/<sanitized label or "task">-<short>`.
pub fn default_branch(label: Option<&str>, task: &TaskId) -> String {
    let label = label
        .map(sanitize)
        .filter(|l| !l.trim_matches('-').is_empty());
    format!(
        "signaltty/{}-{}",
        label.as_deref().unwrap_or("task"),
        short_id(task)
    )
}

/// The default checkout path (tasks.md §2.6):
/// `<worktrees>/<repo dirname>-<hash8>/<sanitized branch>`, hash8 the first
/// 8 hex digits of the SHA-256 of the canonical repo path.
pub fn default_path(worktrees: &Path, canonical_repo: &Path, branch: &str) -> PathBuf {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(canonical_repo.as_os_str().as_encoded_bytes());
    let hash8: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let name = canonical_repo
        .file_name()
        .map_or_else(|| "repo".to_owned(), |n| n.to_string_lossy().into_owned());
    worktrees
        .join(format!("{name}-{hash8}"))
        .join(sanitize(branch))
}

fn bad(why: impl Into<String>) -> Error {
    Error::BadParams(why.into())
}

/// A git failure as the wire sees it: its message as `BAD_PARAMS` when git
/// refused, `TIMEOUT` when it ran out of time, `IO_ERROR` when it could not
/// run.
fn git_error(what: &str, e: GitError) -> Error {
    match e {
        GitError::Timeout(_) => Error::Timeout {
            what: what.to_owned(),
            written: None,
        },
        GitError::Failed { stderr, .. } => bad(format!("{what}: {stderr}")),
        other => Error::Io {
            what: what.to_owned(),
            source: std::io::Error::other(other.to_string()),
        },
    }
}

/// Whether `text` is a full 40-hex commit id.
fn is_full_sha(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Checks `base_ref` (step 5): non-empty, no leading `-`, a full sha or a
/// well-formed ref name.
fn check_base_ref(git: &Git, base_ref: &str) -> Result<(), Error> {
    if base_ref.is_empty() || base_ref.starts_with('-') {
        return Err(bad(format!("base_ref {base_ref:?} is not a ref")));
    }
    if is_full_sha(base_ref) {
        return Ok(());
    }
    git.ok(&["check-ref-format", "--allow-onelevel", base_ref])
        .map(|_| ())
        .map_err(|_| bad(format!("base_ref {base_ref:?} is not a valid ref name")))
}

/// Checks a branch name (step 6): non-empty, no leading `-`, no `refs/` or
/// `@{`, and git's expansion of it is the name itself.
fn check_branch(git: &Git, branch: &str) -> Result<(), Error> {
    if branch.is_empty()
        || branch.starts_with('-')
        || branch.contains("refs/")
        || branch.contains("@{")
    {
        return Err(bad(format!("branch {branch:?} is not allowed")));
    }
    match git.text(&["check-ref-format", "--branch", branch]) {
        Ok(expanded) if expanded == branch => Ok(()),
        _ => Err(bad(format!("branch {branch:?} is not a valid branch name"))),
    }
}

/// Steps 5–8: the checkout exists when this returns `Ok`.
pub fn prepare(plan: &Plan) -> Result<Checkout, Error> {
    if !plan.repo.is_dir() {
        return Err(bad(format!(
            "repo {} is not a directory",
            plan.repo.display()
        )));
    }
    let git = Git::new(&plan.repo);
    let top = git.text(&["rev-parse", "--show-toplevel"]).map_err(|_| {
        bad(format!(
            "repo {} is not a git repository",
            plan.repo.display()
        ))
    })?;
    let repo = PathBuf::from(top);
    let git = Git::new(&repo);
    check_base_ref(&git, &plan.base_ref)?;
    if plan.fetch_first {
        match git
            .clone()
            .deadline(FETCH_DEADLINE)
            .run(&["fetch", "origin"])
        {
            Err(GitError::Timeout(_)) => {
                return Err(git_error(
                    "git fetch origin",
                    GitError::Timeout(FETCH_DEADLINE),
                ));
            },
            // Best effort: an unreachable remote leaves the local refs.
            Err(e) => log::warn!("task start: git fetch origin in {}: {e}", repo.display()),
            Ok(out) if !out.status.success() => {
                log::warn!(
                    "task start: git fetch origin in {}: {}",
                    repo.display(),
                    out.stderr_text()
                );
            },
            Ok(_) => {},
        }
    }
    let spec = format!("{}^{{commit}}", plan.base_ref);
    let base_sha = git
        .text(&["rev-parse", "--verify", "--quiet", &spec])
        .ok()
        .filter(|sha| is_full_sha(sha))
        .ok_or_else(|| {
            bad(format!(
                "base_ref {:?} does not name a commit of {} (an empty repository has none)",
                plan.base_ref,
                repo.display()
            ))
        })?;
    let target_branch = git
        .text(&["branch", "--show-current"])
        .map_err(|e| git_error("git branch --show-current", e))?;
    let target_branch = (!target_branch.is_empty()).then_some(target_branch);
    let branch = plan
        .branch
        .clone()
        .unwrap_or_else(|| default_branch(plan.label.as_deref(), &plan.task));
    check_branch(&git, &branch)?;
    let preexisting_branch = git
        .run(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}"),
        ])
        .map_err(|e| git_error("git rev-parse", e))?
        .status
        .success();
    let facts = PromptFacts {
        task: &plan.task,
        branch: &branch,
        base_sha: &base_sha,
    };
    if compose_prompt(facts, &plan.contract).len() > prompt_budget(facts) {
        return Err(bad(
            "the worker prompt is over 32 KiB beyond its preamble: shorten the contract's sections",
        ));
    }
    let path = match &plan.path {
        Some(p) => p.clone(),
        None => {
            let canonical = repo.canonicalize().map_err(|e| Error::Io {
                what: format!("canonicalize {}", repo.display()),
                source: e,
            })?;
            default_path(&plan.worktrees_dir, &canonical, &branch)
        },
    };
    create_checkout(&git, &path, &branch, &base_sha, preexisting_branch)?;
    Ok(Checkout {
        repo,
        base_sha,
        target_branch,
        branch,
        preexisting_branch,
        path,
    })
}

/// Step 8 (tasks.md §2.7): a locked checkout at `path` (which must not
/// exist; its parent is created) on a new branch at `base_sha`, or on the
/// existing branch.
fn create_checkout(
    git: &Git,
    path: &Path,
    branch: &str,
    base_sha: &str,
    preexisting: bool,
) -> Result<(), Error> {
    if path.symlink_metadata().is_ok() {
        return Err(bad(format!("path {} exists already", path.display())));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::Io {
            what: format!("create {}", parent.display()),
            source: e,
        })?;
    }
    let path_arg = path.as_os_str().to_owned();
    let mut args: Vec<std::ffi::OsString> = vec!["worktree".into(), "add".into(), "--lock".into()];
    if preexisting {
        args.extend(["--".into(), path_arg, branch.into()]);
    } else {
        args.extend([
            "-b".into(),
            branch.into(),
            "--".into(),
            path_arg,
            base_sha.into(),
        ]);
    }
    git.ok(&args)
        .map(|_| ())
        .map_err(|e| git_error("git worktree add", e))
}

/// After a start failed with the checkout made (tasks.md §2.5): unlock it,
/// so a discard or a plain `git worktree remove` can take it away.
pub fn unlock(repo: &Path, path: &Path) {
    let path = path.as_os_str();
    if let Err(e) = Git::new(repo).ok(&[std::ffi::OsStr::new("worktree"), "unlock".as_ref(), path])
    {
        log::warn!(
            "task start failed: cannot unlock {}: {e}",
            path.to_string_lossy()
        );
    }
}

#[cfg(test)]
mod tests;
