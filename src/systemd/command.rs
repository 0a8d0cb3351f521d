//! Running a program for a probe (`claude --version`, `systemctl --user …`)
//! under a deadline: its own process group (killed whole at the deadline),
//! stdin from `/dev/null`, stderr discarded, stdout kept up to a cap and read
//! on a thread so a full pipe or a grandchild holding it open never blocks
//! the doctor.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// At most this much of a probe's standard output is kept.
const STDOUT_CAP: u64 = 64 * 1024;

/// How a probe's program ended.
#[derive(Debug)]
pub enum Ran {
    /// It exited: its status and what it printed (lossy UTF-8).
    Exited { status: ExitStatus, stdout: String },
    /// It did not start.
    NotStarted(std::io::Error),
    /// It ran past the deadline; its process group was killed.
    TimedOut,
}

/// Runs `program args…` and waits at most `deadline` for it to exit and its
/// standard output to end.
pub fn run<S: AsRef<OsStr>>(program: &OsStr, args: &[S], deadline: Duration) -> Ran {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Ran::NotStarted(e),
    };
    let ends = Instant::now() + deadline;
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = out.take(STDOUT_CAP).read_to_end(&mut bytes);
            let _ = tx.send(bytes);
        });
    }
    let stdout = rx
        .recv_timeout(ends.saturating_duration_since(Instant::now()))
        .ok();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if stdout.is_some() => {
                let stdout = String::from_utf8_lossy(&stdout.unwrap_or_default()).into_owned();
                return Ran::Exited { status, stdout };
            },
            Ok(None) if Instant::now() < ends => std::thread::sleep(Duration::from_millis(5)),
            // Past the deadline, or exited with its output still held open
            // by something it started, or not waitable: end the group.
            _ => break,
        }
    }
    if let Ok(pgid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pgid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.kill();
    let _ = child.wait();
    Ran::TimedOut
}

#[cfg(test)]
mod tests;
