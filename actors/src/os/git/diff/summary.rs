//! Diff summaries (docs/diffs.md#the-diff-summary, docs/diffs.md#task-diffs):
//! `git diff --numstat` of the tracked changes, the untracked files, directory
//! rollups and totals; for a task also the untracked files' line counts and the
//! merge preview.

use super::untracked::{self, Untracked};
use super::{Base, Budget, DiffError, SUMMARY_DEADLINE, checkout_root, nul_records, sides};
use signaltty_protocol::diff::{DirStat, FileStat, MergePreview};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Per-file counts, directory rollups and totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Every changed file, by path.
    pub files: Vec<FileStat>,
    /// Totals per parent directory, by directory.
    pub dirs: Vec<DirStat>,
    /// Lines added in all.
    pub added: u64,
    /// Lines removed in all.
    pub removed: u64,
}

/// A task's summary (`task.diff`): worktree vs `base_sha`, with the merge preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSummary {
    /// Counts, untracked files included in totals and rollups.
    pub summary: Summary,
    /// What merging the branch tip into the target would do; `None` when git
    /// cannot tell.
    pub merge_preview: Option<MergePreview>,
}

/// `workspace.diff` with `scope:"head"`: the checkout containing `cwd`
/// (staged and unstaged) against `HEAD`, or the empty tree before the first
/// commit. Untracked files are listed with zero counts, outside the totals.
pub fn head_summary(cwd: &Path) -> Result<Summary, DiffError> {
    let budget = Budget::new(SUMMARY_DEADLINE);
    let root = checkout_root(cwd, &budget)?;
    let sides = sides(&root, &budget, &Base::Head)?;
    let mut files = numstat(&root, &budget, &sides.from, None)?;
    files.extend(
        super::untracked_files(&root, &budget, None)?
            .into_iter()
            .map(|path| FileStat {
                path,
                added: 0,
                removed: 0,
                untracked: true,
                binary: false,
            }),
    );
    Ok(rolled_up(files, Counted::TrackedOnly))
}

/// `workspace.diff` with `scope:"turn"`: the turn's baseline tree against a
/// tree of the checkout captured now. Every file of the turn counts (files
/// git does not track are in both trees); `untracked` marks those.
pub fn turn_summary(cwd: &Path, baseline_tree: &str) -> Result<Summary, DiffError> {
    let budget = Budget::new(SUMMARY_DEADLINE);
    let root = checkout_root(cwd, &budget)?;
    let sides = sides(&root, &budget, &Base::Turn(baseline_tree.to_owned()))?;
    let mut files = numstat(&root, &budget, &sides.from, sides.to.as_deref())?;
    let untracked: HashSet<String> = super::untracked_files(&root, &budget, None)?
        .into_iter()
        .collect();
    for f in &mut files {
        f.untracked = untracked.contains(&f.path);
    }
    Ok(rolled_up(files, Counted::All))
}

/// `task.diff` (docs/diffs.md#task-diffs): the worktree (tracked and untracked)
/// against `base_sha`, so committed task work is included. Untracked files
/// count their lines as additions (capped, no-follow reads; a symlink, FIFO,
/// directory, file over 512 KiB or with NUL bytes is binary with zero counts)
/// and count in the totals. A missing base commit is `IO_ERROR`.
/// `merge_preview` previews merging `branch` into `target`.
pub fn task_summary(
    worktree: &Path,
    base_sha: &str,
    branch: &str,
    target: &str,
) -> Result<TaskSummary, DiffError> {
    let budget = Budget::new(SUMMARY_DEADLINE);
    let root = checkout_root(worktree, &budget)?;
    let sides = sides(&root, &budget, &Base::Rev(base_sha.to_owned()))?;
    let mut files = numstat(&root, &budget, &sides.from, None)?;
    for path in super::untracked_files(&root, &budget, None)? {
        let (added, binary) = match untracked::read(&root, &path, super::PREVIEW_BYTES) {
            Ok(Untracked::Bytes(bytes)) if !bytes.contains(&0) => (line_count(&bytes), false),
            Ok(_) => (0, true),
            // Vanished since the listing: nothing to count.
            Err(DiffError::BadParams(_)) => continue,
            Err(e) => return Err(e),
        };
        files.push(FileStat {
            path,
            added,
            removed: 0,
            untracked: true,
            binary,
        });
    }
    Ok(TaskSummary {
        summary: rolled_up(files, Counted::All),
        merge_preview: merge_preview(&root, target, branch),
    })
}

/// What `git merge-tree --write-tree <target> <tip>` says about merging `tip`
/// into `target`: clean, or the conflicted paths. It writes objects only (no
/// ref, index or file). `None` when git cannot tell (an unknown rev, a git
/// without `--write-tree`, a failure).
pub fn merge_preview(repo: &Path, target: &str, tip: &str) -> Option<MergePreview> {
    if target.starts_with('-') || tip.starts_with('-') {
        return None;
    }
    let budget = Budget::new(SUMMARY_DEADLINE);
    let out = budget
        .git(repo)
        .ok()?
        .run(&[
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            "-z",
            target,
            tip,
        ])
        .ok()?;
    let clean = match out.status.code() {
        Some(0) => true,
        Some(1) => false,
        _ => return None,
    };
    // `<tree>\0<conflicted path>\0…`, with `\0` ending each.
    let mut records = nul_records(&out.stdout);
    records.next()?;
    let mut conflicted: Vec<String> = if clean { Vec::new() } else { records.collect() };
    conflicted.dedup();
    Some(MergePreview {
        target: target.to_owned(),
        clean,
        conflicted,
    })
}

/// Lines of a text: its newlines, plus one for a last line without one.
fn line_count(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'))
}

/// `git diff --numstat -z --no-renames --no-relative <from> [<to>]` from the
/// root: `-` counts mean binary.
fn numstat(
    root: &Path,
    budget: &Budget,
    from: &str,
    to: Option<&str>,
) -> Result<Vec<FileStat>, DiffError> {
    let mut args = vec![
        "diff",
        "--numstat",
        "-z",
        "--no-renames",
        "--no-relative",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--submodule=short",
        from,
    ];
    args.extend(to);
    args.push("--");
    let out = budget.ok(root, &args)?;
    parse_numstat(&out)
}

/// Parses `--numstat -z` output without renames: `added\tremoved\tpath\0`.
pub(super) fn parse_numstat(out: &[u8]) -> Result<Vec<FileStat>, DiffError> {
    let bad = || DiffError::Io("git diff --numstat printed an unexpected record".to_owned());
    let mut files = Vec::new();
    for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let mut fields = record.splitn(3, |b| *b == b'\t');
        let (Some(a), Some(r), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            return Err(bad());
        };
        let count = |f: &[u8]| -> Result<Option<u64>, DiffError> {
            if f == b"-" {
                return Ok(None);
            }
            std::str::from_utf8(f)
                .ok()
                .and_then(|s| s.parse().ok())
                .map(Some)
                .ok_or_else(bad)
        };
        let (added, removed) = (count(a)?, count(r)?);
        let binary = added.is_none() || removed.is_none();
        files.push(FileStat {
            path: String::from_utf8_lossy(path).into_owned(),
            added: added.unwrap_or(0),
            removed: removed.unwrap_or(0),
            untracked: false,
            binary,
        });
    }
    Ok(files)
}

/// Which files count in the totals and the rollups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counted {
    /// Untracked files are listed but not counted (`workspace.diff` head).
    TrackedOnly,
    /// Every file counts.
    All,
}

/// Sorts `files` by path and adds the directory rollups and the totals.
fn rolled_up(mut files: Vec<FileStat>, counted: Counted) -> Summary {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    let mut dirs: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let (mut added, mut removed) = (0, 0);
    for f in &files {
        if f.untracked && counted == Counted::TrackedOnly {
            continue;
        }
        added += f.added;
        removed += f.removed;
        let dir = f.path.rfind('/').map_or(".", |i| &f.path[..i]);
        let entry = dirs.entry(dir).or_default();
        entry.0 += f.added;
        entry.1 += f.removed;
    }
    let dirs = dirs
        .into_iter()
        .map(|(dir, (added, removed))| DirStat {
            dir: dir.to_owned(),
            added,
            removed,
        })
        .collect();
    Summary {
        files,
        dirs,
        added,
        removed,
    }
}

#[cfg(test)]
pub(super) fn rolled_up_for_tests(files: Vec<FileStat>, all: bool) -> Summary {
    rolled_up(
        files,
        if all {
            Counted::All
        } else {
            Counted::TrackedOnly
        },
    )
}
