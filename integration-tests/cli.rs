//! The blocking CLI against a real server (docs/cli.md): human and `--json` output,
//! exit codes, error reporting, socket resolution, and `start` / `stop`.

use crate::support::process::wait_process_gone;
use crate::support::{Client, TestEnv, TestServer, process_gone, str_field};
use nix::sys::signal::{Signal, kill};
use nix::sys::socket::{getsockopt, sockopt};
use nix::unistd::{Pid, Uid};
use serde_json::{Value, json};
use signaltty_protocol::{Method, PROTOCOL};
use std::process::Output;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit 0 and returns stdout.
#[track_caller]
fn success(out: &Output) -> String {
    assert!(
        out.status.success(),
        "expected exit 0, got {}\nstdout: {}\nstderr: {}",
        out.status,
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

/// Asserts exit 0 and parses stdout as one JSON value.
#[track_caller]
fn json_out(out: &Output) -> Value {
    let text = success(out);
    match serde_json::from_str(text.trim_end()) {
        Ok(value) => value,
        Err(e) => panic!("--json stdout is not one JSON value ({e}): {text:?}"),
    }
}

/// Asserts exit 1 with `CODE: message` on stderr and returns stderr.
#[track_caller]
fn failure(out: &Output, code: &str) -> String {
    let err = stderr(out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected exit 1, got {}\nstdout: {}\nstderr: {err}",
        out.status,
        stdout(out)
    );
    assert!(
        err.contains(&format!("{code}: ")),
        "stderr does not report `{code}: …`: {err}"
    );
    err
}

/// Kills a server the test started indirectly (through `signaltty start`) if the test
/// ends while it still runs.
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if !process_gone(self.0) {
            let _ = kill(Pid::from_raw(self.0 as i32), Signal::SIGKILL);
        }
    }
}

/// The pid of the process listening on `client`'s socket, from `SO_PEERCRED`.
fn server_pid(client: &Client) -> u32 {
    match getsockopt(client.stream(), sockopt::PeerCredentials) {
        Ok(creds) => creds.pid() as u32,
        Err(e) => panic!("cannot read the peer credentials: {e}"),
    }
}

#[test]
fn status_prints_a_human_summary_and_with_json_the_raw_status_result() {
    let server = TestServer::start();
    let human = success(&server.cli(&["status"]));
    assert!(!human.trim().is_empty(), "status prints something");
    assert!(
        human.contains(env!("CARGO_PKG_VERSION")) || human.contains(PROTOCOL),
        "the human status names the version or protocol: {human}"
    );
    let status = json_out(&server.cli(&["status", "--json"]));
    assert_eq!(status["protocol"], PROTOCOL);
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(status["workspaces"], 0);
    for field in ["uptime_s", "tabs", "panes", "live_panes", "seq"] {
        assert!(status[field].is_u64(), "{field} in {status}");
    }
    assert!(
        status.get("ok").is_none() && status.get("result").is_none(),
        "the raw result, not the envelope"
    );
}

#[test]
fn global_flags_are_accepted_before_or_after_the_subcommand() {
    let server = TestServer::start();
    let socket = server
        .socket_path()
        .to_str()
        .expect("utf-8 socket path")
        .to_owned();
    let variants: [&[&str]; 5] = [
        &["--json", "status"],
        &["status", "--json"],
        &["--socket", &socket, "status", "--json"],
        &["status", "--socket", &socket, "--json"],
        &["--json", "--socket", &socket, "status"],
    ];
    for args in variants {
        let status = json_out(&server.cli(args));
        assert_eq!(status["protocol"], PROTOCOL, "for {args:?}");
    }
    let mut env = TestEnv::new();
    // With a wrong default path, only the flag can find the server.
    env.set_var("SIGNALTTY_SOCKET", env.root().join("nothing-here.sock"));
    let status = json_out(&env.cli(&["status", "--socket", &socket, "--json"]));
    assert_eq!(status["protocol"], PROTOCOL);
}

#[test]
fn schema_json_lists_the_dispatched_methods_and_21_codes() {
    let server = TestServer::start();
    let schema = json_out(&server.cli(&["schema", "--json"]));
    assert_eq!(schema["methods"], json!(Method::NAMES));
    assert_eq!(schema["codes"].as_array().map(Vec::len), Some(21));
    assert_eq!(schema["protocol"], PROTOCOL);
}

#[test]
fn workspace_commands_create_list_get_rename_and_close_with_json_output() {
    let server = TestServer::start();
    let created = json_out(&server.cli(&["workspace", "create", "--name", "CLI Space", "--json"]));
    let ws = created["workspace"].clone();
    assert_eq!(ws["name"], "CLI Space");
    assert_eq!(ws["handle"], "cli-space");
    let id = str_field(&ws, "id").to_owned();

    let listed = json_out(&server.cli(&["workspace", "list", "--json"]));
    assert_eq!(listed, json!({"workspaces": [ws.clone()]}));

    for reference in [id.as_str(), "cli-space"] {
        let got = json_out(&server.cli(&["workspace", "get", reference, "--json"]));
        assert_eq!(got["workspace"], ws);
        assert_eq!(got["tabs"], json!([]));
        assert_eq!(got["panes"], json!([]));
    }

    let renamed = json_out(&server.cli(&[
        "workspace",
        "rename",
        "cli-space",
        "Renamed Space",
        "--json",
    ]));
    assert_eq!(renamed["workspace"]["name"], "Renamed Space");
    assert_eq!(renamed["workspace"]["handle"], "cli-space");
    assert_eq!(renamed["workspace"]["id"], id.as_str());

    // The CLI and a socket client see the same server.
    let over_socket = server
        .client()
        .call_ok("workspace.get", json!({"workspace_id": id}));
    assert_eq!(over_socket["workspace"]["name"], "Renamed Space");

    let closed = json_out(&server.cli(&["workspace", "close", "cli-space", "--json"]));
    assert_eq!(closed, json!({"closed": true}));
    failure(&server.cli(&["workspace", "get", &id]), "NO_SUCH_WORKSPACE");
    assert_eq!(
        json_out(&server.cli(&["workspace", "list", "--json"])),
        json!({"workspaces": []})
    );
}

#[test]
fn workspace_commands_without_json_succeed_and_print_something() {
    let server = TestServer::start();
    let out = success(&server.cli(&["workspace", "create", "--name", "plain"]));
    assert!(!out.trim().is_empty(), "create prints the new workspace");
    let out = success(&server.cli(&["workspace", "list"]));
    assert!(out.contains("plain"), "list mentions the workspace: {out}");
    success(&server.cli(&["workspace", "get", "plain"]));
    success(&server.cli(&["workspace", "rename", "plain", "still plain"]));
    success(&server.cli(&["workspace", "close", "plain", "--signal", "KILL"]));
}

#[test]
fn workspace_create_takes_a_cwd_and_refuses_a_missing_one_with_bad_params() {
    let server = TestServer::start();
    let dir = server.env().root().join("proj");
    std::fs::create_dir(&dir).expect("mkdir");
    let dir_text = dir.to_str().expect("utf-8");
    let created = json_out(&server.cli(&["workspace", "create", "--cwd", dir_text, "--json"]));
    assert_eq!(created["workspace"]["name"], "workspace");
    let cwd = str_field(&created["workspace"], "cwd");
    assert!(
        std::fs::canonicalize(cwd).ok() == std::fs::canonicalize(&dir).ok(),
        "cwd {cwd} is {}",
        dir.display()
    );
    let missing = server.env().root().join("missing");
    failure(
        &server.cli(&[
            "workspace",
            "create",
            "--cwd",
            missing.to_str().expect("utf-8"),
        ]),
        "BAD_PARAMS",
    );
}

#[test]
fn errors_exit_1_with_the_code_and_message_on_stderr() {
    let server = TestServer::start();
    for args in [
        &["workspace", "get", "no-such-thing"][..],
        &["workspace", "get", "no-such-thing", "--json"],
        &["workspace", "rename", "no-such-thing", "x"],
        &["workspace", "close", "no-such-thing"],
    ] {
        let out = server.cli(args);
        failure(&out, "NO_SUCH_WORKSPACE");
        assert!(
            stdout(&out).trim().is_empty(),
            "nothing on stdout for a failure: {}",
            stdout(&out)
        );
    }
    success(&server.cli(&["workspace", "create", "--name", "k"]));
    failure(
        &server.cli(&["workspace", "close", "k", "--signal", "STOP"]),
        "BAD_PARAMS",
    );
}

#[test]
fn without_a_server_the_cli_exits_1_naming_no_such_server_and_the_socket_path() {
    let env = TestEnv::new();
    let out = env.cli(&["status"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains("NO_SUCH_SERVER"), "stderr: {err}");
    let default = env.default_socket();
    assert!(
        err.contains(default.to_str().expect("utf-8")),
        "stderr names {}: {err}",
        default.display()
    );

    let flagged = env.root().join("flag.sock");
    let out = env.cli(&[
        "--socket",
        flagged.to_str().expect("utf-8"),
        "workspace",
        "list",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("NO_SUCH_SERVER") && err.contains(flagged.to_str().expect("utf-8")),
        "stderr: {err}"
    );

    let mut env = env;
    let by_env = env.root().join("env.sock");
    env.set_var("SIGNALTTY_SOCKET", &by_env);
    let out = env.cli(&["status", "--json"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("NO_SUCH_SERVER") && err.contains(by_env.to_str().expect("utf-8")),
        "stderr: {err}"
    );
    assert!(stdout(&out).trim().is_empty());
}

#[test]
fn with_an_empty_xdg_runtime_dir_the_cli_falls_back_to_the_tmp_socket_path() {
    let mut env = TestEnv::new();
    env.set_var("XDG_RUNTIME_DIR", "");
    let fallback = format!("/tmp/signaltty-{}/signaltty.sock", Uid::current().as_raw());
    if std::os::unix::net::UnixStream::connect(&fallback).is_ok() {
        // A real server of this user listens there; the fallback is then not testable
        // without disturbing it.
        eprintln!("skipped: a server already listens on {fallback}");
        return;
    }
    let out = env.cli(&["status"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("NO_SUCH_SERVER") && err.contains(&fallback),
        "stderr names {fallback}: {err}"
    );
    env.remove_var("XDG_RUNTIME_DIR");
    let out = env.cli(&["status"]);
    assert!(
        stderr(&out).contains(&fallback),
        "unset behaves like empty: {}",
        stderr(&out)
    );
}

#[test]
fn start_launches_a_detached_server_that_status_reaches_and_stop_ends() {
    let env = TestEnv::new();
    let out = env.cli(&["start"]);
    success(&out);
    // `start` returns only once the socket answers, so no polling here.
    let mut client = match Client::try_connect(&env.default_socket()) {
        Ok(client) => client,
        Err(e) => panic!(
            "`start` returned but {} does not answer: {e}",
            env.default_socket().display()
        ),
    };
    let pid = server_pid(&client);
    let _guard = KillOnDrop(pid);
    assert_eq!(
        client.call_ok("server.status", json!({}))["protocol"],
        PROTOCOL
    );
    drop(client);

    let status = json_out(&env.cli(&["status", "--json"]));
    assert_eq!(status["workspaces"], 0);

    // A second `start` finds the running server and starts no other.
    success(&env.cli(&["start"]));
    let again = Client::connect(&env.default_socket());
    assert_eq!(
        server_pid(&again),
        pid,
        "a second start reuses the running server"
    );
    drop(again);

    success(&env.cli(&["stop"]));
    wait_process_gone(
        pid,
        "the server started by `signaltty start` to exit after `stop`",
    );
    assert!(!env.default_socket().exists(), "the socket is removed");
    let out = env.cli(&["status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("NO_SUCH_SERVER"),
        "stderr: {}",
        stderr(&out)
    );
}

#[test]
fn stop_and_stop_force_end_a_running_server_with_exit_0() {
    for args in [&["stop"][..], &["stop", "--force"], &["--json", "stop"]] {
        let mut server = TestServer::start();
        let out = server.cli(args);
        success(&out);
        server.process().expect_exit_code(0);
        assert!(
            !server.socket_path().exists(),
            "socket removed after {args:?}"
        );
    }
}
