//! `notification.list`, `notification.mark_read`, `read_at` and
//! `pane.mark_seen` marking a pane's notifications read (docs/notifications.md):
//! through the socket, a replaying subscriber, restarts (snapshot and journal
//! only) and the `notifications` CLI.

use crate::support::life::Life;
use crate::support::{Client, TestServer, expect_code, ok, str_field};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;

fn pane(c: &mut Client, ws: &str) -> String {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let p = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": ["sleep", "600"]}),
    ));
    str_field(&p["pane"], "id").to_owned()
}

fn notify(c: &mut Client, pane: &str, title: &str, severity: &str) -> String {
    let n = ok(c.call(
        "notify",
        json!({"pane_id": pane, "title": title, "body": format!("{title} body"), "severity": severity}),
    ));
    str_field(&n["notification"], "id").to_owned()
}

fn list(c: &mut Client, params: Value) -> Vec<Value> {
    ok(c.call("notification.list", params))["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn titles(list: &[Value]) -> Vec<&str> {
    list.iter().filter_map(|n| n["title"].as_str()).collect()
}

fn marked(c: &mut Client, params: Value) -> u64 {
    ok(c.call("notification.mark_read", params))["marked"]
        .as_u64()
        .unwrap_or(u64::MAX)
}

#[test]
fn notifications_are_listed_newest_first_and_marked_read_once() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = ok(c.call("workspace.create", json!({"name": "n"})));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    let (p1, p2) = (pane(&mut c, &ws), pane(&mut c, &ws));
    let head = ok(c.call("server.status", json!({})))["seq"].clone();
    let one = notify(&mut c, &p1, "one", "info");
    notify(&mut c, &p1, "two", "warning");
    notify(&mut c, &p2, "three", "error");

    let all = list(&mut c, json!({}));
    assert_eq!(titles(&all), ["three", "two", "one"]);
    assert!(all.iter().all(|n| n.get("read_at").is_none()), "{all:?}");
    assert_eq!(
        titles(&list(&mut c, json!({"pane_id": p1}))),
        ["two", "one"]
    );
    assert_eq!(titles(&list(&mut c, json!({"limit": 1}))), ["three"]);

    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["notification.read"]})));
    assert_eq!(marked(&mut c, json!({"ids": [one]})), 1);
    assert_eq!(
        marked(&mut c, json!({"ids": [one, "notif_gone"]})),
        0,
        "read once"
    );
    let first = sub.next_event();
    assert_eq!(first.payload["ids"], json!([one]));
    let read_at = first.payload["read_at"].clone();
    let unread = list(&mut c, json!({"unread_only": true}));
    assert_eq!(titles(&unread), ["three", "two"]);
    let listed_one = list(&mut c, json!({"pane_id": p1}));
    assert_eq!(
        listed_one[1]["read_at"], read_at,
        "the event's time is kept"
    );

    expect_code(
        c.call(
            "notification.mark_read",
            json!({"ids": [one], "pane_id": p1}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("notification.mark_read", json!({"ids": []})),
        ErrorCode::BadParams,
    );

    // pane.mark_seen marks that pane's notifications read, before its reply.
    ok(c.call("pane.mark_seen", json!({"pane_id": p1})));
    let seen = sub.next_event();
    assert_eq!(
        seen.payload["ids"].as_array().map(Vec::len),
        Some(1),
        "{seen:?}"
    );
    assert!(
        list(&mut c, json!({"pane_id": p1}))
            .iter()
            .all(|n| n.get("read_at").is_some())
    );
    // A pane with nothing unread publishes nothing; no params mark the rest.
    ok(c.call("pane.mark_seen", json!({"pane_id": p1})));
    assert_eq!(marked(&mut c, json!({})), 1);
    let last = sub.next_event();
    assert_eq!(
        titles(&list(&mut c, json!({"unread_only": true}))),
        Vec::<&str>::new()
    );
    assert_eq!(marked(&mut c, json!({"pane_id": p2})), 0);

    // A subscriber replaying from before sees the same three events.
    let mut replay = server.client();
    ok(replay.call(
        "subscribe",
        json!({"events": ["notification.read"], "from_seq": head}),
    ));
    let replayed: Vec<Value> = (0..3).map(|_| replay.next_event().payload).collect();
    assert_eq!(replayed, vec![first.payload, seen.payload, last.payload]);
}

#[test]
fn read_at_survives_a_clean_restart_and_a_crash() {
    let mut life = Life::new(&["--snapshot-interval-ms", "600000"]);
    life.start();
    let mut c = life.client();
    let ws = ok(c.call("workspace.create", json!({"name": "n"})));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    let p = pane(&mut c, &ws);
    let a = notify(&mut c, &p, "a", "info");
    let b = notify(&mut c, &p, "b", "info");
    assert_eq!(marked(&mut c, json!({"ids": [a]})), 1);
    let read_a = list(&mut c, json!({}))[1]["read_at"].clone();
    assert!(read_a.is_string());
    drop(c);
    // A clean stop writes the snapshot, which keeps read_at.
    life.stop();
    life.start();
    let mut c = life.client();
    let kept = list(&mut c, json!({}));
    assert_eq!(titles(&kept), ["b", "a"]);
    assert_eq!(kept[1]["read_at"], read_a);
    assert!(kept[0].get("read_at").is_none());
    // Marked, then killed before any snapshot: the journal brings it back.
    assert_eq!(marked(&mut c, json!({"ids": [b]})), 1);
    let read_b = list(&mut c, json!({}))[0]["read_at"].clone();
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    let kept = list(&mut c, json!({}));
    assert_eq!(kept[0]["read_at"], read_b);
    assert_eq!(kept[1]["read_at"], read_a);
}

#[test]
fn the_notifications_cli_lists_in_80_columns_and_marks_read() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = ok(c.call("workspace.create", json!({"name": "n"})));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    let (p1, p2) = (pane(&mut c, &ws), pane(&mut c, &ws));
    let long = "x".repeat(300);
    ok(c.call(
        "notify",
        json!({"pane_id": p1, "title": "Build", "body": long, "severity": "warning"}),
    ));
    let second = notify(&mut c, &p2, "Tests", "error");
    let out = server.cli(&["notifications"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{text}");
    assert!(
        lines[0].contains("error") && lines[0].contains("Tests"),
        "{text}"
    );
    assert!(
        lines[1].contains("warning") && lines[1].contains("Build: xxx"),
        "{text}"
    );
    assert!(lines[1].ends_with('…'), "{text}");
    assert!(lines.iter().all(|l| l.starts_with('*')), "unread: {text}");

    let json_out = server.cli(&[
        "--json",
        "notifications",
        "--pane",
        &p2,
        "--unread",
        "--limit",
        "5",
    ]);
    let value: Value =
        serde_json::from_slice(&json_out.stdout).unwrap_or_else(|e| panic!("{e}: {json_out:?}"));
    assert_eq!(value["notifications"][0]["id"], second.as_str());
    assert_eq!(value["notifications"].as_array().map(Vec::len), Some(1));

    let read = server.cli(&["notifications", "read", &second]);
    assert!(read.status.success(), "{read:?}");
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        "marked 1 read"
    );
    let read = server.cli(&["notifications", "read", "--pane", &p1]);
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        "marked 1 read"
    );
    let read = server.cli(&["notifications", "read", "--all"]);
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        "marked 0 read"
    );
    let none = server.cli(&["notifications", "--unread"]);
    assert_eq!(
        String::from_utf8_lossy(&none.stdout).trim(),
        "no notifications"
    );
    // Neither ids, --pane nor --all: refused, nothing marked.
    let bare = server.cli(&["notifications", "read"]);
    assert_eq!(bare.status.code(), Some(1), "{bare:?}");
    let both = server.cli(&["notifications", "read", "notif_x", "--all"]);
    assert_eq!(both.status.code(), Some(2), "a usage error: {both:?}");
}
