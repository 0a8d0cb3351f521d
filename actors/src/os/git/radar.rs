//! The conflict radar's git (docs/tasks.md#conflict-radar): the tips of the
//! task and target branches in one `git for-each-ref`, a commit standing
//! for a checkout's uncommitted work (written through a private index, as a
//! turn's baseline is, so the user's index is never touched), and many
//! merges tried in one `git merge-tree --stdin` (git 2.38 or newer), which
//! writes objects but no ref, index or checkout. Blocking: call it on a
//! blocking thread.

use crate::domain::task::radar::Found;
use crate::os::git::Git;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// The longest one radar git call may take.
pub const RADAR_DEADLINE: Duration = Duration::from_secs(20);

/// A checkout's work as one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Its HEAD when it was read.
    pub head: String,
    /// HEAD itself when nothing differs from it, else a commit of the
    /// checkout's tree (tracked and unignored untracked files) whose parent
    /// is HEAD.
    pub commit: String,
}

/// The tips of `branches` in `repo`; a branch that does not exist is left
/// out.
pub fn heads(repo: &Path, branches: &[String]) -> Result<HashMap<String, String>, String> {
    let mut args = vec![
        "for-each-ref".to_owned(),
        "--format=%(refname)%00%(objectname)".to_owned(),
    ];
    args.extend(branches.iter().map(|b| format!("refs/heads/{b}")));
    let out = Git::new(repo)
        .deadline(RADAR_DEADLINE)
        .ok(&args)
        .map_err(|e| format!("git for-each-ref: {e}"))?
        .stdout_text();
    let mut tips = HashMap::new();
    for line in out.lines() {
        let Some((name, oid)) = line.split_once('\0') else {
            continue;
        };
        // A pattern also matches the refs below it; only the exact one counts.
        if let Some(branch) = name.strip_prefix("refs/heads/")
            && branches.iter().any(|b| b == branch)
        {
            tips.insert(branch.to_owned(), oid.to_owned());
        }
    }
    Ok(tips)
}

/// The commit of `checkout`'s work, uncommitted changes included.
pub fn snapshot(checkout: &Path) -> Result<Snapshot, String> {
    let tree = crate::os::git::turns::capture_tree(checkout)?;
    let git = Git::new(checkout).deadline(RADAR_DEADLINE);
    let read = git
        .text(&["rev-parse", "HEAD", "HEAD^{tree}"])
        .map_err(|e| format!("git rev-parse: {e}"))?;
    let mut lines = read.lines();
    let (Some(head), Some(head_tree)) = (lines.next(), lines.next()) else {
        return Err(format!("git rev-parse printed {read:?}"));
    };
    let head = head.to_owned();
    if head_tree == tree {
        return Ok(Snapshot {
            commit: head.clone(),
            head,
        });
    }
    // A fixed author and date: the same work gives the same commit, so a
    // pass that finds nothing new writes nothing new.
    let commit = git
        .env("GIT_AUTHOR_NAME", "signaltty")
        .env("GIT_AUTHOR_EMAIL", "radar@signaltty")
        .env("GIT_AUTHOR_DATE", "@0 +0000")
        .env("GIT_COMMITTER_NAME", "signaltty")
        .env("GIT_COMMITTER_EMAIL", "radar@signaltty")
        .env("GIT_COMMITTER_DATE", "@0 +0000")
        .text(&["commit-tree", &tree, "-p", &head, "-m", "uncommitted work"])
        .map_err(|e| format!("git commit-tree: {e}"))?;
    Ok(Snapshot { head, commit })
}

/// Tries each merge of `pairs` in `repo` in one `git merge-tree --stdin`:
/// what each found, in order.
pub fn merges(repo: &Path, pairs: &[(String, String)]) -> Result<Vec<Found>, String> {
    if pairs.is_empty() {
        return Ok(Vec::new());
    }
    let mut input = String::new();
    for (left, right) in pairs {
        input.push_str(&format!("{left} {right}\n"));
    }
    let out = Git::new(repo)
        .deadline(RADAR_DEADLINE)
        .input(input.into_bytes())
        .ok(&[
            "merge-tree",
            "--stdin",
            "-z",
            "--write-tree",
            "--name-only",
            "--no-messages",
        ])
        .map_err(|e| format!("git merge-tree: {e}"))?;
    parse_merges(&out.stdout, pairs.len())
}

/// Reads `merge-tree --stdin -z --name-only --no-messages`'s output: per
/// merge its status (`1` clean, `0` conflicted), the tree, the conflicted
/// paths, then an empty entry.
fn parse_merges(out: &[u8], expected: usize) -> Result<Vec<Found>, String> {
    let mut fields = out.split(|b| *b == 0);
    let mut found = Vec::with_capacity(expected);
    while found.len() < expected {
        let status = fields.next().ok_or("git merge-tree ended early")?;
        let _tree = fields.next().ok_or("git merge-tree ended early")?;
        let mut paths = Vec::new();
        loop {
            match fields.next() {
                None | Some([]) => break,
                Some(path) => paths.push(String::from_utf8_lossy(path).into_owned()),
            }
        }
        found.push(match status {
            b"1" => Found::Clean,
            b"0" => Found::Conflict(paths),
            other => Found::Failed(format!(
                "git merge-tree: status {}",
                String::from_utf8_lossy(other)
            )),
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests;
