//! The conflict radar's bookkeeping (docs/tasks.md#conflict-radar), one per
//! source repository: the tips each pair was last checked at, the collisions
//! found, which pairs a pass must check again (only those where a tip
//! moved), and what changed once the checks are in (`appeared` and `cleared`,
//! never a repeat). Pure: git runs elsewhere (`os/git/radar.rs`), the passes
//! are the `ConflictRadar` actor's.

use signaltty_protocol::TaskId;
use signaltty_protocol::task::conflict::{ConflictState, TaskConflict};
use signaltty_protocol::task::{Outcome, Task, TaskState};
use signaltty_protocol::time::Timestamp;
use std::collections::{BTreeMap, BTreeSet};

/// A pair: `(a, Some(b))` with `a < b`, or `(a, None)` for `a` against its
/// target branch.
pub type PairKey = (TaskId, Option<TaskId>);

/// Whether the radar watches `task`: cut from a repository, not yet merged or
/// discarded, and pending, working, waiting for input or completed (a failed,
/// canceled or rejected task is never merged as it is).
pub fn watched(task: &Task) -> bool {
    task.disposition.outcome == Outcome::None
        && matches!(
            task.state,
            TaskState::Pending
                | TaskState::Working
                | TaskState::InputRequired
                | TaskState::Completed
        )
}

/// Where a watched task's work is now, as a pass read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tip {
    /// The commit that stands for its work (its branch tip, or a snapshot
    /// commit of its checkout on top of it).
    pub commit: String,
    /// The branch it would be merged into and that branch's tip, if known.
    pub target: Option<(String, String)>,
}

/// One merge to try: the pair and the two commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The pair.
    pub key: PairKey,
    /// `a`'s commit.
    pub left: String,
    /// `b`'s commit, or the target branch's tip.
    pub right: String,
}

/// What one check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The two merge without a conflict.
    Clean,
    /// They conflict on these paths.
    Conflict(Vec<String>),
    /// The check could not run; the pair keeps its last result and is tried
    /// again on the next pass.
    Failed(String),
}

/// One collision that appeared or cleared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Appeared or cleared.
    pub state: ConflictState,
    /// The collision (for a cleared one, as it last was).
    pub conflict: TaskConflict,
}

/// One repository's radar.
#[derive(Debug, Clone, Default)]
pub struct Radar {
    repo: String,
    /// The commits each pair was last checked at.
    checked: BTreeMap<PairKey, (String, String)>,
    /// The collisions found.
    found: BTreeMap<PairKey, TaskConflict>,
}

impl Radar {
    /// An empty radar of `repo`.
    pub fn new(repo: &str) -> Radar {
        Radar {
            repo: repo.to_owned(),
            ..Radar::default()
        }
    }

    /// Takes back collisions known before a restart, unchecked: the next
    /// pass checks every pair and clears what is gone.
    pub fn seed(&mut self, known: impl IntoIterator<Item = TaskConflict>) {
        for c in known.into_iter().filter(|c| c.repo == self.repo) {
            self.found.insert((c.a.clone(), c.b.clone()), c);
        }
    }

    /// The current collisions, by `a` then `b` (the target first).
    pub fn conflicts(&self) -> impl Iterator<Item = &TaskConflict> {
        self.found.values()
    }

    /// The merges a pass must try, given every watched task's tip: each pair
    /// of tasks with the same target branch, and each task against its
    /// target, unless both commits are those of its last check.
    pub fn plan(&self, tips: &BTreeMap<TaskId, Tip>) -> Vec<Check> {
        pairs(tips)
            .into_iter()
            .filter_map(|key| {
                let a = tips.get(&key.0)?;
                let right = match &key.1 {
                    Some(b) => tips.get(b)?.commit.clone(),
                    None => a.target.as_ref()?.1.clone(),
                };
                let same = self
                    .checked
                    .get(&key)
                    .is_some_and(|(l, r)| *l == a.commit && *r == right);
                (!same).then(|| Check {
                    key,
                    left: a.commit.clone(),
                    right,
                })
            })
            .collect()
    }

    /// Takes in a pass's results, `tips` being the watched tasks it read:
    /// records each check, drops the pairs of tasks no longer watched (or
    /// no longer sharing a target), and answers what appeared and what
    /// cleared.
    pub fn apply(
        &mut self,
        tips: &BTreeMap<TaskId, Tip>,
        results: Vec<(Check, Found)>,
        now: &Timestamp,
    ) -> Vec<Change> {
        // The pairs of tasks gone (or no longer sharing a target) first.
        let live = pairs(tips);
        self.checked.retain(|k, _| live.contains(k));
        let gone: Vec<PairKey> = self
            .found
            .keys()
            .filter(|k| !live.contains(*k))
            .cloned()
            .collect();
        let mut changes: Vec<Change> = gone
            .into_iter()
            .filter_map(|k| self.found.remove(&k))
            .map(cleared)
            .collect();
        for (check, found) in results {
            let key = check.key.clone();
            if !live.contains(&key) {
                continue;
            }
            match found {
                Found::Failed(_) => continue,
                Found::Clean => {
                    if let Some(gone) = self.found.remove(&key) {
                        changes.push(cleared(gone));
                    }
                },
                Found::Conflict(paths) => match self.found.get_mut(&key) {
                    // Still colliding: the paths follow, no new event.
                    Some(known) => known.paths = paths,
                    None => {
                        let target_branch = match &key.1 {
                            None => tips.get(&key.0).and_then(|t| t.target.clone()).map(|t| t.0),
                            Some(_) => None,
                        };
                        let conflict = TaskConflict {
                            repo: self.repo.clone(),
                            a: key.0.clone(),
                            b: key.1.clone(),
                            target_branch,
                            paths,
                            since: now.clone(),
                        };
                        changes.push(Change {
                            state: ConflictState::Appeared,
                            conflict: conflict.clone(),
                        });
                        self.found.insert(key.clone(), conflict);
                    },
                },
            }
            self.checked.insert(key, (check.left, check.right));
        }
        changes
    }
}

/// Every pair `tips` calls for, checked or not.
fn pairs(tips: &BTreeMap<TaskId, Tip>) -> BTreeSet<PairKey> {
    let mut keys = BTreeSet::new();
    let ids: Vec<(&TaskId, &Tip)> = tips.iter().collect();
    for (i, (a, ta)) in ids.iter().enumerate() {
        if ta.target.is_some() {
            keys.insert(((*a).clone(), None));
        }
        let target = ta.target.as_ref().map(|t| &t.0);
        for (b, tb) in &ids[i + 1..] {
            if target == tb.target.as_ref().map(|t| &t.0) {
                keys.insert(((*a).clone(), Some((*b).clone())));
            }
        }
    }
    keys
}

fn cleared(conflict: TaskConflict) -> Change {
    Change {
        state: ConflictState::Cleared,
        conflict,
    }
}

#[cfg(test)]
mod tests;
