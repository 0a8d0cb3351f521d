//! Servers started one after another on one env, as a user restarts
//! signaltty: the state dir (journal, snapshot) carries over from one server
//! process to the next. Used by the journal and restore tests.

use crate::support::process::ServerProcess;
use crate::support::{Client, TestEnv};
use nix::sys::signal::Signal;
use serde_json::json;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;

/// Servers started one after another on one env: the state dir carries over.
pub struct Life {
    // Declared before `env` so a running server is stopped before its dirs go.
    server: Option<ServerProcess>,
    /// The env every server of this life runs in.
    pub env: TestEnv,
    extra_args: Vec<String>,
    starts: usize,
}

impl Life {
    /// A fresh env; every server gets `server` plus `extra_args`.
    pub fn new(extra_args: &[&str]) -> Life {
        Life {
            server: None,
            env: TestEnv::new(),
            extra_args: extra_args.iter().map(|a| (*a).to_owned()).collect(),
            starts: 0,
        }
    }

    pub fn server_args(&self) -> Vec<String> {
        let mut args = vec!["server".to_owned()];
        args.extend(self.extra_args.iter().cloned());
        args
    }

    pub fn next_log(&mut self) -> String {
        self.starts += 1;
        format!("server-{}.stderr", self.starts)
    }

    /// Starts a server and waits until it answers a request. A connect alone is not
    /// enough: the socket is bound before the journal is opened (and a torn tail cut),
    /// and early connections simply wait in the backlog.
    #[track_caller]
    pub fn start(&mut self) {
        assert!(self.server.is_none(), "a server of this test already runs");
        let args = self.server_args();
        let log = self.next_log();
        let socket = self.env.default_socket();
        self.server = Some(self.env.spawn_listening(&args, &log, &socket));
        self.client().call_ok("server.status", json!({}));
    }

    /// Starts a server like `start`, but says what went wrong instead of
    /// failing: the first request's fate, the exit status if the process
    /// has exited, and its stderr (the soak reports it with its figures).
    pub fn try_start(&mut self) -> Result<(), String> {
        assert!(self.server.is_none(), "a server of this test already runs");
        let args = self.server_args();
        let log = self.next_log();
        let socket = self.env.default_socket();
        self.server = Some(self.env.spawn_listening(&args, &log, &socket));
        let answered = status_answers(&socket);
        answered.map_err(|why| {
            let server = self.running();
            // A process that closed the socket may take a moment to be reaped.
            let status = (0..100).find_map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                server.try_status()
            });
            format!(
                "the new server did not answer server.status ({why}); exit status {status:?}; stderr:\n{}",
                server.stderr()
            )
        })
    }

    /// Starts a server that must refuse to start with `code`; returns its stderr.
    #[track_caller]
    pub fn start_refused(&mut self, code: i32) -> String {
        assert!(self.server.is_none(), "a server of this test already runs");
        let args = self.server_args();
        let log = self.next_log();
        let mut process = self.env.spawn_server(&args, &log);
        process.expect_exit_code(code);
        process.stderr()
    }

    #[track_caller]
    pub fn running(&mut self) -> &mut ServerProcess {
        match self.server.as_mut() {
            Some(server) => server,
            None => panic!("no server of this test runs"),
        }
    }

    pub fn pid(&mut self) -> u32 {
        self.running().pid()
    }

    /// SIGKILL: the server gets no chance to clean up.
    #[track_caller]
    pub fn kill9(&mut self) {
        self.running().signal(Signal::SIGKILL);
        self.reap_killed();
    }

    /// Reaps a server that was sent SIGKILL.
    #[track_caller]
    pub fn reap_killed(&mut self) {
        let mut server = match self.server.take() {
            Some(server) => server,
            None => panic!("no server of this test runs"),
        };
        let status = server.wait_exit();
        assert_eq!(
            status.signal(),
            Some(Signal::SIGKILL as i32),
            "the server was to die of SIGKILL, it ended with {status}; stderr:\n{}",
            server.stderr()
        );
    }

    /// SIGTERM: a clean stop, exit 0.
    #[track_caller]
    pub fn stop(&mut self) {
        let mut server = match self.server.take() {
            Some(server) => server,
            None => panic!("no server of this test runs"),
        };
        server.signal(Signal::SIGTERM);
        server.expect_exit_code(0);
    }

    pub fn socket(&self) -> PathBuf {
        self.env.default_socket()
    }

    #[track_caller]
    pub fn client(&self) -> Client {
        Client::connect(&self.socket())
    }

    /// `$XDG_STATE_HOME/signaltty`.
    pub fn state(&self) -> PathBuf {
        state_dir(&self.env)
    }
}

impl Drop for Life {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for n in 1..=self.starts {
                let path = self.env.root().join(format!("server-{n}.stderr"));
                let text = std::fs::read(&path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                eprintln!("--- stderr of server #{n} ---\n{text}--- end ---");
            }
        }
    }
}

/// Whether a `server.status` on a new connection to `socket` is answered.
fn status_answers(socket: &std::path::Path) -> Result<(), String> {
    use std::io::{BufRead, Write};
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(crate::support::DEADLINE))
        .map_err(|e| e.to_string())?;
    let line = crate::support::request_line("status", "server.status", json!({}));
    stream
        .write_all(line.as_bytes())
        .map_err(|e| format!("write: {e}"))?;
    let mut reply = String::new();
    match std::io::BufReader::new(stream).read_line(&mut reply) {
        Ok(0) => Err("the connection closed unanswered".to_owned()),
        Ok(_) if reply.contains("\"ok\":true") => Ok(()),
        Ok(_) => Err(format!("answered {reply}")),
        Err(e) => Err(format!("read: {e}")),
    }
}

/// `$XDG_STATE_HOME/signaltty` of `env`.
pub fn state_dir(env: &TestEnv) -> PathBuf {
    env.state_home().join("signaltty")
}
