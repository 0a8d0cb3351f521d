//! One file's diff (docs/diffs.md#one-files-diff): the path rules, whether the
//! file is tracked or untracked, the bounded `git diff`, the no-follow
//! untracked read.

use super::patch::{NOT_UTF8, all_added, parse_patch};
use super::untracked::{self, Untracked};
use super::{
    Base, Budget, DiffError, FILE_DIFF_DEADLINE, PREVIEW_BYTES, PREVIEW_TOO_LARGE, checkout_root,
    nul_records, sides,
};
use crate::os::git::GitError;
use signaltty_protocol::diff::FileContent;
use std::path::Path;

/// One file's diff: whether it is untracked, and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDiff {
    /// Neither in the base nor in the index, and not ignored.
    pub untracked: bool,
    /// The content.
    pub content: FileContent,
}

/// Checks a file path of a diff read: one literal UTF-8 path relative to the
/// checkout root. Empty, absolute, with NUL, or with a component that is
/// empty, `.`, `..` or `.git` is `BAD_PARAMS`.
pub fn validate_path(path: &str) -> Result<(), DiffError> {
    let bad = |why: &str| Err(DiffError::BadParams(format!("path {path:?} {why}")));
    if path.is_empty() {
        return bad("is empty");
    }
    if path.starts_with('/') {
        return bad("is absolute; give it relative to the checkout root");
    }
    if path.contains('\0') {
        return bad("contains a NUL byte");
    }
    for component in path.split('/') {
        match component {
            "" => return bad("has an empty component"),
            "." | ".." => return bad("has a . or .. component"),
            c if c.eq_ignore_ascii_case(".git") => return bad("is inside git's private files"),
            _ => {},
        }
    }
    Ok(())
}

/// The diff of `path` in the checkout containing `cwd` against `base`, within
/// the 8 s deadline. Read-only.
pub fn file_diff(cwd: &Path, path: &str, base: &Base) -> Result<FileDiff, DiffError> {
    validate_path(path)?;
    let budget = Budget::new(FILE_DIFF_DEADLINE);
    let root = checkout_root(cwd, &budget)?;
    let sides = sides(&root, &budget, base)?;
    let in_base = tree_entry(&root, &budget, &sides.from, path)?;
    let in_new = match &sides.to {
        Some(tree) => tree_entry(&root, &budget, tree, path)?,
        None => index_entry(&root, &budget, path)?,
    };
    if in_base == Some(Entry::Dir) || in_new == Some(Entry::Dir) {
        return Err(DiffError::BadParams(format!("{path} is a directory")));
    }
    let listed_untracked = || -> Result<bool, DiffError> {
        let listed = super::untracked_files(&root, &budget, Some(path))?;
        if listed.iter().any(|p| p.starts_with(&format!("{path}/"))) {
            return Err(DiffError::BadParams(format!("{path} is a directory")));
        }
        Ok(listed.iter().any(|p| p == path))
    };
    if in_base.is_none() && in_new.is_none() {
        // Not tracked: an unignored untracked file, or nothing to show.
        if sides.to.is_some() || !listed_untracked()? {
            return Err(DiffError::BadParams(format!(
                "{path} is neither tracked nor an unignored untracked file"
            )));
        }
        return Ok(FileDiff {
            untracked: true,
            content: untracked_content(&root, path)?,
        });
    }
    // A turn's trees hold untracked files too; say which it is all the same.
    let untracked = in_base.is_none() && sides.to.is_some() && listed_untracked()?;
    let mut args = vec![
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "--no-relative",
        "--submodule=short",
        "--unified=3",
        &sides.from,
    ];
    args.extend(sides.to.as_deref());
    args.extend(["--", path]);
    let out = match budget.git(&root)?.stdout_cap(PREVIEW_BYTES).run(&args) {
        Ok(out) => out,
        Err(GitError::StdoutOver(_)) => {
            return Ok(FileDiff {
                untracked,
                content: FileContent::Unavailable {
                    reason: PREVIEW_TOO_LARGE.to_owned(),
                },
            });
        },
        Err(e) => return Err(budget.failed(&args, e)),
    };
    if !out.status.success() {
        return Err(DiffError::Io(format!("git diff: {}", out.stderr_text())));
    }
    Ok(FileDiff {
        untracked,
        content: parse_patch(&out.stdout),
    })
}

/// What a path is in a tree or the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// A file, symlink or submodule.
    File,
    /// A directory.
    Dir,
}

/// `git ls-tree -z <tree> -- <path>`: the entry at exactly `path`.
fn tree_entry(
    root: &Path,
    budget: &Budget,
    tree: &str,
    path: &str,
) -> Result<Option<Entry>, DiffError> {
    let out = budget.ok(root, &["ls-tree", "-z", "--full-tree", tree, "--", path])?;
    for record in nul_records(&out) {
        // `<mode> SP <type> SP <object> TAB <path>`
        let Some((meta, name)) = record.split_once('\t') else {
            continue;
        };
        if name == path {
            let dir = meta.split(' ').nth(1) == Some("tree");
            return Ok(Some(if dir { Entry::Dir } else { Entry::File }));
        }
    }
    Ok(None)
}

/// `git ls-files --cached`: whether the index holds `path`, or files under it.
fn index_entry(root: &Path, budget: &Budget, path: &str) -> Result<Option<Entry>, DiffError> {
    let out = budget.ok(
        root,
        &["ls-files", "--cached", "--full-name", "-z", "--", path],
    )?;
    let mut entry = None;
    for name in nul_records(&out) {
        if name == path {
            return Ok(Some(Entry::File));
        }
        if name.starts_with(&format!("{path}/")) {
            entry = Some(Entry::Dir);
        }
    }
    Ok(entry)
}

/// An untracked file shown as all additions, read without following links.
fn untracked_content(root: &Path, path: &str) -> Result<FileContent, DiffError> {
    Ok(match untracked::read(root, path, PREVIEW_BYTES)? {
        Untracked::Unavailable(reason) => FileContent::Unavailable { reason },
        Untracked::Bytes(bytes) if bytes.contains(&0) => FileContent::Binary {},
        Untracked::Bytes(bytes) => match String::from_utf8(bytes) {
            Ok(text) => all_added(&text),
            Err(_) => FileContent::Unavailable {
                reason: NOT_UTF8.to_owned(),
            },
        },
    })
}
