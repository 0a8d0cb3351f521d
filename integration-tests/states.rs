//! The state engine through the real binary (docs/states.md): terminal signals,
//! exit rules, `notify`, `pane.mark_seen`, attach marking a pane seen, the
//! attention queries and the wait baseline of `pane.get`.

use crate::support::client::Client;
use crate::support::{DEADLINE, TestServer, err, ok, str_field, u64_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::{ErrorCode, EventFrame};

fn workspace(c: &mut Client, server: &TestServer) -> String {
    let cwd = server.env().root().to_string_lossy().into_owned();
    let ws = ok(c.call("workspace.create", json!({"name": "states", "cwd": cwd})));
    str_field(&ws["workspace"], "id").to_owned()
}

/// Spawns `sh -c SCRIPT` in a new tab; returns the pane id.
fn spawn_sh(c: &mut Client, ws: &str, script: &str) -> String {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let tab = str_field(&tab["tab"], "id").to_owned();
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": ["/bin/sh", "-c", script]}),
    ));
    str_field(&pane["pane"], "id").to_owned()
}

fn get(c: &mut Client, pane: &str) -> Value {
    ok(c.call("pane.get", json!({"pane_id": pane})))
}

/// Events for `pane` (by `pane_id` or `pane.id` or `notification.pane_id`) until
/// one named `last` arrives; returns their names and frames.
fn events_until(sub: &mut Client, pane: &str, last: &str) -> Vec<EventFrame> {
    let start = std::time::Instant::now();
    let mut seen = Vec::new();
    loop {
        assert!(
            start.elapsed() < DEADLINE,
            "no {last} for {pane} within {DEADLINE:?}; saw {:?}",
            seen.iter()
                .map(|e: &EventFrame| e.event.clone())
                .collect::<Vec<_>>()
        );
        let event = sub.next_event();
        let p = &event.payload;
        let of = p["pane_id"]
            .as_str()
            .or(p["pane"]["id"].as_str())
            .or(p["notification"]["pane_id"].as_str());
        if of != Some(pane) {
            continue;
        }
        let done = event.event == last;
        seen.push(event);
        if done {
            return seen;
        }
    }
}

fn names(events: &[EventFrame]) -> Vec<&str> {
    events.iter().map(|e| e.event.as_str()).collect()
}

/// docs/states.md#terminal-signals: BEL and OSC 9 raise `unread` without a
/// lifecycle change; OSC 0 changes the title only.
#[test]
fn bell_and_osc_9_raise_unread_and_a_title_changes_only_the_title() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["agent.*", "attention.*", "notification.*", "pane.updated"]}),
    ));
    let ws = workspace(&mut c, &server);

    let pane = spawn_sh(&mut c, &ws, "printf '\\033]0;my title\\007'; sleep 600");
    let events = events_until(&mut sub, &pane, "pane.updated");
    assert_eq!(
        events.last().map(|e| e.payload["pane"]["title"].clone()),
        Some(json!("my title"))
    );
    let got = get(&mut c, &pane);
    assert_eq!(got["pane"]["attention"], "none");
    assert_eq!(got["pane"]["lifecycle"], "unknown");

    let bell = spawn_sh(&mut c, &ws, "printf 'ding\\007'; sleep 600");
    let events = events_until(&mut sub, &bell, "attention.created");
    assert_eq!(
        events.last().map(|e| e.payload["attention"].clone()),
        Some(json!("unread"))
    );
    assert_eq!(get(&mut c, &bell)["pane"]["lifecycle"], "unknown");

    let osc = spawn_sh(
        &mut c,
        &ws,
        "printf '\\033]9;build finished\\007'; sleep 600",
    );
    let events = events_until(&mut sub, &osc, "attention.created");
    assert_eq!(
        names(&events),
        ["notification.created", "attention.created"]
    );
    let n = &events[0].payload["notification"];
    assert_eq!(n["source"], "osc9");
    assert_eq!(n["title"], "signaltty");
    assert_eq!(n["body"], "build finished");
    assert!(str_field(n, "id").starts_with("notif_"));
    let got = get(&mut c, &osc)["pane"].clone();
    assert_eq!(got["attention"], "unread");
    assert_eq!(got["lifecycle"], "unknown");
    assert_eq!(got["last_message"], "build finished");
}

/// docs/states.md#when-the-process-exits: a pane with no agent ends `done` for 0
/// and `failed` otherwise (128 + signal when killed), after `pane.exited`, then
/// `unread`.
#[test]
fn a_plain_pane_exits_done_or_failed_with_unread_in_order() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["pane.exited", "agent.*", "attention.*"]}),
    ));
    let ws = workspace(&mut c, &server);
    for (script, code, lifecycle) in [
        ("exit 0", 0, "done"),
        ("exit 3", 3, "failed"),
        ("kill -9 $$", 137, "failed"),
    ] {
        let pane = spawn_sh(&mut c, &ws, script);
        let events = events_until(&mut sub, &pane, "attention.created");
        assert_eq!(
            names(&events),
            [
                "pane.exited",
                &format!("agent.{lifecycle}"),
                "attention.created"
            ],
            "{script}"
        );
        assert_eq!(events[0].payload["code"], code, "{script}");
        assert_eq!(events[1].payload["prev"], "unknown");
        assert!(events[0].seq < events[1].seq && events[1].seq < events[2].seq);
        let got = get(&mut c, &pane)["pane"].clone();
        assert_eq!(got["lifecycle"], lifecycle);
        assert_eq!(got["attention"], "unread");
        assert_eq!(got["live"], json!({"state": "exited", "code": code}));
    }
}

#[test]
fn notify_validates_stores_and_raises_by_severity() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "sleep 600");

    let missing = c.call("notify", json!({"title": "x"}));
    assert_eq!(err(missing).code, ErrorCode::BadParams);
    let empty = c.call("notify", json!({"pane_id": pane, "title": "  "}));
    assert_eq!(err(empty).code, ErrorCode::BadParams);
    let bad = c.call(
        "notify",
        json!({"pane_id": pane, "title": "x", "severity": "loud"}),
    );
    assert_eq!(err(bad).code, ErrorCode::BadParams);
    let nobody = c.call("notify", json!({"pane_id": "pane_nope", "title": "x"}));
    assert_eq!(err(nobody).code, ErrorCode::NoSuchPane);

    let n = ok(c.call(
        "notify",
        json!({"pane_id": pane, "title": "Tests", "body": "3 failed\u{1b}[31m!", "severity": "warning"}),
    ))["notification"]
        .clone();
    assert_eq!(n["source"], "cli");
    assert_eq!(n["severity"], "warning");
    assert_eq!(n["body"], "3 failed!");
    let got = get(&mut c, &pane)["pane"].clone();
    assert_eq!(got["attention"], "warning");
    assert_eq!(got["last_message"], "Tests: 3 failed!");

    // An info notification never lowers a warning; an error raises it.
    ok(c.call("notify", json!({"pane_id": pane, "title": "fyi"})));
    assert_eq!(get(&mut c, &pane)["pane"]["attention"], "warning");
    assert_eq!(
        get(&mut c, &pane)["pane"]["last_message"],
        "Tests: 3 failed!",
        "an empty body keeps the message"
    );
    ok(c.call(
        "notify",
        json!({"pane_id": pane, "title": "boom", "body": "crashed", "severity": "error"}),
    ));
    assert_eq!(get(&mut c, &pane)["pane"]["attention"], "error");
}

#[test]
fn mark_seen_and_attach_clear_attention_with_their_reasons() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["attention.cleared"]})));
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "sleep 600");

    ok(c.call("notify", json!({"pane_id": pane, "title": "look"})));
    let seen = ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    assert_eq!(seen["pane"]["attention"], "none");
    assert!(seen["pane"]["last_seen_at"].is_string());
    let cleared = events_until(&mut sub, &pane, "attention.cleared");
    assert_eq!(cleared[0].payload["reason"], "mark_seen");
    // Nothing to clear: no event, still a pane.
    ok(c.call("pane.mark_seen", json!({"pane_id": pane})));

    // Attach without marking seen leaves it; a default attach clears it.
    ok(c.call("notify", json!({"pane_id": pane, "title": "again"})));
    let mut viewer = server.client();
    let attached = ok(viewer.call("pane.attach", json!({"pane_id": pane, "mark_seen": false})));
    assert_eq!(attached["attention"], "unread");
    let attached = ok(viewer.call("pane.attach", json!({"pane_id": pane})));
    assert_eq!(attached["attention"], "none");
    let cleared = events_until(&mut sub, &pane, "attention.cleared");
    assert_eq!(cleared[0].payload["reason"], "attach");
    assert_eq!(get(&mut c, &pane)["pane"]["attention"], "none");
}

#[test]
fn attention_queries_rank_by_severity_then_recency() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    assert_eq!(
        ok(c.call("focus.next_unread", json!({})))["pane_id"],
        Value::Null
    );
    let quiet = spawn_sh(&mut c, &ws, "sleep 600");
    let older = spawn_sh(&mut c, &ws, "sleep 600");
    let newer = spawn_sh(&mut c, &ws, "sleep 600");
    let worst = spawn_sh(&mut c, &ws, "sleep 600");
    ok(c.call("notify", json!({"pane_id": older, "title": "a"})));
    std::thread::sleep(std::time::Duration::from_millis(5));
    ok(c.call(
        "notify",
        json!({"pane_id": newer, "title": "b", "body": "newer"}),
    ));
    ok(c.call(
        "notify",
        json!({"pane_id": worst, "title": "c", "severity": "error"}),
    ));

    assert_eq!(
        ok(c.call("focus.next_unread", json!({})))["pane_id"],
        worst.as_str()
    );
    let pending = ok(c.call("attention.pending", json!({})))["panes"].clone();
    let order: Vec<&str> = pending
        .as_array()
        .map(|a| a.iter().map(|p| str_field(p, "pane_id")).collect())
        .unwrap_or_default();
    assert_eq!(order, [worst.as_str(), newer.as_str(), older.as_str()]);
    assert!(!order.contains(&quiet.as_str()));
    let item = &pending[1];
    assert_eq!(item["workspace_id"], ws.as_str());
    assert_eq!(item["lifecycle"], "unknown");
    assert_eq!(item["attention"], "unread");
    assert_eq!(item["last_message"], "b: newer");
    assert!(item["attention_since"].is_string());
    assert!(
        item.get("label").is_none(),
        "unset keys are omitted: {item}"
    );
    let one = ok(c.call("attention.pending", json!({"limit": 0})))["panes"].clone();
    assert_eq!(
        one.as_array().map(Vec::len),
        Some(1),
        "limit is clamped to at least 1"
    );
}

#[test]
fn pane_get_returns_a_wait_baseline_that_follows_transitions() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "sleep 600");
    let first = get(&mut c, &pane)["wait_baseline"].clone();
    assert_eq!(first["pane_id"], pane.as_str());
    assert!(!str_field(&first, "process_instance").is_empty());
    assert_eq!(first["session_generation"], 0);
    assert_eq!(first["agent_session_id"], Value::Null);
    ok(c.call("notify", json!({"pane_id": pane, "title": "x"})));
    let second = get(&mut c, &pane)["wait_baseline"].clone();
    assert_eq!(second["process_instance"], first["process_instance"]);
    assert_eq!(second["lifecycle_seq"], first["lifecycle_seq"]);
    assert!(u64_field(&second, "attention_seq") > u64_field(&first, "attention_seq"));
}

/// A flood of OSC 9 is coalesced and rate-limited; the last
/// one still arrives.
#[test]
fn a_flood_of_osc_notifications_is_coalesced_and_rate_limited() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["notification.created"]})));
    let ws = workspace(&mut c, &server);
    let script = "i=0; while [ $i -lt 10000 ]; do printf '\\033]9;n %d\\007' $i; i=$((i+1)); done; printf '\\033]9;last one\\007'; sleep 600";
    let pane = spawn_sh(&mut c, &ws, script);
    let mut count = 0;
    wait_until("the last notification", DEADLINE, || {
        let event = sub.next_event();
        count += 1;
        (event.payload["notification"]["body"] == "last one").then_some(())
    });
    assert!(count <= 20, "{count} notifications stored for 10001 sent");
    assert_eq!(get(&mut c, &pane)["pane"]["last_message"], "last one");
}

/// docs/agents.md#process-detection: the refresh looks through shells to the
/// program a pane runs, promotes a generic pane to the agent it identifies
/// (never back), follows its cwd, and publishes one `pane.updated` per change,
/// none otherwise.
#[test]
fn the_process_refresh_promotes_generic_panes_and_follows_the_cwd() {
    let env = crate::support::TestEnv::new();
    let socket = env.default_socket();
    let server =
        TestServer::start_with_args(env, &["server", "--process-refresh-ms", "100"], socket);
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["pane.updated", "attention.*"]}),
    ));
    let ws = workspace(&mut c, &server);
    // A program named like an agent, started from a shell, in another directory.
    let bin = server.env().root().join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    std::fs::copy("/bin/sleep", bin.join("codex")).expect("a program called codex");
    let project = server.env().root().join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    let script = format!(
        "cd '{}' && PATH='{}':$PATH; codex 600; :",
        project.display(),
        bin.display()
    );
    let pane = spawn_sh(&mut c, &ws, &script);
    let updated = events_until(&mut sub, &pane, "pane.updated");
    let p = &updated[0].payload["pane"];
    assert_eq!(p["agent"]["kind"], "codex", "promoted: {p}");
    let cwd = std::fs::canonicalize(&project).expect("project");
    assert_eq!(
        p["cwd"],
        cwd.to_string_lossy().as_ref(),
        "one update for both changes: {p}"
    );
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(explain["process"], "codex");
    assert_eq!(explain["hooked"], false);

    // Several refreshes later nothing changed, so nothing was published.
    std::thread::sleep(std::time::Duration::from_millis(600));
    ok(c.call("notify", json!({"pane_id": pane, "title": "marker"})));
    let marker = u64_field(&get(&mut c, &pane)["wait_baseline"], "attention_seq");
    let rest = events_until_seq(&mut sub, marker);
    assert!(
        rest.iter()
            .all(|e| e.seq == marker || e.payload["pane_id"] != pane.as_str()),
        "a refresh that sees no change publishes nothing: {rest:?}"
    );
}

/// Events until one at or past `seq`.
fn events_until_seq(sub: &mut Client, seq: u64) -> Vec<EventFrame> {
    let mut seen = Vec::new();
    loop {
        let event = sub.next_event();
        let done = event.seq >= seq;
        seen.push(event);
        if done {
            return seen;
        }
    }
}

#[test]
fn explain_names_the_evidence_behind_each_axis() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let pane = spawn_sh(&mut c, &ws, "sleep 600");
    let fresh = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(fresh["lifecycle"]["state"], "unknown");
    assert_eq!(fresh["lifecycle"]["source"], Value::Null);
    assert_eq!(fresh["live"], true);
    assert_eq!(fresh["source"], "none");
    assert!(fresh["rules"].as_array().is_some_and(Vec::is_empty));

    ok(c.call("hook-event", json!({"agent": "claude", "event": "UserPromptSubmit", "pane_id": pane, "payload": {"session_id": "s"}})));
    ok(c.call(
        "notify",
        json!({"pane_id": pane, "title": "t", "severity": "warning"}),
    ));
    let e = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(e["kind"], "claude");
    assert_eq!(e["hooked"], true);
    assert_eq!(e["lifecycle"]["state"], "working");
    assert_eq!(e["lifecycle"]["source"], "hook:claude:UserPromptSubmit");
    assert!(e["lifecycle"]["since"].is_string());
    assert_eq!(e["attention"]["state"], "warning");
    assert_eq!(e["attention"]["source"], "cli");
    assert!(
        e["attention"]["changes_with"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
    // Explaining changes nothing.
    assert_eq!(get(&mut c, &pane)["pane"]["attention"], "warning");
    assert_eq!(
        err(c.call("pane.explain", json!({"pane_id": "pane_nope"}))).code,
        ErrorCode::NoSuchPane
    );

    let out = server.cli(&["explain", &pane]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("lifecycle working — set by hook:claude:UserPromptSubmit"),
        "{text}"
    );
}

/// docs/terminal.md#the-wrapper-hint: a wrapper's SIGNALTTY_AGENT names the kind
/// when detection finds nothing, and never overrides what detection finds.
#[test]
fn a_wrapper_hint_sets_the_kind_only_when_detection_finds_nothing() {
    let env = crate::support::TestEnv::new();
    let socket = env.default_socket();
    let server =
        TestServer::start_with_args(env, &["server", "--process-refresh-ms", "100"], socket);
    let mut c = server.client();
    let ws = workspace(&mut c, &server);
    let spawn = |c: &mut Client, argv: Value| {
        let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
        let pane = ok(c.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": argv, "env": {"SIGNALTTY_AGENT": "Claude"}}),
        ));
        str_field(&pane["pane"], "id").to_owned()
    };
    let wrapped = spawn(&mut c, json!(["sleep", "600"]));
    let kind = wait_until("the hint to apply", DEADLINE, || {
        let kind = get(&mut c, &wrapped)["pane"]["agent"]["kind"].clone();
        (kind != "generic").then_some(kind)
    });
    assert_eq!(kind, "claude");

    let bin = server.env().root().join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    std::fs::copy("/bin/sleep", bin.join("codex")).expect("a program called codex");
    let detected = spawn(
        &mut c,
        json!(["sh", "-c", format!("{}/codex 600; :", bin.display())]),
    );
    let kind = wait_until("detection", DEADLINE, || {
        let kind = get(&mut c, &detected)["pane"]["agent"]["kind"].clone();
        (kind != "generic").then_some(kind)
    });
    assert_eq!(kind, "codex", "detection wins over the hint");

    // A wrapper that execs the agent is promoted within a refresh too.
    let exec = spawn(
        &mut c,
        json!(["sh", "-c", format!("exec {}/codex 601", bin.display())]),
    );
    let kind = wait_until("the exec'd agent", DEADLINE, || {
        let kind = get(&mut c, &exec)["pane"]["agent"]["kind"].clone();
        (kind != "generic").then_some(kind)
    });
    assert_eq!(kind, "codex");
}
