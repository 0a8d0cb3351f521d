//! A thousand panes are an ordinary day (docs/panes.md#how-many-panes): a
//! thousand start, a sample of them is typed into and read, all of them close,
//! and the server's threads, descriptors and memory come back to where they
//! were. A server whose open-file limit allows fewer refuses the pane past it
//! with `SPAWN_FAILED` and keeps working, and its panes' children get the
//! limit it was started with, not the one it raised.

use crate::support::{Client, TestEnv, TestServer, expect_code, fd_count, ok, poll_until};
use base64::Engine as _;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::time::{Duration, Instant};

const PANES: usize = 1000;
/// Panes typed into and read back.
const SAMPLE: usize = 25;
const SETTLE: Duration = Duration::from_secs(30);
/// What the server logs when it gives freed memory back after panes closed.
const GIVEN_BACK: &str = "freed memory given back after panes went away";

/// A field of `/proc/PID/status` (`Threads`, `VmRSS` in kB).
fn status_field(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/status: {e}"));
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

#[derive(Debug, Clone, Copy)]
struct Usage {
    threads: u64,
    fds: usize,
    rss_kb: u64,
}

fn usage(pid: u32) -> Usage {
    Usage {
        threads: status_field(pid, "Threads"),
        fds: fd_count(pid),
        rss_kb: status_field(pid, "VmRSS"),
    }
}

fn live_panes(c: &mut Client) -> u64 {
    ok(c.call("server.status", json!({})))["live_panes"]
        .as_u64()
        .unwrap_or(u64::MAX)
}

/// Requests sent before their answers are read.
const IN_FLIGHT: usize = 64;

/// The results of `requests`, sent `IN_FLIGHT` at a time on one connection.
fn pipelined(c: &mut Client, requests: Vec<(&str, Value)>) -> Vec<Value> {
    let mut results = Vec::with_capacity(requests.len());
    let mut requests = requests.into_iter().peekable();
    while requests.peek().is_some() {
        let ids: Vec<String> = requests
            .by_ref()
            .take(IN_FLIGHT)
            .map(|(method, params)| c.send(method, params))
            .collect();
        let mut answers: std::collections::HashMap<String, _> = ids
            .iter()
            .map(|_| {
                let r = c.read_response();
                (r.id.clone(), r)
            })
            .collect();
        for id in ids {
            let answer = answers
                .remove(&id)
                .unwrap_or_else(|| panic!("no answer to {id}"));
            results.push(ok(answer));
        }
    }
    results
}

/// A workspace with `n` tabs, one `argv` pane in each; their ids.
fn spawn_panes(c: &mut Client, name: &str, n: usize, argv: &[&str]) -> (String, Vec<String>) {
    let ws = ok(c.call("workspace.create", json!({"name": name, "cwd": "/"})))["workspace"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let tabs = pipelined(
        c,
        (0..n)
            .map(|_| ("tab.create", json!({"workspace_id": ws})))
            .collect(),
    );
    let spawns = tabs
        .iter()
        .map(|t| {
            let tab = &t["tab"]["id"];
            (
                "pane.spawn",
                json!({"workspace_id": ws, "tab_id": tab, "argv": argv}),
            )
        })
        .collect();
    let panes = pipelined(c, spawns)
        .iter()
        .map(|p| p["pane"]["id"].as_str().unwrap_or_default().to_owned())
        .collect();
    (ws, panes)
}

/// Types a line into `pane` (a `cat`) and waits until `cat` has printed it back.
fn echo_through(c: &mut Client, pane: &str, line: &str) {
    let data = base64::engine::general_purpose::STANDARD.encode(format!("{line}\n"));
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": data})));
    let mut last = Value::Null;
    let seen = poll_until(Duration::from_secs(10), || {
        last = ok(c.call(
            "pane.read",
            json!({"pane_id": pane, "mode": "tail", "lines": 10}),
        ));
        // The terminal's echo, then cat's copy.
        last["text"]
            .as_str()
            .is_some_and(|t| t.lines().filter(|l| l.trim() == line).count() >= 2)
    });
    assert!(seen, "{pane} did not print {line} back: {last}");
}

#[test]
fn a_thousand_panes_start_answer_and_close_leaving_nothing_behind() {
    let mut server = TestServer::start();
    let pid = server.process().pid();
    let mut c = Client::connect(server.socket_path());
    let capacity = ok(c.call("server.status", json!({})))["pane_capacity"].clone();
    assert!(
        capacity["max_live_panes"].as_u64().unwrap_or(0) >= PANES as u64,
        "the open-file limit this test runs under allows too few panes: {capacity} \
         (raise `ulimit -Hn`)"
    );
    // Warm up with a whole round of a thousand panes: what starts on first
    // use (the blocking pool, the arbiters' first allocations, the journal's
    // first block) and what is bounded but fills with panes (the event ring's
    // last 1024 events, the allocator's caches) is there before the baseline,
    // so the second round shows whether closed panes leave anything behind.
    let trims = |server: &mut TestServer| server.process().stderr().matches(GIVEN_BACK).count();
    let (ws, _) = spawn_panes(&mut c, "warm", PANES, &["cat"]);
    ok(c.call("workspace.close", json!({"workspace_id": ws})));
    assert!(poll_until(SETTLE, || live_panes(&mut c) == 0));
    assert!(
        poll_until(SETTLE, || trims(&mut server) >= 1),
        "no process refresh gave the memory of the first round back"
    );
    let before = usage(pid);

    let started = Instant::now();
    let (ws, panes) = spawn_panes(&mut c, "many", PANES, &["cat"]);
    let spawned_in = started.elapsed();
    assert_eq!(live_panes(&mut c), PANES as u64);
    let full = usage(pid);
    for (i, pane) in panes.iter().enumerate().step_by(PANES / SAMPLE) {
        echo_through(&mut c, pane, &format!("line-{i}"));
    }
    // A pane with a thousand others beside it reads as one alone does (its
    // latency is measured by the benchmark, `--only many`).
    for pane in panes.iter().step_by(PANES / SAMPLE) {
        ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
    }

    let closing = Instant::now();
    ok(c.call("workspace.close", json!({"workspace_id": ws})));
    assert!(
        poll_until(SETTLE, || live_panes(&mut c) == 0),
        "panes still live {SETTLE:?} after the close"
    );
    let mut after = usage(pid);
    // The allocator keeps some of what it freed: a quarter of what the
    // thousand panes took, at most, may stay.
    let grown = full.rss_kb.saturating_sub(before.rss_kb);
    let rss_back = |after: &Usage| after.rss_kb <= before.rss_kb + grown / 4 + 4096;
    // The blocking pool's idle threads time out, and the next process
    // refresh gives the freed memory back.
    let settled = poll_until(SETTLE, || {
        after = usage(pid);
        // At most as many: the baseline may have caught a transient one.
        after.fds <= before.fds
            && after.threads <= before.threads + 4
            && trims(&mut server) >= 2
            && rss_back(&after)
    });
    eprintln!(
        "{PANES} panes: spawned in {spawned_in:?}, closed in {:?}; before {before:?}, \
         with them {full:?}, after {after:?}",
        closing.elapsed()
    );
    assert!(
        settled,
        "not back to the baseline: before {before:?}, after {after:?}"
    );
    // One loop serves every pane: a pane holds its master and its child's
    // pidfd, and no thread.
    // A few descriptors come and go on their own (a snapshot being written,
    // the process refresh reading /proc): two a pane, give or take those.
    let added = full.fds.abs_diff(before.fds + 2 * PANES);
    assert!(
        added <= 16,
        "a pane holds two descriptors: {before:?} → {full:?}"
    );
    assert!(
        full.threads <= before.threads + 8,
        "a pane costs no thread: {before:?} → {full:?}"
    );
}

#[test]
fn past_its_open_file_limit_a_server_refuses_panes_and_children_get_the_limit_it_started_with() {
    let env = TestEnv::new();
    let socket = env.default_socket();
    // Soft 600, hard 756: the server raises its own to 756 (room for
    // (756 − 512) / 2 = 122 panes), its children start with 600.
    let cmd = env.shell_command("ulimit -Sn 600 && ulimit -Hn 756 && exec \"$0\" server");
    let server = TestServer::start_with_command(env, cmd, socket);
    let mut c = Client::connect(server.socket_path());
    let capacity = ok(c.call("server.status", json!({})))["pane_capacity"].clone();
    assert_eq!(
        capacity,
        json!({"max_live_panes": 122, "open_file_limit": 756, "fds_per_pane": 2,
               "reserved_fds": 512})
    );
    let (ws, panes) = spawn_panes(
        &mut c,
        "limits",
        1,
        &["sh", "-c", "ulimit -Sn; ulimit -Hn; exec cat"],
    );
    let mut text = String::new();
    assert!(
        poll_until(Duration::from_secs(10), || {
            text = ok(c.call("pane.read", json!({"pane_id": panes[0], "mode": "tail"})))["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            text.lines().count() >= 2
        }),
        "{text}"
    );
    assert_eq!(
        text.lines().map(str::trim).collect::<Vec<_>>(),
        ["600", "756"]
    );
    let mut last_pane = String::new();
    for _ in 1..122 {
        let tab = ok(c.call("tab.create", json!({"workspace_id": ws})))["tab"]["id"].clone();
        let spawned = ok(c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab, "argv": ["cat"]}),
        ));
        last_pane = spawned["pane"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
    }
    assert_eq!(live_panes(&mut c), 122);
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})))["tab"]["id"].clone();
    let refused = expect_code(
        c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab, "argv": ["cat"]}),
        ),
        ErrorCode::SpawnFailed,
    );
    assert!(
        refused
            .message
            .contains("open-file limit (756) allows at most 122")
            && refused.message.contains("docs/panes.md#how-many-panes"),
        "{refused:?}"
    );
    // A split and a layout are refused alike; nothing was started.
    expect_code(
        c.call("pane.split", json!({"pane_id": last_pane, "argv": ["cat"]})),
        ErrorCode::SpawnFailed,
    );
    assert_eq!(live_panes(&mut c), 122);
    // One closed: room for one again.
    ok(c.call("pane.close", json!({"pane_id": last_pane})));
    assert!(poll_until(SETTLE, || live_panes(&mut c) == 121));
    ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": ["cat"]}),
    ));
    assert_eq!(live_panes(&mut c), 122);
    ok(c.call("workspace.close", json!({"workspace_id": ws})));
    assert!(poll_until(SETTLE, || live_panes(&mut c) == 0));
}
