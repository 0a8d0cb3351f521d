//! Diffs of a checkout (docs/diffs.md): read-only, every git run through [`Git`]
//! with the settings of docs/diffs.md#git-settings-for-diff-reads, and no index,
//! ref, HEAD or file ever changed (`GIT_OPTIONAL_LOCKS=0`: not even the index's
//! stat refresh).
//!
//! - `summary.rs`: per-file counts, directory rollups and totals
//!   (`workspace.diff`, `task.diff` with its merge preview);
//! - `file.rs`: one file's patch (`workspace.file_diff`, `task.file_diff`):
//!   path rules, tracked/untracked, the bounded git diff;
//! - `patch.rs`: the unified diff parser with the line limit;
//! - `untracked.rs`: the no-follow, capped reads of untracked files.
//!
//! Blocking (runs git, reads files): call these on a blocking thread.

use super::{Git, GitError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod file;
mod patch;
mod summary;
mod untracked;

pub use file::{FileDiff, file_diff, validate_path};
pub use summary::{Summary, head_summary, task_summary, turn_summary};

/// The most bytes of a preview: git's patch, or an untracked file.
pub const PREVIEW_BYTES: usize = 512 * 1024;
/// The most lines a file diff shows; the rest is cut at a whole line.
pub const MAX_LINES: usize = 10_000;
/// The most bytes of git's error output before the read fails.
pub const STDERR_BYTES: usize = 8 * 1024;
/// The total server deadline of one file diff.
pub const FILE_DIFF_DEADLINE: Duration = Duration::from_secs(8);
/// The deadline of one summary (numstat, untracked listing, counting).
pub const SUMMARY_DEADLINE: Duration = Duration::from_secs(20);
/// The reason shown when git's patch passes [`PREVIEW_BYTES`].
pub const PREVIEW_TOO_LARGE: &str = "Preview exceeds the 512 KiB size limit.";

/// Why a diff could not be read; each maps to one wire code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffError {
    /// A bad path, not a checkout, no such file, no turn baseline: `BAD_PARAMS`.
    BadParams(String),
    /// Git or the filesystem failed, or a base is missing: `IO_ERROR`.
    Io(String),
    /// The deadline passed: `TIMEOUT`.
    Timeout(String),
}

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiffError::BadParams(m) | DiffError::Io(m) | DiffError::Timeout(m) => f.write_str(m),
        }
    }
}

/// What the checkout is compared against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// `HEAD`, or the empty tree before the first commit; the checkout as it is.
    Head,
    /// A commit or tree id (a task's `base_sha`); the checkout as it is.
    Rev(String),
    /// A turn's baseline tree against a tree of the checkout captured now.
    Turn(String),
}

/// A deadline shared by every git run of one read.
#[derive(Debug, Clone, Copy)]
struct Budget {
    ends: Instant,
    total: Duration,
}

impl Budget {
    fn new(total: Duration) -> Budget {
        Budget {
            ends: Instant::now() + total,
            total,
        }
    }

    fn timeout(&self) -> DiffError {
        DiffError::Timeout(format!(
            "the diff took longer than {} s",
            self.total.as_secs()
        ))
    }

    /// A git run in `root` with what is left of the deadline and the settings
    /// every diff read uses (docs/diffs.md#git-settings-for-diff-reads).
    fn git(&self, root: &Path) -> Result<Git, DiffError> {
        let left = self.ends.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timeout());
        }
        Ok(Git::new(root)
            .deadline(left)
            .stderr_cap(STDERR_BYTES)
            .config("diff.relative", "false")
            .config("diff.external", "")
            .config("core.pager", "cat")
            .config("diff.suppressBlankEmpty", "false")
            .config("diff.outputIndicatorNew", "+")
            .config("diff.outputIndicatorOld", "-")
            .config("diff.outputIndicatorContext", " ")
            .config("diff.noprefix", "false")
            .config("diff.mnemonicPrefix", "false")
            .config("core.quotePath", "true")
            .env_remove("GIT_DIFF_OPTS")
            .env_remove("GIT_EXTERNAL_DIFF")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C"))
    }

    /// Runs git and keeps its output when it succeeds.
    fn ok(&self, root: &Path, args: &[&str]) -> Result<Vec<u8>, DiffError> {
        self.git(root)?
            .ok(args)
            .map(|o| o.stdout)
            .map_err(|e| self.failed(args, e))
    }

    /// The error of a failed git run.
    fn failed(&self, args: &[&str], e: GitError) -> DiffError {
        let what = args.first().copied().unwrap_or("");
        match e {
            GitError::Timeout(_) => self.timeout(),
            e => DiffError::Io(format!("git {what}: {e}")),
        }
    }
}

/// The top directory of the checkout containing `cwd`; not a checkout is
/// `BAD_PARAMS`.
fn checkout_root(cwd: &Path, budget: &Budget) -> Result<PathBuf, DiffError> {
    let out = budget
        .git(cwd)?
        .run(&["rev-parse", "--show-toplevel"])
        .map_err(|e| budget.failed(&["rev-parse"], e))?;
    let text = out.stdout_text();
    let root = text.trim_end_matches('\n');
    if !out.status.success() || root.is_empty() {
        return Err(DiffError::BadParams(format!(
            "{} is not in a git checkout",
            cwd.display()
        )));
    }
    Ok(PathBuf::from(root))
}

/// The commit `HEAD` names, or the empty tree before the first commit.
fn head_or_empty_tree(root: &Path, budget: &Budget) -> Result<String, DiffError> {
    let out = budget
        .git(root)?
        .run(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .map_err(|e| budget.failed(&["rev-parse"], e))?;
    if out.status.success() {
        return Ok(out.stdout_text().trim().to_owned());
    }
    // An unborn branch: git knows the empty tree of its hash without storing it.
    let empty = budget.ok(root, &["hash-object", "-t", "tree", "--stdin"])?;
    Ok(String::from_utf8_lossy(&empty).trim().to_owned())
}

/// The object `rev` names when it is a commit or a tree; a missing one is
/// `IO_ERROR` (a pruned baseline, a vanished base commit).
fn existing_tree_ish(
    root: &Path,
    budget: &Budget,
    rev: &str,
    what: &str,
) -> Result<String, DiffError> {
    if rev.is_empty() || rev.starts_with('-') {
        return Err(DiffError::BadParams(format!(
            "{what} {rev:?} is not an object id"
        )));
    }
    let spec = format!("{rev}^{{tree}}");
    let out = budget
        .git(root)?
        .run(&["rev-parse", "--verify", "--quiet", &spec])
        .map_err(|e| budget.failed(&["rev-parse"], e))?;
    if !out.status.success() {
        return Err(DiffError::Io(format!(
            "{what} {rev} is missing from the repository"
        )));
    }
    Ok(rev.to_owned())
}

/// The two sides of a comparison: the base object, and the tree of the
/// checkout now (`None`: the working tree itself).
struct Sides {
    from: String,
    to: Option<String>,
}

/// Resolves `base` in `root`; a turn captures the checkout's tree now.
fn sides(root: &Path, budget: &Budget, base: &Base) -> Result<Sides, DiffError> {
    match base {
        Base::Head => Ok(Sides {
            from: head_or_empty_tree(root, budget)?,
            to: None,
        }),
        Base::Rev(rev) => Ok(Sides {
            from: existing_tree_ish(root, budget, rev, "base commit")?,
            to: None,
        }),
        Base::Turn(tree) => {
            let from = existing_tree_ish(root, budget, tree, "turn baseline tree")?;
            let now = crate::os::git::turns::capture_tree(root)
                .map_err(|e| DiffError::Io(format!("capturing the checkout: {e}")))?;
            if Instant::now() >= budget.ends {
                return Err(budget.timeout());
            }
            Ok(Sides {
                from,
                to: Some(now),
            })
        },
    }
}

/// Splits NUL-terminated git output into its records, lossily decoded.
fn nul_records(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    bytes
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| String::from_utf8_lossy(r).into_owned())
}

/// The untracked, unignored files of the checkout (under `pathspec`, when given).
fn untracked_files(
    root: &Path,
    budget: &Budget,
    pathspec: Option<&str>,
) -> Result<Vec<String>, DiffError> {
    let mut args = vec![
        "ls-files",
        "--others",
        "--exclude-standard",
        "--full-name",
        "-z",
    ];
    if let Some(p) = pathspec {
        args.extend(["--", p]);
    }
    Ok(nul_records(&budget.ok(root, &args)?).collect())
}

#[cfg(test)]
mod tests;
