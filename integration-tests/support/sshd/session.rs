//! An `ssh` client left running (an open SSH link), whose output lines are
//! read on a thread so the test can wait for one with a deadline. It is
//! always killed and reaped on drop.

use crate::support::DEADLINE;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `ssh` client.
pub struct SshSession {
    child: Child,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Closed once stderr has reached its end.
    stderr_done: Receiver<()>,
    status: Option<ExitStatus>,
}

impl SshSession {
    /// Spawns `cmd` (built by `Sshd::ssh_command`) with its stdout and stderr piped.
    pub fn spawn(mut cmd: Command) -> SshSession {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) => panic!("cannot spawn {cmd:?}: {e}"),
        };
        let (tx, lines) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (done, stderr_done) = mpsc::channel::<()>();
        if let Some(mut pipe) = child.stderr.take() {
            let sink = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let _done = done;
                let mut chunk = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut all) = sink.lock() {
                        all.extend_from_slice(&chunk[..n]);
                    }
                }
            });
        }
        SshSession {
            child,
            lines,
            stderr,
            stderr_done,
            status: None,
        }
    }

    /// The process id of the client.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the client wrote to stderr so far.
    pub fn stderr(&self) -> String {
        match self.stderr.lock() {
            Ok(all) => String::from_utf8_lossy(&all).into_owned(),
            Err(_) => String::new(),
        }
    }

    /// Waits until the remote side prints the line `want`, and fails (with the
    /// client's stderr) at the deadline or when the output ends first.
    #[track_caller]
    pub fn wait_line(&mut self, want: &str, deadline: Duration) {
        let start = Instant::now();
        loop {
            let left = deadline.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(line) if line == want => return,
                Ok(_) => {},
                Err(RecvTimeoutError::Timeout) => panic!(
                    "ssh printed no line {want:?} within {deadline:?}; its stderr:\n{}",
                    self.stderr()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "ssh ended its output ({:?}) before printing {want:?}; its stderr:\n{}",
                    self.try_status(),
                    self.stderr()
                ),
            }
        }
    }

    /// The exit status if the client has exited (it is reaped then).
    pub fn try_status(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            match self.child.try_wait() {
                Ok(status) => self.status = status,
                Err(e) => panic!("cannot wait for ssh: {e}"),
            }
        }
        self.status
    }

    /// Waits for the client to exit, failing (with its stderr) after
    /// `deadline`; then `stderr` holds all it wrote.
    #[track_caller]
    pub fn wait_exit(&mut self, deadline: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.try_status() {
                // The reader may still be copying the last bytes: this returns
                // when it drops its sender at the end of the pipe.
                let _ = self.stderr_done.recv_timeout(DEADLINE);
                return status;
            }
            if start.elapsed() >= deadline {
                panic!(
                    "ssh {} did not exit within {deadline:?}; its stderr:\n{}",
                    self.pid(),
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for SshSession {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
