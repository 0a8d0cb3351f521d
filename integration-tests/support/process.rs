//! Processes under test: `TestEnv` owns a temp dir with `run/`, `state/`, `config/` and
//! `home/` and runs the binary with the XDG variables pointing there; `ServerProcess`
//! is one spawned `signaltty server` that is always killed and reaped on drop;
//! `TestServer` is an env plus a server whose socket answers.

use super::client::Client;
use super::{DEADLINE, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_signaltty");

/// How long a server gets to exit after SIGTERM before the harness sends SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(5);

/// A fresh temp dir with `run/` (mode 0700, the `XDG_RUNTIME_DIR`), `state/`,
/// `config/` and `home/`, plus the environment every process of the test gets.
pub struct TestEnv {
    dir: TempDir,
    set: Vec<(OsString, OsString)>,
    removed: Vec<OsString>,
}

impl TestEnv {
    /// Creates the dirs. `XDG_RUNTIME_DIR` itself is expected to exist (as
    /// `/run/user/UID` does), so it is made here with mode 0700.
    pub fn new() -> TestEnv {
        let dir = match tempfile::Builder::new().prefix("stt").tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("cannot create a temp dir: {e}"),
        };
        let root = dir.path();
        let mut builder = fs::DirBuilder::new();
        builder.mode(0o700);
        for sub in ["run", "state", "config", "home"] {
            if let Err(e) = builder.create(root.join(sub)) {
                panic!("cannot create {}: {e}", root.join(sub).display());
            }
        }
        // The mode given to mkdir is filtered by the umask; make it exact.
        set_mode(&root.join("run"), 0o700);
        let set = vec![
            ("XDG_RUNTIME_DIR".into(), root.join("run").into()),
            ("XDG_STATE_HOME".into(), root.join("state").into()),
            ("XDG_CONFIG_HOME".into(), root.join("config").into()),
            ("HOME".into(), root.join("home").into()),
            ("RUST_BACKTRACE".into(), "1".into()),
        ];
        let removed = ["SIGNALTTY_SOCKET", "SIGNALTTY_PANE", "SIGNALTTY_TASK"]
            .iter()
            .map(OsString::from)
            .collect();
        let env = TestEnv { dir, set, removed };
        let socket = env.default_socket();
        assert!(
            socket.as_os_str().len() < 100,
            "the temp dir is too deep for a Unix socket path: {} (set TMPDIR to a shorter dir)",
            socket.display()
        );
        env
    }

    /// The temp dir holding everything of this test.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `XDG_RUNTIME_DIR`.
    pub fn runtime_dir(&self) -> PathBuf {
        self.root().join("run")
    }

    /// `HOME`.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// `XDG_STATE_HOME`.
    pub fn state_home(&self) -> PathBuf {
        self.root().join("state")
    }

    /// The server's socket dir when no socket is given: `$XDG_RUNTIME_DIR/signaltty`.
    pub fn default_socket_dir(&self) -> PathBuf {
        self.runtime_dir().join("signaltty")
    }

    /// The socket path when no socket is given.
    pub fn default_socket(&self) -> PathBuf {
        self.default_socket_dir().join("signaltty.sock")
    }

    /// Sets (or overrides) a variable for every process started from now on.
    pub fn set_var(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) {
        let key = key.as_ref().to_owned();
        self.removed.retain(|k| *k != key);
        self.set.retain(|(k, _)| *k != key);
        self.set.push((key, value.as_ref().to_owned()));
    }

    /// Removes a variable from the environment of every process started from now on.
    pub fn remove_var(&mut self, key: impl AsRef<OsStr>) {
        let key = key.as_ref().to_owned();
        self.set.retain(|(k, _)| *k != key);
        self.removed.push(key);
    }

    /// A command running the binary with this environment, stdin closed.
    pub fn command<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args).current_dir(self.root()).stdin(Stdio::null());
        self.apply_env(&mut cmd);
        cmd
    }

    /// `/bin/sh -c SCRIPT` with this environment, where `$0` is the binary under test.
    pub fn shell_command(&self, script: &str) -> Command {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(script)
            .arg(BIN)
            .current_dir(self.root())
            .stdin(Stdio::null());
        self.apply_env(&mut cmd);
        cmd
    }

    /// Gives `cmd` this environment (for programs other than the binary,
    /// such as tmux running the board).
    pub fn apply_env(&self, cmd: &mut Command) {
        for key in &self.removed {
            cmd.env_remove(key);
        }
        for (key, value) in &self.set {
            cmd.env(key, value);
        }
    }

    /// Runs the binary as a CLI and returns its output. Fails the test if it runs
    /// longer than the deadline, or if its stdout/stderr stay open after it exited
    /// (a process it left behind, such as a detached server, still holds them).
    pub fn cli<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        let mut cmd = self.command(args);
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        run_with_deadline(&mut cmd, &format!("signaltty {}", shown.join(" ")))
    }

    /// Spawns `signaltty ARGS` as a server whose stderr goes to `<root>/<log_name>`.
    pub fn spawn_server<S: AsRef<OsStr>>(&self, args: &[S], log_name: &str) -> ServerProcess {
        self.spawn_server_cmd(self.command(args), log_name)
    }

    /// Spawns `signaltty ARGS` like `spawn_server` and waits until `socket` accepts a
    /// connection. Unlike `TestServer`, the env stays with the caller, so a test can
    /// stop and restart servers on the same state dir.
    pub fn spawn_listening<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        log_name: &str,
        socket: &Path,
    ) -> ServerProcess {
        let mut process = self.spawn_server(args, log_name);
        wait_for_socket(&mut process, socket);
        process
    }

    /// Spawns `cmd` (built by `command` or `shell_command`) as a server whose stderr
    /// goes to `<root>/<log_name>`.
    pub fn spawn_server_cmd(&self, mut cmd: Command, log_name: &str) -> ServerProcess {
        let stderr_path = self.root().join(log_name);
        let stderr = match File::create(&stderr_path) {
            Ok(f) => f,
            Err(e) => panic!("cannot create {}: {e}", stderr_path.display()),
        };
        cmd.stdout(Stdio::null()).stderr(stderr);
        match cmd.spawn() {
            Ok(child) => ServerProcess {
                child,
                stderr_path,
                status: None,
            },
            Err(e) => panic!("cannot spawn {BIN}: {e}"),
        }
    }
}

/// Sets the permission bits of `path`.
pub fn set_mode(path: &Path, mode: u32) {
    if let Err(e) = fs::set_permissions(path, fs::Permissions::from_mode(mode)) {
        panic!("cannot chmod {}: {e}", path.display());
    }
}

/// Runs `cmd` with piped stdout and stderr under the harness deadline.
pub fn run_with_deadline(cmd: &mut Command, what: &str) -> Output {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    run_spawned(cmd, what)
}

/// Runs `cmd` with the stdout it was given (a closed pipe, a file) and a
/// piped stderr under the harness deadline; the output's stdout is empty.
pub fn run_with_deadline_keeping_stdout(cmd: &mut Command, what: &str) -> Output {
    cmd.stderr(Stdio::piped());
    run_spawned(cmd, what)
}

fn run_spawned(cmd: &mut Command, what: &str) -> Output {
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => panic!("cannot spawn {what}: {e}"),
    };
    // Read both pipes on threads so a chatty child cannot block on a full pipe.
    let (tx, rx) = mpsc::channel::<(bool, Vec<u8>)>();
    let pipes: [(bool, Option<Box<dyn Read + Send>>); 2] = [
        (
            true,
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ),
        (
            false,
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ),
    ];
    for (is_stdout, pipe) in pipes {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = tx.send((is_stdout, bytes));
        });
    }
    drop(tx);
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < DEADLINE => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what} did not exit within {DEADLINE:?}");
            },
            Err(e) => panic!("cannot wait for {what}: {e}"),
        }
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    for _ in 0..2 {
        let remaining = DEADLINE
            .saturating_sub(start.elapsed())
            .max(Duration::from_secs(2));
        match rx.recv_timeout(remaining) {
            Ok((true, bytes)) => stdout = bytes,
            Ok((false, bytes)) => stderr = bytes,
            Err(_) => panic!(
                "{what} exited ({status}) but its stdout/stderr stayed open: a process it \
                 started (e.g. a detached server) inherited them"
            ),
        }
    }
    Output {
        status,
        stdout,
        stderr,
    }
}

/// One spawned server process. Dropping it sends SIGTERM, then SIGKILL after a
/// grace period, and always reaps it.
pub struct ServerProcess {
    child: Child,
    stderr_path: PathBuf,
    status: Option<ExitStatus>,
}

impl ServerProcess {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        fs::read(&self.stderr_path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }

    /// Sends `signal` to the server.
    pub fn signal(&self, signal: Signal) {
        if let Err(e) = kill(Pid::from_raw(self.pid() as i32), signal) {
            panic!("cannot send {signal} to the server {}: {e}", self.pid());
        }
    }

    /// The exit status if the process has exited (it is reaped then).
    pub fn try_status(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            match self.child.try_wait() {
                Ok(status) => self.status = status,
                Err(e) => panic!("cannot wait for the server: {e}"),
            }
        }
        self.status
    }

    /// Waits (bounded) for the process to exit and returns its status.
    #[track_caller]
    pub fn wait_exit(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.try_status() {
                return status;
            }
            if start.elapsed() >= DEADLINE {
                panic!(
                    "the server {} did not exit within {DEADLINE:?}; its stderr:\n{}",
                    self.pid(),
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Waits for the process to exit and asserts its exit code.
    #[track_caller]
    pub fn expect_exit_code(&mut self, code: i32) -> ExitStatus {
        let status = self.wait_exit();
        assert_eq!(
            status.code(),
            Some(code),
            "the server exited with {status} (signal {:?}), expected code {code}; its stderr:\n{}",
            status.signal(),
            self.stderr()
        );
        status
    }

    /// Fails the test, with the server's stderr, if the process has exited.
    #[track_caller]
    pub fn assert_running(&mut self) {
        if let Some(status) = self.try_status() {
            panic!(
                "the server exited unexpectedly ({status}); its stderr:\n{}",
                self.stderr()
            );
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.try_status_quiet().is_some() {
            return;
        }
        let pid = Pid::from_raw(self.child.id() as i32);
        let _ = kill(pid, Signal::SIGTERM);
        let start = Instant::now();
        while start.elapsed() < TERM_GRACE {
            if self.try_status_quiet().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServerProcess {
    /// `try_status` that never panics, for `Drop`.
    fn try_status_quiet(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = self.child.try_wait().ok().flatten();
        }
        self.status
    }
}

/// A running server in its own `TestEnv`, with a socket that answers.
pub struct TestServer {
    // Declared before `env` so the process is stopped before its dirs are deleted.
    process: ServerProcess,
    socket: PathBuf,
    /// The arguments it was started with, when known (for a restart).
    args: Option<Vec<OsString>>,
    /// How many times it was restarted.
    restarts: usize,
    env: TestEnv,
}

impl TestServer {
    /// A server on the default socket path of a fresh env.
    pub fn start() -> TestServer {
        TestServer::start_in(TestEnv::new())
    }

    /// A server on the default socket path of `env`.
    pub fn start_in(env: TestEnv) -> TestServer {
        let socket = env.default_socket();
        TestServer::start_with_args(env, &["server"], socket)
    }

    /// A server given `--socket PATH`.
    pub fn start_with_socket_flag(env: TestEnv, socket: &Path) -> TestServer {
        let args: Vec<OsString> = vec!["server".into(), "--socket".into(), socket.into()];
        TestServer::start_with_args(env, &args, socket.to_owned())
    }

    /// Runs `signaltty ARGS` and waits until `socket` accepts a connection.
    pub fn start_with_args<S: AsRef<OsStr>>(
        env: TestEnv,
        args: &[S],
        socket: PathBuf,
    ) -> TestServer {
        let cmd = env.command(args);
        let mut server = TestServer::start_with_command(env, cmd, socket);
        server.args = Some(args.iter().map(|a| a.as_ref().to_owned()).collect());
        server
    }

    /// Runs `cmd` and waits until `socket` accepts a connection.
    pub fn start_with_command(env: TestEnv, cmd: Command, socket: PathBuf) -> TestServer {
        let mut process = env.spawn_server_cmd(cmd, "server.stderr");
        wait_for_socket(&mut process, &socket);
        TestServer {
            process,
            socket,
            args: None,
            restarts: 0,
            env,
        }
    }

    /// A crash and a restart: SIGKILLs the server, then starts it again with
    /// the same arguments on the same env (its state dir carries over) and
    /// waits until it answers a request. Each run logs to its own file.
    #[track_caller]
    pub fn crash_and_restart(&mut self) {
        let Some(args) = self.args.clone() else {
            panic!("this server was started from a command: it cannot be restarted");
        };
        self.process.signal(Signal::SIGKILL);
        let status = self.process.wait_exit();
        assert_eq!(status.signal(), Some(Signal::SIGKILL as i32), "{status}");
        self.restarts += 1;
        let log = format!("server-{}.stderr", self.restarts + 1);
        let mut process = self.env.spawn_server_cmd(self.env.command(&args), &log);
        wait_for_socket(&mut process, &self.socket);
        self.process = process;
        self.client()
            .call_ok("server.status", serde_json::json!({}));
    }

    /// The socket the server listens on.
    pub fn socket_path(&self) -> &Path {
        &self.socket
    }

    /// The test's environment and dirs.
    pub fn env(&self) -> &TestEnv {
        &self.env
    }

    /// The server process.
    pub fn process(&mut self) -> &mut ServerProcess {
        &mut self.process
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.process.stderr()
    }

    /// A new connection to the server.
    #[track_caller]
    pub fn client(&self) -> Client {
        Client::connect(&self.socket)
    }

    /// Runs the binary as a CLI with the server's environment.
    pub fn cli<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.env.cli(args)
    }

    /// Like `cli`, with `input` on the CLI's standard input (through a file, so the
    /// CLI reads it whole and sees EOF).
    pub fn cli_with_stdin<S: AsRef<OsStr>>(&self, args: &[S], input: &[u8]) -> Output {
        let path = self.env.root().join("cli-stdin");
        if let Err(e) = std::fs::write(&path, input) {
            panic!("cannot write {}: {e}", path.display());
        }
        let stdin = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) => panic!("cannot open {}: {e}", path.display()),
        };
        let mut cmd = self.env.command(args);
        cmd.stdin(stdin);
        run_with_deadline(&mut cmd, "signaltty (with stdin)")
    }

    /// Fails the test, with the server's stderr, if the server has exited.
    #[track_caller]
    pub fn assert_running(&mut self) {
        self.process.assert_running();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // A failing test shows what the server logged; the harness captures this output
        // and prints it only for failed tests.
        if std::thread::panicking() {
            for n in 1..=self.restarts {
                let log = if n == 1 {
                    "server.stderr".to_owned()
                } else {
                    format!("server-{n}.stderr")
                };
                let text = fs::read(self.env.root().join(log))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                eprintln!("--- stderr of run #{n} (before a restart) ---\n{text}--- end ---");
            }
            eprintln!(
                "--- stderr of the server {} ---\n{}--- end of server stderr ---",
                self.pid(),
                self.stderr()
            );
        }
    }
}

/// Polls until `socket` accepts a connection, failing early (with the server's
/// stderr) if the server exits, and after the deadline otherwise.
fn wait_for_socket(process: &mut ServerProcess, socket: &Path) {
    let start = Instant::now();
    loop {
        if UnixStream::connect(socket).is_ok() {
            return;
        }
        if let Some(status) = process.try_status() {
            panic!(
                "the server exited ({status}) before listening on {}; its stderr:\n{}",
                socket.display(),
                process.stderr()
            );
        }
        if start.elapsed() >= DEADLINE {
            panic!(
                "the server did not listen on {} within {DEADLINE:?}; its stderr:\n{}",
                socket.display(),
                process.stderr()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Polls until `pid` is gone (or a zombie), with the harness deadline.
pub fn wait_process_gone(pid: u32, what: &str) {
    wait_until(what, DEADLINE, || super::process_gone(pid).then_some(()));
}
