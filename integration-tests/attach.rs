//! `pane.attach` / `pane.detach` and the `pty.data` contract
//! (docs/terminal.md#attach): the snapshot and its offset are taken together,
//! so a client that attaches while the child is writing can rebuild the exact
//! byte stream from the snapshot's offset on: nothing lost, nothing doubled.

use crate::support::{Client, TestServer, expect_code, ok, wait_until};
use base64::Engine as _;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::time::Duration;

const LINES: usize = 20_000;

fn spawn(client: &mut Client, argv: &[&str]) -> String {
    ok(client.call("workspace.create", json!({"name": "att"})));
    let pane = ok(client.call("pane.spawn", json!({"workspace_id": "att", "argv": argv})));
    pane["pane"]["id"].as_str().unwrap_or_default().to_owned()
}

fn decode(b64: &str) -> Vec<u8> {
    match base64::engine::general_purpose::STANDARD.decode(b64) {
        Ok(b) => b,
        Err(e) => panic!("pty.data is not base64: {e}"),
    }
}

#[test]
fn attaching_during_output_loses_and_doubles_no_byte() {
    let server = TestServer::start();
    let mut c = server.client();
    let script =
        format!("i=0; while [ $i -lt {LINES} ]; do echo \"line $i\"; i=$((i+1)); done; sleep 2");
    let pane = spawn(&mut c, &["sh", "-c", &script]);
    // The whole stream the child writes, as the PTY turns `\n` into `\r\n`.
    let expected: Vec<u8> = (0..LINES)
        .flat_map(|i| format!("line {i}\r\n").into_bytes())
        .collect();

    // Attach while output is still flowing.
    wait_until("some output", Duration::from_secs(10), || {
        let r = ok(c.call(
            "pane.read",
            json!({"pane_id": pane, "mode": "tail", "lines": 1}),
        ));
        (!r["text"].as_str().unwrap_or_default().is_empty()).then_some(())
    });
    let mut viewer = server.client();
    let reply = ok(viewer.call("pane.attach", json!({"pane_id": pane})));
    let mut covered = reply["output_offset"].as_u64().unwrap_or_default();
    assert!(covered as usize <= expected.len());
    assert!(!decode(reply["snapshot_b64"].as_str().unwrap_or_default()).is_empty());
    assert_eq!(reply["size"], json!({"cols": 80, "rows": 24}));
    assert_eq!(reply["live"]["state"], "live");
    let start = covered as usize;

    let mut stream = Vec::new();
    while (covered as usize) < expected.len() {
        let event = viewer.next_event();
        assert_eq!(event.event, "pty.data");
        assert_eq!(event.payload["pane_id"], pane.as_str());
        let data = decode(event.payload["data_b64"].as_str().unwrap_or_default());
        let end = event.payload["output_offset"].as_u64().unwrap_or_default();
        let chunk_start = end - data.len() as u64;
        assert!(
            chunk_start <= covered,
            "a gap: chunk starts at {chunk_start}, covered {covered}"
        );
        if end > covered {
            stream.extend_from_slice(&data[(covered - chunk_start) as usize..]);
            covered = end;
        }
    }
    assert_eq!(covered as usize, expected.len());
    assert!(
        stream == expected[start..],
        "the reassembled stream differs from what the child wrote"
    );
}

#[test]
fn attach_resizes_and_detach_stops_the_stream_but_not_the_process() {
    let server = TestServer::start();
    let mut c = server.client();
    let pane = spawn(&mut c, &["cat"]);
    let mut viewer = server.client();
    let reply = ok(viewer.call(
        "pane.attach",
        json!({"pane_id": pane, "cols": 120, "rows": 40}),
    ));
    assert_eq!(reply["size"], json!({"cols": 120, "rows": 40}));
    assert_eq!(
        ok(c.call("pane.get", json!({"pane_id": pane})))["pane"]["pty_size"],
        json!({"cols": 120, "rows": 40})
    );
    // Attaching twice on one connection is one viewer: input echoes once.
    ok(viewer.call("pane.attach", json!({"pane_id": pane})));
    let input = base64::engine::general_purpose::STANDARD.encode("ping\r");
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": input})));
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("ping\r\n") {
        let e = viewer.next_event();
        seen.extend(decode(e.payload["data_b64"].as_str().unwrap_or_default()));
    }
    assert_eq!(
        ok(viewer.call("pane.detach", json!({"pane_id": pane})))["detached"],
        true
    );
    let input = base64::engine::general_purpose::STANDARD.encode("pong\r");
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": input})));
    wait_until("the echo in the pane", Duration::from_secs(10), || {
        let r = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        r["text"]
            .as_str()
            .unwrap_or_default()
            .contains("pong")
            .then_some(())
    });
    // The detached viewer got nothing more; its next reply is the next line.
    let status = ok(viewer.call("server.status", json!({})));
    assert_eq!(status["live_panes"], 1);
    assert!(
        viewer
            .take_queued_events()
            .iter()
            .all(|e: &signaltty_protocol::EventFrame| {
                !String::from_utf8_lossy(&decode(
                    e.payload["data_b64"].as_str().unwrap_or_default(),
                ))
                .contains("pong")
            })
    );
}

#[test]
fn attach_to_an_unknown_pane_is_no_such_pane_and_mistyped_sizes_are_bad_params() {
    let server = TestServer::start();
    let mut c = server.client();
    expect_code(
        c.call("pane.attach", json!({"pane_id": "pane_nope"})),
        ErrorCode::NoSuchPane,
    );
    let pane = spawn(&mut c, &["cat"]);
    expect_code(
        c.call(
            "pane.attach",
            json!({"pane_id": pane, "cols": -1, "rows": 5}),
        ),
        ErrorCode::BadParams,
    );
    let _: Value = ok(c.call("pane.detach", json!({"pane_id": pane})));
}

/// A program that, once told to go, asks the terminal where its cursor is
/// (DSR) and prints the answer it read.
const ASKS_THE_TERMINAL: &str = r#"
import os, sys, termios, tty
sys.stdin.readline()
tty.setraw(0)
os.write(1, b"\x1b[6n")
got = b""
while not got.endswith(b"R"):
    got += os.read(0, 1)
termios.tcsetattr(0, termios.TCSANOW, termios.tcgetattr(0))
os.write(1, b"\r\nGOT " + got[1:] + b"\r\n")
os.read(0, 1)
"#;

/// A watch-only viewer (our `watch: true`, for a board's preview) gets the
/// output but is not a terminal: the pane still answers the program's
/// queries, so a previewed agent never waits for an answer nobody sends; and
/// it does not mark the pane seen.
#[test]
fn a_watch_only_viewer_sees_the_output_and_the_pane_still_answers_queries() {
    let server = TestServer::start();
    let mut c = server.client();
    let pane = spawn(&mut c, &["python3", "-c", ASKS_THE_TERMINAL]);
    let mut watcher = server.client();
    let attached = ok(watcher.call(
        "pane.attach",
        json!({"pane_id": pane, "watch": true, "mark_seen": false}),
    ));
    assert!(attached["snapshot_b64"].is_string(), "{attached}");
    ok(c.call(
        "pane.input",
        json!({"pane_id": pane, "data_b64": base64::engine::general_purpose::STANDARD.encode("go\r")}),
    ));
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": "GOT \\[\\d+;\\d+R", "regex": true, "mode": "screen", "timeout_s": 10}),
    ));
    // The watcher saw that output in its stream.
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("GOT ") {
        let e = watcher.next_event();
        if e.event == "pty.data" {
            seen.extend(decode(e.payload["data_b64"].as_str().unwrap_or_default()));
        }
    }
}
