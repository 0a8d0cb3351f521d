//! The in-place upgrade (docs/upgrade.md): `server.upgrade` execs a binary in
//! the server's process and hands it every terminal, child and the socket.
//! These tests upgrade to the same binary (or a script in front of it) and
//! check what survives: the same process and children, the counter in a
//! pane continuous, the agent state, the event stream without a gap, the
//! viewer's byte stream by offset; and what a failed or unreadable upgrade
//! leaves: the old server unaffected, or a snapshot restore said plainly.

use crate::support::agents::type_line;
use crate::support::{
    Client, DEADLINE, TestServer, err, str_field, u64_field, wait_until, zombie_children,
};
use base64::Engine as _;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The process ids whose parent is `pid`.
fn children_of(pid: u32) -> BTreeSet<u32> {
    crate::support::children(pid).into_iter().collect()
}

/// The server's open descriptors, and how many of them are PTY masters.
fn fds_of(pid: u32) -> (usize, usize) {
    let masters = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| {
            dir.flatten()
                .filter(|e| {
                    std::fs::read_link(e.path()).is_ok_and(|t| t.as_os_str() == "/dev/ptmx")
                })
                .count()
        })
        .unwrap_or(0);
    (crate::support::fd_count(pid), masters)
}

/// The server's resident set, in kB.
fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Spawns `argv` in a new tab of workspace `ws`.
fn spawn(c: &mut Client, ws: &str, argv: &[&str]) -> String {
    let tab = c.call_ok("tab.create", json!({"workspace_id": ws}));
    let tab = str_field(&tab["tab"], "id").to_owned();
    let pane = c.call_ok(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": argv}),
    );
    str_field(&pane["pane"], "id").to_owned()
}

/// The `cN` lines of a counter pane's whole history, in order.
fn counter_lines(c: &mut Client, pane: &str) -> Vec<u64> {
    let r = c.call_ok(
        "pane.read",
        json!({"pane_id": pane, "mode": "tail", "lines": 5000}),
    );
    str_field(&r, "text")
        .lines()
        .filter_map(|l| l.trim().strip_prefix('c'))
        .filter_map(|n| n.parse().ok())
        .collect()
}

/// Asserts `lines` count up by one, with no gap and no repeat.
#[track_caller]
fn assert_continuous(lines: &[u64]) {
    assert!(lines.len() > 10, "too few counter lines: {lines:?}");
    for pair in lines.windows(2) {
        assert_eq!(
            pair[1],
            pair[0] + 1,
            "the counter jumps from {} to {}: {lines:?}",
            pair[0],
            pair[1]
        );
    }
}

/// Waits until the counter pane has printed past `n`.
fn wait_counter_past(c: &mut Client, pane: &str, n: u64) -> Vec<u64> {
    wait_until(&format!("the counter past {n}"), DEADLINE, || {
        let lines = counter_lines(c, pane);
        lines.last().is_some_and(|l| *l > n).then_some(lines)
    })
}

fn upgrade(c: &mut Client, params: Value) -> Value {
    c.call_ok("server.upgrade", params)
}

fn decode(b64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap_or_else(|e| panic!("pty.data is not base64: {e}"))
}

/// Reads `pty.data` frames from an attached viewer until its stream covers
/// `want` bytes past `from`; returns the stream's end offset. Every frame
/// must continue the offset before it.
fn follow_viewer(viewer: &mut Client, mut covered: u64, want: u64) -> u64 {
    let until = covered + want;
    while covered < until {
        let event = viewer.next_event();
        if event.event != "pty.data" {
            continue;
        }
        let data = decode(event.payload["data_b64"].as_str().unwrap_or_default());
        let end = u64_field(&event.payload, "output_offset");
        let start = end - data.len() as u64;
        assert_eq!(start, covered, "the viewer's stream has a gap or overlap");
        covered = end;
    }
    covered
}

#[test]
fn an_upgrade_keeps_processes_screens_agent_state_and_every_event() {
    let server = TestServer::start();
    let pid = server.pid();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "up"}));
    let counter = spawn(
        &mut c,
        "up",
        &[
            "sh",
            "-c",
            "i=0; while :; do echo c$i; i=$((i+1)); sleep 0.01; done",
        ],
    );
    let agent = spawn(&mut c, "up", &["cat"]);
    // The agent is mid-turn: hooked and working.
    c.call_ok(
        "hook-event",
        json!({"agent": "claude", "event": "UserPromptSubmit", "pane_id": agent, "payload": {}}),
    );
    let before = wait_counter_past(&mut c, &counter, 20);
    let children = children_of(pid);
    assert_eq!(children.len(), 2, "{children:?}");

    // A viewer on the counter and a subscriber on everything.
    let mut viewer = server.client();
    let attached = viewer.call_ok("pane.attach", json!({"pane_id": counter}));
    let seen_offset = follow_viewer(&mut viewer, u64_field(&attached, "output_offset"), 50);
    let mut sub = server.client();
    let reply = sub.call_ok("subscribe", json!({}));
    let mut last_seq = u64_field(&reply, "seq");
    let status = c.call_ok("server.status", json!({}));
    let seq_before = u64_field(&status, "seq");
    let resize = c.call_ok(
        "pane.resize",
        json!({"pane_id": agent, "rows": 30, "cols": 100}),
    );
    drop(resize);
    while last_seq < seq_before + 1 {
        last_seq = sub.next_event().seq;
    }

    let report = upgrade(&mut c, json!({}));
    assert_eq!(u64_field(&report, "pid"), u64::from(pid), "{report}");
    assert!(report.get("fallback").is_none(), "{report}");
    let handed: BTreeSet<u32> = report["panes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["pid"].as_u64())
        .map(|p| p as u32)
        .collect();
    assert_eq!(handed, children, "{report}");
    assert!(u64_field(&report, "seq") > seq_before, "{report}");

    // The same process, the same children, still its children.
    assert_eq!(server.pid(), pid);
    assert_eq!(children_of(pid), children);
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(u64_field(&status, "upgrades"), 1, "{status}");
    assert_eq!(u64_field(&status, "live_panes"), 2, "{status}");

    // The counter goes on: no line lost or doubled across the handover.
    let last = *before.last().unwrap_or(&0);
    let after = wait_counter_past(&mut c, &counter, last + 50);
    assert_continuous(&after);

    // The agent's state crossed, and its later hook lands.
    let pane = c.call_ok("pane.get", json!({"pane_id": agent}));
    assert_eq!(pane["pane"]["lifecycle"], "working", "{pane}");
    assert_eq!(pane["pane"]["pty_size"], json!({"rows": 30, "cols": 100}));
    c.call_ok(
        "hook-event",
        json!({"agent": "claude", "event": "Stop", "pane_id": agent, "payload": {}}),
    );
    let pane = c.call_ok("pane.get", json!({"pane_id": agent}));
    assert_eq!(pane["pane"]["lifecycle"], "done", "{pane}");
    // Its process is the same and still answers.
    type_line(&mut c, &agent, "still-here");
    wait_until("the agent pane echoes", DEADLINE, || {
        let r = c.call_ok("pane.read", json!({"pane_id": agent, "mode": "screen"}));
        str_field(&r, "text").contains("still-here").then_some(())
    });

    // The subscriber's connection closed with the exec; from its last seq
    // the replay is complete, with no gap.
    let _ = sub.read_until_eof();
    let mut sub = server.client();
    let reply = sub.call_ok("subscribe", json!({"from_seq": last_seq}));
    assert_eq!(reply["replay"]["status"], "complete", "{reply}");
    let returned = u64_field(&reply["replay"], "returned");
    let frames: Vec<_> = (0..returned).map(|_| sub.next_event()).collect();
    // Every event the old binary journaled after the subscriber's last one
    // is there, one by one; the new binary numbers its events above every
    // seq the journal reserved (as after a restart).
    let handed_seq = u64_field(&report, "seq");
    let old: Vec<u64> = frames
        .iter()
        .map(|f| f.seq)
        .filter(|s| *s <= handed_seq)
        .collect();
    let want: Vec<u64> = (last_seq + 1..=handed_seq).collect();
    assert_eq!(old, want, "the old binary's events after {last_seq}");
    let new: Vec<&str> = frames
        .iter()
        .filter(|f| f.seq > handed_seq)
        .map(|f| f.event.as_str())
        .collect();
    assert!(
        new.contains(&"agent.done"),
        "the Stop hook's events: {new:?}"
    );
    for pair in frames.windows(2) {
        assert!(pair[0].seq < pair[1].seq, "the replay ascends");
    }

    // The viewer re-attaches: its stream continues by offset.
    let _ = viewer.read_until_eof();
    let mut viewer = server.client();
    let again = viewer.call_ok("pane.attach", json!({"pane_id": counter}));
    let offset = u64_field(&again, "output_offset");
    assert!(offset >= seen_offset, "{offset} < {seen_offset}");
    follow_viewer(&mut viewer, offset, 100);
    assert!(zombie_children(pid).is_empty());
}

#[test]
fn twenty_upgrades_with_ten_panes_leak_no_descriptor_zombie_or_memory() {
    let server = TestServer::start();
    let pid = server.pid();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "many"}));
    for _ in 0..10 {
        spawn(&mut c, "many", &["cat"]);
    }
    let children = children_of(pid);
    assert_eq!(children.len(), 10);
    drop(c);
    let mut baseline = None;
    let mut rss = Vec::new();
    for round in 1..=20u64 {
        let mut c = server.client();
        let report = upgrade(&mut c, json!({}));
        assert_eq!(
            report["panes"].as_array().map(Vec::len),
            Some(10),
            "{report}"
        );
        let status = c.call_ok("server.status", json!({}));
        assert_eq!(u64_field(&status, "upgrades"), round);
        drop(c);
        // Exactly one master per pane each time.
        assert_eq!(fds_of(pid).1, 10, "round {round}");
        // The server closes this test's connection a moment after it hung
        // up: the count after the first round, once it settles, is the
        // baseline every later round must come back to (a descriptor leaked
        // per upgrade never would).
        let count = match baseline {
            None => {
                let mut least = fds_of(pid).0;
                for _ in 0..20 {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    least = least.min(fds_of(pid).0);
                }
                baseline = Some(least);
                least
            },
            Some(base) => wait_until(
                &format!("round {round}: the descriptors back to {base}"),
                DEADLINE,
                || {
                    let (n, _) = fds_of(pid);
                    (n <= base).then_some(n)
                },
            ),
        };
        assert!(count > 10, "{count}");
        rss.push(rss_kb(pid));
    }
    assert_eq!(children_of(pid), children, "the same children throughout");
    assert!(zombie_children(pid).is_empty());
    // The image is new each time: what it holds is what it rebuilt.
    let (first, last) = (rss[1], rss[19]);
    assert!(
        last <= first + first / 4,
        "RSS grew from {first} kB to {last} kB: {rss:?}"
    );
    let mut c = server.client();
    for pane in c.call_ok("workspace.get", json!({"workspace_id": "many"}))["panes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        assert_eq!(pane["live"]["state"], "live", "{pane}");
    }
}

/// A script in front of the real binary, in the test's root.
fn wrapper(server: &TestServer, name: &str, body: &str) -> PathBuf {
    let real = PathBuf::from(env!("CARGO_BIN_EXE_signaltty"));
    let path = server.env().root().join(name);
    let text = format!(
        "#!/bin/sh\nREAL='{}'\n{}\n",
        real.display(),
        body.replace("$REAL", "\"$REAL\"")
    );
    if let Err(e) = std::fs::write(&path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
    crate::support::process::set_mode(&path, 0o755);
    path
}

/// The server answers and its pane still runs: `cat` echoes a line.
fn still_serving(server: &TestServer, pane: &str, line: &str) {
    let mut c = server.client();
    type_line(&mut c, pane, line);
    wait_until("the pane echoes", DEADLINE, || {
        let r = c.call_ok("pane.read", json!({"pane_id": pane, "mode": "screen"}));
        str_field(&r, "text").contains(line).then_some(())
    });
}

#[test]
fn a_missing_or_unfit_binary_is_refused_and_the_server_goes_on() {
    let server = TestServer::start();
    let pid = server.pid();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "stay"}));
    let pane = spawn(&mut c, "stay", &["cat"]);
    let missing = err(c.call(
        "server.upgrade",
        json!({"binary": "/nonexistent/signaltty"}),
    ));
    assert_eq!(missing.code, ErrorCode::BadParams, "{missing:?}");
    assert!(
        missing.message.contains("/nonexistent/signaltty"),
        "{missing:?}"
    );
    still_serving(&server, &pane, "after-missing");
    // A program that does not answer the probe (an older signaltty, say).
    let mute = wrapper(&server, "mute", "exit 0");
    let refused = err(c.call("server.upgrade", json!({"binary": mute})));
    assert_eq!(refused.code, ErrorCode::BadParams, "{refused:?}");
    assert!(refused.message.contains("cannot take over"), "{refused:?}");
    still_serving(&server, &pane, "after-mute");
    // A binary that passes the checks and is gone when the exec comes: the
    // exec fails, everything is taken back.
    let vanishing = wrapper(
        &server,
        "vanishing",
        "if [ \"$1\" = upgrade-probe ]; then $REAL upgrade-probe; rm -f \"$0\"; exit 0; fi\nexec $REAL \"$@\"",
    );
    let failed = err(c.call("server.upgrade", json!({"binary": vanishing})));
    assert!(failed.message.contains("exec failed"), "{failed:?}");
    assert_eq!(server.pid(), pid);
    still_serving(&server, &pane, "after-failed-exec");
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(u64_field(&status, "upgrades"), 0);
    assert_eq!(u64_field(&status, "live_panes"), 1);
    // And an upgrade after all that works.
    let report = upgrade(&mut c, json!({}));
    assert_eq!(
        report["panes"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    still_serving(&server, &pane, "after-the-upgrade");
}

#[test]
fn a_record_of_a_future_version_falls_back_to_the_snapshot_and_says_so() {
    let server = TestServer::start();
    let pid = server.pid();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "future"}));
    let pane = spawn(
        &mut c,
        "future",
        &["sh", "-c", "echo before-the-upgrade; exec cat"],
    );
    wait_until("the pane's output", DEADLINE, || {
        let r = c.call_ok("pane.read", json!({"pane_id": pane, "mode": "screen"}));
        str_field(&r, "text")
            .contains("before-the-upgrade")
            .then_some(())
    });
    let child = children_of(pid);
    let future = wrapper(
        &server,
        "future",
        "if [ \"$1\" != upgrade-probe ]; then sed -i 's/^{\"version\":1,/{\"version\":99,/' \"$SIGNALTTY_UPGRADE\"; fi\nexec $REAL \"$@\"",
    );
    let output = server.cli(&[
        OsArg::from("upgrade"),
        OsArg::from("--binary"),
        future.as_os_str().to_owned(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("version 99"), "{stdout}");
    assert!(stdout.contains("restored from the snapshot"), "{stdout}");
    assert_eq!(server.pid(), pid, "the same process serves on");
    let mut c = server.client();
    let status = c.call_ok("server.status", json!({}));
    assert!(
        status["last_upgrade"]["fallback"]
            .as_str()
            .is_some_and(|f| f.contains("version 99")),
        "{status}"
    );
    // As after a restart: the pane is a tombstone with its history, and
    // its process was let go and reaped.
    let got = c.call_ok("pane.get", json!({"pane_id": pane}));
    assert_eq!(got["pane"]["live"]["state"], "exited", "{got}");
    assert_eq!(got["pane"]["restore_state"], "RESTORED", "{got}");
    let r = c.call_ok(
        "pane.read",
        json!({"pane_id": pane, "mode": "tail", "lines": 50}),
    );
    assert!(str_field(&r, "text").contains("before-the-upgrade"), "{r}");
    wait_until("the let-go process reaped", DEADLINE, || {
        (children_of(pid).is_disjoint(&child) && zombie_children(pid).is_empty()).then_some(())
    });
}

type OsArg = std::ffi::OsString;

#[test]
fn the_cli_prints_what_was_handed_over() {
    let server = TestServer::start();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "cli"}));
    let pane = spawn(&mut c, "cli", &["cat"]);
    let output = server.cli(&["upgrade"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("upgraded signaltty"), "{stdout}");
    assert!(stdout.contains(&pane), "{stdout}");
    assert!(stdout.contains("pid "), "{stdout}");
    let json = server.cli(&["--json", "upgrade"]);
    let value: Value = match serde_json::from_slice(&json.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {}", String::from_utf8_lossy(&json.stdout)),
    };
    assert_eq!(value["panes"][0]["pane_id"], pane.as_str(), "{value}");
    // The socket stays the server's own: `stop` removes it as before.
    let stop = server.cli(&["stop", "--force"]);
    assert!(
        stop.status.success(),
        "{}",
        String::from_utf8_lossy(&stop.stderr)
    );
    assert!(
        !server.socket_path().exists(),
        "the socket file is removed at stop"
    );
}

/// A person attached with `signaltty attach` stays attached across an
/// upgrade: the client attaches again on its own, redraws the pane, and
/// what they type after reaches the same process.
#[test]
fn an_attached_terminal_reattaches_by_itself_after_an_upgrade() {
    let server = TestServer::start();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "att"}));
    let pane = spawn(&mut c, "att", &["sh", "-c", "echo ready-to-type; exec cat"]);
    let tmux = crate::support::tmux::Tmux::start(server.env(), &["attach", &pane], 80, 24);
    tmux.wait_text("ready-to-type");
    tmux.type_text("before\r");
    tmux.wait_text("before");
    upgrade(&mut c, json!({}));
    tmux.type_text("after-the-upgrade\r");
    wait_until(
        "the keys reach the pane after the upgrade",
        DEADLINE,
        || {
            let r = c.call_ok("pane.read", json!({"pane_id": pane, "mode": "screen"}));
            str_field(&r, "text")
                .contains("after-the-upgrade")
                .then_some(())
        },
    );
    tmux.wait_text("after-the-upgrade");
    assert!(!tmux.exited(), "the attach client stayed");
    assert!(
        !tmux.screen().contains("server closed"),
        "{}",
        tmux.screen()
    );
}

/// `signaltty events` follows across an upgrade: it subscribes again from
/// the last event it printed, so every event is printed once, in order.
#[test]
fn the_events_command_follows_across_an_upgrade_without_a_gap_or_a_repeat() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut events =
        crate::journal::EventsCommand::spawn(server.env(), &["events", "--from-seq", "0"]);
    let seq_of = |line: String| -> (u64, String) {
        let v: Value = serde_json::from_str(&line).unwrap_or_default();
        (
            v["seq"].as_u64().unwrap_or_default(),
            v["event"].as_str().unwrap_or_default().to_owned(),
        )
    };
    c.call_ok("workspace.create", json!({"name": "ev-before"}));
    let (first, name) = seq_of(events.next_line());
    assert_eq!(name, "workspace.created");
    upgrade(&mut c, json!({}));
    c.call_ok("workspace.create", json!({"name": "ev-after"}));
    let mut seen = vec![first];
    loop {
        let (seq, name) = seq_of(events.next_line());
        seen.push(seq);
        if name == "workspace.created" {
            break;
        }
    }
    assert!(
        seen.windows(2).all(|p| p[0] < p[1]),
        "in order, once: {seen:?}"
    );
    let out = server.cli(&["stop", "--force"]);
    assert!(out.status.success());
    assert_eq!(events.exit_code(), Some(0));
}

/// What cannot be continued is kept, never killed, and reported: a pane
/// whose terminal does not import goes on with its process on a blank
/// terminal; a pane whose PTY cannot be adopted (here its pid was changed
/// to one that is not the server's child) leaves its process running and
/// becomes a tombstone. A script in front of the binary edits the record.
#[test]
fn a_pane_that_cannot_be_continued_keeps_its_process_and_is_reported() {
    let server = TestServer::start();
    let pid = server.pid();
    let mut c = server.client();
    c.call_ok("workspace.create", json!({"name": "odd"}));
    let blank = spawn(&mut c, "odd", &["cat"]);
    let lost = spawn(&mut c, "odd", &["cat"]);
    let children = children_of(pid);
    let editor = server.env().root().join("edit.py");
    let script = format!(
        r#"import json, os, sys
path = os.environ["SIGNALTTY_UPGRADE"]
record = json.load(open(path))
for pane in record["panes"]:
    if pane["carried"]["pane"]["id"] == "{blank}":
        pane["carried"]["term"]["rows"] = 0
    if pane["carried"]["pane"]["id"] == "{lost}":
        old = pane["pid"]
        pane["pid"] = 1
json.dump(record, open(path, "w"))
fds = os.environ["SIGNALTTY_UPGRADE_FDS"].replace(":%d" % old, ":1")
print(fds)
"#
    );
    if let Err(e) = std::fs::write(&editor, script) {
        panic!("cannot write {}: {e}", editor.display());
    }
    let editing = wrapper(
        &server,
        "editing",
        &format!(
            "if [ \"$1\" != upgrade-probe ]; then SIGNALTTY_UPGRADE_FDS=$(python3 '{}') || exit 1; export SIGNALTTY_UPGRADE_FDS; fi\nexec $REAL \"$@\"",
            editor.display()
        ),
    );
    let report = upgrade(&mut c, json!({"binary": editing}));
    let problems = report["problems"].to_string();
    assert!(
        problems.contains(&blank) && problems.contains("blank terminal"),
        "{report}"
    );
    assert!(
        problems.contains(&lost) && problems.contains("left running"),
        "{report}"
    );
    assert_eq!(children_of(pid), children, "no process was killed");
    // The blank pane goes on with its process.
    still_serving(&server, &blank, "on-a-blank-terminal");
    let got = c.call_ok("pane.get", json!({"pane_id": blank}));
    assert_eq!(got["pane"]["live"]["state"], "live", "{got}");
    // The other is a tombstone, its process still running.
    let got = c.call_ok("pane.get", json!({"pane_id": lost}));
    assert_eq!(got["pane"]["live"]["state"], "exited", "{got}");
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(u64_field(&status, "live_panes"), 1, "{status}");
    assert_eq!(children_of(pid), children, "still running");
}
