//! Socket activation and readiness (docs/service.md), emulated the way systemd
//! does it: the test binds and listens on the socket itself, then starts
//! `signaltty server` with that listener as fd 3, `LISTEN_FDS=1`, `LISTEN_PID`
//! set to the server's own pid (a shell sets it, then execs the server in its
//! place) and a `NOTIFY_SOCKET` datagram socket the test reads.

use crate::support::process::ServerProcess;
use crate::support::{Client, DEADLINE, TestEnv, ok, poll_until, str_field, u64_field};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
use std::os::unix::net::{UnixDatagram, UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// The descriptor systemd passes the first socket on.
const FD: RawFd = 3;

/// `env`'s default socket dir, made (0700) the way the socket unit's
/// `DirectoryMode=` does, and the socket path in it.
fn socket_in(env: &TestEnv) -> PathBuf {
    let dir = env.default_socket_dir();
    if let Err(e) = std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    env.default_socket()
}

/// The socket systemd would bind and listen on, as the socket unit does.
fn listening(env: &TestEnv) -> (PathBuf, UnixListener) {
    let socket = socket_in(env);
    match UnixListener::bind(&socket) {
        Ok(l) => (socket, l),
        Err(e) => panic!("cannot bind {}: {e}", socket.display()),
    }
}

/// A datagram socket standing in for systemd's notification socket.
fn notify_socket(env: &TestEnv) -> (UnixDatagram, PathBuf) {
    let path = env.root().join("notify.sock");
    let socket = match UnixDatagram::bind(&path) {
        Ok(s) => s,
        Err(e) => panic!("cannot bind {}: {e}", path.display()),
    };
    if let Err(e) = socket.set_read_timeout(Some(DEADLINE)) {
        panic!("cannot set a read timeout: {e}");
    }
    (socket, path)
}

/// The next notification datagram, as `KEY=VALUE` pairs.
#[track_caller]
fn next_notification(socket: &UnixDatagram) -> HashMap<String, String> {
    let mut buf = [0u8; 4096];
    let n = match socket.recv(&mut buf) {
        Ok(n) => n,
        Err(e) => panic!("no notification from the server within {DEADLINE:?}: {e}"),
    };
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Starts `signaltty server` with `passed` as fd 3 (or fd 3 closed when
/// `None`) and the socket-activation variables, `NOTIFY_SOCKET` when given.
fn spawn_activated(
    env: &TestEnv,
    passed: Option<RawFd>,
    notify: Option<&Path>,
    log_name: &str,
) -> ServerProcess {
    // `$$` is the shell's pid, which `exec` hands on to the server: LISTEN_PID
    // names the server, as systemd sets it after its fork.
    let mut cmd = env.shell_command(r#"LISTEN_PID=$$ exec "$0" server"#);
    cmd.env("LISTEN_FDS", "1")
        .env("LISTEN_FDNAMES", "signaltty.socket");
    match notify {
        Some(path) => cmd.env("NOTIFY_SOCKET", path),
        None => cmd.env_remove("NOTIFY_SOCKET"),
    };
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec and makes only
    // async-signal-safe calls (dup2, fcntl, close) on descriptor numbers; it
    // allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(move || {
            let fail = || Err(std::io::Error::last_os_error());
            match passed {
                // dup2 onto itself would keep close-on-exec: clear it instead.
                Some(fd) if fd == FD => {
                    if nix::libc::fcntl(FD, nix::libc::F_SETFD, 0) == -1 {
                        return fail();
                    }
                },
                Some(fd) => {
                    if nix::libc::dup2(fd, FD) == -1 {
                        return fail();
                    }
                },
                None => {
                    nix::libc::close(FD);
                },
            }
            Ok(())
        });
    }
    env.spawn_server_cmd(cmd, log_name)
}

/// The variables of a `KEY=VALUE` listing.
fn env_map(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Whether `path` is a socket file.
fn is_socket_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

#[test]
fn an_activated_server_answers_its_backlog_reports_ready_and_leaves_the_socket() {
    let env = TestEnv::new();
    let (socket, listener) = listening(&env);
    let (notify, notify_path) = notify_socket(&env);

    // A client connects and asks before any server runs: systemd's socket
    // holds it in the backlog.
    let mut early = match Client::try_connect(&socket) {
        Ok(c) => c,
        Err(e) => panic!("cannot connect to the listening socket: {e}"),
    };
    let early_id = early.send("server.status", json!({}));

    let mut server = spawn_activated(
        &env,
        Some(listener.as_raw_fd()),
        Some(&notify_path),
        "server.stderr",
    );
    let ready = next_notification(&notify);
    assert_eq!(
        ready.get("READY").map(String::as_str),
        Some("1"),
        "{ready:?}"
    );
    assert_eq!(
        ready.get("MAINPID"),
        Some(&server.pid().to_string()),
        "{ready:?}"
    );

    let response = early.read_response();
    assert_eq!(response.id, early_id);
    let status = ok(response);
    assert_eq!(status["socket_activated"], json!(true), "{status}");
    assert_eq!(u64_field(&status, "pid"), u64::from(server.pid()));

    // A pane's process sees neither the activation variables nor the
    // notification socket, and is told the socket it was reached on.
    let mut c = Client::connect(&socket);
    let cwd = env.root().to_string_lossy().into_owned();
    let ws = ok(c.call("workspace.create", json!({"name": "svc", "cwd": cwd})));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    let listing = env.root().join("pane-env");
    let script = format!(
        "env > '{0}.tmp' && mv '{0}.tmp' '{0}'; exec sleep 600",
        listing.display()
    );
    ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["/bin/sh", "-c", script]}),
    ));
    assert!(
        poll_until(DEADLINE, || listing.exists()),
        "the pane never wrote its environment; server stderr:\n{}",
        server.stderr()
    );
    let vars = match std::fs::read_to_string(&listing) {
        Ok(t) => env_map(&t),
        Err(e) => panic!("cannot read {}: {e}", listing.display()),
    };
    for key in [
        "LISTEN_PID",
        "LISTEN_FDS",
        "LISTEN_FDNAMES",
        "NOTIFY_SOCKET",
    ] {
        assert!(!vars.contains_key(key), "{key} reached a pane: {vars:?}");
    }
    assert_eq!(
        vars.get("SIGNALTTY_SOCKET").map(PathBuf::from),
        Some(socket.clone())
    );
    assert!(
        !server.stderr().contains("stay in the environment"),
        "the variables were removed from the server's own environment too:\n{}",
        server.stderr()
    );

    // `signaltty stop` waits for the process, not for the socket to go quiet:
    // systemd's socket keeps accepting.
    let out = env.cli(&["stop", "--force"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stop failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("next command starts the server again"),
        "{stdout}"
    );
    server.expect_exit_code(0);
    let stopping = next_notification(&notify);
    assert_eq!(
        stopping.get("STOPPING").map(String::as_str),
        Some("1"),
        "{stopping:?}"
    );
    assert!(
        is_socket_file(&socket),
        "the socket file belongs to systemd and stays after the server stops"
    );

    // The next connection waits in the backlog again, and the next activated
    // server answers it: what the socket unit does after `signaltty stop`.
    let mut next = Client::connect(&socket);
    let next_id = next.send("server.status", json!({}));
    let mut again = spawn_activated(&env, Some(listener.as_raw_fd()), None, "again.stderr");
    let response = next.read_response();
    assert_eq!(response.id, next_id);
    let status = ok(response);
    assert_eq!(status["socket_activated"], json!(true), "{status}");
    assert_eq!(u64_field(&status, "pid"), u64::from(again.pid()));
    let restored: Value = status["restore"].clone();
    assert!(restored.is_object(), "{status}");
    ok(next.call("server.shutdown", json!({"force": true})));
    again.expect_exit_code(0);
    assert!(is_socket_file(&socket));
}

/// Starts an activated server on `passed` and expects it to refuse with exit
/// code 1 and a message containing each of `says`.
#[track_caller]
fn refused(env: &TestEnv, passed: Option<RawFd>, says: &[&str], log: &str) {
    let mut server = spawn_activated(env, passed, None, log);
    server.expect_exit_code(1);
    let stderr = server.stderr();
    for text in says {
        assert!(stderr.contains(text), "expected {text:?} in:\n{stderr}");
    }
}

#[test]
fn a_passed_descriptor_that_is_not_a_listening_unix_socket_is_refused_clearly() {
    let env = TestEnv::new();
    let file_path = env.root().join("regular-file");
    let file = match std::fs::write(&file_path, b"x").and_then(|()| std::fs::File::open(&file_path))
    {
        Ok(f) => f,
        Err(e) => panic!("cannot make {}: {e}", file_path.display()),
    };
    refused(
        &env,
        Some(file.as_raw_fd()),
        &["fd 3", "not a socket", "regular file"],
        "file.stderr",
    );
    refused(&env, None, &["fd 3", "not open"], "closed.stderr");

    let datagram = match UnixDatagram::bind(env.root().join("dgram.sock")) {
        Ok(s) => s,
        Err(e) => panic!("cannot bind a datagram socket: {e}"),
    };
    refused(
        &env,
        Some(datagram.as_raw_fd()),
        &["fd 3", "not a stream socket"],
        "dgram.stderr",
    );

    // A connected stream socket is a socket, but not one that listens.
    let (a, _b) = match UnixStream::pair() {
        Ok(pair) => pair,
        Err(e) => panic!("cannot make a socket pair: {e}"),
    };
    refused(
        &env,
        Some(a.as_raw_fd()),
        &["fd 3", "does not listen"],
        "pair.stderr",
    );
}

/// An activated server upgraded in place (docs/upgrade.md): it tells the
/// manager it reloads, the new binary says READY with the same main pid,
/// still serves the manager's socket (and leaves it at stop), and no pane
/// started after sees the upgrade's or the manager's variables.
#[test]
fn an_activated_server_upgraded_in_place_stays_the_managers_service() {
    let env = TestEnv::new();
    let (socket, listener) = listening(&env);
    let (notify, notify_path) = notify_socket(&env);
    let mut server = spawn_activated(
        &env,
        Some(listener.as_raw_fd()),
        Some(&notify_path),
        "server.stderr",
    );
    let ready = next_notification(&notify);
    assert_eq!(ready.get("READY").map(String::as_str), Some("1"));
    let mut c = Client::connect(&socket);
    let report = c.call_ok("server.upgrade", json!({}));
    assert_eq!(u64_field(&report, "pid"), u64::from(server.pid()));
    let reloading = next_notification(&notify);
    assert_eq!(
        reloading.get("RELOADING").map(String::as_str),
        Some("1"),
        "{reloading:?}"
    );
    assert!(reloading.contains_key("MONOTONIC_USEC"), "{reloading:?}");
    let ready = next_notification(&notify);
    assert_eq!(
        ready.get("READY").map(String::as_str),
        Some("1"),
        "{ready:?}"
    );
    assert_eq!(ready.get("MAINPID"), Some(&server.pid().to_string()));
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(status["socket_activated"], json!(true), "{status}");
    assert_eq!(u64_field(&status, "upgrades"), 1, "{status}");

    let cwd = env.root().to_string_lossy().into_owned();
    c.call_ok("workspace.create", json!({"name": "svc", "cwd": cwd}));
    let listing = env.root().join("pane-env");
    let script = format!(
        "env > '{0}.tmp' && mv '{0}.tmp' '{0}'; exec sleep 600",
        listing.display()
    );
    c.call_ok(
        "pane.spawn",
        json!({"workspace_id": "svc", "argv": ["/bin/sh", "-c", script]}),
    );
    assert!(poll_until(DEADLINE, || listing.exists()));
    let vars = env_map(&std::fs::read_to_string(&listing).unwrap_or_default());
    for key in [
        "LISTEN_PID",
        "LISTEN_FDS",
        "NOTIFY_SOCKET",
        "SIGNALTTY_UPGRADE",
        "SIGNALTTY_UPGRADE_FDS",
    ] {
        assert!(!vars.contains_key(key), "{key} reached a pane: {vars:?}");
    }
    assert!(
        !server.stderr().contains("stay in the environment"),
        "{}",
        server.stderr()
    );
    let out = env.cli(&["stop", "--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.expect_exit_code(0);
    assert!(is_socket_file(&socket), "the manager's socket file stays");
}
