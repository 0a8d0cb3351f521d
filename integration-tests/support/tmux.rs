//! A program in a tmux session of its own, driven as a person would: keys
//! with `send-keys`, the screen read with `capture-pane`. Used to test the
//! board. `.ci/run` installs tmux; without it these tests fail loudly.

use super::process::{BIN, TestEnv};
use super::wait_until;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// One tmux server (its own socket) running one window.
pub struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// Runs `signaltty ARGS` in a `cols`×`rows` tmux window with `env`'s
    /// environment.
    pub fn start(env: &TestEnv, args: &[&str], cols: u16, rows: u16) -> Tmux {
        let mut argv = vec![BIN];
        argv.extend_from_slice(args);
        Tmux::run(env, &[], &argv, cols, rows)
    }

    /// Runs `signaltty ARGS` and then waits, so the window keeps what it
    /// printed; returns once it has printed everything. `extra` variables are
    /// added to `env`'s.
    pub fn run_once(
        env: &TestEnv,
        extra: &[(&str, &str)],
        args: &[&str],
        cols: u16,
        rows: u16,
    ) -> Tmux {
        let mut script = format!("'{BIN}'");
        for a in args {
            script.push_str(&format!(" '{}'", a.replace('\'', "'\\''")));
        }
        script.push_str("; printf '\\n(done)'; exec sleep 600");
        let tmux = Tmux::run(env, extra, &["sh", "-c", &script], cols, rows);
        tmux.wait_text("(done)");
        tmux
    }

    /// Runs `argv` in a new tmux server of its own.
    fn run(env: &TestEnv, extra: &[(&str, &str)], argv: &[&str], cols: u16, rows: u16) -> Tmux {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let socket = if n == 0 {
            env.root().join("tmux.sock")
        } else {
            env.root().join(format!("tmux{n}.sock"))
        };
        let mut cmd = Command::new("tmux");
        env.apply_env(&mut cmd);
        cmd.envs(extra.iter().copied());
        cmd.env("TERM", "xterm-256color").current_dir(env.root());
        cmd.arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "t"])
            .args(["-x", &cols.to_string(), "-y", &rows.to_string(), "--"])
            .args(argv);
        let out = run(&mut cmd);
        assert!(
            out.status.success(),
            "tmux new-session failed (is tmux installed? .ci/run installs it): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tmux = Tmux { socket };
        tmux.tmux(&["set-option", "-g", "remain-on-exit", "on"]);
        tmux
    }

    fn tmux(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&self.socket).args(args);
        run(&mut cmd)
    }

    /// The window's text now.
    pub fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", "t"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The window's text now, with its colours as SGR sequences.
    pub fn screen_with_colours(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Presses keys (tmux key names: `Enter`, `C-\\`, `Tab`, or text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        let out = self.tmux(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// Resizes the window, as a person dragging the terminal's corner.
    pub fn resize(&self, cols: u16, rows: u16) {
        let (c, r) = (cols.to_string(), rows.to_string());
        let out = self.tmux(&["resize-window", "-t", "t", "-x", &c, "-y", &r]);
        assert!(
            out.status.success(),
            "resize-window failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-t", "t", "-l", text]);
        assert!(out.status.success(), "send-keys -l {text:?} failed");
    }

    /// Waits until the screen satisfies `ok`; returns it and how long it took.
    #[track_caller]
    pub fn wait_for(
        &self,
        what: &str,
        deadline: Duration,
        ok: impl Fn(&str) -> bool,
    ) -> (String, Duration) {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return (screen, start.elapsed());
            }
            if start.elapsed() > deadline {
                panic!("waiting for {what}: the screen is\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits until the screen shows `text`.
    #[track_caller]
    pub fn wait_text(&self, text: &str) -> String {
        self.wait_for(&format!("{text:?} on screen"), super::DEADLINE, |s| {
            s.contains(text)
        })
        .0
    }

    /// Whether the program in the window has exited.
    pub fn exited(&self) -> bool {
        let out = self.tmux(&["list-panes", "-t", "t", "-F", "#{pane_dead}"]);
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// Waits until the program in the window has exited.
    pub fn wait_exited(&self) {
        wait_until("the program in tmux to exit", super::DEADLINE, || {
            self.exited().then_some(())
        });
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- the tmux window ---\n{}--- end ---", self.screen());
        }
        let _ = self.tmux(&["kill-server"]);
    }
}

fn run(cmd: &mut Command) -> Output {
    match cmd.output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run tmux (is it installed? .ci/run installs it): {e}"),
    }
}
