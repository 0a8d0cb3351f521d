//! Socket security beyond file modes (docs/protocol.md#the-socket): peers of another
//! uid are dropped without a reply even when the permissions let them in, and an
//! over-long socket path is refused with a message that says what to do.

use crate::support::process::set_mode;
use crate::support::{TestEnv, TestServer, ok};
use nix::unistd::Uid;
use serde_json::json;
use std::process::Command;

/// The uid of `nobody`, the foreign peer.
const FOREIGN_UID: &str = "65534";

#[test]
fn a_peer_of_another_uid_is_dropped_without_a_reply_even_when_permissions_allow_it() {
    if !Uid::current().is_root() || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: needs root and setpriv (util-linux) to run a client as another uid");
        return;
    }
    let env = TestEnv::new();
    // Open everything up so only the server's SO_PEERCRED check stands in the way.
    let shared = env.root().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    set_mode(env.root(), 0o755);
    set_mode(&shared, 0o777);
    let socket = shared.join("s.sock");
    let mut server = TestServer::start_with_socket_flag(env, &socket);
    set_mode(&socket, 0o666);

    let output = Command::new("setpriv")
        .args([
            "--reuid",
            FOREIGN_UID,
            "--regid",
            FOREIGN_UID,
            "--clear-groups",
        ])
        .arg(env!("CARGO_BIN_EXE_signaltty"))
        .arg("--socket")
        .arg(&socket)
        .args(["--json", "status"])
        .output()
        .expect("run setpriv");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the foreign client must fail; stdout {stdout} stderr {stderr}"
    );
    assert!(
        stdout.trim().is_empty(),
        "the foreign client got an answer: {stdout}"
    );
    assert!(stderr.contains("closed the connection"), "stderr: {stderr}");

    server.assert_running();
    let mut client = server.client();
    assert_eq!(ok(client.call("server.status", json!({})))["workspaces"], 0);
    let log = server.stderr();
    assert!(
        log.contains(&format!("refused a connection from uid {FOREIGN_UID}")),
        "server log: {log}"
    );
}

#[test]
fn a_socket_path_longer_than_the_kernel_allows_is_refused_with_advice() {
    let env = TestEnv::new();
    let socket = env.root().join(format!("{}.sock", "s".repeat(120)));
    let mut server = env.spawn_server(
        &["server".as_ref(), "--socket".as_ref(), socket.as_os_str()],
        "long.stderr",
    );
    server.expect_exit_code(1);
    let stderr = server.stderr();
    assert!(stderr.contains("longer than 107 bytes"), "stderr: {stderr}");
    assert!(
        stderr.contains("SIGNALTTY_SOCKET"),
        "stderr names the override: {stderr}"
    );
}
