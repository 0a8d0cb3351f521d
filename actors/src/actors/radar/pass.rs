//! One radar pass's blocking parts (docs/tasks.md#conflict-radar), run on
//! blocking threads through the [`RadarGit`] seam: where each watched task's
//! work is (its branch tip, or the snapshot of its checkout taken at its
//! last trigger while the branch has not moved since), and the merges a
//! plan asks for, in at most [`GIT_AT_ONCE`] git processes at a time.

use crate::domain::task::radar::{Check, Found, Tip};
use crate::os::git::radar::Snapshot;
use crate::os::seams::RadarGit;
use signaltty_protocol::TaskId;
use signaltty_protocol::task::Task;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The most radar git processes running at once, over every repository.
pub const GIT_AT_ONCE: usize = 2;

/// What a pass read of the tasks' tips.
#[derive(Debug, Default)]
pub struct Read {
    /// Every watched task whose branch exists, with its tip; `None` when the
    /// tips could not be read at all (nothing is cleared then).
    pub tips: Option<BTreeMap<TaskId, Tip>>,
    /// The snapshots of the tasks' checkouts, kept for the next passes.
    pub snapshots: HashMap<TaskId, Snapshot>,
    /// What could not be read, one line each.
    pub errors: Vec<String>,
}

/// Reads the tips of `tasks` in `repo`: one `for-each-ref` for every branch,
/// and a new snapshot of each checkout in `moved` or never taken.
pub fn read_tips(
    git: &dyn RadarGit,
    repo: &Path,
    tasks: &[Task],
    moved: &HashSet<TaskId>,
    mut snapshots: HashMap<TaskId, Snapshot>,
) -> Read {
    let mut branches: Vec<String> = tasks.iter().map(|t| t.branch.clone()).collect();
    branches.extend(tasks.iter().filter_map(|t| t.target_branch.clone()));
    branches.sort();
    branches.dedup();
    let heads = match git.heads(repo, &branches) {
        Ok(heads) => heads,
        Err(e) => {
            return Read {
                tips: None,
                snapshots,
                errors: vec![format!("{}: {e}", repo.display())],
            };
        },
    };
    let mut errors = Vec::new();
    let mut tips = BTreeMap::new();
    snapshots.retain(|id, _| tasks.iter().any(|t| &t.id == id));
    for task in tasks {
        let Some(head) = heads.get(&task.branch) else {
            errors.push(format!("{}: branch {} is gone", task.id, task.branch));
            continue;
        };
        if moved.contains(&task.id) || !snapshots.contains_key(&task.id) {
            match git.snapshot(Path::new(&task.worktree_path)) {
                Ok(s) => drop(snapshots.insert(task.id.clone(), s)),
                Err(e) => {
                    errors.push(format!("{}: {e}", task.id));
                    snapshots.remove(&task.id);
                },
            }
        }
        // A snapshot on top of an older tip is stale: the branch moved
        // without a trigger (a commit from outside the worker).
        let commit = match snapshots.get(&task.id) {
            Some(s) if &s.head == head => s.commit.clone(),
            _ => head.clone(),
        };
        let target = task
            .target_branch
            .as_ref()
            .and_then(|b| heads.get(b).map(|tip| (b.clone(), tip.clone())));
        tips.insert(task.id.clone(), Tip { commit, target });
    }
    Read {
        tips: Some(tips),
        snapshots,
        errors,
    }
}

/// Tries `checks` in `repo`: split into at most [`GIT_AT_ONCE`] batches,
/// each one `git merge-tree --stdin` on a blocking thread once `gate` lets it
/// run. A batch that fails marks its checks failed, with one error line.
pub async fn run_checks(
    git: Arc<dyn RadarGit>,
    gate: Arc<Semaphore>,
    repo: String,
    checks: Vec<Check>,
) -> (Vec<(Check, Found)>, Vec<String>) {
    if checks.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let size = checks.len().div_ceil(GIT_AT_ONCE);
    let batches: Vec<Vec<Check>> = checks.chunks(size).map(<[Check]>::to_vec).collect();
    let runs = batches.into_iter().map(|batch| {
        let (git, gate, repo) = (git.clone(), gate.clone(), repo.clone());
        async move {
            let _permit = gate.acquire_owned().await.ok();
            let pairs: Vec<(String, String)> = batch
                .iter()
                .map(|c| (c.left.clone(), c.right.clone()))
                .collect();
            let found =
                actix_rt::task::spawn_blocking(move || git.merges(Path::new(&repo), &pairs))
                    .await
                    .unwrap_or_else(|e| Err(format!("the merge check stopped: {e}")));
            match found {
                Ok(found) if found.len() == batch.len() => {
                    (batch.into_iter().zip(found).collect::<Vec<_>>(), None)
                },
                Ok(_) => (failed(batch, "git merge-tree answered short"), None),
                Err(e) => (failed(batch, &e), Some(e)),
            }
        }
    });
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for (found, error) in futures_util::future::join_all(runs).await {
        results.extend(found);
        errors.extend(error);
    }
    (results, errors)
}

fn failed(batch: Vec<Check>, why: &str) -> Vec<(Check, Found)> {
    batch
        .into_iter()
        .map(|c| (c, Found::Failed(why.to_owned())))
        .collect()
}
