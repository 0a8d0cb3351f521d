//! The git part of `task.start` (docs/tasks.md#the-start-steps-in-order,
//! docs/worktrees.md#where-task-checkouts-live,
//! docs/worktrees.md#how-a-task-checkout-is-made): resolve the base, check the
//! branch, derive the checkout path and create the checkout. Blocking (runs
//! git): call it on a blocking thread. Every failure here leaves nothing on
//! disk and creates no task.

use crate::domain::task::contract::{PromptFacts, compose_prompt, prompt_budget};
use crate::error::Error;
use crate::os::git::worktree::{self, TaskBranch, git_error};
use crate::os::git::{Git, GitError};
use signaltty_protocol::TaskId;
use signaltty_protocol::task::Contract;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long `fetch_first`'s `git fetch origin` may take
/// (docs/tasks.md#settings).
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
    /// The data directory (default checkouts go in its `worktrees/`).
    pub data_dir: PathBuf,
    /// The contract, for the prompt's size.
    pub contract: Contract,
    /// The server's checkout locks: the path is locked while its checkout is
    /// made (docs/tasks.md#the-start-steps-in-order), as a finish or a removal
    /// locks it.
    pub checkouts: Option<crate::domain::worktrees::Checkouts>,
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

/// The last 8 characters of a task id, its short id (docs/objects.md#ids).
pub fn short_id(task: &TaskId) -> String {
    let s = task.as_str();
    s[s.len().saturating_sub(8)..].to_owned()
}

/// The default branch: `signaltty/<sanitized label or "task">-<short>`.
pub fn default_branch(label: Option<&str>, task: &TaskId) -> String {
    let label = label
        .map(worktree::sanitize_branch)
        .filter(|l| !l.trim_matches('-').is_empty());
    format!(
        "signaltty/{}-{}",
        label.as_deref().unwrap_or("task"),
        short_id(task)
    )
}

fn bad(why: impl Into<String>) -> Error {
    Error::BadParams(why.into())
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
    worktree::check_branch_name(&git, &branch)?;
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
            worktree::default_task_path(&plan.data_dir, &canonical, &branch)
        },
    };
    // Blocking here is this thread's job: it waits for a finish or another
    // start on the same path to be done with it.
    let _held = plan
        .checkouts
        .as_ref()
        .map(|c| tokio::runtime::Handle::current().block_on(c.lock_path(path.clone())));
    let from = if preexisting_branch {
        TaskBranch::Existing
    } else {
        TaskBranch::New {
            base_sha: base_sha.clone(),
        }
    };
    worktree::add_task_checkout(&git, &path, &branch, &from)?;
    copy_included(&repo, &path);
    Ok(Checkout {
        repo,
        base_sha,
        target_branch,
        branch,
        preexisting_branch,
        path,
    })
}

/// The file naming what a new checkout gets copied from the repository.
pub const WORKTREE_INCLUDE: &str = ".worktreeinclude";

/// As Claude Code does (docs/tasks.md#the-start-steps-in-order): the untracked
/// files of the source repository that `.worktreeinclude` names (gitignore
/// syntax, matched by git itself: `git ls-files --others --ignored
/// --exclude-from`) — an `.env`, a local config — are copied into the new
/// checkout at the same place. Only regular files are copied (a symlink or a
/// device is skipped); a file that cannot be copied is logged and skipped: the
/// checkout is usable without it.
pub fn copy_included(repo: &Path, checkout: &Path) -> usize {
    let list = repo.join(WORKTREE_INCLUDE);
    if !list.is_file() {
        return 0;
    }
    let exclude = format!("--exclude-from={}", list.display());
    let listed = Git::new(repo).ok(&["ls-files", "-z", "--others", "--ignored", &exclude]);
    let out = match listed {
        Ok(out) => out,
        Err(e) => {
            log::warn!("{}: cannot list what it names: {e}", list.display());
            return 0;
        },
    };
    let mut copied = 0;
    for rel in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let Ok(rel) = std::str::from_utf8(rel) else {
            continue;
        };
        let from = repo.join(rel);
        let to = checkout.join(rel);
        let regular = from
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_file());
        if !regular || to.symlink_metadata().is_ok() {
            continue;
        }
        let made = to
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::copy(&from, &to).map(drop));
        match made {
            Ok(()) => copied += 1,
            Err(e) => log::warn!("{WORKTREE_INCLUDE}: cannot copy {rel}: {e}"),
        }
    }
    copied
}

/// After a start failed with the checkout made
/// (docs/tasks.md#when-a-start-fails): unlock it, so a discard or a plain `git
/// worktree remove` can take it away.
pub fn unlock(repo: &Path, path: &Path) {
    if let Err(e) = worktree::unlock(&Git::new(repo), path) {
        log::warn!("task start failed: cannot unlock {}: {e}", path.display());
    }
}

#[cfg(test)]
mod tests;
