//! The durable event journal end to end (docs/persistence.md,
//! docs/restore.md#what-survives-a-restart; docs/protocol.md#subscriptions,
//! docs/protocol.md#event-sequence-and-replay, docs/methods.md#subscribe):
//! crash safety under SIGKILL, replay across restarts and
//! rotations, the replay statuses, the replay-to-live handoff, unprovable history, the
//! sequence reservation, the state-dir lock, slow subscribers told why, and the `events` /
//! `journal verify` commands.
//!
//! Tests that restart a server use `Life`: the env (and so the state dir) outlives
//! each server process, as it does for a user who restarts signaltty.

use crate::support::life::{Life, state_dir};
use crate::support::{
    Client, DEADLINE, RawLine, TestEnv, TestServer, ok, request_line, str_field, u64_field,
    wait_until,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use signaltty_protocol::envelope::ServerLine;
use signaltty_protocol::{ErrorCode, EventFrame, PROTOCOL};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Numbers reserved per block (docs/persistence.md#state-events-and-sequence-numbers).
const RESERVATION_BLOCK: u64 = 4096;
/// The rotation size the rotation tests give the server.
const SMALL_ROTATION: u64 = 4096;

// --- servers that restart on one state dir -----------------------------------------------

// --- the journal files -------------------------------------------------------------------

/// One journal record (docs/persistence.md#journal-records).
#[derive(Debug, Clone, PartialEq)]
struct Record {
    seq: u64,
    event: String,
    payload: Value,
}

/// Parses one journal line, failing the test when it is not a record.
#[track_caller]
fn parse_record(line: &[u8], what: &str) -> Record {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => panic!(
            "{what} is not JSON ({e}): {:?}",
            String::from_utf8_lossy(line)
        ),
    };
    let at = str_field(&value, "at");
    assert!(
        at.len() >= 20
            && at.as_bytes()[4] == b'-'
            && at.as_bytes()[10] == b'T'
            && (at.ends_with('Z') || at.ends_with("+00:00")),
        "{what}: `at` is an RFC 3339 UTC timestamp: {value}"
    );
    assert!(
        value["payload"].is_object(),
        "{what}: the payload is an object: {value}"
    );
    Record {
        seq: u64_field(&value, "seq"),
        event: str_field(&value, "event").to_owned(),
        payload: value["payload"].clone(),
    }
}

/// The records of one journal file and the bytes after its last `\n` (a torn tail).
/// A missing file has neither.
#[track_caller]
fn read_journal_file(path: &Path) -> (Vec<Record>, Vec<u8>) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Vec::new(), Vec::new()),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let records = bytes[..end]
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(n, line)| parse_record(line, &format!("{} line {}", path.display(), n + 1)))
        .collect();
    (records, bytes[end..].to_vec())
}

/// Every record of `audit.jsonl.1` then `audit.jsonl`, checked: each line is a
/// record and seqs strictly increase across both files. Returns the records and
/// the torn tail of `audit.jsonl` (empty when the file ends with `\n`).
#[track_caller]
fn journal_with_tail(state: &Path) -> (Vec<Record>, Vec<u8>) {
    let (mut records, pred_tail) = read_journal_file(&state.join("audit.jsonl.1"));
    assert!(
        pred_tail.is_empty(),
        "audit.jsonl.1 ends with a torn record: {:?}",
        String::from_utf8_lossy(&pred_tail)
    );
    let (current, tail) = read_journal_file(&state.join("audit.jsonl"));
    records.extend(current);
    for pair in records.windows(2) {
        assert!(
            pair[0].seq < pair[1].seq,
            "journal seqs strictly increase: {} then {}",
            pair[0].seq,
            pair[1].seq
        );
    }
    (records, tail)
}

/// `journal_with_tail` for a journal that must not end with a torn record.
#[track_caller]
fn journal(state: &Path) -> Vec<Record> {
    let (records, tail) = journal_with_tail(state);
    assert!(
        tail.is_empty(),
        "audit.jsonl ends with a torn record: {:?}",
        String::from_utf8_lossy(&tail)
    );
    records
}

#[track_caller]
fn read_json_file(path: &Path) -> Value {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => panic!(
            "{} is not JSON ({e}): {:?}",
            path.display(),
            String::from_utf8_lossy(&bytes)
        ),
    }
}

/// The reservation ceiling in `event-sequence.json`.
#[track_caller]
fn reservation(state: &Path) -> u64 {
    let value = read_json_file(&state.join("event-sequence.json"));
    match value.as_u64() {
        Some(n) => n,
        None => panic!("event-sequence.json holds no unsigned number: {value}"),
    }
}

/// `audit-retention.json`.
#[track_caller]
fn retention(state: &Path) -> Value {
    read_json_file(&state.join("audit-retention.json"))
}

fn file_len(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(meta) => meta.len(),
        Err(e) => panic!("cannot stat {}: {e}", path.display()),
    }
}

#[track_caller]
fn write_file(path: &Path, bytes: &[u8]) {
    if let Err(e) = std::fs::write(path, bytes) {
        panic!("cannot write {}: {e}", path.display());
    }
}

#[track_caller]
fn append_file(path: &Path, bytes: &[u8]) {
    let mut file = match std::fs::OpenOptions::new().append(true).open(path) {
        Ok(f) => f,
        Err(e) => panic!("cannot open {}: {e}", path.display()),
    };
    if let Err(e) = file.write_all(bytes) {
        panic!("cannot append to {}: {e}", path.display());
    }
}

// --- requests ----------------------------------------------------------------------------

pub(crate) fn head(client: &mut Client) -> u64 {
    u64_field(&client.call_ok("server.status", json!({})), "seq")
}

/// Creates a workspace; returns the `workspace` object.
#[track_caller]
pub(crate) fn create(client: &mut Client, name: &str) -> Value {
    client.call_ok("workspace.create", json!({"name": name}))["workspace"].clone()
}

/// Creates a workspace; returns its id.
#[track_caller]
fn create_id(client: &mut Client, name: &str) -> String {
    str_field(&create(client, name), "id").to_owned()
}

/// Writes `bytes` on a thread (a clone of `client`'s socket) so the caller can
/// read replies meanwhile; the thread yields the write result.
fn write_on_thread(client: &Client, bytes: Vec<u8>) -> JoinHandle<std::io::Result<()>> {
    let mut stream = match client.stream().try_clone() {
        Ok(s) => s,
        Err(e) => panic!("cannot clone the socket: {e}"),
    };
    std::thread::spawn(move || stream.write_all(&bytes))
}

/// The pipelined `workspace.rename` requests renaming `id` to each of `names`,
/// with ids `r<index>`.
fn rename_lines(id: &str, names: &[String]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(names.len() * 160);
    for (i, name) in names.iter().enumerate() {
        let line = request_line(
            &format!("r{i}"),
            "workspace.rename",
            json!({"workspace_id": id, "name": name}),
        );
        bytes.extend_from_slice(line.as_bytes());
    }
    bytes
}

/// Renames `id` to each of `names`, pipelined, and checks every reply in order.
#[track_caller]
pub(crate) fn rename_all(client: &mut Client, id: &str, names: &[String]) {
    let writer = write_on_thread(client, rename_lines(id, names));
    for i in 0..names.len() {
        let response = client.read_response();
        assert_eq!(
            response.id,
            format!("r{i}"),
            "replies come in request order"
        );
        ok(response);
    }
    match writer.join() {
        Ok(Ok(())) => {},
        Ok(Err(e)) => panic!("cannot send the renames: {e}"),
        Err(_) => panic!("the writer thread panicked"),
    }
}

/// `n` names `<prefix><i>`.
pub(crate) fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

// --- subscribe ---------------------------------------------------------------------------

/// `subscribe` with `params`; returns the result.
#[track_caller]
pub(crate) fn subscribe(client: &mut Client, params: Value) -> Value {
    client.call_ok("subscribe", params)
}

/// Checks a `complete` reply for `(after, through]` and reads its replay frames.
#[track_caller]
pub(crate) fn expect_complete(client: &mut Client, reply: &Value, after: u64) -> Vec<EventFrame> {
    let replay = &reply["replay"];
    assert_eq!(replay["status"], "complete", "{reply}");
    assert_eq!(reply["subscribed"], true, "{reply}");
    assert_eq!(replay["requested_after"], after, "{reply}");
    assert_eq!(
        replay["through"], reply["seq"],
        "through is the head: {reply}"
    );
    assert!(
        replay.get("recovery").is_none_or(Value::is_null),
        "no recovery when complete: {reply}"
    );
    let returned = u64_field(replay, "returned");
    let frames: Vec<EventFrame> = (0..returned).map(|_| client.next_event()).collect();
    let through = u64_field(reply, "seq");
    for pair in frames.windows(2) {
        assert!(
            pair[0].seq < pair[1].seq,
            "replay ascends: {} then {}",
            pair[0].seq,
            pair[1].seq
        );
    }
    assert!(
        frames.iter().all(|f| after < f.seq && f.seq <= through),
        "replay stays within ({after}, {through}]: {:?}",
        frames.iter().map(|f| f.seq).collect::<Vec<_>>()
    );
    frames
}

/// Checks a non-complete reply with `status`: not subscribed, nothing returned,
/// the recovery recipe, then the server closes the connection without a frame.
#[track_caller]
fn expect_refused(client: &mut Client, reply: &Value, status: &str, after: u64) {
    let replay = &reply["replay"];
    assert_eq!(replay["status"], status, "{reply}");
    assert_eq!(reply["subscribed"], false, "{reply}");
    assert_eq!(replay["requested_after"], after, "{reply}");
    assert_eq!(replay["returned"], 0, "{reply}");
    assert_eq!(
        replay["through"], reply["seq"],
        "through is the head: {reply}"
    );
    assert_eq!(replay["recovery"], "snapshot_then_resubscribe", "{reply}");
    client.expect_eof();
}

/// The records a replay of `frames` must equal.
fn as_records(frames: &[EventFrame]) -> Vec<Record> {
    frames
        .iter()
        .map(|f| Record {
            seq: f.seq,
            event: f.event.clone(),
            payload: f.payload.clone(),
        })
        .collect()
}

/// Reads a subscriber's frames until the stream ends (server killed or closed):
/// a final fragment or a reset ends it too. A non-event line fails the test.
fn frames_until_end(mut client: Client) -> Vec<EventFrame> {
    let mut frames = Vec::new();
    loop {
        match client.read_raw_line() {
            RawLine::Line(line) => match ServerLine::parse(&line) {
                Ok(ServerLine::Event(frame)) => frames.push(frame),
                Ok(ServerLine::Response(r)) => {
                    panic!("the subscriber got a response instead of an event: {r:?}")
                },
                Err(e) => panic!("the subscriber got an unreadable line ({e}): {line}"),
            },
            RawLine::Fragment(_) | RawLine::Eof | RawLine::Reset => return frames,
        }
    }
}

// --- journal verify ----------------------------------------------------------------------

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `signaltty journal verify --json`, parsed, with its exit code.
#[track_caller]
fn verify_json(env: &TestEnv) -> (Option<i32>, Value) {
    let out = env.cli(&["journal", "verify", "--json"]);
    let stdout = text(&out.stdout);
    match serde_json::from_str(stdout.trim_end()) {
        Ok(v) => (out.status.code(), v),
        Err(e) => panic!(
            "journal verify --json printed no JSON ({e}); status {}\nstdout: {stdout}\nstderr: {}",
            out.status,
            text(&out.stderr)
        ),
    }
}

/// `journal verify` (text and `--json`) finds nothing wrong.
#[track_caller]
fn assert_verify_ok(env: &TestEnv) -> Value {
    let out = env.cli(&["journal", "verify"]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("ok: no problems found"),
        "journal verify: {}\nstdout: {stdout}\nstderr: {}",
        out.status,
        text(&out.stderr)
    );
    assert!(!stdout.contains("PROBLEM"), "{stdout}");
    let (code, report) = verify_json(env);
    assert_eq!(code, Some(0), "journal verify --json: {report}");
    assert_eq!(report["problems"], json!([]), "{report}");
    report
}

/// `journal verify` reports at least one problem (text and `--json`, exit 1);
/// returns the `--json` report.
#[track_caller]
fn assert_verify_problem(env: &TestEnv) -> Value {
    let out = env.cli(&["journal", "verify"]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "journal verify should fail\nstdout: {stdout}\nstderr: {}",
        text(&out.stderr)
    );
    assert!(stdout.contains("PROBLEM:"), "no PROBLEM line: {stdout}");
    assert!(!stdout.contains("ok: no problems found"), "{stdout}");
    let (code, report) = verify_json(env);
    assert_eq!(code, Some(1), "journal verify --json: {report}");
    assert!(
        report["problems"].as_array().is_some_and(|p| !p.is_empty()),
        "--json lists the problems: {report}"
    );
    report
}

// --- 1. crash safety ---------------------------------------------------------------------

/// After how many rename replies each server lifecycle is killed.
const KILL_POINTS: [usize; 4] = [1, 37, 400, 1500];

/// Connections renaming alongside the one whose replies set the kill point, so the
/// kill also lands while batches of several producers are being written and synced.
const HELPERS: usize = 3;

/// Pipelines renames of `id` to `names` and reads the replies until the stream ends;
/// with `kill = Some((k, pid))` SIGKILLs the server right after the `k`-th reply.
/// Returns how many renames got an ok reply (always a prefix of `names`).
#[track_caller]
fn renames_until_the_end(
    client: &mut Client,
    id: &str,
    names: &[String],
    kill: Option<(usize, u32)>,
) -> usize {
    // The writer fails once the server is gone; that is expected.
    let writer = write_on_thread(client, rename_lines(id, names));
    let mut acked = 0;
    let mut killed = false;
    // A fragment, EOF or reset ends the stream: the server is gone.
    while let RawLine::Line(line) = client.read_raw_line() {
        let response = match ServerLine::parse(&line) {
            Ok(ServerLine::Response(r)) => r,
            other => panic!("expected a rename reply, got {other:?}"),
        };
        assert_eq!(
            response.id,
            format!("r{acked}"),
            "replies come in request order"
        );
        ok(response);
        acked += 1;
        if let Some((k, pid)) = kill
            && acked == k
        {
            if let Err(e) = kill_pid(pid) {
                panic!("cannot SIGKILL the server {pid}: {e}");
            }
            killed = true;
        }
    }
    if let Some((k, _)) = kill {
        assert!(
            killed,
            "the stream ended after {acked} replies, before the kill point {k}"
        );
    }
    let _ = writer.join();
    acked
}

fn kill_pid(pid: u32) -> nix::Result<()> {
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL)
}

/// The names of `workspace.updated` records starting with `prefix`, in journal order.
fn journaled_names<'a>(records: &'a [Record], prefix: &str) -> Vec<&'a str> {
    records
        .iter()
        .filter(|r| r.event == "workspace.updated")
        .filter_map(|r| r.payload["workspace"]["name"].as_str())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[test]
fn sigkill_at_any_point_loses_no_acknowledged_or_published_event_and_never_reuses_a_seq() {
    let mut life = Life::new(&[]);
    // The highest seq ever seen: in the journal or by a subscriber.
    let mut seen_max = 0u64;
    // The reservation ceiling left by the previous killed server.
    let mut ceiling: Option<u64> = None;
    // The last seq the previous round's subscriber saw (or its subscribe head).
    let mut last_seen_live: Option<u64> = None;

    for (round, &kill_after) in KILL_POINTS.iter().enumerate() {
        life.start();
        if let (Some(c), Some(last)) = (ceiling, last_seen_live) {
            // The torn tail, if any, was cut at start: the files check out.
            assert_verify_ok(&life.env);
            // What the previous server journaled after the subscriber's last event
            // replays from disk, complete: the journal is still provable.
            let records = journal(&life.state());
            let mut replayer = life.client();
            let reply = subscribe(&mut replayer, json!({"from_seq": last}));
            assert_eq!(
                u64_field(&reply, "seq"),
                c,
                "the head restarts at the old ceiling"
            );
            let frames = expect_complete(&mut replayer, &reply, last);
            let expected: Vec<Record> = records.into_iter().filter(|r| r.seq > last).collect();
            assert_eq!(
                as_records(&frames),
                expected,
                "round {round}: replay after {last}"
            );
        }

        let mut sub = life.client();
        let reply = subscribe(&mut sub, json!({"events": ["*"]}));
        let sub_head = u64_field(&reply, "seq");
        if let Some(c) = ceiling {
            assert_eq!(sub_head, c, "round {round}: no event before the first one");
        }
        let subscriber = std::thread::spawn(move || frames_until_end(sub));

        let mut actor = life.client();
        let ws = create(&mut actor, &format!("crash-{round}"));
        let id = str_field(&ws, "id").to_owned();
        let per_producer = kill_after * 2 + 500;
        let helpers: Vec<(String, JoinHandle<usize>)> = (0..HELPERS)
            .map(|j| {
                let helper_id = create_id(&mut actor, &format!("crash-{round}-{j}"));
                let prefix = format!("r{round}-h{j}-");
                let planned = names(&prefix, per_producer);
                let mut client = life.client();
                let handle = std::thread::spawn(move || {
                    renames_until_the_end(&mut client, &helper_id, &planned, None)
                });
                (prefix, handle)
            })
            .collect();
        let main_prefix = format!("r{round}-m-");
        let planned = names(&main_prefix, per_producer);
        let pid = life.pid();
        let acked = renames_until_the_end(&mut actor, &id, &planned, Some((kill_after, pid)));
        life.reap_killed();
        let mut producers = vec![(main_prefix, acked)];
        for (prefix, handle) in helpers {
            match handle.join() {
                Ok(acked) => producers.push((prefix, acked)),
                Err(_) => panic!("round {round}: the helper {prefix} panicked"),
            }
        }
        let live = match subscriber.join() {
            Ok(frames) => frames,
            Err(_) => panic!("round {round}: the subscriber thread panicked"),
        };

        // (d) The journal parses and its seqs strictly increase; a torn tail is the
        // only thing verify may object to before the next start cuts it.
        let (records, tail) = journal_with_tail(&life.state());
        let (code, report) = verify_json(&life.env);
        if tail.is_empty() {
            assert_eq!(
                code,
                Some(0),
                "round {round}: verify after SIGKILL: {report}"
            );
        } else {
            assert_eq!(code, Some(1), "round {round}: {report}");
            assert_eq!(
                report["problems"].as_array().map(Vec::len),
                Some(1),
                "round {round}: only the torn tail is a problem: {report}"
            );
        }
        let by_seq: BTreeMap<u64, &Record> = records.iter().map(|r| (r.seq, r)).collect();

        // Sync before publish: every event a subscriber saw is in the journal, as seen.
        for pair in live.windows(2) {
            assert!(pair[0].seq < pair[1].seq, "live seqs strictly increase");
        }
        for frame in &live {
            match by_seq.get(&frame.seq) {
                Some(record) => assert_eq!(
                    (&record.event, &record.payload),
                    (&frame.event, &frame.payload),
                    "round {round}: seq {} differs between the wire and the journal",
                    frame.seq
                ),
                None => panic!(
                    "round {round}: seq {} ({}) was published but is not in the journal",
                    frame.seq, frame.event
                ),
            }
        }
        // The first event of a restarted server is numbered above everything before.
        match live.first() {
            Some(first) => {
                assert_eq!(first.event, "workspace.created", "round {round}");
                assert_eq!(first.payload["workspace"], ws, "round {round}");
                assert!(
                    first.seq > seen_max,
                    "round {round}: seq {} reused",
                    first.seq
                );
                if let Some(c) = ceiling {
                    assert_eq!(first.seq, c + 1, "round {round}: first seq after a restart");
                }
            },
            None => panic!("round {round}: the subscriber saw no event before the kill"),
        }

        // (b) Every acknowledged rename is journaled; each connection's journaled
        // renames are a prefix of its requests, in request order.
        let mut diag = Vec::new();
        for (prefix, acked) in &producers {
            let journaled = journaled_names(&records, prefix);
            assert!(
                journaled.len() >= *acked,
                "round {round}: {prefix}: {acked} renames acknowledged, only {} journaled",
                journaled.len()
            );
            let expected = names(prefix, journaled.len());
            assert_eq!(
                journaled, expected,
                "round {round}: {prefix}: journaled renames in request order"
            );
            diag.push(format!(
                "{prefix} acked {acked} journaled {}",
                journaled.len()
            ));
        }
        eprintln!(
            "round {round}: {}; torn tail {} bytes",
            diag.join(", "),
            tail.len()
        );

        // (c) The reservation covers every issued number.
        let c = reservation(&life.state());
        let max = records.last().map_or(0, |r| r.seq);
        let live_max = live.last().map_or(0, |f| f.seq);
        assert!(
            c >= max && c >= live_max,
            "round {round}: ceiling {c} below seq {max}/{live_max}"
        );
        seen_max = seen_max.max(max).max(live_max);
        ceiling = Some(c);
        last_seen_live = Some(live.last().map_or(sub_head, |f| f.seq));
    }

    // A last restart: the journal checks out and the next event is numbered above
    // the old ceiling, so above every seq anyone saw.
    life.start();
    assert_verify_ok(&life.env);
    let mut client = life.client();
    let c = ceiling.unwrap_or_default();
    assert_eq!(head(&mut client), c);
    let mut sub = life.client();
    subscribe(&mut sub, json!({}));
    create(&mut client, "after-the-last-kill");
    let event = sub.next_event();
    assert_eq!(event.seq, c + 1);
    assert!(event.seq > seen_max);
}

// --- 2. replay across a restart ----------------------------------------------------------

#[test]
fn events_from_before_a_clean_restart_replay_complete_in_order_with_their_payloads_then_live() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    let a = create(&mut actor, "alpha");
    let a_id = str_field(&a, "id").to_owned();
    let a2 = actor.call_ok(
        "workspace.rename",
        json!({"workspace_id": a_id, "name": "alpha two"}),
    )["workspace"]
        .clone();
    let b = create(&mut actor, "beta");
    actor.call_ok("workspace.close", json!({"workspace_id": b["id"]}));
    life.stop();
    let records = journal(&life.state());
    let ceiling = reservation(&life.state());

    life.start();
    let mut sub = life.client();
    let reply = subscribe(&mut sub, json!({"from_seq": 0}));
    assert_eq!(u64_field(&reply, "seq"), ceiling, "{reply}");
    assert_eq!(reply["replay"]["retained_after"], 0, "{reply}");
    let frames = expect_complete(&mut sub, &reply, 0);
    let names: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
    assert_eq!(
        names,
        [
            "workspace.created",
            "workspace.updated",
            "workspace.created",
            "workspace.closed",
            "server.will_shutdown"
        ]
    );
    assert_eq!(frames[0].payload, json!({"workspace": a}));
    assert_eq!(frames[1].payload, json!({"workspace": a2}));
    assert_eq!(frames[2].payload, json!({"workspace": b}));
    assert_eq!(frames[3].payload, json!({"workspace_id": b["id"]}));
    assert_eq!(frames[4].payload, json!({}));
    assert_eq!(as_records(&frames), records, "the replay is the journal");

    // From a seq inside the old history: only what follows it.
    let mut later = life.client();
    let after = frames[1].seq;
    let reply = subscribe(
        &mut later,
        json!({"events": ["workspace.*"], "from_seq": after}),
    );
    let tail = expect_complete(&mut later, &reply, after);
    assert_eq!(as_records(&tail), as_records(&frames[2..4]));

    // Live events follow, numbered above the old ceiling.
    let mut actor = life.client();
    let c = create(&mut actor, "gamma");
    for client in [&mut sub, &mut later] {
        let live = client.next_event();
        assert_eq!(live.event, "workspace.created");
        assert_eq!(live.payload["workspace"], c);
        assert_eq!(live.seq, ceiling + 1);
    }
}

// --- 3. replay across rotations ----------------------------------------------------------

/// Renames `id` one request at a time until `done` holds for the state dir (at most
/// `limit` renames); returns how many it took.
#[track_caller]
fn rename_until(
    client: &mut Client,
    id: &str,
    prefix: &str,
    limit: usize,
    state: &Path,
    done: impl Fn(&Path) -> bool,
) -> usize {
    for i in 0..limit {
        if done(state) {
            return i;
        }
        client.call_ok(
            "workspace.rename",
            json!({"workspace_id": id, "name": format!("{prefix}{i}")}),
        );
    }
    panic!("the condition still does not hold after {limit} renames");
}

#[test]
fn replay_across_one_rotation_is_complete_and_across_two_is_history_lost_with_recovery() {
    let rotate = SMALL_ROTATION.to_string();
    let mut life = Life::new(&["--journal-rotate-bytes", &rotate]);
    life.start();
    let state = life.state();
    let mut actor = life.client();
    let id = create_id(&mut actor, "rotating");
    rename_until(&mut actor, &id, "one-", 500, &state, |s| {
        s.join("audit.jsonl.1").exists()
    });
    rename_all(&mut actor, &id, &names("more-", 2));

    let kept = retention(&state);
    let pred = state.join("audit.jsonl.1");
    let current = state.join("audit.jsonl");
    assert_eq!(kept["predecessor"], true, "{kept}");
    assert_eq!(kept["known_complete"], true, "{kept}");
    assert_eq!(kept["retained_after"], 0, "nothing discarded yet: {kept}");
    assert_eq!(kept["predecessor_bytes"], file_len(&pred), "{kept}");
    // `current_bytes` is a lower bound that catches up shortly after appends
    // (docs/persistence.md#the-retention-record).
    assert!(
        u64_field(&kept, "current_bytes") <= file_len(&current),
        "{kept}"
    );
    wait_until("current_bytes to catch up", DEADLINE, || {
        (retention(&state)["current_bytes"] == file_len(&current)).then_some(())
    });
    let (pred_records, _) = read_journal_file(&pred);
    let biggest = std::fs::read(&pred)
        .map(|b| b.split(|c| *c == b'\n').map(<[u8]>::len).max().unwrap_or(0))
        .unwrap_or(0) as u64;
    assert!(
        file_len(&pred) >= SMALL_ROTATION && file_len(&pred) <= SMALL_ROTATION + biggest + 1,
        "a generation holds the threshold plus at most the record that crossed it: {} bytes",
        file_len(&pred)
    );
    assert!(!pred_records.is_empty());

    // After a restart only the journal can prove the old events: complete from 0.
    life.stop();
    assert_eq!(
        retention(&state)["current_bytes"],
        file_len(&current),
        "exact after a clean stop"
    );
    let before = journal(&state);
    life.start();
    let mut sub = life.client();
    let reply = subscribe(&mut sub, json!({"from_seq": 0}));
    assert_eq!(reply["replay"]["retained_after"], 0, "{reply}");
    let frames = expect_complete(&mut sub, &reply, 0);
    assert_eq!(
        as_records(&frames),
        before,
        "the replay spans .1 and the current file"
    );
    drop(sub);

    // A second rotation discards the first generation: replay from 0 is lost.
    let mut actor = life.client();
    let id = create_id(&mut actor, "rotating-again");
    let old_pred_max = read_journal_file(&pred).0.last().map_or(0, |r| r.seq);
    rename_until(&mut actor, &id, "two-", 500, &state, |s| {
        retention(s)["retained_after"].as_u64().unwrap_or(0) > 0
    });
    let kept = retention(&state);
    assert_eq!(
        u64_field(&kept, "retained_after"),
        old_pred_max,
        "retained_after is the highest seq of the discarded generation: {kept}"
    );
    assert_eq!(kept["known_complete"], true, "{kept}");
    let r = old_pred_max;
    let files = journal(&state);
    assert!(
        files.first().is_some_and(|f| f.seq > r),
        "the files hold only events after {r}"
    );
    assert!(
        !state.join("audit.jsonl.2").exists(),
        "one predecessor only"
    );

    for after in [0, r - 1] {
        let mut lost = life.client();
        let reply = subscribe(&mut lost, json!({"from_seq": after}));
        assert_eq!(u64_field(&reply["replay"], "retained_after"), r, "{reply}");
        expect_refused(&mut lost, &reply, "history_lost", after);
    }
    let mut kept_sub = life.client();
    let reply = subscribe(&mut kept_sub, json!({"from_seq": r}));
    let frames = expect_complete(&mut kept_sub, &reply, r);
    assert_eq!(
        as_records(&frames),
        files,
        "everything the files hold after {r}"
    );
    assert_verify_ok(&life.env);
}

// --- 4. long replays are streamed whole, and filters apply ------------------------------

#[test]
fn a_replay_longer_than_the_ring_comes_whole_from_the_files_and_filters_apply() {
    let server = TestServer::start();
    let mut actor = server.client();
    let start = head(&mut actor);
    let ws = create(&mut actor, "many");
    let id = str_field(&ws, "id").to_owned();
    rename_all(&mut actor, &id, &names("m", 4200));
    let now = head(&mut actor);
    assert_eq!(
        now,
        start + 4201,
        "every event of one run is numbered in turn"
    );

    // `*` matches 4201 events, four times the ring and more than a batch:
    // every one comes, in order, from the journal files.
    let mut all = server.client();
    let reply = subscribe(&mut all, json!({"events": ["*"], "from_seq": start}));
    assert_eq!(reply["replay"]["through"], now, "{reply}");
    assert_eq!(reply["replay"]["returned"], now - start, "{reply}");
    let frames = expect_complete(&mut all, &reply, start);
    let seqs: Vec<u64> = frames.iter().map(|f| f.seq).collect();
    assert_eq!(seqs, ((start + 1)..=now).collect::<Vec<_>>());
    assert_eq!(frames[0].event, "workspace.created");
    assert_eq!(
        frames[4200].payload["workspace"]["name"], "m4199",
        "{:?}",
        frames[4200]
    );

    // `task_ids` filters only `task.*` events: the workspace events all come.
    let mut tasks = server.client();
    let reply = subscribe(
        &mut tasks,
        json!({"events": ["*"], "task_ids": ["task_x"], "from_seq": start}),
    );
    assert_eq!(
        expect_complete(&mut tasks, &reply, start).len() as u64,
        now - start
    );

    // A filter that matches one event replays that one.
    let filtered: Vec<Client> = [
        json!({"events": ["workspace.created"], "from_seq": start}),
        json!({"events": ["workspace.created"], "task_ids": ["task_x"], "from_seq": start}),
    ]
    .into_iter()
    .map(|params| {
        let mut created = server.client();
        let reply = subscribe(&mut created, params);
        assert_eq!(reply["replay"]["returned"], 1, "{reply}");
        let frames = expect_complete(&mut created, &reply, start);
        assert_eq!(frames[0].event, "workspace.created");
        assert_eq!(frames[0].seq, start + 1);
        assert_eq!(frames[0].payload, json!({"workspace": ws}));
        created
    })
    .collect();
    // Live events follow the filtered replays.
    rename_all(&mut actor, &id, &names("filtered-out", 3));
    let next = create(&mut actor, "next");
    for mut created in filtered {
        let live = created.next_event();
        assert_eq!(live.payload["workspace"], next);
        assert_eq!(live.seq, now + 4);
    }
    assert_eq!(
        reservation(&state_dir(server.env())),
        2 * RESERVATION_BLOCK,
        "a second block"
    );
}

// --- 5. cursor_ahead ---------------------------------------------------------------------

#[test]
fn a_cursor_past_the_head_is_cursor_ahead_while_the_skipped_reservation_is_a_hole_not_a_loss() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    create(&mut actor, "one");
    life.stop();
    let last = journal(&life.state()).last().map_or(0, |r| r.seq);
    let ceiling = reservation(&life.state());
    assert!(ceiling > last);
    life.start();

    for after in [ceiling + 1, u64::MAX] {
        let mut ahead = life.client();
        let reply = subscribe(&mut ahead, json!({"from_seq": after}));
        assert_eq!(reply["seq"], ceiling, "{reply}");
        expect_refused(&mut ahead, &reply, "cursor_ahead", after);
    }
    // The numbers between the last event and the old ceiling were never issued:
    // a cursor anywhere in that hole is complete with nothing to replay.
    for after in [last, last + 1, ceiling] {
        let mut hole = life.client();
        let reply = subscribe(&mut hole, json!({"from_seq": after}));
        assert_eq!(reply["replay"]["returned"], 0, "{reply}");
        expect_complete(&mut hole, &reply, after);
    }
}

// --- 6. the replay-to-live handoff under a concurrent producer ---------------------------

/// Renames pipelined per batch by the producer.
const BATCH: usize = 100;

#[test]
fn the_replay_to_live_handoff_under_a_concurrent_producer_has_no_gap_and_no_duplicate() {
    let server = TestServer::start();
    let mut actor = server.client();
    let id = create_id(&mut actor, "handoff");
    let produced = Arc::new(AtomicUsize::new(0));
    let subscribed = Arc::new(AtomicUsize::new(0));

    // The producer renames in pipelined batches until it has done at least 3000 and
    // a whole batch after both subscribers were in, so the subscribes land mid-stream.
    let producer = {
        let (produced, subscribed) = (Arc::clone(&produced), Arc::clone(&subscribed));
        std::thread::spawn(move || {
            let mut done = 0;
            loop {
                let both_in = subscribed.load(Ordering::SeqCst) == 2;
                let batch = names(&format!("h{done}-"), BATCH);
                rename_all(&mut actor, &id, &batch);
                done += BATCH;
                produced.store(done, Ordering::SeqCst);
                if (both_in && done >= 3000) || done >= 20_000 {
                    return done;
                }
            }
        })
    };

    wait_until("1500 renames", DEADLINE, || {
        (produced.load(Ordering::SeqCst) >= 1500).then_some(())
    });
    let mut status = server.client();
    let now = head(&mut status);
    // One cursor only the journal can serve (past the 1024-event ring), one the ring can.
    let cursors = [now - 1200, now - 10];
    let subscribers: Vec<JoinHandle<(u64, Vec<u64>)>> = cursors
        .iter()
        .map(|&after| {
            let mut sub = server.client();
            let subscribed = Arc::clone(&subscribed);
            std::thread::spawn(move || {
                let reply = subscribe(&mut sub, json!({"from_seq": after}));
                subscribed.fetch_add(1, Ordering::SeqCst);
                let frames = expect_complete(&mut sub, &reply, after);
                let through = u64_field(&reply, "seq");
                let mut seqs: Vec<u64> = frames.iter().map(|f| f.seq).collect();
                // Live renames until the end marker the test creates afterwards.
                loop {
                    let frame = sub.next_event();
                    if frame.event == "workspace.created" {
                        assert_eq!(frame.payload["workspace"]["name"], END_MARKER);
                        return (through, seqs);
                    }
                    assert_eq!(frame.event, "workspace.updated");
                    seqs.push(frame.seq);
                }
            })
        })
        .collect();

    let done = match producer.join() {
        Ok(done) => done,
        Err(_) => panic!("the producer panicked"),
    };
    let last = head(&mut status);
    create(&mut status, END_MARKER);
    for (handle, after) in subscribers.into_iter().zip(cursors) {
        let (through, seqs) = match handle.join() {
            Ok(r) => r,
            Err(_) => panic!("the subscriber from {after} panicked"),
        };
        assert!(
            through >= now && through < last,
            "the subscribe from {after} landed mid-stream: fence {through}, stream ({now}, {last}]"
        );
        assert_eq!(
            seqs,
            ((after + 1)..=last).collect::<Vec<_>>(),
            "from {after} (fence {through}, {done} renames): every seq exactly once, in order"
        );
    }
}

/// The workspace name that tells the handoff subscribers the stream is over.
const END_MARKER: &str = "end-of-stream";

// --- 7. unprovable history ---------------------------------------------------------------

#[test]
fn deleting_the_rotated_predecessor_makes_old_replays_unavailable_for_good() {
    let rotate = SMALL_ROTATION.to_string();
    let mut life = Life::new(&["--journal-rotate-bytes", &rotate]);
    life.start();
    let state = life.state();
    let mut actor = life.client();
    let id = create_id(&mut actor, "doomed");
    rename_until(&mut actor, &id, "x", 500, &state, |s| {
        s.join("audit.jsonl.1").exists()
    });
    life.stop();
    assert_verify_ok(&life.env);
    if let Err(e) = std::fs::remove_file(state.join("audit.jsonl.1")) {
        panic!("cannot delete audit.jsonl.1: {e}");
    }
    let report = assert_verify_problem(&life.env);
    assert_eq!(report["provable"], false, "{report}");

    let ceiling = reservation(&state);
    life.start();
    let mut sub = life.client();
    let reply = subscribe(&mut sub, json!({"from_seq": 0}));
    assert_eq!(
        u64_field(&reply["replay"], "retained_after"),
        ceiling,
        "without a provable journal only the ring counts, and it starts at the head: {reply}"
    );
    expect_refused(&mut sub, &reply, "unavailable", 0);
    // What the ring holds is still complete.
    let mut actor = life.client();
    let fresh = create(&mut actor, "after-the-loss");
    let mut ring = life.client();
    let reply = subscribe(&mut ring, json!({"from_seq": ceiling}));
    let frames = expect_complete(&mut ring, &reply, ceiling);
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].payload["workspace"], fresh);

    // The loss survives appends and restarts.
    life.stop();
    let second_ceiling = reservation(&state);
    life.start();
    for after in [0, ceiling] {
        let mut sub = life.client();
        let reply = subscribe(&mut sub, json!({"from_seq": after}));
        assert_eq!(
            u64_field(&reply["replay"], "retained_after"),
            second_ceiling,
            "{reply}"
        );
        expect_refused(&mut sub, &reply, "unavailable", after);
    }
    let (_, report) = verify_json(&life.env);
    assert_eq!(
        report["provable"], false,
        "the loss is remembered: {report}"
    );
}

#[test]
fn truncating_the_current_journal_to_a_valid_prefix_makes_old_replays_unavailable() {
    let mut life = Life::new(&[]);
    life.start();
    let state = life.state();
    let mut actor = life.client();
    let id = create_id(&mut actor, "cut");
    rename_all(&mut actor, &id, &names("c", 9));
    life.stop();
    let current = state.join("audit.jsonl");
    let bytes = match std::fs::read(&current) {
        Ok(b) => b,
        Err(e) => panic!("cannot read audit.jsonl: {e}"),
    };
    let cut = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(4)
        .map_or(0, |(i, _)| i + 1);
    write_file(&current, &bytes[..cut]);
    assert_eq!(journal(&state).len(), 5, "the prefix still parses");
    let report = assert_verify_problem(&life.env);
    assert_eq!(report["provable"], false, "{report}");

    life.start();
    for after in [0, 3] {
        let mut sub = life.client();
        let reply = subscribe(&mut sub, json!({"from_seq": after}));
        expect_refused(&mut sub, &reply, "unavailable", after);
    }
}

#[test]
fn an_invalid_line_in_the_journal_makes_old_replays_unavailable() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    create(&mut actor, "garbled");
    life.stop();
    append_file(&life.state().join("audit.jsonl"), b"not a record\n");
    let offline = assert_verify_problem(&life.env);
    life.start();
    let mut sub = life.client();
    let reply = subscribe(&mut sub, json!({"from_seq": 0}));
    expect_refused(&mut sub, &reply, "unavailable", 0);
    // The offline check agrees with the server: these files prove nothing.
    assert_eq!(
        offline["provable"], false,
        "verify before the restart: {offline}"
    );
}

#[test]
fn a_torn_tail_is_cut_into_a_corrupt_file_at_start_and_history_stays_complete() {
    let mut life = Life::new(&[]);
    life.start();
    let state = life.state();
    let mut actor = life.client();
    let id = create_id(&mut actor, "torn");
    rename_all(&mut actor, &id, &names("t", 3));
    life.stop();
    let before = journal(&state);
    append_file(&state.join("audit.jsonl"), b"{torn");

    // Before a server opens it, verify names the unfinished record and nothing else.
    let (code, report) = verify_json(&life.env);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(
        report["problems"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    assert_eq!(journal_with_tail(&state).1, b"{torn");

    life.start();
    let corrupt: Vec<PathBuf> = match std::fs::read_dir(&state) {
        Ok(dir) => dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("audit.jsonl.corrupt-"))
            })
            .collect(),
        Err(e) => panic!("cannot list {}: {e}", state.display()),
    };
    assert_eq!(corrupt.len(), 1, "one backup of the torn tail: {corrupt:?}");
    assert_eq!(std::fs::read(&corrupt[0]).ok(), Some(b"{torn".to_vec()));
    assert_eq!(
        journal(&state),
        before,
        "the journal is back to its synced records"
    );
    assert_verify_ok(&life.env);

    let mut sub = life.client();
    let reply = subscribe(&mut sub, json!({"from_seq": 0}));
    let frames = expect_complete(&mut sub, &reply, 0);
    assert_eq!(as_records(&frames), before);
    let mut actor = life.client();
    let next = create(&mut actor, "after-the-tear");
    let live = sub.next_event();
    assert_eq!(live.payload["workspace"], next);
    let after = journal(&state);
    assert_eq!(
        after.len(),
        before.len() + 1,
        "new records start on a fresh line"
    );
}

// --- 8. the sequence reservation and the state-dir lock ----------------------------------

#[test]
fn a_corrupt_or_empty_reservation_refuses_to_start_with_exit_1_and_is_left_as_it_is() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    create(&mut actor, "reserved");
    life.stop();
    let path = life.state().join("event-sequence.json");
    for content in [&b"broken"[..], b""] {
        write_file(&path, content);
        let stderr = life.start_refused(1);
        assert!(
            stderr.to_lowercase().contains("corrupt"),
            "the refusal names the corruption ({content:?}): {stderr}"
        );
        assert!(
            Client::try_connect(&life.socket()).is_err(),
            "nothing listens after a refused start"
        );
        assert_eq!(
            std::fs::read(&path).ok(),
            Some(content.to_vec()),
            "unreadable state is never overwritten"
        );
        assert_verify_problem(&life.env);
    }
}

#[test]
fn a_reservation_behind_the_journal_refuses_to_start_and_one_equal_to_it_continues_above() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    let id = create_id(&mut actor, "behind");
    rename_all(&mut actor, &id, &names("b", 3));
    life.stop();
    let max = journal(&life.state()).last().map_or(0, |r| r.seq);
    let path = life.state().join("event-sequence.json");
    write_file(&path, (max - 1).to_string().as_bytes());
    assert_verify_problem(&life.env);
    let stderr = life.start_refused(1);
    assert!(stderr.contains("behind"), "the refusal says why: {stderr}");

    write_file(&path, max.to_string().as_bytes());
    life.start();
    let mut sub = life.client();
    assert_eq!(u64_field(&subscribe(&mut sub, json!({})), "seq"), max);
    let mut actor = life.client();
    create(&mut actor, "above");
    assert_eq!(sub.next_event().seq, max + 1);
    assert_eq!(reservation(&life.state()), max + RESERVATION_BLOCK);
}

#[test]
fn every_restart_skips_the_rest_of_the_reserved_block_even_without_events_or_after_sigkill() {
    let mut life = Life::new(&[]);
    life.start();
    let state = life.state();
    let mut client = life.client();
    assert_eq!(head(&mut client), 0, "a fresh state dir starts at 0");
    assert_eq!(
        reservation(&state),
        RESERVATION_BLOCK,
        "the first block is reserved at start"
    );
    create(&mut client, "first");
    assert_eq!(head(&mut client), 1);
    life.stop();

    // A clean restart: the head is the old ceiling, a new block is reserved.
    life.start();
    let mut client = life.client();
    assert_eq!(head(&mut client), RESERVATION_BLOCK);
    assert_eq!(reservation(&state), 2 * RESERVATION_BLOCK);
    // A restart with no event at all, ended by SIGKILL, still burns its block.
    life.kill9();
    life.start();
    let mut client = life.client();
    assert_eq!(head(&mut client), 2 * RESERVATION_BLOCK);
    assert_eq!(reservation(&state), 3 * RESERVATION_BLOCK);
    let mut sub = life.client();
    subscribe(&mut sub, json!({}));
    create(&mut client, "later");
    let event = sub.next_event();
    assert_eq!(event.seq, 2 * RESERVATION_BLOCK + 1);
    let seqs: Vec<u64> = journal(&state).iter().map(|r| r.seq).collect();
    assert_eq!(
        seqs,
        [1, 2, 2 * RESERVATION_BLOCK + 1],
        "created, will_shutdown, created"
    );
}

/// A program that, once told to go, prints one byte every half millisecond:
/// many small chunks, each a `pty.data` with a number of its own.
const TRICKLE: &str = "import os, sys, time
sys.stdin.readline()
while True:
    os.write(1, b'x')
    time.sleep(0.0005)
";

/// `pty.data` takes its numbers from the one counter without waiting for the
/// journal, but only numbers already reserved on disk: every seq a viewer
/// receives is at or below the ceiling in `event-sequence.json` by then, the
/// numbering goes on past the first block with no state event to carry it,
/// and a restart after SIGKILL numbers above every one of them
/// (docs/protocol.md#event-sequence-and-replay).
#[test]
fn pty_data_seqs_stay_under_the_durable_reservation_and_a_restart_after_sigkill_continues_above() {
    let mut life = Life::new(&[]);
    life.start();
    let state = life.state();
    let mut actor = life.client();
    let ws = create_id(&mut actor, "pty-seqs");
    let pane = actor.call_ok(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["python3", "-c", TRICKLE]}),
    )["pane"]["id"]
        .clone();
    let mut viewer = life.client();
    viewer.call_ok("pane.attach", json!({"pane_id": pane}));
    // "go\n"
    actor.call_ok("pane.input", json!({"pane_id": pane, "data_b64": "Z28K"}));
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last_seq = 0;
    while last_seq <= RESERVATION_BLOCK + 64 {
        assert!(
            Instant::now() < deadline,
            "pty.data numbered only up to {last_seq}"
        );
        let event = viewer.next_event();
        if event.event != "pty.data" {
            continue;
        }
        assert!(event.seq > last_seq, "seq {} after {last_seq}", event.seq);
        let ceiling = reservation(&state);
        assert!(
            event.seq <= ceiling,
            "pty.data seq {} arrived above the durable ceiling {ceiling}",
            event.seq
        );
        last_seq = event.seq;
    }

    life.kill9();
    life.start();
    let mut sub = life.client();
    subscribe(&mut sub, json!({}));
    let mut actor = life.client();
    create(&mut actor, "after");
    let event = sub.next_event();
    assert!(
        event.seq > last_seq,
        "seq {} after a restart reuses a pty.data number (up to {last_seq})",
        event.seq
    );
}

#[test]
fn a_second_server_on_another_socket_but_the_same_state_dir_exits_3_and_the_first_keeps_going() {
    let mut server = TestServer::start();
    let mut client = server.client();
    create(&mut client, "owner");
    let other = server.env().root().join("other.sock");
    let args: Vec<std::ffi::OsString> =
        vec!["server".into(), "--socket".into(), other.clone().into()];
    let mut second = server.env().spawn_server(&args, "second.stderr");
    second.expect_exit_code(3);
    let stderr = second.stderr();
    assert!(
        stderr.contains("another signaltty server is already using the state directory"),
        "second server's stderr: {stderr}"
    );
    assert!(
        Client::try_connect(&other).is_err(),
        "the refused server does not listen"
    );
    server.assert_running();
    create(&mut client, "still-here");
    assert_eq!(head(&mut client), 2);
    let state = state_dir(server.env());
    assert_eq!(journal(&state).len(), 2, "the journal has one writer");
}

// --- 9. a slow subscriber is told why ----------------------------------------------------

/// Renames to publish: about 12 MB of `workspace.updated` events.
const FLOOD_RENAMES: usize = 20_000;
/// The slow subscriber's bound (4 MiB of unread events,
/// docs/persistence.md#slow-subscribers).
const SLOW_BOUND: usize = 4 * 1024 * 1024;
/// Room for the kernel's socket buffers on top of the bound.
const SOCKET_BUFFERS: usize = 2 * 1024 * 1024;
/// Slack for the line being written when the bound is crossed.
const ONE_LINE_SLACK: usize = 64 * 1024;

/// How a raw read of a connection ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Eof,
    Reset,
    Fragment(Vec<u8>),
}

/// Every complete line of `client` until the stream ends, and how it ended.
fn lines_until_end(client: &mut Client) -> (Vec<String>, End) {
    let mut lines = Vec::new();
    loop {
        match client.read_raw_line() {
            RawLine::Line(line) => lines.push(line),
            RawLine::Eof => return (lines, End::Eof),
            RawLine::Reset => return (lines, End::Reset),
            RawLine::Fragment(bytes) => return (lines, End::Fragment(bytes)),
        }
    }
}

/// The bytes waiting unread in the kernel for `client`, by peeking (never consuming).
fn unread_in_kernel(client: &Client, buf: &mut [u8]) -> usize {
    use nix::sys::socket::{MsgFlags, recv};
    use std::os::fd::AsRawFd;
    match recv(
        client.stream().as_raw_fd(),
        buf,
        MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT,
    ) {
        Ok(n) => n,
        Err(nix::errno::Errno::EAGAIN) => 0,
        Err(e) => panic!("cannot peek at the slow subscriber's socket: {e}"),
    }
}

#[test]
fn a_subscriber_that_never_reads_gets_a_slow_reader_error_line_then_eof_and_nobody_else_waits() {
    let server = TestServer::start();
    let mut producer = server.client();
    let id = create_id(&mut producer, "flood");
    let mut slow = server.client();
    let slow_head = u64_field(
        &subscribe(&mut slow, json!({"events": ["workspace.*"]})),
        "seq",
    );
    let mut fast = server.client();
    let fast_head = u64_field(
        &subscribe(&mut fast, json!({"events": ["workspace.*"]})),
        "seq",
    );
    assert_eq!(
        slow_head, fast_head,
        "nothing happened between the subscribes"
    );

    // The fast subscriber reads everything (raw, to keep up) and publishes how many
    // bytes it has seen: the slow subscriber was sent the very same lines.
    let published = Arc::new(AtomicUsize::new(0));
    let fast_reader = {
        let published = Arc::clone(&published);
        std::thread::spawn(move || {
            let mut lines = Vec::with_capacity(FLOOD_RENAMES);
            while lines.len() < FLOOD_RENAMES {
                match fast.read_raw_line() {
                    RawLine::Line(line) => {
                        published.fetch_add(line.len() + 1, Ordering::SeqCst);
                        lines.push(line);
                    },
                    other => panic!("the fast subscriber's stream ended: {other:?}"),
                }
            }
            lines
        })
    };
    // The slow subscriber reads nothing until the server holds more than the bound for
    // it (sent minus what waits in the kernel): it has been disconnected by then, and
    // reads at once, well within the ~2 s the server keeps the queue and the final line.
    let slow_reader = {
        let published = Arc::clone(&published);
        std::thread::spawn(move || {
            let mut peek = vec![0u8; 4 * SOCKET_BUFFERS];
            let start = Instant::now();
            loop {
                let in_kernel = unread_in_kernel(&slow, &mut peek);
                let held = published.load(Ordering::SeqCst).saturating_sub(in_kernel);
                if held > SLOW_BOUND + ONE_LINE_SLACK {
                    break;
                }
                if start.elapsed() > Duration::from_secs(60) {
                    panic!(
                        "the server never held more than {SLOW_BOUND} bytes for the slow subscriber"
                    );
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            let reading = Instant::now();
            let (lines, end) = lines_until_end(&mut slow);
            (lines, end, reading.elapsed())
        })
    };

    // A third connection keeps asking for the status throughout.
    let flooding = Arc::new(AtomicUsize::new(1));
    let prober = {
        let flooding = Arc::clone(&flooding);
        let mut client = server.client();
        std::thread::spawn(move || {
            let mut rounds = Vec::new();
            while flooding.load(Ordering::SeqCst) == 1 {
                let start = Instant::now();
                client.call_ok("server.status", json!({}));
                rounds.push(start.elapsed());
                std::thread::sleep(Duration::from_millis(5));
            }
            rounds
        })
    };

    let name = "n".repeat(200);
    let planned: Vec<String> = (0..FLOOD_RENAMES).map(|i| format!("{name}{i}")).collect();
    let started = Instant::now();
    rename_all(&mut producer, &id, &planned);
    let flood_time = started.elapsed();
    let fast_lines = match fast_reader.join() {
        Ok(lines) => lines,
        Err(_) => panic!("the fast subscriber panicked"),
    };
    flooding.store(0, Ordering::SeqCst);
    let rounds = match prober.join() {
        Ok(r) => r,
        Err(_) => panic!("the status prober panicked"),
    };
    let (lines, end, read_time) = match slow_reader.join() {
        Ok(r) => r,
        Err(_) => panic!("the slow subscriber panicked"),
    };

    // The fast subscriber got every event, in order, nothing from before.
    let fast_seqs: Vec<u64> = fast_lines
        .iter()
        .map(|line| match ServerLine::parse(line) {
            Ok(ServerLine::Event(e)) => e.seq,
            other => panic!("the fast subscriber got {other:?}"),
        })
        .collect();
    assert_eq!(
        fast_seqs,
        ((fast_head + 1)..=(fast_head + FLOOD_RENAMES as u64)).collect::<Vec<_>>(),
        "the fast subscriber gets every event once, in order"
    );
    // The status round trips never waited on the flood (generous: not a benchmark).
    let slowest = rounds.iter().max().copied().unwrap_or_default();
    assert!(!rounds.is_empty(), "the prober made no round trip");
    assert!(
        slowest < Duration::from_secs(1),
        "a server.status round trip took {slowest:?} during the flood ({} round trips, flood {flood_time:?})",
        rounds.len()
    );

    // Read in time, the slow subscriber gets whole lines only: a gapless prefix of
    // the events, then the error line, then the end of the stream (EOF; a reset is
    // tolerated as an end because it carries no data, but the line must come first).
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let shown_end = match &end {
        End::Fragment(b) => format!("a fragment of {} bytes", b.len()),
        other => format!("{other:?}"),
    };
    let context = format!(
        "{} lines, {bytes} bytes read in {read_time:?}, ended by {shown_end}; flood {flood_time:?}",
        lines.len()
    );
    assert!(
        matches!(end, End::Eof | End::Reset),
        "the slow subscriber's stream ended mid-line: {context}"
    );
    assert!(
        bytes <= SLOW_BOUND + SOCKET_BUFFERS,
        "the slow subscriber was sent more than the bound: {context}"
    );
    let (last, events) = match lines.split_last() {
        Some(split) => split,
        None => panic!("the slow subscriber read nothing at all: {context}"),
    };
    let error: Value = match serde_json::from_str(last) {
        Ok(v) => v,
        Err(e) => panic!("the slow subscriber's last line is not JSON ({e}): {context}"),
    };
    assert_eq!(
        error["ok"], false,
        "the last line is the error line ({context}): {error}"
    );
    assert_eq!(error["protocol"], PROTOCOL, "{error}");
    assert_eq!(error["id"], "?", "{error}");
    assert_eq!(
        error["error"]["code"],
        json!(ErrorCode::RateLimited),
        "{error}"
    );
    assert_eq!(
        error["error"]["details"]["reason"], "slow_reader",
        "{error}"
    );
    assert!(
        str_field(&error["error"], "message").starts_with("disconnected: "),
        "{error}"
    );
    let seqs: Vec<u64> = events
        .iter()
        .map(|line| match ServerLine::parse(line) {
            Ok(ServerLine::Event(e)) => e.seq,
            other => panic!("before its error line the slow subscriber got {other:?}"),
        })
        .collect();
    assert!(
        seqs.len() < FLOOD_RENAMES,
        "the slow subscriber was never cut off"
    );
    assert!(
        bytes > SLOW_BOUND,
        "the queue held for the slow subscriber was delivered, not dropped: {context}"
    );
    assert_eq!(
        seqs,
        fast_seqs[..seqs.len()],
        "the slow subscriber got a gapless prefix of the stream"
    );

    let mut other = server.client();
    assert_eq!(head(&mut other), fast_head + FLOOD_RENAMES as u64);
}

// --- 10. the CLI -------------------------------------------------------------------------

/// A running `signaltty events` whose stdout lines arrive on a channel; killed on drop.
pub(crate) struct EventsCommand {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl EventsCommand {
    pub(crate) fn spawn(env: &TestEnv, args: &[&str]) -> EventsCommand {
        let mut cmd = env.command(args);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => panic!("cannot spawn signaltty {args:?}: {e}"),
        };
        let stdout = match child.stdout.take() {
            Some(s) => s,
            None => panic!("no stdout pipe"),
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        EventsCommand { child, lines }
    }

    /// The next stdout line; fails the test after the deadline or at EOF.
    #[track_caller]
    pub(crate) fn next_line(&self) -> String {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => line,
            Err(e) => panic!("no line from `signaltty events` within {DEADLINE:?}: {e}"),
        }
    }

    /// Waits (bounded) for the command to exit; returns its code.
    #[track_caller]
    pub(crate) fn exit_code(&mut self) -> Option<i32> {
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.code(),
                Ok(None) if start.elapsed() < DEADLINE => {
                    std::thread::sleep(Duration::from_millis(2));
                },
                Ok(None) => panic!("`signaltty events` did not exit within {DEADLINE:?}"),
                Err(e) => panic!("cannot wait for `signaltty events`: {e}"),
            }
        }
    }
}

impl Drop for EventsCommand {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Parses a line `signaltty events` printed: one raw event frame.
#[track_caller]
fn printed_event(line: &str) -> EventFrame {
    match ServerLine::parse(line) {
        Ok(ServerLine::Event(e)) => {
            assert_eq!(e.protocol, PROTOCOL, "{line}");
            assert_eq!(e.kind, "event", "{line}");
            e
        },
        other => panic!("`signaltty events` printed a line that is no event: {line} ({other:?})"),
    }
}

#[test]
fn the_events_command_prints_the_replay_then_live_events_and_exits_0_when_the_server_stops() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    let a = create(&mut actor, "cli-a");
    actor.call_ok(
        "workspace.rename",
        json!({"workspace_id": a["id"], "name": "cli-a2"}),
    );
    life.stop();
    let before: Vec<Record> = journal(&life.state())
        .into_iter()
        .filter(|r| r.event.starts_with("workspace."))
        .collect();
    assert_eq!(before.len(), 2);
    life.start();

    let mut events = EventsCommand::spawn(
        &life.env,
        &["events", "--from-seq", "0", "--filter", "workspace.*"],
    );
    let replayed: Vec<EventFrame> = (0..2).map(|_| printed_event(&events.next_line())).collect();
    assert_eq!(
        as_records(&replayed),
        before,
        "the replay from the journal, in order"
    );

    let mut actor = life.client();
    let b = create(&mut actor, "cli-b");
    let live = printed_event(&events.next_line());
    assert_eq!(live.event, "workspace.created");
    assert_eq!(live.payload["workspace"], b);
    assert!(live.seq > replayed[1].seq);

    // `server.will_shutdown` does not match the filter; the command ends at EOF.
    life.stop();
    assert_eq!(events.exit_code(), Some(0));
    assert!(
        events.lines.recv_timeout(Duration::from_secs(2)).is_err(),
        "nothing more is printed"
    );
}

#[test]
fn the_events_command_exits_1_with_a_message_when_the_replay_cannot_be_complete() {
    let server = TestServer::start();
    let mut client = server.client();
    create(&mut client, "cli");
    let now = head(&mut client);
    let out = server.cli(&["events", "--from-seq", &(now + 1).to_string()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("cursor_ahead"),
        "the message names the status: {stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "no event is printed: {}",
        text(&out.stdout)
    );
}

#[test]
fn journal_verify_reports_ok_or_its_problems_in_text_and_json() {
    let mut life = Life::new(&[]);
    life.start();
    let mut actor = life.client();
    let id = create_id(&mut actor, "verified");
    rename_all(&mut actor, &id, &names("v", 4));
    life.stop();
    let state = life.state();
    let max = journal(&state).last().map_or(0, |r| r.seq);

    let report = assert_verify_ok(&life.env);
    assert_eq!(report["dir"], state.display().to_string(), "{report}");
    assert_eq!(report["max_seq"], max, "{report}");
    assert_eq!(report["reserved"], reservation(&state), "{report}");
    assert_eq!(report["provable"], true, "{report}");
    assert_eq!(report["retained_after"], 0, "{report}");
    assert!(
        report["facts"].as_array().is_some_and(|f| !f.is_empty()),
        "{report}"
    );

    // `--state-dir` checks another directory than the environment's.
    let elsewhere = TestEnv::new();
    let state_arg = state.display().to_string();
    let out = elsewhere.cli(&["journal", "verify", "--state-dir", &state_arg]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("ok: no problems found"));

    // A record out of order and a line that is no record are problems.
    let current = state.join("audit.jsonl");
    let good = std::fs::read(&current).unwrap_or_default();
    append_file(&current, b"{\"seq\":1,\"event\":\"workspace.closed\",\"payload\":{},\"at\":\"2020-01-01T00:00:00Z\"}\n");
    assert_verify_problem(&life.env);
    write_file(&current, &good);
    append_file(&current, b"garbage\n");
    let report = assert_verify_problem(&life.env);
    let out = elsewhere.cli(&["journal", "verify", "--state-dir", &state_arg]);
    assert_eq!(out.status.code(), Some(1));
    // A line that is no record makes the files prove nothing (the server answers
    // `unavailable` for them); the report must not claim otherwise.
    assert_eq!(report["provable"], false, "{report}");
}
