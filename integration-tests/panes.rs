//! PTY panes through the real binary (docs/methods.md#panes, docs/panes.md,
//! docs/terminal.md): spawn and its validation, the three
//! read modes, input (echo, limits, a child that does not read), resize, signals, exit
//! codes, titles, the child environment, teardown of whole sessions on close, no zombies or
//! leaked descriptors, and the CLI.
//!
//! Panes run `/bin/sh -c '…'` scripts; every wait polls against a deadline.

use crate::support::{
    Client, DEADLINE, TestEnv, TestServer, expect_code, fd_count, ok, poll_until, proc_stat,
    process_gone, str_field, u64_field, wait_until, zombie_children,
};
use base64::Engine as _;
use serde_json::{Value, json};
use signaltty_protocol::{ErrorCode, EventFrame};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// --- helpers -----------------------------------------------------------------------------

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Whether `text` is a pane id: `pane_` and 32 lowercase hex digits.
fn is_pane_id(text: &str) -> bool {
    text.strip_prefix("pane_").is_some_and(|hex| {
        hex.len() == 32
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// `argv` running `script` with `/bin/sh -c`.
fn sh(script: &str) -> Value {
    json!(["/bin/sh", "-c", script])
}

fn same_dir(a: &str, b: &Path) -> bool {
    Path::new(a) == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}

/// Creates a workspace named `name` whose cwd is the test's root dir; returns its id.
#[track_caller]
fn workspace(client: &mut Client, server: &TestServer, name: &str) -> String {
    let cwd = server.env().root().to_string_lossy().into_owned();
    let result = ok(client.call("workspace.create", json!({"name": name, "cwd": cwd})));
    str_field(&result["workspace"], "id").to_owned()
}

/// Creates an empty tab in `workspace`; returns its id.
#[track_caller]
fn new_tab(client: &mut Client, workspace: &str) -> String {
    let result = ok(client.call("tab.create", json!({"workspace_id": workspace})));
    str_field(&result["tab"], "id").to_owned()
}

/// `pane.spawn` with `params`; returns the pane object.
#[track_caller]
fn spawn(client: &mut Client, params: Value) -> Value {
    ok(client.call("pane.spawn", params))["pane"].clone()
}

/// Spawns `argv` in a new empty tab of `workspace`; returns the pane id.
#[track_caller]
fn spawn_argv(client: &mut Client, workspace: &str, argv: Value) -> String {
    let tab = new_tab(client, workspace);
    let pane = spawn(
        client,
        json!({"workspace_id": workspace, "tab_id": tab, "argv": argv}),
    );
    str_field(&pane, "id").to_owned()
}

/// Spawns `/bin/sh -c SCRIPT` in a new empty tab of `workspace`; returns the pane id.
#[track_caller]
fn spawn_sh(client: &mut Client, workspace: &str, script: &str) -> String {
    spawn_argv(client, workspace, sh(script))
}

/// `pane.read` in `mode` with the maximum line count; returns the result.
#[track_caller]
fn read(client: &mut Client, pane: &str, mode: &str) -> Value {
    ok(client.call(
        "pane.read",
        json!({"pane_id": pane, "mode": mode, "lines": 5000}),
    ))
}

/// Polls `pane.read` in `mode` until its text satisfies `done`; returns that text.
#[track_caller]
fn read_until(
    client: &mut Client,
    pane: &str,
    mode: &str,
    what: &str,
    done: impl Fn(&str) -> bool,
) -> String {
    let mut last = String::new();
    let found = poll_until(DEADLINE, || {
        let result = read(client, pane, mode);
        last = result["text"].as_str().unwrap_or_default().to_owned();
        done(&last)
    });
    assert!(
        found,
        "timed out after {DEADLINE:?} waiting for {what} in {pane} ({mode}); last text:\n{last}"
    );
    last
}

/// Whether some line of `text`, trimmed, equals `line`.
fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l.trim() == line)
}

/// `pane.input` of `bytes`; returns the response.
#[track_caller]
fn input(client: &mut Client, pane: &str, bytes: &[u8]) -> signaltty_protocol::Response {
    client.call(
        "pane.input",
        json!({"pane_id": pane, "data_b64": b64(bytes)}),
    )
}

/// The pane object from `pane.get`.
#[track_caller]
fn get_pane(client: &mut Client, pane: &str) -> Value {
    ok(client.call("pane.get", json!({"pane_id": pane})))["pane"].clone()
}

/// Polls `pane.get` until the pane has exited; returns its `live` object.
#[track_caller]
fn wait_exited(client: &mut Client, pane: &str) -> Value {
    wait_until(&format!("{pane} to exit"), DEADLINE, || {
        let live = get_pane(client, pane)["live"].clone();
        (live["state"] == "exited").then_some(live)
    })
}

/// The next event named `name` whose payload satisfies `wanted`, skipping others.
#[track_caller]
fn next_event_where(sub: &mut Client, name: &str, wanted: impl Fn(&Value) -> bool) -> EventFrame {
    let start = Instant::now();
    let mut skipped = Vec::new();
    loop {
        assert!(
            start.elapsed() < DEADLINE,
            "no matching {name} event within {DEADLINE:?}; skipped {skipped:?}"
        );
        let event = sub.next_event();
        if event.event == name && wanted(&event.payload) {
            return event;
        }
        skipped.push((event.event, event.payload));
    }
}

/// The next `count` events as `(name, payload)`.
#[track_caller]
fn next_events(sub: &mut Client, count: usize) -> Vec<(String, Value)> {
    (0..count)
        .map(|_| sub.next_event())
        .map(|e| (e.event, e.payload))
        .collect()
}

#[track_caller]
fn status(client: &mut Client) -> Value {
    ok(client.call("server.status", json!({})))
}

/// The number printed after `key=` on a line of `text`.
#[track_caller]
fn number_after(text: &str, key: &str) -> u32 {
    let prefix = format!("{key}=");
    let found = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str())?.parse().ok());
    match found {
        Some(n) => n,
        None => panic!("no `{prefix}N` line in:\n{text}"),
    }
}

/// The signals ignored by process `pid` (`SigIgn` of `/proc/<pid>/status`).
fn ignored_signals(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0)
}

/// The `KEY=VALUE` lines of `text` before the line `end`, as a map.
fn env_map(text: &str, end: &str) -> HashMap<String, String> {
    text.lines()
        .take_while(|l| l.trim() != end)
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim_end().to_owned()))
        .collect()
}

/// Asserts exit 0 and parses stdout as one JSON value.
#[track_caller]
fn cli_json(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "expected exit 0, got {}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    match serde_json::from_str(stdout.trim_end()) {
        Ok(value) => value,
        Err(e) => panic!("--json stdout is not one JSON value ({e}): {stdout:?}"),
    }
}

/// A child that switches its terminal to raw mode, prints `ready`, reads one byte,
/// prints `first-byte` and then never reads again: once `first-byte` shows, a write
/// to it has started, and 700 000 bytes cannot fit in the PTY buffers.
const STALLING_CHILD: &str = "stty raw -echo 2>/dev/null; echo ready; \
     dd bs=1 count=1 >/dev/null 2>&1; echo first-byte; exec sleep 600";

/// `details.written_bytes` of an input error.
fn written_bytes(e: &signaltty_protocol::ErrorBody) -> Option<u64> {
    e.details
        .as_ref()
        .and_then(|d| d.get("written_bytes"))
        .and_then(Value::as_u64)
}

/// The error of `response`, which must carry `code`; the message names the round and
/// how long after the close the reply came.
#[track_caller]
fn expect_code_or_show(
    response: signaltty_protocol::Response,
    code: ErrorCode,
    round: usize,
    waited: Duration,
) -> signaltty_protocol::ErrorBody {
    match response.error {
        Some(e) if e.code == code => e,
        _ => panic!(
            "round {round}: expected {code:?} for an input cut off by a close, answered \
             {waited:?} after it: {response:?}"
        ),
    }
}

// --- spawn -------------------------------------------------------------------------------

#[test]
fn spawn_into_a_workspace_without_tabs_creates_an_agents_tab_and_a_live_pane() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["tab.*", "pane.*"]})));
    let ws = workspace(&mut c, &server, "proj");

    let pane = spawn(
        &mut c,
        json!({"workspace_id": "proj", "argv": ["sleep", "600"], "cols": 5, "rows": 1000}),
    );
    let id = str_field(&pane, "id").to_owned();
    assert!(is_pane_id(&id), "pane id: {pane}");
    assert_eq!(pane["workspace_id"], ws.as_str());
    assert_eq!(pane["title"], "sleep", "title is the basename of argv[0]");
    assert_eq!(pane["argv"], json!(["sleep", "600"]));
    assert!(
        same_dir(str_field(&pane, "cwd"), server.env().root()),
        "the cwd defaults to the workspace's: {pane}"
    );
    assert_eq!(
        pane["pty_size"],
        json!({"cols": 20, "rows": 200}),
        "the size is clamped"
    );
    assert_eq!(pane["live"], json!({"state": "live"}));
    assert_eq!(pane["restore_state"], "LIVE");
    assert_eq!(pane["agent"]["kind"], "generic");
    assert_eq!(pane["lifecycle"], "unknown");
    assert_eq!(pane["attention"], "none");
    for field in ["created_at", "last_activity_at"] {
        let at = str_field(&pane, field);
        assert!(
            at.len() >= 20 && at.as_bytes()[10] == b'T',
            "{field} is RFC 3339: {at}"
        );
    }
    for absent in [
        "parent_pane_id",
        "root_pane_id",
        "label",
        "relationship",
        "task_id",
    ] {
        assert!(
            pane.get(absent).is_none(),
            "no {absent} without lineage: {pane}"
        );
    }
    let tab = str_field(&pane, "tab_id").to_owned();

    let events = next_events(&mut sub, 2);
    assert_eq!(events[0].0, "tab.created");
    assert_eq!(events[0].1["tab"]["id"], tab.as_str());
    assert_eq!(events[0].1["tab"]["title"], "agents");
    assert_eq!(events[1].0, "pane.created");
    assert_eq!(events[1].1["pane"]["id"], id.as_str());

    let got = ok(c.call("workspace.get", json!({"workspace_id": "proj"})));
    assert_eq!(got["workspace"]["tabs"], json!([tab]));
    assert_eq!(got["workspace"]["active_tab_id"], tab.as_str());
    assert_eq!(
        got["tabs"][0]["layout"],
        json!({"type": "pane", "pane_id": id})
    );
    assert_eq!(got["tabs"][0]["active_pane_id"], id.as_str());
    let listed: Vec<&Value> = got["panes"]
        .as_array()
        .map(|a| a.iter().map(|p| &p["id"]).collect())
        .unwrap_or_default();
    assert_eq!(listed, vec![&json!(id)], "workspace.get lists the pane");

    let fetched = ok(c.call("pane.get", json!({"pane_id": id})));
    assert_eq!(fetched["pane"]["id"], id.as_str());
    assert_eq!(fetched["wait_baseline"]["pane_id"], id.as_str());

    // An explicit empty tab takes the next pane, at the default size.
    let second_tab = new_tab(&mut c, "proj");
    let second = spawn(
        &mut c,
        json!({"workspace_id": ws, "tab_id": second_tab, "argv": ["sleep", "600"]}),
    );
    assert_eq!(second["tab_id"], second_tab.as_str());
    assert_eq!(second["pty_size"], json!({"cols": 80, "rows": 24}));

    // A relative executable path is anchored at the cwd and stored absolute; the agent
    // kind comes from its basename.
    let bin = server.env().root().join("bin");
    std::fs::create_dir(&bin).expect("mkdir bin");
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\nexec sleep 600\n").expect("write the fake agent");
    crate::support::process::set_mode(&claude, 0o755);
    let third_tab = new_tab(&mut c, "proj");
    let agent = spawn(
        &mut c,
        json!({"workspace_id": ws, "tab_id": third_tab, "argv": ["./bin/claude", "--flag"]}),
    );
    assert_eq!(
        agent["argv"],
        json!([claude.to_string_lossy(), "--flag"]),
        "{agent}"
    );
    assert_eq!(agent["agent"]["kind"], "claude", "{agent}");
    assert_eq!(agent["title"], "claude", "{agent}");

    let st = status(&mut c);
    assert_eq!(
        (&st["tabs"], &st["panes"], &st["live_panes"]),
        (&json!(3), &json!(3), &json!(3)),
        "{st}"
    );
}

#[test]
fn spawn_errors_leave_no_tab_and_no_pane_behind() {
    let server = TestServer::start();
    let mut c = server.client();
    workspace(&mut c, &server, "proj");
    workspace(&mut c, &server, "other");
    let foreign_tab = new_tab(&mut c, "other");
    let root = server.env().root();
    let file = root.join("a-file");
    std::fs::write(&file, b"x").expect("write");
    let not_executable = root.join("not-executable");
    std::fs::write(&not_executable, b"#!/bin/sh\n").expect("write");
    let file = file.to_string_lossy().into_owned();
    let missing_dir = root.join("missing").to_string_lossy().into_owned();
    let not_executable = not_executable.to_string_lossy().into_owned();

    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["tab.*", "pane.*"]})));

    let cases = [
        (
            json!({"workspace_id": "proj", "argv": []}),
            ErrorCode::BadParams,
        ),
        (json!({"workspace_id": "proj"}), ErrorCode::BadParams),
        (
            json!({"workspace_id": "proj", "argv": ["true"], "cwd": file}),
            ErrorCode::BadParams,
        ),
        (
            json!({"workspace_id": "proj", "argv": ["true"], "cwd": missing_dir}),
            ErrorCode::BadParams,
        ),
        (
            json!({"workspace_id": "proj", "argv": ["true"], "tab_id": "tab_00000000000000000000000000000000"}),
            ErrorCode::NoSuchTab,
        ),
        (
            json!({"workspace_id": "proj", "argv": ["true"], "tab_id": foreign_tab}),
            ErrorCode::BadParams,
        ),
        (
            json!({"workspace_id": "proj", "argv": ["true"], "parent_pane_id": "pane_00000000000000000000000000000000"}),
            ErrorCode::NoSuchPane,
        ),
        (
            json!({"workspace_id": "nope", "argv": ["true"]}),
            ErrorCode::NoSuchWorkspace,
        ),
        (
            json!({"workspace_id": "proj", "argv": ["/nonexistent/signaltty-test-binary"]}),
            ErrorCode::SpawnFailed,
        ),
        (
            json!({"workspace_id": "proj", "argv": ["signaltty-no-such-program-on-path"]}),
            ErrorCode::SpawnFailed,
        ),
        (
            json!({"workspace_id": "proj", "argv": [not_executable]}),
            ErrorCode::SpawnFailed,
        ),
    ];
    for (params, code) in cases {
        let response = c.call("pane.spawn", params.clone());
        assert!(
            !response.ok,
            "pane.spawn {params} should fail with {code:?}: {response:?}"
        );
        let e = expect_code(response, code);
        assert!(!e.message.is_empty(), "{params}: {e:?}");
    }

    let got = ok(c.call("workspace.get", json!({"workspace_id": "proj"})));
    assert_eq!(got["workspace"]["tabs"], json!([]), "no tab left: {got}");
    assert_eq!(got["panes"], json!([]), "no pane left: {got}");
    assert!(
        got["workspace"]
            .get("active_tab_id")
            .is_none_or(Value::is_null)
    );
    let st = status(&mut c);
    assert_eq!(
        (&st["tabs"], &st["panes"], &st["live_panes"]),
        (&json!(1), &json!(0), &json!(0)),
        "only the other workspace's tab exists: {st}"
    );

    // No event was emitted for the refused spawns: the first ones seen belong to the
    // next successful spawn.
    let pane = spawn(
        &mut c,
        json!({"workspace_id": "proj", "argv": ["sleep", "600"]}),
    );
    let events = next_events(&mut sub, 2);
    assert_eq!(events[0].0, "tab.created", "{events:?}");
    assert_eq!(events[0].1["tab"]["id"], pane["tab_id"]);
    assert_eq!(events[1].0, "pane.created", "{events:?}");
    assert_eq!(events[1].1["pane"]["id"], pane["id"]);

    // The active tab now has a pane and takes no other one. (An explicit `tab_id` of
    // an occupied tab is covered below, on a tab made by `tab.create`.)
    expect_code(
        c.call(
            "pane.spawn",
            json!({"workspace_id": "proj", "argv": ["true"]}),
        ),
        ErrorCode::BadParams,
    );
    let tab = new_tab(&mut c, "proj");
    spawn(
        &mut c,
        json!({"workspace_id": "proj", "tab_id": tab, "argv": ["sleep", "600"]}),
    );
    expect_code(
        c.call(
            "pane.spawn",
            json!({"workspace_id": "proj", "tab_id": tab, "argv": ["true"]}),
        ),
        ErrorCode::BadParams,
    );
    let st = status(&mut c);
    assert_eq!((&st["tabs"], &st["panes"]), (&json!(3), &json!(2)), "{st}");
}

#[test]
fn the_tab_created_by_spawn_is_addressable_like_any_other_tab() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["pane.closed", "tab.closed"]}),
    ));
    workspace(&mut c, &server, "proj");
    let first = spawn(
        &mut c,
        json!({"workspace_id": "proj", "argv": ["sleep", "600"]}),
    );
    let tab = str_field(&first, "tab_id").to_owned();
    let with_tab = json!({"workspace_id": "proj", "tab_id": tab, "argv": ["sleep", "600"]});

    // Occupied: BAD_PARAMS, as for any tab with panes (not NO_SUCH_TAB).
    expect_code(c.call("pane.spawn", with_tab.clone()), ErrorCode::BadParams);
    // Emptied by a close, it takes a new pane when named explicitly.
    ok(c.call("pane.close", json!({"pane_id": first["id"]})));
    let second = spawn(&mut c, with_tab);
    assert_eq!(second["tab_id"], tab.as_str());
    // And `tab.close` closes it, its pane first.
    ok(c.call("tab.close", json!({"tab_id": tab})));
    let events = next_events(&mut sub, 3);
    assert_eq!(
        events,
        vec![
            ("pane.closed".to_owned(), json!({"pane_id": first["id"]})),
            ("pane.closed".to_owned(), json!({"pane_id": second["id"]})),
            ("tab.closed".to_owned(), json!({"tab_id": tab})),
        ]
    );
    let st = status(&mut c);
    assert_eq!((&st["tabs"], &st["panes"]), (&json!(0), &json!(0)), "{st}");
}

// --- read --------------------------------------------------------------------------------

#[test]
fn the_three_read_modes_show_resolved_carriage_returns_and_the_cursor_returns_only_new_lines() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let pane = spawn_sh(
        &mut c,
        &ws,
        r"stty -echo; printf 'one\r\nStatus: Starting\rStatus: Ready   \r\n'; read x; printf 'two\r\nthree\r\n'; exec sleep 600",
    );

    let tail = read_until(&mut c, &pane, "tail", "the first batch", |t| {
        t.contains("Status: Ready")
    });
    let lines: Vec<&str> = tail.lines().map(str::trim_end).collect();
    assert_eq!(
        lines,
        ["one", "Status: Ready"],
        "tail resolves the carriage return: {tail:?}"
    );
    let screen = read(&mut c, &pane, "screen");
    let text = str_field(&screen, "text");
    assert!(
        has_line(text, "one") && has_line(text, "Status: Ready"),
        "{screen}"
    );
    assert!(!text.contains("Starting"), "{screen}");
    assert_eq!(screen["truncated"], false);

    let first = read(&mut c, &pane, "rendered");
    let lines: Vec<&str> = str_field(&first, "text")
        .lines()
        .map(str::trim_end)
        .collect();
    assert_eq!(lines, ["one", "Status: Ready"], "{first}");
    assert_eq!(
        (&first["dropped"], &first["truncated"]),
        (&json!(false), &json!(false)),
        "{first}"
    );
    let cursor = u64_field(&first, "next_seq");
    assert!(u64_field(&first, "seq") <= cursor, "{first}");

    ok(input(&mut c, &pane, b"go\r"));
    let mut delta = Value::Null;
    let found = poll_until(DEADLINE, || {
        delta = ok(c.call(
            "pane.read",
            json!({"pane_id": pane, "mode": "rendered", "after_seq": cursor}),
        ));
        delta["text"].as_str().is_some_and(|t| has_line(t, "three"))
    });
    assert!(found, "the second batch never arrived: {delta}");
    let lines: Vec<&str> = str_field(&delta, "text")
        .lines()
        .map(str::trim_end)
        .collect();
    assert_eq!(lines, ["two", "three"], "only the new lines: {delta}");
    assert_eq!(delta["dropped"], false, "{delta}");
    assert!(u64_field(&delta, "seq") > cursor, "{delta}");

    // Nothing new: empty text, and `seq == next_seq ==` the previous head.
    let head = u64_field(&delta, "next_seq");
    let idle = ok(c.call(
        "pane.read",
        json!({"pane_id": pane, "mode": "rendered", "after_seq": head}),
    ));
    assert_eq!(idle["text"], "", "{idle}");
    assert_eq!(
        (u64_field(&idle, "seq"), u64_field(&idle, "next_seq")),
        (head, head),
        "{idle}"
    );

    // The tail has everything; `lines` keeps the newest and reports truncation.
    let all = read(&mut c, &pane, "tail");
    let lines: Vec<&str> = str_field(&all, "text").lines().map(str::trim_end).collect();
    assert_eq!(lines, ["one", "Status: Ready", "two", "three"], "{all}");
    let last = ok(c.call(
        "pane.read",
        json!({"pane_id": pane, "mode": "tail", "lines": 1}),
    ));
    assert_eq!(last["text"].as_str().map(str::trim_end), Some("three"));
    assert_eq!(last["truncated"], true, "{last}");
    let default_mode = ok(c.call("pane.read", json!({"pane_id": pane})));
    assert_eq!(
        default_mode["text"], all["text"],
        "tail is the default mode"
    );

    expect_code(
        c.call("pane.read", json!({"pane_id": pane, "mode": "bogus"})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "pane.read",
            json!({"pane_id": "pane_00000000000000000000000000000000"}),
        ),
        ErrorCode::NoSuchPane,
    );
}

// --- input -------------------------------------------------------------------------------

#[test]
fn input_is_echoed_by_the_terminal_and_by_cat() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let pane = spawn_argv(&mut c, &ws, json!(["cat"]));
    let result = ok(input(&mut c, &pane, b"hello pane\r"));
    assert_eq!(result, json!({"written": 11}));
    // Once from the terminal's echo, once from cat.
    read_until(&mut c, &pane, "tail", "two copies of the input", |t| {
        t.lines().filter(|l| l.trim() == "hello pane").count() >= 2
    });
}

#[test]
fn input_validates_its_size_encoding_and_pane() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let pane = spawn_argv(&mut c, &ws, json!(["cat"]));
    let e = expect_code(
        c.call(
            "pane.input",
            json!({"pane_id": pane, "data_b64": "A".repeat(1_048_577)}),
        ),
        ErrorCode::RateLimited,
    );
    assert!(!e.message.is_empty());
    expect_code(
        c.call(
            "pane.input",
            json!({"pane_id": pane, "data_b64": "@@not base64@@"}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("pane.input", json!({"pane_id": pane})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "pane.input",
            json!({"pane_id": "pane_00000000000000000000000000000000", "data_b64": b64(b"x")}),
        ),
        ErrorCode::NoSuchPane,
    );
    // The largest allowed request goes through to a reading child.
    let max = vec![b'a'; 1_048_576 / 4 * 3];
    assert_eq!(b64(&max).len(), 1_048_576);
    let result = ok(c.call(
        "pane.input",
        json!({"pane_id": pane, "data_b64": b64(&max)}),
    ));
    assert_eq!(result["written"], max.len());
}

#[test]
fn input_to_a_child_that_does_not_read_times_out_with_the_written_prefix_while_other_panes_answer()
{
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let stalled = spawn_sh(&mut c, &ws, STALLING_CHILD);
    let lively = spawn_argv(&mut c, &ws, json!(["cat"]));
    read_until(&mut c, &stalled, "tail", "ready", |t| has_line(t, "ready"));

    let payload = vec![b'x'; 700_000];
    let data = b64(&payload);
    assert!(data.len() <= 1_048_576);
    let mut writer = server.client();
    let done = Arc::new(AtomicBool::new(false));
    let stalled_input = {
        let done = Arc::clone(&done);
        let pane = stalled.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            let response = writer.call("pane.input", json!({"pane_id": pane, "data_b64": data}));
            let elapsed = start.elapsed();
            done.store(true, Ordering::SeqCst);
            (response, elapsed)
        })
    };
    read_until(&mut c, &stalled, "tail", "the first byte", |t| {
        has_line(t, "first-byte")
    });

    // While that write is stuck, the other pane takes input and signals and reads promptly,
    // and the stuck pane itself still answers `pane.get`.
    let mut rounds = 0;
    let mut slowest = Duration::ZERO;
    let started = Instant::now();
    while !done.load(Ordering::SeqCst) && started.elapsed() < DEADLINE {
        let token = format!("<ping {rounds}>");
        let round = Instant::now();
        ok(input(&mut c, &lively, format!("{token}\r").as_bytes()));
        read_until(&mut c, &lively, "tail", &token, |t| {
            t.matches(token.as_str()).count() >= 2
        });
        ok(c.call("pane.signal", json!({"pane_id": lively, "signal": "WINCH"})));
        assert_eq!(get_pane(&mut c, &stalled)["live"]["state"], "live");
        slowest = slowest.max(round.elapsed());
        rounds += 1;
    }
    let (response, elapsed) = stalled_input.join().expect("the writer thread");
    let e = expect_code(response, ErrorCode::Timeout);
    assert!(
        written_bytes(&e).is_some_and(|n| n > 0 && n < payload.len() as u64),
        "details.written_bytes is the accepted prefix: {e:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(4500) && elapsed < Duration::from_secs(8),
        "TIMEOUT after the 5 s budget, took {elapsed:?}"
    );
    assert!(
        rounds >= 3,
        "only {rounds} rounds on the other pane during the stall"
    );
    assert!(
        slowest < Duration::from_secs(1),
        "the other pane took {slowest:?} for one input/read/signal round during the stall"
    );
}

#[test]
fn closing_a_pane_answers_an_input_blocked_on_it_promptly_with_pane_exited() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    for round in 0..3 {
        let pane = spawn_sh(&mut c, &ws, STALLING_CHILD);
        read_until(&mut c, &pane, "tail", "ready", |t| has_line(t, "ready"));
        let mut writer = server.client();
        let blocked = {
            let pane = pane.clone();
            std::thread::spawn(move || {
                let data = b64(&[b'y'; 700_000]);
                let response =
                    writer.call("pane.input", json!({"pane_id": pane, "data_b64": data}));
                (response, Instant::now())
            })
        };
        read_until(&mut c, &pane, "tail", "the first byte", |t| {
            has_line(t, "first-byte")
        });
        let closed_at = Instant::now();
        ok(c.call("pane.close", json!({"pane_id": pane})));
        let (response, answered_at) = blocked.join().expect("the writer thread");
        let waited = answered_at.saturating_duration_since(closed_at);
        let e = expect_code_or_show(response, ErrorCode::PaneExited, round, waited);
        assert!(
            written_bytes(&e).is_some_and(|n| n > 0 && n < 700_000),
            "round {round}: details.written_bytes is the accepted prefix: {e:?}"
        );
        assert!(
            waited < Duration::from_millis(1500),
            "round {round}: the blocked input was answered {waited:?} after the close"
        );
    }
}

#[test]
fn requests_racing_a_close_get_pane_exited_or_no_such_pane_never_internal() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    for round in 0..3 {
        let pane = spawn_argv(&mut c, &ws, json!(["cat"]));
        let served = Arc::new(AtomicUsize::new(0));
        let racers: Vec<_> = [
            "pane.input",
            "pane.input",
            "pane.read",
            "pane.resize",
            "pane.signal",
        ]
        .into_iter()
        .map(|method| {
            let mut client = server.client();
            let params = match method {
                "pane.input" => json!({"pane_id": pane, "data_b64": b64(b"x")}),
                "pane.resize" => json!({"pane_id": pane, "cols": 90, "rows": 30}),
                "pane.signal" => json!({"pane_id": pane, "signal": "WINCH"}),
                _ => json!({"pane_id": pane}),
            };
            let served = Arc::clone(&served);
            std::thread::spawn(move || {
                let start = Instant::now();
                while start.elapsed() < DEADLINE {
                    let response = client.call(method, params.clone());
                    if !response.ok {
                        return (method, response);
                    }
                    served.fetch_add(1, Ordering::SeqCst);
                }
                panic!("{method} kept succeeding on a closed pane");
            })
        })
        .collect();
        wait_until("requests to be served", DEADLINE, || {
            (served.load(Ordering::SeqCst) >= 50).then_some(())
        });
        ok(c.call("pane.close", json!({"pane_id": pane})));
        let outcomes: Vec<(&str, ErrorCode, String)> = racers
            .into_iter()
            .map(|racer| {
                let (method, response) = racer.join().expect("a racing thread");
                let error = response
                    .error
                    .unwrap_or_else(|| panic!("{method} failed without an error"));
                (method, error.code, error.message)
            })
            .collect();
        assert!(
            outcomes
                .iter()
                .all(|(_, code, _)| matches!(code, ErrorCode::PaneExited | ErrorCode::NoSuchPane)),
            "round {round}: requests racing pane.close: {outcomes:?}"
        );
    }
}

// --- exit and signals --------------------------------------------------------------------

/// A child that exits at once can have its exit reach the Pane actor before the
/// Workspace has published the pane: `pane.created` must still come first, or the
/// projection (which answers `pane.get`) would never see the exit.
#[test]
fn a_pane_that_exits_at_once_is_created_before_it_exits() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["pane.created", "pane.exited"]}),
    ));
    let ws = workspace(&mut c, &server, "proj");
    let panes: Vec<String> = (0..40)
        .map(|_| spawn_argv(&mut c, &ws, json!(["true"])))
        .collect();
    let mut created = HashSet::new();
    let mut exited = HashSet::new();
    while exited.len() < panes.len() {
        let event = sub.next_event();
        match event.event.as_str() {
            "pane.created" => {
                created.insert(str_field(&event.payload["pane"], "id").to_owned());
            },
            "pane.exited" => {
                let pane = str_field(&event.payload, "pane_id").to_owned();
                assert!(
                    created.contains(&pane),
                    "pane.exited before pane.created for {pane}"
                );
                exited.insert(pane);
            },
            _ => {},
        }
    }
    for pane in &panes {
        assert_eq!(
            get_pane(&mut c, pane)["live"],
            json!({"state": "exited", "code": 0})
        );
    }
}

#[test]
fn exit_codes_arrive_as_pane_exited_and_the_pane_stays_as_a_readable_tombstone() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.exited"]})));
    let ws = workspace(&mut c, &server, "proj");
    let zero = spawn_sh(&mut c, &ws, "printf 'last words'; exit 0");
    let seven = spawn_sh(&mut c, &ws, "exit 7");

    let mut codes = HashMap::new();
    while codes.len() < 2 {
        let event = next_event_where(&mut sub, "pane.exited", |_| true);
        let pane = str_field(&event.payload, "pane_id").to_owned();
        assert!(
            codes.insert(pane, event.payload["code"].clone()).is_none(),
            "one pane.exited per pane: {event:?}"
        );
    }
    assert_eq!(codes.get(&zero), Some(&json!(0)), "{codes:?}");
    assert_eq!(codes.get(&seven), Some(&json!(7)), "{codes:?}");

    for (pane, code) in [(&zero, 0), (&seven, 7)] {
        let got = get_pane(&mut c, pane);
        assert_eq!(got["live"], json!({"state": "exited", "code": code}));
        assert_eq!(got["restore_state"], "EXITED");
    }
    let st = status(&mut c);
    assert_eq!(
        (&st["panes"], &st["live_panes"]),
        (&json!(2), &json!(0)),
        "{st}"
    );

    // The output printed just before the exit is kept and still readable.
    let tail = read(&mut c, &zero, "tail");
    assert!(has_line(str_field(&tail, "text"), "last words"), "{tail}");

    expect_code(input(&mut c, &zero, b"x"), ErrorCode::PaneExited);
    expect_code(
        c.call("pane.signal", json!({"pane_id": zero, "signal": "TERM"})),
        ErrorCode::PaneExited,
    );
    // A tombstone can be resized (stored only) and closed.
    let resized = ok(c.call(
        "pane.resize",
        json!({"pane_id": seven, "cols": 100, "rows": 30}),
    ));
    assert_eq!(
        resized["pane"]["pty_size"],
        json!({"cols": 100, "rows": 30})
    );
    assert_eq!(
        ok(c.call("pane.close", json!({"pane_id": seven}))),
        json!({"closed": true})
    );
}

#[test]
fn signals_are_validated_and_kill_ends_the_pane_with_code_137() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.exited"]})));
    let ws = workspace(&mut c, &server, "proj");
    let pane = spawn_argv(&mut c, &ws, json!(["sleep", "600"]));

    // WINCH is harmless to sleep; the names are case-insensitive with an optional SIG.
    for name in ["WINCH", "winch", "SIGWINCH", "SigWinch"] {
        assert_eq!(
            ok(c.call("pane.signal", json!({"pane_id": pane, "signal": name}))),
            json!({"sent": true}),
            "signal {name}"
        );
    }
    for name in ["STOP", "SIGSTOP", "CONT", "9", "", "SIGKILLX"] {
        expect_code(
            c.call("pane.signal", json!({"pane_id": pane, "signal": name})),
            ErrorCode::BadParams,
        );
    }
    expect_code(
        c.call("pane.close", json!({"pane_id": pane, "signal": "STOP"})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "pane.signal",
            json!({"pane_id": "pane_00000000000000000000000000000000", "signal": "KILL"}),
        ),
        ErrorCode::NoSuchPane,
    );
    assert_eq!(get_pane(&mut c, &pane)["live"]["state"], "live");

    ok(c.call("pane.signal", json!({"pane_id": pane, "signal": "KILL"})));
    let event = next_event_where(&mut sub, "pane.exited", |p| p["pane_id"] == pane.as_str());
    assert_eq!(event.payload, json!({"pane_id": pane, "code": 137}));
    assert_eq!(
        get_pane(&mut c, &pane)["live"],
        json!({"state": "exited", "code": 137})
    );
    expect_code(
        c.call("pane.signal", json!({"pane_id": pane, "signal": "KILL"})),
        ErrorCode::PaneExited,
    );

    // `group: true` reaches the whole process group, including a background job.
    let group = spawn_sh(&mut c, &ws, "sleep 600 & echo \"bg=$!\"; wait");
    let text = read_until(&mut c, &group, "tail", "the job's pid", |t| {
        t.contains("bg=")
    });
    let job = number_after(&text, "bg");
    ok(c.call(
        "pane.signal",
        json!({"pane_id": group, "signal": "term", "group": true}),
    ));
    let event = next_event_where(&mut sub, "pane.exited", |p| p["pane_id"] == group.as_str());
    assert_eq!(event.payload["code"], 143, "{event:?}");
    wait_until("the background job to die", DEADLINE, || {
        process_gone(job).then_some(())
    });
}

// --- resize and title ---------------------------------------------------------------------

#[test]
fn resize_reaches_the_child_as_stty_size_and_emits_pane_resized() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.resized"]})));
    let ws = workspace(&mut c, &server, "proj");
    let pane = spawn_sh(&mut c, &ws, "stty -echo; while read l; do stty size; done");

    ok(input(&mut c, &pane, b"\r"));
    read_until(&mut c, &pane, "tail", "24 80", |t| has_line(t, "24 80"));

    for ((cols, rows), (want_cols, want_rows)) in [
        ((100, 30), (100, 30)),
        ((5, 1), (20, 5)),
        ((9999, 9999), (500, 200)),
    ] {
        let resized = ok(c.call(
            "pane.resize",
            json!({"pane_id": pane, "cols": cols, "rows": rows}),
        ));
        let size = json!({"cols": want_cols, "rows": want_rows});
        assert_eq!(resized["pane"]["pty_size"], size, "{resized}");
        let event = next_event_where(&mut sub, "pane.resized", |p| {
            p["pane"]["id"] == pane.as_str()
        });
        assert_eq!(event.payload["pane"]["pty_size"], size, "{event:?}");
        ok(input(&mut c, &pane, b"\r"));
        let seen = format!("{want_rows} {want_cols}");
        read_until(&mut c, &pane, "tail", &seen, |t| has_line(t, &seen));
    }
    assert_eq!(
        get_pane(&mut c, &pane)["pty_size"],
        json!({"cols": 500, "rows": 200})
    );

    for bad in [
        json!({"pane_id": pane, "cols": -1, "rows": 24}),
        json!({"pane_id": pane, "cols": "wide", "rows": 24}),
        json!({"pane_id": pane, "cols": 80}),
    ] {
        expect_code(c.call("pane.resize", bad), ErrorCode::BadParams);
    }
    expect_code(
        c.call(
            "pane.resize",
            json!({"pane_id": "pane_00000000000000000000000000000000", "cols": 80, "rows": 24}),
        ),
        ErrorCode::NoSuchPane,
    );
}

#[test]
fn an_osc_title_updates_the_pane_title_and_emits_pane_updated() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.updated"]})));
    let ws = workspace(&mut c, &server, "proj");
    let pane = spawn_sh(
        &mut c,
        &ws,
        r"stty -echo; printf '\033]0;first title\007'; read x; printf '\033]2;second title\033\\'; exec sleep 600",
    );
    let event = next_event_where(&mut sub, "pane.updated", |p| {
        p["pane_id"] == pane.as_str() && p["pane"]["title"] == "first title"
    });
    assert_eq!(event.payload["pane"]["id"], pane.as_str());
    assert_eq!(get_pane(&mut c, &pane)["title"], "first title");

    ok(input(&mut c, &pane, b"\r"));
    next_event_where(&mut sub, "pane.updated", |p| {
        p["pane_id"] == pane.as_str() && p["pane"]["title"] == "second title"
    });
    assert_eq!(get_pane(&mut c, &pane)["title"], "second title");
    let tail = read(&mut c, &pane, "tail");
    assert!(
        !str_field(&tail, "text").contains("title"),
        "the OSC is not text: {tail}"
    );
}

// --- environment -------------------------------------------------------------------------

#[test]
fn the_child_environment_names_the_pane_and_socket_and_passes_the_request_env() {
    let mut env = TestEnv::new();
    env.remove_var("TERM");
    env.set_var("LD_LIBRARY_PATH", env.root().join("no-libs"));
    env.set_var("SIGNALTTY_TEST_FROM_SERVER", "kept");
    let server = TestServer::start_in(env);
    let socket = server.socket_path().to_string_lossy().into_owned();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let script = "env; echo END-OF-ENV; exec sleep 600";

    let parent = spawn(
        &mut c,
        json!({
            "workspace_id": ws,
            "argv": sh(script),
            "cols": 500,
            "env": {
                "LANG": "C.UTF-8",
                "EDITOR": "ed-test",
                "CLAUDE_TEST_VAR": "claude",
                "CODEX_TEST_VAR": "codex",
                "OPENCODE_TEST_VAR": "opencode",
                "CURSOR_TEST_VAR": "cursor",
                "SIGNALTTY_TEST_VAR": "ours",
                "FOO_REQUEST": "passed",
                "SIGNALTTY_PANE": "pane_fake",
            },
        }),
    );
    let parent_id = str_field(&parent, "id").to_owned();
    let text = read_until(&mut c, &parent_id, "tail", "the env listing", |t| {
        has_line(t, "END-OF-ENV")
    });
    let vars = env_map(&text, "END-OF-ENV");
    let var = |key: &str| vars.get(key).map(String::as_str);
    assert_eq!(var("SIGNALTTY_PANE"), Some(parent_id.as_str()), "{vars:?}");
    assert_eq!(var("SIGNALTTY_SOCKET"), Some(socket.as_str()), "{vars:?}");
    assert_eq!(var("TERM"), Some("xterm-256color"), "{vars:?}");
    for (key, value) in [
        ("LANG", "C.UTF-8"),
        ("EDITOR", "ed-test"),
        ("CLAUDE_TEST_VAR", "claude"),
        ("CODEX_TEST_VAR", "codex"),
        ("OPENCODE_TEST_VAR", "opencode"),
        ("CURSOR_TEST_VAR", "cursor"),
        ("SIGNALTTY_TEST_VAR", "ours"),
        ("SIGNALTTY_TEST_FROM_SERVER", "kept"),
        ("FOO_REQUEST", "passed"),
    ] {
        assert_eq!(var(key), Some(value), "{key}: {vars:?}");
    }
    // The refused overrides are BAD_PARAMS (integration-tests/spawn_env.rs);
    // the server's own LD_LIBRARY_PATH is removed.
    for key in ["LD_PRELOAD", "LD_LIBRARY_PATH", "SIGNALTTY_PARENT_PANE"] {
        assert_eq!(var(key), None, "{key} must not reach the child: {vars:?}");
    }

    // A child pane gets its own id, the parent's in SIGNALTTY_PARENT_PANE, and lineage.
    let tab = new_tab(&mut c, &ws);
    let child = spawn(
        &mut c,
        json!({
            "workspace_id": ws,
            "tab_id": tab,
            "argv": sh(script),
            "cols": 500,
            "env": {"TERM": "vt100"},
            "parent_pane_id": parent_id,
            "label": "helper",
        }),
    );
    let child_id = str_field(&child, "id").to_owned();
    assert_eq!(child["parent_pane_id"], parent_id.as_str(), "{child}");
    assert_eq!(child["root_pane_id"], parent_id.as_str(), "{child}");
    assert_eq!(child["relationship"], "subagent", "{child}");
    assert_eq!(child["label"], "helper", "{child}");
    let text = read_until(&mut c, &child_id, "tail", "the env listing", |t| {
        has_line(t, "END-OF-ENV")
    });
    let vars = env_map(&text, "END-OF-ENV");
    let var = |key: &str| vars.get(key).map(String::as_str);
    assert_eq!(var("SIGNALTTY_PANE"), Some(child_id.as_str()), "{vars:?}");
    assert_eq!(
        var("SIGNALTTY_PARENT_PANE"),
        Some(parent_id.as_str()),
        "{vars:?}"
    );
    assert_eq!(var("TERM"), Some("vt100"), "{vars:?}");
}

// --- close and teardown --------------------------------------------------------------------

#[test]
fn close_kills_background_jobs_that_ignore_hup_and_term_in_every_process_group() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.closed"]})));
    let ws = workspace(&mut c, &server, "proj");
    // `a` shares the shell's process group; `set -m` puts `b` in a group of its own.
    let pane = spawn_sh(
        &mut c,
        &ws,
        "trap '' HUP TERM; sleep 600 & echo \"a=$!\"; set -m; sleep 601 & echo \"b=$!\"; echo \"sh=$$\"; wait",
    );
    let text = read_until(&mut c, &pane, "tail", "the pids", |t| t.contains("sh="));
    let pids = [
        number_after(&text, "a"),
        number_after(&text, "b"),
        number_after(&text, "sh"),
    ];
    let [a, b, shell] = pids;
    let stat = |pid: u32| match proc_stat(pid) {
        Some(s) => s,
        None => panic!("process {pid} is not running"),
    };
    let (_, _, shell_group, session) = stat(shell);
    assert_eq!(stat(a).2, shell_group, "a is in the shell's group");
    assert_ne!(stat(b).2, shell_group, "b has a group of its own");
    assert_eq!(stat(b).3, session, "b is in the pane's session");
    const HUP_AND_TERM: u64 = (1 << (1 - 1)) | (1 << (15 - 1));
    for pid in pids {
        assert_eq!(
            ignored_signals(pid) & HUP_AND_TERM,
            HUP_AND_TERM,
            "{pid} ignores HUP and TERM"
        );
    }

    let started = Instant::now();
    assert_eq!(
        ok(c.call("pane.close", json!({"pane_id": pane}))),
        json!({"closed": true})
    );
    let event = next_event_where(&mut sub, "pane.closed", |_| true);
    assert_eq!(event.payload, json!({"pane_id": pane}));
    expect_code(
        c.call("pane.get", json!({"pane_id": pane})),
        ErrorCode::NoSuchPane,
    );
    expect_code(
        c.call("pane.close", json!({"pane_id": pane})),
        ErrorCode::NoSuchPane,
    );
    let got = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(got["panes"], json!([]), "{got}");
    assert_eq!(
        got["tabs"].as_array().map(Vec::len),
        Some(1),
        "the tab stays: {got}"
    );
    assert_eq!(got["tabs"][0]["layout"], Value::Null, "{got}");
    assert!(
        got["tabs"][0]
            .get("active_pane_id")
            .is_none_or(Value::is_null),
        "{got}"
    );
    let st = status(&mut c);
    assert_eq!(
        (&st["panes"], &st["live_panes"]),
        (&json!(0), &json!(0)),
        "{st}"
    );

    let gone = poll_until(Duration::from_secs(6), || {
        pids.iter().all(|&p| process_gone(p))
    });
    let left: Vec<u32> = pids.into_iter().filter(|&p| !process_gone(p)).collect();
    assert!(
        gone,
        "still running {:?} after the close: {left:?}",
        started.elapsed()
    );
}

#[test]
fn tab_close_and_workspace_close_emit_pane_closed_before_tab_closed() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let script = "echo \"pid=$$\"; exec sleep 600";
    // Both tabs come from `tab.create`; the tab a spawn creates has its own test.
    let first_tab = new_tab(&mut c, &ws);
    let first = spawn(
        &mut c,
        json!({"workspace_id": ws, "tab_id": first_tab, "argv": sh(script)}),
    );
    let first_pane = str_field(&first, "id").to_owned();
    let second_tab = new_tab(&mut c, &ws);
    let second = spawn(
        &mut c,
        json!({"workspace_id": ws, "tab_id": second_tab, "argv": sh(script)}),
    );
    let second_pane = str_field(&second, "id").to_owned();
    let pid = |c: &mut Client, pane: &str| {
        number_after(
            &read_until(c, pane, "tail", "the pid", |t| t.contains("pid=")),
            "pid",
        )
    };
    let (first_pid, second_pid) = (pid(&mut c, &first_pane), pid(&mut c, &second_pane));

    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["pane.closed", "tab.closed", "workspace.closed"]}),
    ));
    ok(c.call("tab.close", json!({"tab_id": first_tab})));
    assert_eq!(
        next_events(&mut sub, 2),
        vec![
            ("pane.closed".to_owned(), json!({"pane_id": first_pane})),
            ("tab.closed".to_owned(), json!({"tab_id": first_tab})),
        ]
    );
    expect_code(
        c.call("pane.get", json!({"pane_id": first_pane})),
        ErrorCode::NoSuchPane,
    );
    wait_until("the first tab's process to die", DEADLINE, || {
        process_gone(first_pid).then_some(())
    });
    assert!(
        !process_gone(second_pid),
        "the other tab's pane is untouched"
    );

    ok(c.call("workspace.close", json!({"workspace_id": ws})));
    let events = next_events(&mut sub, 3);
    assert_eq!(
        events[..2],
        [
            ("pane.closed".to_owned(), json!({"pane_id": second_pane})),
            ("tab.closed".to_owned(), json!({"tab_id": second_tab})),
        ]
    );
    assert_eq!(events[2].0, "workspace.closed", "{events:?}");
    wait_until("the second tab's process to die", DEADLINE, || {
        process_gone(second_pid).then_some(())
    });
    let st = status(&mut c);
    assert_eq!(
        (&st["tabs"], &st["panes"], &st["live_panes"]),
        (&json!(0), &json!(0), &json!(0)),
        "{st}"
    );
}

#[test]
fn fifty_short_lived_panes_leave_no_zombies_and_no_leaked_descriptors() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "proj");
    let server_pid = server.pid();

    // Warm up once, so lazily started machinery is not counted as a leak.
    let warm = spawn_argv(&mut c, &ws, json!(["true"]));
    wait_exited(&mut c, &warm);
    ok(c.call("pane.close", json!({"pane_id": warm})));
    let baseline = fd_count(server_pid);

    let panes: Vec<String> = (0..50)
        .map(|i| {
            let script = if i % 2 == 0 {
                "exit 0"
            } else {
                "echo bye; exit 3"
            };
            spawn_sh(&mut c, &ws, script)
        })
        .collect();
    for pane in &panes {
        wait_exited(&mut c, pane);
    }
    let st = status(&mut c);
    assert_eq!(
        (&st["panes"], &st["live_panes"]),
        (&json!(50), &json!(0)),
        "{st}"
    );
    let mut zombies = Vec::new();
    let reaped = poll_until(DEADLINE, || {
        zombies = zombie_children(server_pid);
        zombies.is_empty()
    });
    assert!(reaped, "exited children left as zombies: {zombies:?}");
    for pane in &panes {
        ok(c.call("pane.close", json!({"pane_id": pane})));
    }
    let st = status(&mut c);
    assert_eq!(
        (&st["panes"], &st["live_panes"]),
        (&json!(0), &json!(0)),
        "{st}"
    );

    let clean = poll_until(DEADLINE, || {
        zombies = zombie_children(server_pid);
        zombies.is_empty()
    });
    assert!(clean, "zombie children of the server: {zombies:?}");
    let mut fds = 0;
    let back = poll_until(DEADLINE, || {
        fds = fd_count(server_pid);
        fds <= baseline + 2
    });
    assert!(
        back,
        "the server holds {fds} descriptors after closing 50 panes, {baseline} before"
    );
}

// --- CLI ---------------------------------------------------------------------------------

#[test]
fn the_cli_starts_a_pane_with_new_types_into_it_and_reads_it_back() {
    let server = TestServer::start();
    let created = cli_json(&server.cli(&["--json", "new", "--name", "cli", "--", "cat"]));
    let pane = str_field(&created["pane"], "id").to_owned();
    assert!(is_pane_id(&pane), "{created}");
    assert_eq!(created["pane"]["argv"], json!(["cat"]));
    assert_eq!(created["pane"]["live"], json!({"state": "live"}));
    let mut c = server.client();
    let ws = ok(c.call("workspace.get", json!({"workspace_id": "cli"})));
    assert_eq!(ws["panes"][0]["id"], pane.as_str(), "{ws}");

    let got = cli_json(&server.cli(&["pane", "get", &pane, "--json"]));
    assert_eq!(got["pane"]["id"], pane.as_str(), "{got}");

    let typed = cli_json(&server.cli(&[
        "pane",
        "input",
        &pane,
        "--text",
        "hello cli",
        "--enter",
        "--json",
    ]));
    assert_eq!(typed, json!({"written": 10}));

    let mut last = Value::Null;
    let echoed = poll_until(DEADLINE, || {
        last = cli_json(&server.cli(&["pane", "read", &pane, "--json"]));
        last["text"]
            .as_str()
            .is_some_and(|t| t.lines().filter(|l| l.trim() == "hello cli").count() >= 2)
    });
    assert!(echoed, "the input never came back: {last}");
    let plain = server.cli(&["pane", "read", &pane]);
    assert!(plain.status.success(), "{plain:?}");
    assert!(
        String::from_utf8_lossy(&plain.stdout).contains("hello cli"),
        "{plain:?}"
    );

    let closed = cli_json(&server.cli(&["pane", "close", &pane, "--json"]));
    assert_eq!(closed, json!({"closed": true}));
    expect_code(
        c.call("pane.get", json!({"pane_id": pane})),
        ErrorCode::NoSuchPane,
    );
}

#[test]
fn the_cli_sets_a_tab_layout_from_an_argument_or_stdin_and_refuses_bad_ones() {
    let server = TestServer::start();
    let created = cli_json(&server.cli(&["--json", "new", "--name", "lay", "--", "cat"]));
    let a = str_field(&created["pane"], "id").to_owned();
    let tab = str_field(&created["pane"], "tab_id").to_owned();
    let mut c = server.client();
    let b = ok(c.call("pane.split", json!({"pane_id": a, "argv": ["cat"]})))["pane"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    ok(c.call("pane.rename", json!({"pane_id": b, "name": "second"})));

    // B above A, with B named instead of given by id (names resolve:
    // docs/protocol.md#addressing).
    let stacked = json!({"type": "split", "dir": "down", "ratio": 0.25,
        "first": {"type": "pane", "pane_id": "second"},
        "second": {"type": "pane", "pane_id": a}});
    let set = cli_json(&server.cli(&["tab", "set-layout", &tab, &stacked.to_string(), "--json"]));
    let layout = &set["tab"]["layout"];
    assert_eq!(layout["dir"], "down", "{set}");
    assert_eq!(layout["first"]["pane_id"], b.as_str(), "{set}");
    assert_eq!(layout["second"]["pane_id"], a.as_str(), "{set}");
    assert!((layout["ratio"].as_f64().unwrap_or_default() - 0.25).abs() < 1e-4);

    let side_by_side = json!({"type": "split", "dir": "right", "ratio": 0.5,
        "first": {"type": "pane", "pane_id": a},
        "second": {"type": "pane", "pane_id": b}});
    let from_stdin = server.cli_with_stdin(
        &["tab", "set-layout", &tab, "-", "--json"],
        side_by_side.to_string().as_bytes(),
    );
    let set = cli_json(&from_stdin);
    assert_eq!(set["tab"]["layout"]["dir"], "right", "{set}");
    assert_eq!(
        set["tab"]["layout"]["first"]["pane_id"],
        a.as_str(),
        "{set}"
    );

    // Not JSON: refused by the CLI, nothing sent.
    let garbled = server.cli(&["tab", "set-layout", &tab, "{not json"]);
    assert_eq!(garbled.status.code(), Some(1), "{garbled:?}");
    assert!(
        String::from_utf8_lossy(&garbled.stderr).contains("BAD_PARAMS"),
        "{garbled:?}"
    );
    // A layout without one of the tab's panes: refused by the server, nothing changes.
    let partial = json!({"type": "pane", "pane_id": a}).to_string();
    let refused = server.cli(&["tab", "set-layout", &tab, &partial]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("BAD_PARAMS"),
        "{refused:?}"
    );
    let ws = ok(c.call("workspace.get", json!({"workspace_id": "lay"})));
    assert_eq!(ws["tabs"][0]["layout"]["dir"], "right", "{ws}");
}
