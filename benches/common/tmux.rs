//! The tmux driver: a private tmux server (own TMUX_TMPDIR and `-L` label, no config
//! file) killed on drop, and control-mode (`tmux -C`) clients that run commands on it.

use super::tempdir::TempDir;
use super::{Context, Res, check_interrupted, run_output, spawn_unmasked, wait_all};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a control client may take to attach.
const START_LIMIT: Duration = Duration::from_secs(10);

/// A private tmux server, killed (`kill-server`) on drop.
pub struct Tmux {
    tmpdir: PathBuf,
    label: &'static str,
}

impl Tmux {
    /// A server socket `label` in a fresh `tmux-N` directory of `dir`; tmux starts the
    /// server with the first command that creates a session.
    pub fn new(dir: &TempDir, label: &'static str) -> Res<Tmux> {
        Ok(Tmux {
            tmpdir: dir.fresh("tmux")?,
            label,
        })
    }

    /// `tmux` aimed at this server.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.env("TMUX_TMPDIR", &self.tmpdir)
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .args(["-f", "/dev/null", "-L", self.label]);
        cmd
    }

    /// Runs one tmux command line; returns its stdout.
    pub fn run(&self, args: &[&str]) -> Res<String> {
        run_output(self.command().args(args))
    }

    pub fn server_pid(&self) -> Res<u32> {
        let out = self.run(&["display-message", "-p", "#{pid}"])?;
        out.trim()
            .parse()
            .ctx(|| format!("tmux server pid {out:?}"))
    }

    /// `new-window -d -P` for each command, up to 64 in one tmux invocation (a
    /// longer command line is refused as "command too long"); returns the new
    /// panes' ids.
    pub fn new_windows(&self, session: &str, commands: &[String]) -> Res<Vec<String>> {
        let mut ids = Vec::with_capacity(commands.len());
        for batch in commands.chunks(64) {
            ids.extend(self.new_windows_at_once(session, batch)?);
        }
        Ok(ids)
    }

    fn new_windows_at_once(&self, session: &str, commands: &[String]) -> Res<Vec<String>> {
        let target = format!("{session}:");
        let mut args: Vec<&str> = Vec::new();
        for (i, c) in commands.iter().enumerate() {
            if i > 0 {
                args.push(";");
            }
            args.extend([
                "new-window",
                "-d",
                "-P",
                "-F",
                "#{pane_id}",
                "-t",
                &target,
                c.as_str(),
            ]);
        }
        let out = self.run(&args)?;
        let ids: Vec<String> = out.split_whitespace().map(str::to_owned).collect();
        if ids.len() != commands.len() {
            return Err(format!("tmux new-window printed {out:?}"));
        }
        Ok(ids)
    }

    /// One tmux invocation that captures every pane in `panes`; for each, whether
    /// its screen shows anything but blanks.
    fn screens_nonblank(&self, panes: &[String]) -> Res<Vec<bool>> {
        let mut args: Vec<String> = Vec::new();
        for (i, p) in panes.iter().enumerate() {
            if i > 0 {
                args.push(";".into());
            }
            args.extend([
                "display-message".into(),
                "-p".into(),
                format!("@@pane {i}"),
                ";".into(),
                "capture-pane".into(),
                "-p".into(),
                "-t".into(),
                p.clone(),
            ]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.run(&refs)?;
        let mut ready = vec![false; panes.len()];
        let mut cur: Option<usize> = None;
        for line in out.lines() {
            if let Some(i) = line.strip_prefix("@@pane ") {
                cur = i.parse().ok();
            } else if let Some(i) = cur
                && !line.trim().is_empty()
                && i < ready.len()
            {
                ready[i] = true;
            }
        }
        Ok(ready)
    }

    /// Polls (1 ms apart) until every pane's screen shows something.
    pub fn wait_nonblank(&self, panes: &[String], limit: Duration) -> Res<()> {
        wait_all(panes, limit, "tmux panes without a prompt", |pending| {
            self.screens_nonblank(pending)
        })
    }

    /// `tmux -V`, or why there is none.
    pub fn version() -> String {
        run_output(Command::new("tmux").arg("-V"))
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|e| format!("unavailable ({e})"))
    }

    pub fn tmpdir(&self) -> &Path {
        &self.tmpdir
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = spawn_unmasked(
            self.command()
                .arg("kill-server")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        )
        .and_then(|mut c| c.wait());
    }
}

/// A control-mode client: command round trips on its stdin/stdout; detached and
/// reaped on drop.
pub struct TmuxControl {
    client: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    buf: Vec<u8>,
}

impl TmuxControl {
    /// `tmux -C ARGS` (`new-session …` or `attach-session -t S`), once it answers.
    pub fn start(tmux: &Tmux, args: &[&str]) -> Res<TmuxControl> {
        let mut client = spawn_unmasked(
            tmux.command()
                .arg("-C")
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        )
        .ctx(|| "cannot run tmux -C (apt-get install -y tmux)".into())?;
        let (Some(stdin), Some(stdout)) = (client.stdin.take(), client.stdout.take()) else {
            return Err("tmux: no pipes".into());
        };
        let mut c = TmuxControl {
            client,
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(256 * 1024, stdout),
            buf: Vec::with_capacity(64 * 1024),
        };
        // Skip the reply to the first command and the start-up notifications: send a
        // marker and read until the block that carries it. tmux may run a line read
        // from stdin before the command-line command (then its empty block comes
        // after the marker's), so the marker also names the client's session: only
        // once that is set has the first command's block gone by. Until then, ask
        // again.
        let marker = "signaltty-bench-ready";
        let probe = format!("display-message -p '{marker} #{{client_session}}'\n");
        let deadline = Instant::now() + START_LIMIT;
        c.send(probe.as_bytes())?;
        loop {
            let (body, _) = c.read_block()?;
            let Some(session) = body.trim().strip_prefix(marker) else {
                continue;
            };
            if !session.trim().is_empty() {
                return Ok(c);
            }
            check_interrupted()?;
            if Instant::now() > deadline {
                return Err("tmux control client: no session after 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(1));
            c.send(probe.as_bytes())?;
        }
    }

    pub fn send(&mut self, line: &[u8]) -> Res<()> {
        match &mut self.stdin {
            Some(w) => w.write_all(line).ctx(|| "write to tmux".into()),
            None => Err("tmux stdin closed".into()),
        }
    }

    /// Reads the next line as it is (a notification such as `%output`, or a line of
    /// a block), newline included.
    pub fn read_line(&mut self) -> Res<&[u8]> {
        self.buf.clear();
        let n = self
            .stdout
            .read_until(b'\n', &mut self.buf)
            .ctx(|| "read from tmux".into())?;
        if n == 0 {
            return Err("tmux control client exited".into());
        }
        Ok(&self.buf)
    }

    /// Sends one command line and reads the reply blocks of its `n` commands (`;`
    /// separates them); returns the last body.
    pub fn command(&mut self, line: &str, n: usize) -> Res<String> {
        self.send(line.as_bytes())?;
        let mut body = String::new();
        for _ in 0..n {
            body = self.read_block()?.0;
        }
        Ok(body)
    }

    /// Reads through the next `%begin` … `%end` block; returns its body and line
    /// count. A `%error` block is an error. Notifications between blocks are skipped.
    pub fn read_block(&mut self) -> Res<(String, usize)> {
        let mut body = String::new();
        let mut lines = 0;
        let mut inside = false;
        loop {
            self.buf.clear();
            let n = self
                .stdout
                .read_until(b'\n', &mut self.buf)
                .ctx(|| "read from tmux".into())?;
            if n == 0 {
                return Err("tmux control client exited".into());
            }
            let line = &self.buf[..];
            if !inside {
                inside = line.starts_with(b"%begin ");
            } else if line.starts_with(b"%end ") {
                return Ok((body, lines));
            } else if line.starts_with(b"%error ") {
                return Err(format!("tmux command failed: {}", body.trim_end()));
            } else {
                lines += 1;
                body.push_str(&String::from_utf8_lossy(line));
            }
        }
    }
}

impl Drop for TmuxControl {
    fn drop(&mut self) {
        // Closing stdin detaches the client.
        self.stdin = None;
        let _ = self.client.kill();
        let _ = self.client.wait();
    }
}
