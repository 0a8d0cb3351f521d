//! Running git (docs/worktrees.md#running-git,
//! docs/diffs.md#git-settings-for-diff-reads): every git the server runs goes
//! through [`Git`]. The child gets its own process group (a deadline or a
//! cancel kills the whole group, hooks and helpers included), no terminal
//! prompt (`GIT_TERMINAL_PROMPT=0`), stdin from `/dev/null`, the C locale, and
//! none of the caller's `GIT_DIR`/`GIT_WORK_TREE`/`GIT_INDEX_FILE`. Its output
//! is read while it runs (a full pipe never stalls it) and kept up to a cap.
//! Blocking: call it on a blocking thread, never on an actor.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The deadline of worktree operations (docs/worktrees.md#running-git).
pub const WORKTREE_DEADLINE: Duration = signaltty_model::settings::limits::WORKTREE_GIT_DEADLINE;

/// What git printed, and how it ended.
#[derive(Debug)]
pub struct GitOutput {
    /// Its exit status.
    pub status: ExitStatus,
    /// Standard output, up to the cap.
    pub stdout: Vec<u8>,
    /// Standard error, up to its cap.
    pub stderr: Vec<u8>,
}

impl GitOutput {
    /// Standard output as text (lossy), trailing newlines kept.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Standard error as text, trimmed.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).trim().to_owned()
    }
}

/// Why git gave no usable output.
#[derive(Debug)]
pub enum GitError {
    /// It could not be started.
    Spawn(io::Error),
    /// It ran past its deadline; its process group was killed.
    Timeout(Duration),
    /// Standard output went past the cap; its process group was killed.
    StdoutOver(usize),
    /// Standard error went past its cap; its process group was killed.
    StderrOver(usize),
    /// It exited unsuccessfully (`Git::ok`); its standard error, trimmed.
    Failed { status: ExitStatus, stderr: String },
    /// Waiting for it failed.
    Io(io::Error),
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitError::Spawn(e) => write!(f, "cannot run git: {e}"),
            GitError::Timeout(d) => write!(f, "git took longer than {} s", d.as_secs_f32()),
            GitError::StdoutOver(n) => write!(f, "git printed more than {n} bytes"),
            GitError::StderrOver(n) => write!(f, "git's error output passed {n} bytes"),
            GitError::Failed { stderr, status } if stderr.is_empty() => {
                write!(f, "git failed ({status})")
            },
            GitError::Failed { stderr, .. } => f.write_str(stderr),
            GitError::Io(e) => write!(f, "waiting for git: {e}"),
        }
    }
}

/// One git invocation's settings: where, how long, which environment.
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    deadline: Duration,
    stdout_cap: usize,
    stderr_cap: usize,
    env: Vec<(OsString, Option<OsString>)>,
    config: Vec<String>,
    /// What it reads on its standard input (else `/dev/null`).
    input: Option<Vec<u8>>,
}

impl Git {
    /// Git run with `-C dir`, a 20 s deadline, up to 64 MiB of output and
    /// 64 KiB of errors.
    pub fn new(dir: impl AsRef<Path>) -> Git {
        Git {
            dir: dir.as_ref().to_path_buf(),
            deadline: WORKTREE_DEADLINE,
            stdout_cap: 64 << 20,
            stderr_cap: 64 << 10,
            env: Vec::new(),
            config: Vec::new(),
            input: None,
        }
    }

    /// The directory git runs in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stops it after `deadline`.
    pub fn deadline(mut self, deadline: Duration) -> Git {
        self.deadline = deadline;
        self
    }

    /// Keeps at most `cap` bytes of standard output; more is an error.
    pub fn stdout_cap(mut self, cap: usize) -> Git {
        self.stdout_cap = cap;
        self
    }

    /// Keeps at most `cap` bytes of standard error; more is an error.
    pub fn stderr_cap(mut self, cap: usize) -> Git {
        self.stderr_cap = cap;
        self
    }

    /// Sets an environment variable for it.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Git {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    /// Removes an environment variable for it.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Git {
        self.env.push((key.into(), None));
        self
    }

    /// Gives it `bytes` on its standard input, written by a thread of its
    /// own so a full pipe never stalls the reads.
    pub fn input(mut self, bytes: Vec<u8>) -> Git {
        self.input = Some(bytes);
        self
    }

    /// Adds `-c key=value` before the subcommand.
    pub fn config(mut self, key: &str, value: &str) -> Git {
        self.config.push(format!("{key}={value}"));
        self
    }

    /// Runs `git <args>` to its end, whatever its exit status.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<GitOutput, GitError> {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(&self.dir);
        for c in &self.config {
            cmd.arg("-c").arg(c);
        }
        cmd.args(args);
        for key in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX"] {
            cmd.env_remove(key);
        }
        cmd.env("GIT_TERMINAL_PROMPT", "0").env("LC_ALL", "C");
        for (key, value) in &self.env {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        cmd.stdin(match self.input {
            Some(_) => Stdio::piped(),
            None => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
        let mut child = cmd.spawn().map_err(GitError::Spawn)?;
        let guard = Group::of(&child);
        if let (Some(mut stdin), Some(bytes)) = (child.stdin.take(), self.input.clone()) {
            // A git that stops reading (it failed) ends the write with an
            // error, which its exit status reports better.
            std::thread::spawn(move || {
                use std::io::Write as _;
                let _ = stdin.write_all(&bytes);
            });
        }
        let (tx, rx) = mpsc::channel();
        let out = child
            .stdout
            .take()
            .map(|s| reader(s, self.stdout_cap, Stream::Out, tx.clone()));
        let err = child
            .stderr
            .take()
            .map(|s| reader(s, self.stderr_cap, Stream::Err, tx));
        let _ = (out, err);
        let ends = Instant::now() + self.deadline;
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let mut open = 2;
        let mut status = None;
        loop {
            if status.is_none() {
                status = child.try_wait().map_err(GitError::Io)?;
            }
            if status.is_some() && open == 0 {
                break;
            }
            let now = Instant::now();
            if now >= ends {
                guard.kill(&mut child);
                return Err(GitError::Timeout(self.deadline));
            }
            // Poll the exit often, the pipes as they come.
            let wait = (ends - now).min(Duration::from_millis(5));
            match rx.recv_timeout(wait) {
                Ok(Read_ { stream, result }) => {
                    open -= 1;
                    match (stream, result) {
                        (Stream::Out, Ok(bytes)) => stdout = bytes,
                        (Stream::Err, Ok(bytes)) => stderr = bytes,
                        (Stream::Out, Err(())) => {
                            guard.kill(&mut child);
                            return Err(GitError::StdoutOver(self.stdout_cap));
                        },
                        (Stream::Err, Err(())) => {
                            guard.kill(&mut child);
                            return Err(GitError::StderrOver(self.stderr_cap));
                        },
                    }
                },
                Err(mpsc::RecvTimeoutError::Timeout) => {},
                // Both readers are done.
                Err(mpsc::RecvTimeoutError::Disconnected) => open = 0,
            }
        }
        guard.disarm();
        Ok(GitOutput {
            status: status.unwrap_or_else(unreachable_status),
            stdout,
            stderr,
        })
    }

    /// Runs `git <args>` and returns its standard output, or its standard
    /// error as a `Failed` when it exits unsuccessfully.
    pub fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<GitOutput, GitError> {
        let out = self.run(args)?;
        if out.status.success() {
            Ok(out)
        } else {
            Err(GitError::Failed {
                status: out.status,
                stderr: out.stderr_text(),
            })
        }
    }

    /// `ok`, its standard output as trimmed text.
    pub fn text<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<String, GitError> {
        self.ok(args).map(|o| o.stdout_text().trim().to_owned())
    }
}

/// A status for the impossible case of a loop left without one.
fn unreachable_status() -> ExitStatus {
    use std::os::unix::process::ExitStatusExt as _;
    ExitStatus::from_raw(255 << 8)
}

#[derive(Debug, Clone, Copy)]
enum Stream {
    Out,
    Err,
}

/// What a reader thread sends when its pipe ends: the bytes, or `Err` when
/// they went past the cap.
struct Read_ {
    stream: Stream,
    result: Result<Vec<u8>, ()>,
}

/// Reads `pipe` to its end on a thread of its own, keeping up to `cap` bytes.
fn reader(
    mut pipe: impl Read + Send + 'static,
    cap: usize,
    stream: Stream,
    tx: mpsc::Sender<Read_>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        let result = loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break Ok(bytes),
                Ok(n) if bytes.len() + n > cap => break Err(()),
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {},
                // A broken pipe reads as its end.
                Err(_) => break Ok(bytes),
            }
        };
        let _ = tx.send(Read_ { stream, result });
    })
}

/// The child's process group, killed unless disarmed: a run that ends early
/// (deadline, cap, error) never leaves git or its hooks behind.
struct Group {
    pgid: Option<nix::unistd::Pid>,
}

impl Group {
    fn of(child: &Child) -> Group {
        Group {
            pgid: i32::try_from(child.id())
                .ok()
                .map(nix::unistd::Pid::from_raw),
        }
    }

    fn kill(&self, child: &mut Child) {
        if let Some(pgid) = self.pgid {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        }
        let _ = child.wait();
    }

    fn disarm(mut self) {
        self.pgid = None;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}
