//! In-process system tests (the system tests of docs/ARCHITECTURE.md#testing): a
//! whole server started with [`crate::run`] on a temporary socket and state
//! directory, driven over the socket like any client, without a subprocess.

use crate::testkit::config;
use crate::{EXIT_ALREADY_RUNNING, StateDir, run};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

/// Sends one request line and reads lines until its response.
async fn call(stream: &mut BufReader<UnixStream>, id: &str, method: &str, params: Value) -> Value {
    let line = json!({"protocol": "signaltty/1", "id": id, "method": method, "params": params});
    let mut text = line.to_string();
    text.push('\n');
    stream.get_mut().write_all(text.as_bytes()).await.unwrap();
    loop {
        let mut reply = String::new();
        let read = tokio::time::timeout(Duration::from_secs(30), stream.read_line(&mut reply))
            .await
            .expect("a reply within 30 s")
            .unwrap();
        assert!(read > 0, "the server closed the connection");
        let value: Value = serde_json::from_str(&reply).unwrap();
        if value["id"] == id {
            return value;
        }
    }
}

#[actix::test]
async fn an_in_process_server_serves_requests_and_stops_with_exit_code_zero() {
    let dir = tempfile::tempdir().unwrap();
    let config = Arc::new(config(dir.path()));
    let state = StateDir::open(&config).expect("the state directory opens");
    // A second server on the same state directory is refused while this one holds it.
    assert_eq!(StateDir::open(&config).err(), Some(EXIT_ALREADY_RUNNING));
    let listener = std::os::unix::net::UnixListener::bind(&config.socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let (shutdown, requests) = tokio::sync::mpsc::unbounded_channel();
    let server = actix_rt::spawn(run(listener, config.clone(), state, requests));

    let stream = UnixStream::connect(&config.socket).await.unwrap();
    let mut stream = BufReader::new(stream);
    let status = call(&mut stream, "1", "server.status", json!({})).await;
    assert_eq!(status["ok"], true, "{status}");
    assert_eq!(status["result"]["workspaces"], 0, "{status}");
    let created = call(
        &mut stream,
        "2",
        "workspace.create",
        json!({"name": "In Process", "cwd": dir.path()}),
    )
    .await;
    assert_eq!(
        created["result"]["workspace"]["handle"], "in-process",
        "{created}"
    );
    let listed = call(&mut stream, "3", "workspace.list", json!({})).await;
    assert_eq!(
        listed["result"]["workspaces"].as_array().map(Vec::len),
        Some(1)
    );

    shutdown.send("the test is done".into()).unwrap();
    let code = tokio::time::timeout(Duration::from_secs(30), server)
        .await
        .expect("the server stops within 30 s")
        .unwrap();
    assert_eq!(code, 0);
    // Its state directory is free again.
    assert!(StateDir::open(&config).is_ok());
}
