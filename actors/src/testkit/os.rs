//! An `Os` of fakes for launch tests: a file system of the directories the test
//! names, a PTY layer that starts nothing, hook setups that write nothing, and
//! git that knows no checkout.

use super::{FakePty, tasks};
use parking_lot::Mutex;
use std::sync::Arc;
use std::sync::mpsc;

/// The file system as a launch sees it, made of directories the test names;
/// a check can be held until the test lets it go.
#[derive(Default)]
pub struct FakeFiles {
    dirs: Mutex<std::collections::HashSet<std::path::PathBuf>>,
    /// While set, every check waits until it is cleared.
    hold: Mutex<Option<mpsc::Receiver<()>>>,
    checked: Mutex<Vec<std::path::PathBuf>>,
}

impl FakeFiles {
    /// `path` is a directory.
    pub fn dir(&self, path: impl Into<std::path::PathBuf>) {
        self.dirs.lock().insert(path.into());
    }

    /// The next check waits until the returned sender sends (or drops).
    pub fn hold_next(&self) -> mpsc::Sender<()> {
        let (tx, rx) = mpsc::channel();
        *self.hold.lock() = Some(rx);
        tx
    }

    /// Every path checked, in order.
    pub fn checked(&self) -> Vec<std::path::PathBuf> {
        self.checked.lock().clone()
    }
}

impl crate::os::seams::Files for FakeFiles {
    fn kind(&self, path: &std::path::Path) -> std::io::Result<crate::os::seams::FileKind> {
        self.checked.lock().push(path.to_path_buf());
        let held = self.hold.lock().take();
        if let Some(rx) = held {
            let _ = rx.recv();
        }
        if self.dirs.lock().contains(path) {
            Ok(crate::os::seams::FileKind::Dir)
        } else {
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        }
    }
}

/// A PTY layer that starts nothing: every spawn is recorded and answered
/// with a [`FakePty`] (or the failure the test set).
#[derive(Default)]
pub struct FakeSpawner {
    spawned: Mutex<Vec<(crate::domain::launch::SpawnSpec, FakePty)>>,
    fail: Mutex<Option<String>>,
    missing: Mutex<Vec<String>>,
}

impl FakeSpawner {
    /// `program` is not installed: it cannot be found, as on a `PATH` without it.
    pub fn missing(&self, program: &str) {
        self.missing.lock().push(program.to_owned());
    }

    /// Later spawns fail as a program that cannot start.
    pub fn fail_with(&self, why: &str) {
        *self.fail.lock() = Some(why.to_owned());
    }

    /// Every spawn that started, with its fake terminal.
    pub fn spawned(&self) -> Vec<(crate::domain::launch::SpawnSpec, FakePty)> {
        self.spawned.lock().clone()
    }
}

impl crate::os::seams::Spawner for FakeSpawner {
    fn locate(
        &self,
        spec: &crate::domain::launch::SpawnSpec,
    ) -> Result<(), crate::os::pty::SpawnError> {
        match spec.argv.first() {
            Some(program) if self.missing.lock().contains(program) => {
                Err(crate::os::pty::SpawnError::Io {
                    argv0: program.clone(),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                })
            },
            _ => Ok(()),
        }
    }

    fn spawn(
        &self,
        spec: &crate::domain::launch::SpawnSpec,
        _sink: Box<dyn crate::os::pty::PtySink>,
    ) -> Result<Box<dyn crate::os::pty::PtyHandle>, crate::os::pty::SpawnError> {
        if let Some(why) = self.fail.lock().clone() {
            return Err(crate::os::pty::SpawnError::Io {
                argv0: spec.argv.first().cloned().unwrap_or_default(),
                source: std::io::Error::other(why),
            });
        }
        let pty = FakePty::new();
        self.spawned.lock().push((spec.clone(), pty.clone()));
        Ok(pty.handle())
    }
}

/// Agents' hook setup that writes nothing: each call is recorded, and the
/// test may have it run another command (as Codex's setup adds a flag).
#[derive(Default)]
pub struct FakeHooks {
    calls: Mutex<Vec<Vec<String>>>,
    exec: Mutex<Option<Vec<String>>>,
}

impl FakeHooks {
    /// The argv of every agent launch prepared, in order.
    pub fn calls(&self) -> Vec<Vec<String>> {
        self.calls.lock().clone()
    }

    /// Later setups run `argv` instead and report an installed integration.
    pub fn exec(&self, argv: &[&str]) {
        *self.exec.lock() = Some(argv.iter().map(|a| (*a).to_owned()).collect());
    }
}

impl crate::os::seams::HookSetup for FakeHooks {
    fn prepare(
        &self,
        argv: &[String],
        _config_env: &std::collections::BTreeMap<String, String>,
        _cwd: &std::path::Path,
        _child_env: &[(String, String)],
    ) -> signaltty_model::integration::launch::Prepared {
        self.calls.lock().push(argv.to_vec());
        let exec = self.exec.lock().clone();
        signaltty_model::integration::launch::Prepared {
            integration: exec
                .as_ref()
                .map(|_| signaltty_protocol::pane::Integration {
                    agent: "fake".into(),
                    status: "installed".into(),
                    changed: false,
                    file: None,
                    notice: None,
                }),
            exec_argv: exec,
        }
    }
}

/// Git that knows nothing: no checkout anywhere.
pub struct FakeGit;

impl crate::os::seams::GitProbe for FakeGit {
    fn git_info(&self, _cwd: &std::path::Path) -> signaltty_protocol::workspace::GitInfo {
        signaltty_protocol::workspace::GitInfo::default()
    }

    fn probe(&self, _cwd: &std::path::Path) -> signaltty_protocol::workspace::GitInfo {
        signaltty_protocol::workspace::GitInfo::default()
    }
}

/// The fakes behind a [`fake_os`].
#[derive(Clone)]
pub struct FakeWorld {
    /// Directories.
    pub files: Arc<FakeFiles>,
    /// Spawns.
    pub spawner: Arc<FakeSpawner>,
    /// Hook setups.
    pub hooks: Arc<FakeHooks>,
}

/// An [`Os`](crate::os::seams::Os) of fakes, and the fakes to drive.
pub fn fake_os() -> (crate::os::seams::Os, FakeWorld) {
    let world = FakeWorld {
        files: Arc::new(FakeFiles::default()),
        spawner: Arc::new(FakeSpawner::default()),
        hooks: Arc::new(FakeHooks::default()),
    };
    let os = crate::os::seams::Os {
        files: world.files.clone(),
        spawner: world.spawner.clone(),
        hooks: world.hooks.clone(),
        git: Arc::new(FakeGit),
        task_git: Arc::new(tasks::FakeTaskGit::default()),
        workbench: Arc::new(tasks::FakeWorkbench::default()),
        radar_git: Arc::new(tasks::FakeRadarGit::default()),
    };
    (os, world)
}
