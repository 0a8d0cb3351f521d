//! ConflictRadar: the owner of the conflict radar (docs/tasks.md#conflict-radar).
//! One per server. For each source repository it keeps the [`Radar`]
//! bookkeeping (the tips each pair was checked at, the collisions), the
//! snapshots of the tasks' checkouts and the pass under way. The Supervisor
//! feeds it each repository's watched tasks when one of them changes, when
//! a worker's turn ends and at start; `task.conflicts` asks it for a fresh
//! pass. One pass runs at a time per repository: triggers that arrive
//! meanwhile are coalesced into one more pass. Git runs on blocking threads
//! through the `RadarGit` seam, at most `GIT_AT_ONCE` processes at a time;
//! `task.conflict` is published when a collision appears or clears.
//!
//! ```text
//!   Check ─ pass: read tips (blocking) ─ plan ─ merge-tree batches (blocking)
//!         ─ apply ─ Publish[task.conflict…] ─ waiters answered ─ again?
//! ```

use crate::actors::publish::Publish;
use crate::domain::task::radar::Radar;
use crate::os::git::radar::Snapshot;
use crate::os::seams::RadarGit;
use actix::prelude::*;
use signaltty_protocol::task::Task;
use signaltty_protocol::task::conflict::{TaskConflict, TaskConflictsResult};
use signaltty_protocol::time::Timestamp;
use signaltty_protocol::{Event, TaskId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use tokio::sync::{Semaphore, oneshot};

pub mod pass;

/// Collisions known before a restart (the projection's), taken back
/// unchecked: the first pass clears what is gone.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Seed(pub Vec<TaskConflict>);

/// A repository's watched tasks as they are now, and those whose checkout
/// may have changed (a turn ended, the task changed): a pass follows. With
/// `fresh`, the reply comes once a pass that started after this message
/// has ended.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Check {
    /// The source repository.
    pub repo: String,
    /// Its watched tasks (`domain::task::radar::watched`); `None` keeps
    /// those of the last `Check`.
    pub tasks: Option<Vec<Task>>,
    /// The tasks whose checkout is read again.
    pub moved: Vec<TaskId>,
    /// Answered once a pass that began after it has ended.
    pub done: Option<oneshot::Sender<()>>,
}

/// The current collisions of `repos` (every repository when `None`) and the
/// errors of their last passes.
#[derive(Debug, Message)]
#[rtype(result = "TaskConflictsResult")]
pub struct Current {
    /// Only these repositories.
    pub repos: Option<Vec<String>>,
}

/// One repository's radar and its pass.
#[derive(Default)]
struct Repo {
    radar: Radar,
    tasks: Vec<Task>,
    moved: HashSet<TaskId>,
    snapshots: HashMap<TaskId, Snapshot>,
    running: bool,
    /// A trigger came while a pass ran.
    again: bool,
    /// Waiting for the next pass to end.
    waiting: Vec<oneshot::Sender<()>>,
    /// Waiting for the pass under way.
    in_pass: Vec<oneshot::Sender<()>>,
    /// What the last pass could not do.
    errors: Vec<String>,
}

/// The actor.
pub struct ConflictRadar {
    git: Arc<dyn RadarGit>,
    publish: Recipient<Publish>,
    gate: Arc<Semaphore>,
    repos: HashMap<String, Repo>,
    seeded: Vec<TaskConflict>,
}

impl ConflictRadar {
    /// A radar running git through `git`, publishing through `publish`.
    pub fn new(git: Arc<dyn RadarGit>, publish: Recipient<Publish>) -> ConflictRadar {
        ConflictRadar {
            git,
            publish,
            gate: Arc::new(Semaphore::new(pass::GIT_AT_ONCE)),
            repos: HashMap::new(),
            seeded: Vec::new(),
        }
    }

    fn repo(&mut self, repo: &str) -> &mut Repo {
        let seeded = &mut self.seeded;
        self.repos.entry(repo.to_owned()).or_insert_with(|| {
            let mut radar = Radar::new(repo);
            radar.seed(seeded.iter().filter(|c| c.repo == repo).cloned());
            seeded.retain(|c| c.repo != repo);
            Repo {
                radar,
                ..Repo::default()
            }
        })
    }

    /// Starts a pass of `repo` unless one runs (then one more follows it).
    fn start_pass(&mut self, repo: String, ctx: &mut Context<Self>) {
        let r = self.repo(&repo);
        if r.running {
            r.again = true;
            return;
        }
        r.running = true;
        r.again = false;
        let waiting = std::mem::take(&mut r.waiting);
        r.in_pass.extend(waiting);
        let tasks = r.tasks.clone();
        let moved = std::mem::take(&mut r.moved);
        let snapshots = r.snapshots.clone();
        let git = self.git.clone();
        let gate = self.gate.clone();
        let dir = repo.clone();
        let read = async move {
            let _permit = gate.acquire_owned().await.ok();
            actix_rt::task::spawn_blocking(move || {
                pass::read_tips(&*git, Path::new(&dir), &tasks, &moved, snapshots)
            })
            .await
            .unwrap_or_else(|e| pass::Read {
                errors: vec![format!("the radar's read stopped: {e}")],
                ..pass::Read::default()
            })
        };
        let name = repo.clone();
        let checked = actix::fut::wrap_future::<_, Self>(read).then(move |read, act, _| {
            let r = act.repo(&name);
            r.snapshots = read.snapshots;
            r.errors = read.errors;
            let plan = read
                .tips
                .as_ref()
                .map(|tips| r.radar.plan(tips))
                .unwrap_or_default();
            let run = pass::run_checks(act.git.clone(), act.gate.clone(), name, plan);
            actix::fut::wrap_future(run).map(move |ran, _, _| (read.tips, ran))
        });
        let name = repo.clone();
        let applied = checked.then(move |(tips, (results, errors)), act, _| {
            let r = act.repo(&name);
            r.errors.extend(errors);
            let checked = results.len();
            let changes = match tips {
                Some(tips) => r.radar.apply(&tips, results, &Timestamp::now()),
                None => Vec::new(),
            };
            log::debug!(
                "conflict radar: {name}: {} task(s), {checked} merge(s) tried, {} change(s), errors {:?}",
                r.tasks.len(),
                changes.len(),
                r.errors
            );
            let events: Vec<Event> = changes.into_iter().map(event).collect();
            let publish = act.publish.clone();
            actix::fut::wrap_future(async move {
                if events.is_empty() {
                    return;
                }
                if let Err(e) = publish.send(Publish::new(events)).await {
                    log::warn!("conflict radar: the events could not be published: {e}");
                }
            })
        });
        ctx.spawn(applied.map(move |(), act, ctx| {
            let r = act.repo(&repo);
            r.running = false;
            for done in r.in_pass.drain(..) {
                let _ = done.send(());
            }
            if r.again || !r.waiting.is_empty() {
                act.start_pass(repo, ctx);
            } else if r.tasks.is_empty() && r.radar.conflicts().next().is_none() {
                // No task left to watch: nothing to keep.
                act.repos.remove(&repo);
            }
        }));
    }
}

/// The `task.conflict` event of a change.
fn event(change: crate::domain::task::radar::Change) -> Event {
    let c = change.conflict;
    Event::TaskConflict {
        repo: c.repo,
        a: c.a,
        b: c.b,
        target_branch: c.target_branch,
        paths: c.paths,
        state: change.state,
        since: c.since,
    }
}

impl Actor for ConflictRadar {
    type Context = Context<Self>;
}

impl Handler<Seed> for ConflictRadar {
    type Result = ();

    fn handle(&mut self, msg: Seed, _ctx: &mut Self::Context) {
        self.seeded = msg.0;
    }
}

impl Handler<Check> for ConflictRadar {
    type Result = ();

    fn handle(&mut self, msg: Check, ctx: &mut Self::Context) {
        let r = self.repo(&msg.repo);
        if let Some(tasks) = msg.tasks {
            r.tasks = tasks;
        }
        r.moved.extend(msg.moved);
        if let Some(done) = msg.done {
            r.waiting.push(done);
        }
        self.start_pass(msg.repo, ctx);
    }
}

impl Handler<Current> for ConflictRadar {
    type Result = MessageResult<Current>;

    fn handle(&mut self, msg: Current, _ctx: &mut Self::Context) -> Self::Result {
        let mut repos: BTreeMap<&String, &Repo> = self.repos.iter().collect();
        if let Some(only) = &msg.repos {
            repos.retain(|name, _| only.contains(name));
        }
        let mut result = TaskConflictsResult::default();
        for r in repos.values() {
            result.conflicts.extend(r.radar.conflicts().cloned());
            result.errors.extend(r.errors.iter().cloned());
        }
        MessageResult(result)
    }
}

#[cfg(test)]
mod tests;
