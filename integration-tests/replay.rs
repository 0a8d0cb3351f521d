//! Replays streamed from the journal files (docs/persistence.md#replay-coverage,
//! docs/persistence.md#slow-subscribers): a replay is written as the client
//! reads it, a client that stops reading is cut off once the live events
//! waiting behind its replay pass the slow-subscriber bound, with the seq to
//! resume from, and resuming from it loses nothing.

use crate::journal::{create, expect_complete, head, names, rename_all, subscribe};
use crate::support::{Client, TestEnv, TestServer, request_line};
use serde_json::json;
use signaltty_protocol::envelope::ServerLine;
use std::time::{Duration, Instant};

/// The bound the server is started with, small so that a few hundred live
/// events pass it.
const SLOW_SUBSCRIBER_BYTES: u64 = 64 * 1024;

fn server_with_a_small_bound() -> TestServer {
    let env = TestEnv::new();
    let dir = env.root().join("config/signaltty");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let text = format!("[connections]\nslow_subscriber_bytes = {SLOW_SUBSCRIBER_BYTES}\n");
    std::fs::write(dir.join("config.toml"), text).unwrap_or_else(|e| panic!("config: {e}"));
    TestServer::start_in(env)
}

#[test]
fn a_replay_not_read_is_cut_with_the_seq_to_resume_from_and_resuming_loses_nothing() {
    let server = server_with_a_small_bound();
    let mut actor = server.client();
    let start = head(&mut actor);
    let ws = create(&mut actor, "long");
    let id = ws["id"].as_str().expect("id").to_owned();
    // About 2.5 MB of events: far more than the socket's buffers and the
    // connection's low mark hold, so the replay stalls on a client that
    // does not read.
    let name = "x".repeat(200);
    let long: Vec<String> = names(&name, 4000);
    rename_all(&mut actor, &id, &long);
    let through = head(&mut actor);

    let mut stalled = server.client();
    stalled.send("subscribe", json!({"from_seq": start}));

    // Live events now wait behind the stalled replay until they pass the
    // bound; the server says in its log when it cuts the client off.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut round = 0;
    while !server
        .stderr()
        .contains("live events wait behind its reply or replay")
    {
        assert!(
            Instant::now() < deadline,
            "never cut off:\n{}",
            server.stderr()
        );
        rename_all(&mut actor, &id, &names(&format!("live{round}-"), 50));
        round += 1;
    }
    let now = head(&mut actor);

    // What the stalled client finds when it reads at last: the reply, a
    // prefix of the replay in order, then the reason and the seq to resume from.
    let mut seen = Vec::new();
    let mut last_line = None;
    let reply = match stalled.read_server_line() {
        Some(ServerLine::Response(r)) => r,
        other => panic!("expected the subscribe reply first, got {other:?}"),
    };
    let result = reply.result.expect("subscribed");
    assert_eq!(result["subscribed"], true, "{result}");
    assert_eq!(result["replay"]["status"], "complete", "{result}");
    assert_eq!(result["replay"]["through"], through, "{result}");
    assert_eq!(result["replay"]["returned"], through - start, "{result}");
    while let Some(line) = stalled.read_server_line() {
        match line {
            ServerLine::Event(e) => seen.push(e.seq),
            ServerLine::Response(r) => {
                last_line = Some(r);
                break;
            },
        }
    }
    let cut = last_line.expect("a last line saying why");
    assert_eq!(cut.id, "?");
    let error = cut.error.expect("an error");
    assert_eq!(error.code.as_str(), "RATE_LIMITED", "{error:?}");
    let details = error.details.expect("details");
    assert_eq!(details["reason"], "slow_reader", "{details}");
    assert!(
        !seen.is_empty() && (seen.len() as u64) < through - start,
        "a prefix: {}",
        seen.len()
    );
    assert_eq!(
        seen,
        ((start + 1)..=start + seen.len() as u64).collect::<Vec<_>>()
    );
    let resume = details["resume_from_seq"]
        .as_u64()
        .expect("resume_from_seq");
    assert_eq!(
        resume,
        *seen.last().expect("seen"),
        "the last event written"
    );
    stalled.expect_eof();

    // Resuming from there brings everything after it, the rest of the replay
    // and the live events alike.
    let mut again = server.client();
    let reply = subscribe(&mut again, json!({"from_seq": resume}));
    let rest: Vec<u64> = expect_complete(&mut again, &reply, resume)
        .iter()
        .map(|f| f.seq)
        .collect();
    seen.extend(rest);
    assert_eq!(
        seen,
        ((start + 1)..=now).collect::<Vec<_>>(),
        "nothing lost, nothing twice"
    );

    // The server is fine and serves everyone else.
    assert_eq!(actor.call_ok("server.status", json!({}))["workspaces"], 1);
}

#[test]
fn a_long_replay_read_slowly_is_read_whole_and_live_events_follow_it() {
    let server = TestServer::start();
    let mut actor = server.client();
    let start = head(&mut actor);
    let ws = create(&mut actor, "slowly");
    let id = ws["id"].as_str().expect("id").to_owned();
    rename_all(&mut actor, &id, &names(&"y".repeat(200), 3000));
    let through = head(&mut actor);

    // A reader that takes its time: a pause every 200 events, while events
    // keep coming (well within the default bound).
    let mut reader = Client::connect(server.socket_path());
    let reply = subscribe(&mut reader, json!({"from_seq": start}));
    assert_eq!(reply["replay"]["returned"], through - start, "{reply}");
    let mut seqs = Vec::new();
    for i in 0..(through - start) {
        if i % 200 == 0 {
            let line = request_line(
                &format!("l{i}"),
                "workspace.rename",
                json!({"workspace_id": id, "name": format!("live{i}")}),
            );
            actor.send_raw(line.as_bytes());
            actor.read_response();
        }
        seqs.push(reader.next_event().seq);
    }
    assert_eq!(seqs, ((start + 1)..=through).collect::<Vec<_>>());
    // Then the live events held behind the replay, in order, after `through`.
    let now = head(&mut actor);
    let live: Vec<u64> = (through..now).map(|_| reader.next_event().seq).collect();
    assert_eq!(live, ((through + 1)..=now).collect::<Vec<_>>());
}
