//! The seams between the workflows and the operating system: small traits for
//! what a workflow asks of the file system, the PTY layer, an agent's hook
//! setup, git and a task's checkout, so the workflows run in unit tests
//! against fakes (the way
//! [`PtyHandle`] lets the Pane actor run on a fake PTY). [`Os`] carries one
//! implementation of each; the server's is [`Os::real`], tests build theirs
//! from `testkit`.
//!
//! Every call here may block: callers run them on a blocking thread.

use crate::domain::launch::SpawnSpec;
use crate::domain::task::radar::Found;
use crate::error::Error;
use crate::os::git::radar::{self, Snapshot};
use crate::os::git::task_finish::{self, Cleaned, MergeJob};
use crate::os::git::task_start::{self, Checkout, Plan};
use crate::os::occupants::{self, Depth, LivePane};
use crate::os::pty::{self, PtyHandle, PtySink, SpawnError};
use signaltty_model::integration::launch::Prepared;
use signaltty_protocol::PaneId;
use signaltty_protocol::workspace::GitInfo;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a path is, as far as a launch cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A directory (or a symlink to one).
    Dir,
    /// Anything else that exists.
    Other,
}

/// What launches check of the file system.
pub trait Files: Send + Sync {
    /// What `path` is, following symlinks, or why it cannot be looked at.
    fn kind(&self, path: &Path) -> io::Result<FileKind>;
}

/// How a pane's process starts.
pub trait Spawner: Send + Sync {
    /// Whether `spec`'s program can be started, failing as the spawn would
    /// (checked before anything is prepared for it).
    fn locate(&self, spec: &SpawnSpec) -> Result<(), SpawnError>;

    /// Starts `spec` on a new PTY whose output and exit go to `sink`.
    fn spawn(
        &self,
        spec: &SpawnSpec,
        sink: Box<dyn PtySink>,
    ) -> Result<Box<dyn PtyHandle>, SpawnError>;
}

/// What a supported agent gets before it starts (docs/integrations.md).
pub trait HookSetup: Send + Sync {
    /// Prepares the hooks of the agent `argv` runs, if it is one: the
    /// integration report and, for Codex, the command to run instead.
    fn prepare(
        &self,
        argv: &[String],
        config_env: &BTreeMap<String, String>,
        cwd: &Path,
        child_env: &[(String, String)],
    ) -> Prepared;
}

/// What a workspace knows of the git checkout it is rooted in.
pub trait GitProbe: Send + Sync {
    /// The branch and the `dirty` flag (runs `git status`).
    fn git_info(&self, cwd: &Path) -> GitInfo;
    /// The branch only, read from `.git` without running git (`dirty`
    /// unknown).
    fn probe(&self, cwd: &Path) -> GitInfo;
}

/// The git steps of a task's start and finish: the checkout
/// (docs/tasks.md#the-start-steps-in-order, steps 5–8), its unlock after a
/// failed start (docs/tasks.md#when-a-start-fails), the merge
/// (docs/tasks.md#merging) and the cleanup
/// (docs/tasks.md#after-the-work-is-merged-or-discarded).
pub trait TaskGit: Send + Sync {
    /// Resolves the base, checks the branch and the prompt's size, and makes
    /// the checkout; nothing is left on disk when it fails.
    fn prepare(&self, plan: &Plan) -> Result<Checkout, Error>;
    /// Unlocks the checkout of a start that failed after it was made.
    fn unlock(&self, repo: &Path, path: &Path);
    /// The merge with its checks: the merge's HEAD. Run again on a branch
    /// merged already, it makes no commit and answers the same HEAD.
    fn merge(&self, job: &MergeJob) -> Result<String, Error>;
    /// Removes the checkout and, given one, deletes the branch; what failed
    /// is the cleanup error, never a refusal.
    fn cleanup(&self, repo: &Path, path: &Path, delete_branch: Option<&str>) -> Cleaned;
}

/// The conflict radar's git (docs/tasks.md#conflict-radar): branch tips, a
/// checkout's work as one commit, and merges tried without touching any ref,
/// index or checkout.
pub trait RadarGit: Send + Sync {
    /// The tips of `branches` in `repo`; a missing branch is left out.
    fn heads(&self, repo: &Path, branches: &[String]) -> Result<HashMap<String, String>, String>;
    /// The commit of `checkout`'s work, uncommitted changes included.
    fn snapshot(&self, checkout: &Path) -> Result<Snapshot, String>;
    /// What each merge of `pairs` finds, in order.
    fn merges(&self, repo: &Path, pairs: &[(String, String)]) -> Result<Vec<Found>, String>;
}

/// What a finish reads of a task's checkout on disk and of the panes in it
/// (docs/tasks.md#checks-before-finishing, docs/tasks.md#finishing-again).
pub trait Workbench: Send + Sync {
    /// Whether the checkout is still there.
    fn exists(&self, path: &Path) -> bool;
    /// The checkout's canonical path and the live panes of `panes`, other
    /// than `exclude`, whose cwd is it or inside it.
    fn panes_inside(
        &self,
        checkout: &Path,
        panes: &[LivePane],
        exclude: Option<&PaneId>,
    ) -> (PathBuf, Vec<PaneId>);
}

/// One implementation of every seam.
#[derive(Clone)]
pub struct Os {
    /// The file system.
    pub files: Arc<dyn Files>,
    /// The PTY layer.
    pub spawner: Arc<dyn Spawner>,
    /// Agents' hook setup.
    pub hooks: Arc<dyn HookSetup>,
    /// Git, for workspaces.
    pub git: Arc<dyn GitProbe>,
    /// Git, for tasks' checkouts and merges.
    pub task_git: Arc<dyn TaskGit>,
    /// A task's checkout on disk, and the panes inside it.
    pub workbench: Arc<dyn Workbench>,
    /// Git, for the conflict radar.
    pub radar_git: Arc<dyn RadarGit>,
}

impl std::fmt::Debug for Os {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Os").finish_non_exhaustive()
    }
}

impl Os {
    /// The operating system itself.
    pub fn real() -> Os {
        Os {
            files: Arc::new(RealFiles),
            spawner: Arc::new(RealSpawner),
            hooks: Arc::new(RealHooks),
            git: Arc::new(RealGit),
            task_git: Arc::new(RealTaskGit),
            workbench: Arc::new(RealWorkbench),
            radar_git: Arc::new(RealRadarGit),
        }
    }
}

struct RealFiles;

impl Files for RealFiles {
    fn kind(&self, path: &Path) -> io::Result<FileKind> {
        std::fs::metadata(path).map(|m| {
            if m.is_dir() {
                FileKind::Dir
            } else {
                FileKind::Other
            }
        })
    }
}

struct RealSpawner;

impl Spawner for RealSpawner {
    fn locate(&self, spec: &SpawnSpec) -> Result<(), SpawnError> {
        pty::locate(spec)
    }

    fn spawn(
        &self,
        spec: &SpawnSpec,
        sink: Box<dyn PtySink>,
    ) -> Result<Box<dyn PtyHandle>, SpawnError> {
        pty::spawn(spec, sink).map(|p| Box::new(p) as Box<dyn PtyHandle>)
    }
}

struct RealHooks;

impl HookSetup for RealHooks {
    fn prepare(
        &self,
        argv: &[String],
        config_env: &BTreeMap<String, String>,
        cwd: &Path,
        child_env: &[(String, String)],
    ) -> Prepared {
        signaltty_model::integration::launch::prepare(argv, config_env, cwd, child_env)
    }
}

struct RealGit;

impl GitProbe for RealGit {
    fn git_info(&self, cwd: &Path) -> GitInfo {
        crate::os::git::status::git_info(cwd)
    }

    fn probe(&self, cwd: &Path) -> GitInfo {
        crate::os::git::probe(cwd)
    }
}

struct RealTaskGit;

impl TaskGit for RealTaskGit {
    fn prepare(&self, plan: &Plan) -> Result<Checkout, Error> {
        task_start::prepare(plan)
    }

    fn unlock(&self, repo: &Path, path: &Path) {
        task_start::unlock(repo, path);
    }

    fn merge(&self, job: &MergeJob) -> Result<String, Error> {
        task_finish::merge(job)
    }

    fn cleanup(&self, repo: &Path, path: &Path, delete_branch: Option<&str>) -> Cleaned {
        task_finish::cleanup(repo, path, delete_branch)
    }
}

struct RealRadarGit;

impl RadarGit for RealRadarGit {
    fn heads(&self, repo: &Path, branches: &[String]) -> Result<HashMap<String, String>, String> {
        radar::heads(repo, branches)
    }

    fn snapshot(&self, checkout: &Path) -> Result<Snapshot, String> {
        radar::snapshot(checkout)
    }

    fn merges(&self, repo: &Path, pairs: &[(String, String)]) -> Result<Vec<Found>, String> {
        radar::merges(repo, pairs)
    }
}

struct RealWorkbench;

impl Workbench for RealWorkbench {
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn panes_inside(
        &self,
        checkout: &Path,
        panes: &[LivePane],
        exclude: Option<&PaneId>,
    ) -> (PathBuf, Vec<PaneId>) {
        let canonical = checkout
            .canonicalize()
            .unwrap_or_else(|_| checkout.to_path_buf());
        let inside = occupants::inside(&canonical, panes, exclude, Depth::PaneCwd);
        (canonical, inside.into_iter().map(|o| o.pane).collect())
    }
}

/// Prepares the hooks of the agent `spec` runs, if it is a supported one, on
/// a blocking thread (docs/integrations.md#automatic-setup-at-launch): the spec to
/// execute (Codex may gain `--no-daemon`) and the integration report. A
/// program that cannot be started is refused first, as its spawn would
/// fail, so nothing is written for it. A setup that could not run at all is
/// reported, and the launch goes ahead.
pub async fn prepare_hooks(
    os: &Os,
    mut spec: SpawnSpec,
    config_env: BTreeMap<String, String>,
) -> Result<(SpawnSpec, Option<signaltty_protocol::pane::Integration>), SpawnError> {
    use signaltty_model::integration::launch::agent_of;
    let Some(agent) = agent_of(&spec.argv) else {
        return Ok((spec, None));
    };
    let spawner = os.spawner.clone();
    let probe = spec.clone();
    // A check that could not run at all leaves the spawn to say why.
    if let Ok(Err(e)) = actix_rt::task::spawn_blocking(move || spawner.locate(&probe)).await {
        return Err(e);
    }
    let hooks = os.hooks.clone();
    let (argv, cwd, env) = (spec.argv.clone(), spec.cwd.clone(), spec.env.clone());
    let setup =
        actix_rt::task::spawn_blocking(move || hooks.prepare(&argv, &config_env, &cwd, &env)).await;
    match setup {
        Ok(prepared) => {
            if let Some(argv) = prepared.exec_argv {
                spec.argv = argv;
            }
            Ok((spec, prepared.integration))
        },
        Err(e) => {
            let integration = signaltty_protocol::pane::Integration {
                agent: agent.name().to_owned(),
                status: "error".to_owned(),
                changed: false,
                file: None,
                notice: Some(format!(
                    "{} status setup failed: {e}. The terminal remains available.",
                    agent.name()
                )),
            };
            Ok((spec, Some(integration)))
        },
    }
}
