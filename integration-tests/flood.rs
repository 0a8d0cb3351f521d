//! Floods (docs/protocol.md#connection-rules): a subscriber that never reads is disconnected
//! once its unread output passes 4 MiB, while a subscriber that keeps up receives
//! every event and the producer is never held up.

use crate::support::{Client, TestServer, ok, request_line};
use serde_json::json;
use std::io::{Read, Write};

/// Renames to publish: about 12 MB of `workspace.updated` events.
const RENAMES: usize = 20_000;
/// The slow subscriber's bound, plus room for what the kernel's socket buffers hold.
const SLOW_SUBSCRIBER_BYTES: usize = 4 * 1024 * 1024;
const SOCKET_BUFFERS_BYTES: usize = 2 * 1024 * 1024;

#[test]
fn a_subscriber_that_never_reads_is_disconnected_while_one_that_reads_gets_everything() {
    let server = TestServer::start();
    let mut producer = server.client();
    let ws = ok(producer.call("workspace.create", json!({"name": "flood"})));
    let id = ws["workspace"]["id"].as_str().expect("id").to_owned();

    let mut slow = server.client();
    ok(slow.call("subscribe", json!({"events": ["workspace.*"]})));
    let mut fast = server.client();
    let head = ok(fast.call("subscribe", json!({"events": ["workspace.*"]})))["seq"]
        .as_u64()
        .expect("seq");

    // The fast subscriber reads on its own thread from the start.
    let reader = std::thread::spawn(move || {
        let mut seqs = Vec::with_capacity(RENAMES);
        while seqs.len() < RENAMES {
            let event = fast.next_event();
            assert_eq!(event.event, "workspace.updated");
            seqs.push(event.seq);
        }
        seqs
    });

    // Pipeline every rename from a writer thread; read the replies here.
    let name = "n".repeat(200);
    let mut lines = Vec::with_capacity(RENAMES * 300);
    for i in 0..RENAMES {
        let line = request_line(
            &format!("r{i}"),
            "workspace.rename",
            json!({"workspace_id": id, "name": format!("{name}{i}")}),
        );
        lines.extend_from_slice(line.as_bytes());
    }
    let mut writer = producer.stream().try_clone().expect("clone");
    let sender = std::thread::spawn(move || writer.write_all(&lines).expect("send renames"));
    for i in 0..RENAMES {
        let response = producer.read_response();
        assert_eq!(response.id, format!("r{i}"));
        ok(response);
    }
    sender.join().expect("sender");

    let seqs = reader.join().expect("fast subscriber");
    assert!(
        seqs.iter().all(|s| *s > head),
        "no event from before the subscription"
    );
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "seqs strictly increase"
    );

    // The slow subscriber now reads what it was sent: a bounded prefix, then EOF.
    let (received, bytes) = drain(&mut slow);
    assert!(
        received < RENAMES,
        "the slow subscriber was never cut off ({received} events)"
    );
    assert!(
        bytes <= SLOW_SUBSCRIBER_BYTES + SOCKET_BUFFERS_BYTES,
        "the slow subscriber was sent {bytes} bytes before the cut"
    );

    // The server is fine and still serves everyone else.
    let mut other = server.client();
    assert_eq!(ok(other.call("server.status", json!({})))["workspaces"], 1);
}

/// Reads a connection to EOF; returns the number of complete lines and the bytes
/// read. The cut may fall inside a line: a dropped connection loses its queue.
fn drain(client: &mut Client) -> (usize, usize) {
    let mut stream = match client.stream().try_clone() {
        Ok(stream) => stream,
        Err(e) => panic!("cannot clone the slow subscriber's socket: {e}"),
    };
    let mut buf = vec![0u8; 64 * 1024];
    let (mut lines, mut bytes) = (0, 0);
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                bytes += n;
                lines += buf[..n].iter().filter(|b| **b == b'\n').count();
            },
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("reading the slow subscriber: {e}"),
        }
    }
    (lines, bytes)
}
