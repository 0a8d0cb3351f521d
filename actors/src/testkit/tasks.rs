//! Fakes for the task seams and a small world to run tasks in: a real
//! Supervisor on a memory journal whose git ([`FakeTaskGit`]), checkout
//! reads ([`FakeWorkbench`]) and PTYs ([`FakeSpawner`]) are fakes, reached
//! through a probe connection.

use super::{FakePty, Probe, ProbeLog, config};
use crate::actors::connection::{ConnHandle, Dispatch};
use crate::actors::pane::{PtyHandle, SignalTarget};
use crate::actors::supervisor::Supervisor;
use crate::config::Config;
use crate::domain::launch::SpawnSpec;
use crate::error::Error;
use crate::os::git::task_finish::{Cleaned, MergeJob};
use crate::os::git::task_start::{Checkout, Plan, default_branch};
use crate::os::occupants::LivePane;
use crate::os::pty::{PtySink, SpawnError, WriteError};
use crate::os::seams::{Spawner, TaskGit, Workbench};
use crate::store::journal::MemoryStore;
use actix::prelude::*;
use nix::sys::signal::Signal;
use parking_lot::Mutex;
use serde_json::{Value, json};
use signaltty_protocol::task::{Contract, TaskStartParams};
use signaltty_protocol::{ErrorCode, Method, PaneId, Request};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// What a [`FakeTaskGit`] was asked and does.
#[derive(Debug, Default)]
pub struct GitLog {
    /// Starts that reached `prepare`.
    pub prepares: usize,
    /// Checkouts unlocked after a failed start.
    pub unlocked: Vec<PathBuf>,
    /// Merges asked for.
    pub merges: usize,
    /// Merge commits made (a branch merged already makes none).
    pub merge_commits: usize,
    /// Checkouts removed by a cleanup.
    pub removed: Vec<PathBuf>,
    /// Every step, in order: `prepare`, `unlock`, `merge`, `cleanup`.
    pub steps: Vec<&'static str>,
    /// `prepare` fails with this (steps 5–8 refused).
    pub refuse_prepare: Option<String>,
    /// The source repository is on a detached HEAD.
    pub detached: bool,
    /// The merge conflicts in these files.
    pub conflict: Option<Vec<String>>,
    /// The next cleanup dies before it does anything (the server died after
    /// the merge).
    pub die_in_cleanup: bool,
    /// A cleanup keeps the checkout and reports this.
    pub cleanup_error: Option<String>,
    /// The branches merged, with the HEAD of their merge.
    merged: HashMap<String, String>,
}

/// Git for tasks, on plain directories: a checkout is a directory made
/// under the data dir, a merge is a counter. Clones share one log.
#[derive(Clone, Default)]
pub struct FakeTaskGit {
    log: Arc<Mutex<GitLog>>,
    gate: Arc<Mutex<Option<mpsc::Receiver<()>>>>,
}

impl FakeTaskGit {
    /// Reads or changes the log.
    pub fn with<T>(&self, f: impl FnOnce(&mut GitLog) -> T) -> T {
        f(&mut self.log.lock())
    }

    /// From now on each `prepare` waits for one `()` on the returned sender.
    pub fn gate(&self) -> mpsc::Sender<()> {
        let (tx, rx) = mpsc::channel();
        *self.gate.lock() = Some(rx);
        tx
    }
}

impl TaskGit for FakeTaskGit {
    fn prepare(&self, plan: &Plan) -> Result<Checkout, Error> {
        self.with(|log| {
            log.prepares += 1;
            log.steps.push("prepare");
        });
        if let Some(gate) = self.gate.lock().as_ref() {
            gate.recv_timeout(Duration::from_secs(10))
                .map_err(|_| Error::Internal("the gate was never opened".into()))?;
        }
        let (refused, detached) = self.with(|log| (log.refuse_prepare.clone(), log.detached));
        if let Some(why) = refused {
            return Err(Error::BadParams(why));
        }
        let branch = plan
            .branch
            .clone()
            .unwrap_or_else(|| default_branch(plan.label.as_deref(), &plan.task));
        let path = plan.path.clone().unwrap_or_else(|| {
            plan.data_dir
                .join("worktrees")
                .join(branch.replace('/', "-"))
        });
        std::fs::create_dir_all(&path).map_err(|e| Error::Io {
            what: "fake checkout".into(),
            source: e,
        })?;
        Ok(Checkout {
            repo: plan.repo.clone(),
            base_sha: "b".repeat(40),
            target_branch: (!detached).then(|| "main".to_owned()),
            branch,
            preexisting_branch: false,
            path,
        })
    }

    fn unlock(&self, _repo: &Path, path: &Path) {
        self.with(|log| {
            log.unlocked.push(path.to_path_buf());
            log.steps.push("unlock");
        });
    }

    fn merge(&self, job: &MergeJob) -> Result<String, Error> {
        self.with(|log| {
            log.merges += 1;
            log.steps.push("merge");
            if let Some(files) = &log.conflict {
                return Err(Error::Detailed {
                    code: ErrorCode::MergeConflict,
                    message: format!("merging {} conflicts", job.branch),
                    details: json!({"conflicted": files}),
                });
            }
            if let Some(head) = log.merged.get(&job.branch) {
                // "Already up to date": no commit, the same HEAD.
                return Ok(head.clone());
            }
            log.merge_commits += 1;
            let head = format!("{:040x}", log.merge_commits);
            log.merged.insert(job.branch.clone(), head.clone());
            Ok(head)
        })
    }

    fn cleanup(&self, _repo: &Path, path: &Path, delete_branch: Option<&str>) -> Cleaned {
        let (die, error) = self.with(|log| {
            log.steps.push("cleanup");
            (
                std::mem::take(&mut log.die_in_cleanup),
                log.cleanup_error.clone(),
            )
        });
        assert!(!die, "the server died between the merge and the record");
        if let Some(error) = error {
            return Cleaned {
                branch_deleted: false,
                error: Some(error),
            };
        }
        let _ = std::fs::remove_dir_all(path);
        self.with(|log| log.removed.push(path.to_path_buf()));
        Cleaned {
            branch_deleted: delete_branch.is_some(),
            error: None,
        }
    }
}

/// A task's checkout as a finish reads it, without `/proc` or symlinks: it
/// exists while its directory does, and a live pane is inside it when its
/// recorded cwd is at or below it.
#[derive(Clone, Default)]
pub struct FakeWorkbench {
    looks: Arc<Mutex<usize>>,
}

impl FakeWorkbench {
    /// How many foreign-pane checks ran.
    pub fn looks(&self) -> usize {
        *self.looks.lock()
    }
}

impl Workbench for FakeWorkbench {
    fn exists(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn panes_inside(
        &self,
        checkout: &Path,
        panes: &[LivePane],
        exclude: Option<&PaneId>,
    ) -> (PathBuf, Vec<PaneId>) {
        *self.looks.lock() += 1;
        let inside = panes
            .iter()
            .filter(|p| Some(&p.id) != exclude && Path::new(&p.cwd).starts_with(checkout))
            .map(|p| p.id.clone())
            .collect();
        (checkout.to_path_buf(), inside)
    }
}

/// What a [`FakeSpawner`] started.
#[derive(Default)]
pub struct Spawned {
    /// Each process's argv and terminal, in spawn order.
    pub ptys: Vec<(Vec<String>, FakePty)>,
    /// The next spawns fail with this.
    pub fail: Option<String>,
}

/// Starts processes on fake terminals; a process exits when it gets SIGTERM
/// or SIGKILL (with 128 + the signal), as a worker told to stop does.
#[derive(Clone, Default)]
pub struct FakeSpawner {
    spawned: Arc<Mutex<Spawned>>,
}

impl FakeSpawner {
    /// Reads or changes what it started.
    pub fn with<T>(&self, f: impl FnOnce(&mut Spawned) -> T) -> T {
        f(&mut self.spawned.lock())
    }

    /// The terminal of the `n`th process started.
    pub fn pty(&self, n: usize) -> FakePty {
        self.with(|s| s.ptys[n].1.clone())
    }
}

impl Spawner for FakeSpawner {
    fn locate(&self, _spec: &SpawnSpec) -> Result<(), SpawnError> {
        Ok(())
    }

    fn spawn(
        &self,
        spec: &SpawnSpec,
        sink: Box<dyn PtySink>,
    ) -> Result<Box<dyn PtyHandle>, SpawnError> {
        let mut spawned = self.spawned.lock();
        if let Some(why) = &spawned.fail {
            return Err(SpawnError::Io {
                argv0: spec.argv.first().cloned().unwrap_or_default(),
                source: std::io::Error::other(why.clone()),
            });
        }
        let pty = FakePty::new();
        spawned.ptys.push((spec.argv.clone(), pty.clone()));
        Ok(Box::new(FakeProcess {
            pty,
            sink: Arc::new(Mutex::new(Some(sink))),
        }))
    }
}

/// A fake terminal whose process exits on SIGTERM or SIGKILL.
struct FakeProcess {
    pty: FakePty,
    sink: Arc<Mutex<Option<Box<dyn PtySink>>>>,
}

impl PtyHandle for FakeProcess {
    fn pid(&self) -> u32 {
        self.pty.pid()
    }

    fn resize(&self, rows: u16, cols: u16) -> std::io::Result<()> {
        self.pty.resize(rows, cols)
    }

    fn signal(&self, sig: Signal, target: SignalTarget) -> std::io::Result<()> {
        self.pty.signal(sig, target)?;
        if matches!(sig, Signal::SIGTERM | Signal::SIGKILL)
            && let Some(mut sink) = self.sink.lock().take()
        {
            // As the reader and the reaper report it, off the pane's turn.
            std::thread::spawn(move || {
                sink.output_ended();
                sink.exited(Some(128 + sig as i32));
            });
        }
        Ok(())
    }

    fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> tokio::sync::oneshot::Receiver<Result<usize, WriteError>> {
        self.pty.write(bytes, deadline)
    }

    fn close(&self, sig: Signal) {
        self.pty.close(sig);
    }

    fn release(&self) -> std::io::Result<std::os::fd::OwnedFd> {
        self.pty.release()
    }
}

/// A Supervisor whose tasks run on fakes, and a connection to it.
pub struct World {
    /// Its directories (the data dir holds the fake checkouts).
    pub dir: tempfile::TempDir,
    /// The server.
    pub sup: Addr<Supervisor>,
    /// The connection requests come on.
    pub conn: ConnHandle,
    /// What the connection was sent.
    pub log: Arc<Mutex<ProbeLog>>,
    /// Git.
    pub git: FakeTaskGit,
    /// The checkout reads.
    pub bench: FakeWorkbench,
    /// The PTYs.
    pub spawner: FakeSpawner,
}

impl World {
    /// A world with the default limits, changed by `tune`.
    pub fn start(tune: impl FnOnce(&mut Config)) -> World {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (git, bench, spawner) = (
            FakeTaskGit::default(),
            FakeWorkbench::default(),
            FakeSpawner::default(),
        );
        let mut config = config(dir.path());
        config.os.task_git = Arc::new(git.clone());
        config.os.workbench = Arc::new(bench.clone());
        config.os.spawner = Arc::new(spawner.clone());
        tune(&mut config);
        let (stop_tx, _) = tokio::sync::watch::channel(crate::os::listener::Accepting::Open);
        let sup = Supervisor::new(Arc::new(config), MemoryStore, None, stop_tx).start();
        let (conn, log) = Probe::start(1);
        World {
            dir,
            sup,
            conn,
            log,
            git,
            bench,
            spawner,
        }
    }

    /// The result of `method`, or its error.
    pub async fn call(&self, method: Method) -> Result<Value, Error> {
        let reply = self
            .sup
            .send(Dispatch {
                request: Request::new("t", method),
                conn: self.conn.clone(),
                generation: 1,
            })
            .await
            .expect("the Supervisor answers");
        reply
            .result
            .map(|json| serde_json::from_slice(&json).expect("a JSON result"))
    }

    /// `method` as JSON params of `name`.
    pub fn method(name: &str, params: Value) -> Method {
        Method::parse(name, params).unwrap_or_else(|e| panic!("{name}: {e:?}"))
    }

    /// A start of a worker that never gets ready (it waits for its prompt),
    /// with `extra` params.
    pub fn start_params(&self, extra: Value) -> TaskStartParams {
        let mut p = json!({
            "repo": self.dir.path().join("repo"),
            "contract": Contract {
                objective: "make it so".into(),
                constraints: None,
                acceptance_criteria: None,
                output_format: None,
            },
            "argv": ["fake-worker"],
            "ready_timeout_s": 600,
        });
        if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(extra.clone());
        }
        serde_json::from_value(p).expect("start params")
    }

    /// `task.start`.
    pub async fn start_task(&self, extra: Value) -> Result<Value, Error> {
        self.call(Method::TaskStart(self.start_params(extra))).await
    }

    /// A task as `task.get` shows it.
    pub async fn task(&self, id: &str) -> Value {
        self.call(World::method("task.get", json!({"task_id": id})))
            .await
            .expect("task.get")["task"]
            .clone()
    }
}

/// The conflict radar's git on plain maps (docs/tasks.md#conflict-radar):
/// branch tips, each checkout's snapshot, and the pairs of commits that
/// conflict; it counts what it is asked.
#[derive(Debug, Default)]
pub struct FakeRadarGit {
    /// What it holds and was asked.
    pub state: Mutex<RadarGitLog>,
}

/// A [`FakeRadarGit`]'s world and its counts.
#[derive(Debug, Default)]
pub struct RadarGitLog {
    /// Branch → tip.
    pub heads: HashMap<String, String>,
    /// Checkout path → the commit of its work (its branch tip when absent).
    pub work: HashMap<PathBuf, String>,
    /// Unordered pairs of commits that conflict, with their paths.
    pub conflicts: Vec<(String, String, Vec<String>)>,
    /// `heads` calls.
    pub head_reads: usize,
    /// Checkouts read, in order.
    pub snapshots: Vec<PathBuf>,
    /// Every merge tried, in order.
    pub merges: Vec<(String, String)>,
    /// Merge batches run.
    pub batches: usize,
}

impl crate::os::seams::RadarGit for FakeRadarGit {
    fn heads(&self, _repo: &Path, branches: &[String]) -> Result<HashMap<String, String>, String> {
        let mut s = self.state.lock();
        s.head_reads += 1;
        Ok(branches
            .iter()
            .filter_map(|b| s.heads.get(b).map(|t| (b.clone(), t.clone())))
            .collect())
    }

    fn snapshot(&self, checkout: &Path) -> Result<crate::os::git::radar::Snapshot, String> {
        let mut s = self.state.lock();
        s.snapshots.push(checkout.to_path_buf());
        // The checkout's branch is its last path component in the tests.
        let branch = checkout
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let head = s.heads.get(&branch).cloned().ok_or("no such branch")?;
        let commit = s
            .work
            .get(checkout)
            .cloned()
            .unwrap_or_else(|| head.clone());
        Ok(crate::os::git::radar::Snapshot { head, commit })
    }

    fn merges(
        &self,
        _repo: &Path,
        pairs: &[(String, String)],
    ) -> Result<Vec<crate::domain::task::radar::Found>, String> {
        use crate::domain::task::radar::Found;
        let mut s = self.state.lock();
        s.batches += 1;
        s.merges.extend(pairs.iter().cloned());
        Ok(pairs
            .iter()
            .map(|(l, r)| {
                s.conflicts
                    .iter()
                    .find(|(a, b, _)| (a == l && b == r) || (a == r && b == l))
                    .map_or(Found::Clean, |(_, _, paths)| Found::Conflict(paths.clone()))
            })
            .collect())
    }
}
