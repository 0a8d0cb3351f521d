//! `pane.split`, `pane.rename`, `pane.clear` and `pane.wait_for_output` through the real
//! binary (docs/methods.md#panes, docs/terminal.md#reading-waiting-and-clearing).

use crate::support::{Client, TestServer, expect_code, ok};
use base64::Engine as _;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;

fn spawn(c: &mut Client, argv: &[&str]) -> Value {
    ok(c.call("workspace.create", json!({"name": "ops"})));
    ok(c.call("pane.spawn", json!({"workspace_id": "ops", "argv": argv})))["pane"].clone()
}

fn type_line(c: &mut Client, pane: &str, text: &str) {
    let data = base64::engine::general_purpose::STANDARD.encode(format!("{text}\r"));
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": data})));
}

#[test]
fn splitting_a_pane_evens_the_run_and_publishes_tab_updated_then_pane_created() {
    let server = TestServer::start();
    let mut c = server.client();
    let a = spawn(&mut c, &["cat"]);
    let a_id = a["id"].as_str().unwrap_or_default().to_owned();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["tab.*", "pane.created"]})));
    let b = ok(c.call("pane.split", json!({"pane_id": a_id, "argv": ["cat"]})))["pane"].clone();
    let updated = sub.next_event();
    assert_eq!(updated.event, "tab.updated");
    assert_eq!(sub.next_event().event, "pane.created");
    assert_eq!(b["tab_id"], a["tab_id"]);
    assert_eq!(b["pty_size"], a["pty_size"]);
    assert_eq!(b["cwd"], a["cwd"]);
    let c_pane =
        ok(c.call("pane.split", json!({"pane_id": b["id"], "argv": ["cat"]})))["pane"].clone();
    let d_pane = ok(c.call(
        "pane.split",
        json!({"pane_id": c_pane["id"], "direction": "down", "argv": ["cat"]}),
    ))["pane"]
        .clone();
    let ws = ok(c.call("workspace.get", json!({"workspace_id": "ops"})));
    let tab = &ws["tabs"][0];
    assert_eq!(tab["active_pane_id"], d_pane["id"]);
    let layout = &tab["layout"];
    // [a b c] as one right run (thirds), then c split down (halves).
    let ratio = layout["ratio"].as_f64().unwrap_or_default();
    assert!((ratio - 1.0 / 3.0).abs() < 1e-4, "{layout}");
    assert!((layout["second"]["ratio"].as_f64().unwrap_or_default() - 0.5).abs() < 1e-4);
    assert_eq!(layout["second"]["second"]["dir"], "down");
    let order: Vec<Value> = ws["panes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|p| p["id"].clone())
        .collect();
    assert_eq!(
        order,
        vec![
            a["id"].clone(),
            b["id"].clone(),
            c_pane["id"].clone(),
            d_pane["id"].clone()
        ]
    );

    // Closing a pane collapses its split; set_layout and set_ratio now have panes to work on.
    ok(c.call("pane.close", json!({"pane_id": b["id"]})));
    let ws = ok(c.call("workspace.get", json!({"workspace_id": "ops"})));
    assert_eq!(ws["panes"].as_array().map(Vec::len), Some(3));
    let tab_id = ws["tabs"][0]["id"].clone();
    let swapped = json!({"type": "split", "dir": "down", "ratio": 0.3,
        "first": {"type": "pane", "pane_id": d_pane["id"]},
        "second": {"type": "split", "dir": "right", "ratio": 0.5,
            "first": {"type": "pane", "pane_id": a["id"]}, "second": {"type": "pane", "pane_id": c_pane["id"]}}});
    let tab = ok(c.call(
        "tab.set_layout",
        json!({"tab_id": tab_id, "layout": swapped}),
    ))["tab"]
        .clone();
    assert_eq!(tab["layout"]["first"]["pane_id"], d_pane["id"]);
    let missing = json!({"type": "pane", "pane_id": a["id"]});
    expect_code(
        c.call(
            "tab.set_layout",
            json!({"tab_id": tab_id, "layout": missing}),
        ),
        ErrorCode::BadParams,
    );
    let tab = ok(c.call(
        "tab.set_ratio",
        json!({"tab_id": tab_id, "path": [1], "ratio": 0.99}),
    ))["tab"]
        .clone();
    assert!(
        (tab["layout"]["second"]["ratio"]
            .as_f64()
            .unwrap_or_default()
            - 0.95)
            .abs()
            < 1e-4
    );
    expect_code(
        c.call("pane.split", json!({"pane_id": "pane_nope"})),
        ErrorCode::NoSuchPane,
    );
    expect_code(
        c.call("pane.split", json!({"pane_id": a["id"], "argv": []})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("pane.split", json!({"pane_id": a["id"], "direction": "up"})),
        ErrorCode::BadParams,
    );
}

#[test]
fn a_named_pane_is_addressable_by_name_and_names_are_unique_and_valid() {
    let server = TestServer::start();
    let mut c = server.client();
    let a = spawn(&mut c, &["cat"]);
    let b = ok(c.call("pane.split", json!({"pane_id": a["id"], "argv": ["cat"]})))["pane"].clone();
    let named = ok(c.call(
        "pane.rename",
        json!({"pane_id": a["id"], "name": "reviewer"}),
    ))["pane"]
        .clone();
    assert_eq!(named["name"], "reviewer");
    assert_eq!(
        ok(c.call("pane.get", json!({"pane_id": "reviewer"})))["pane"]["id"],
        a["id"]
    );
    type_line(&mut c, "reviewer", "by-name");
    expect_code(
        c.call(
            "pane.rename",
            json!({"pane_id": b["id"], "name": "reviewer"}),
        ),
        ErrorCode::BadParams,
    );
    for bad in [
        "Reviewer",
        "1abc",
        "a b",
        "",
        "x".repeat(33).as_str(),
        "bad!",
    ] {
        expect_code(
            c.call("pane.rename", json!({"pane_id": b["id"], "name": bad})),
            ErrorCode::BadParams,
        );
    }
    expect_code(
        c.call("pane.rename", json!({"pane_id": b["id"]})),
        ErrorCode::BadParams,
    );
    ok(c.call(
        "pane.rename",
        json!({"pane_id": a["id"], "name": "reviewer"}),
    ));
    let cleared =
        ok(c.call("pane.rename", json!({"pane_id": "reviewer", "name": null})))["pane"].clone();
    assert!(cleared.get("name").is_none());
    expect_code(
        c.call("pane.get", json!({"pane_id": "reviewer"})),
        ErrorCode::NoSuchPane,
    );
    ok(c.call(
        "pane.rename",
        json!({"pane_id": b["id"], "name": "reviewer"}),
    ));
    ok(c.call("pane.close", json!({"pane_id": "reviewer"})));
    ok(c.call(
        "pane.rename",
        json!({"pane_id": a["id"], "name": "reviewer"}),
    ));
}

#[test]
fn wait_for_output_matches_text_regex_and_rendered_cursors_and_fails_on_exit() {
    let server = TestServer::start();
    let mut c = server.client();
    let pane = spawn(&mut c, &["cat"]);
    let id = pane["id"].as_str().unwrap_or_default().to_owned();
    type_line(&mut c, &id, "already here");
    let got = ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": id, "match": "already", "timeout_s": 10}),
    ));
    assert_eq!(got["matched_line"], "already here");
    let cursor =
        ok(c.call("pane.read", json!({"pane_id": id, "mode": "rendered"})))["next_seq"].clone();
    let mut waiter = server.client();
    let req = waiter.send("pane.wait_for_output", json!({"pane_id": id, "match": "^res[a-z]+ \\d+$", "regex": true, "mode": "rendered", "after_seq": cursor, "timeout_s": 10}));
    type_line(&mut c, &id, "already here too");
    type_line(&mut c, &id, "result 42");
    let reply = waiter.read_response();
    assert_eq!(reply.id, req);
    let got = ok(reply);
    assert_eq!(got["matched_line"], "result 42");
    assert!(got["next_seq"].as_u64().is_some());
    expect_code(
        c.call(
            "pane.wait_for_output",
            json!({"pane_id": id, "match": "(", "regex": true}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "pane.wait_for_output",
            json!({"pane_id": id, "match": "never", "timeout_s": 1}),
        ),
        ErrorCode::Timeout,
    );
    let tab = ok(c.call("tab.create", json!({"workspace_id": "ops"})))["tab"]["id"].clone();
    let short = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "ops", "tab_id": tab, "argv": ["sh", "-c", "echo bye"]}),
    ))["pane"]
        .clone();
    expect_code(
        c.call(
            "pane.wait_for_output",
            json!({"pane_id": short["id"], "match": "never", "timeout_s": 30}),
        ),
        ErrorCode::PaneExited,
    );
    let late = ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": short["id"], "match": "bye", "timeout_s": 30}),
    ));
    assert_eq!(late["matched_line"], "bye");
}

#[test]
fn clear_empties_the_screen_drops_old_cursors_and_reaches_viewers_in_the_stream() {
    let server = TestServer::start();
    let mut c = server.client();
    let pane = spawn(&mut c, &["cat"]);
    let id = pane["id"].as_str().unwrap_or_default().to_owned();
    type_line(&mut c, &id, "before clear");
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": id, "match": "before clear", "timeout_s": 10}),
    ));
    let old = ok(c.call("pane.read", json!({"pane_id": id, "mode": "rendered"})))["next_seq"]
        .as_u64()
        .unwrap_or_default();
    let mut viewer = server.client();
    ok(viewer.call("pane.attach", json!({"pane_id": id})));
    let cleared = ok(c.call("pane.clear", json!({"pane_id": id})));
    assert_eq!(cleared["cleared"], true);
    let offset = cleared["output_offset"].as_u64().unwrap_or_default();
    let data = viewer.next_event();
    assert_eq!(data.event, "pty.data");
    assert_eq!(data.payload["output_offset"].as_u64(), Some(offset));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.payload["data_b64"].as_str().unwrap_or_default())
        .unwrap_or_default();
    assert_eq!(bytes, b"\x1b[H\x1b[2J\x1b[3J");
    let screen = ok(c.call("pane.read", json!({"pane_id": id, "mode": "screen"})));
    assert_eq!(screen["text"].as_str().map(str::trim), Some(""));
    let reread = ok(c.call(
        "pane.read",
        json!({"pane_id": id, "mode": "rendered", "after_seq": old}),
    ));
    assert_eq!(reread["dropped"], true);
    expect_code(
        c.call("pane.clear", json!({"pane_id": "pane_nope"})),
        ErrorCode::NoSuchPane,
    );
}

fn leaf_ids(layout: &Value, out: &mut Vec<Value>) {
    match layout["type"].as_str() {
        Some("pane") => out.push(layout["pane_id"].clone()),
        Some("split") => {
            leaf_ids(&layout["first"], out);
            leaf_ids(&layout["second"], out);
        },
        _ => {},
    }
}

fn leaves(tab: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    leaf_ids(&tab["layout"], &mut out);
    out
}

#[test]
fn swap_and_move_rearrange_panes_within_and_across_tabs_without_touching_processes() {
    let server = TestServer::start();
    let mut c = server.client();
    let a = spawn(&mut c, &["cat"]);
    let b = ok(c.call("pane.split", json!({"pane_id": a["id"], "argv": ["cat"]})))["pane"].clone();
    let tab2 = ok(c.call("tab.create", json!({"workspace_id": "ops"})))["tab"]["id"].clone();
    let x = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "ops", "tab_id": tab2, "argv": ["cat"]}),
    ))["pane"]
        .clone();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["tab.updated", "pane.updated"]}),
    ));

    // Within one tab: the two leaves trade places.
    let tabs = ok(c.call(
        "pane.swap",
        json!({"pane_id": a["id"], "target_pane_id": b["id"]}),
    ))["tabs"]
        .clone();
    assert_eq!(tabs.as_array().map(Vec::len), Some(1));
    assert_eq!(leaves(&tabs[0]), vec![b["id"].clone(), a["id"].clone()]);
    assert_eq!(sub.next_event().event, "tab.updated");

    // Across tabs: each pane changes tab and says so.
    let tabs = ok(c.call(
        "pane.swap",
        json!({"pane_id": a["id"], "target_pane_id": x["id"]}),
    ))["tabs"]
        .clone();
    assert_eq!(tabs.as_array().map(Vec::len), Some(2));
    let got_a = ok(c.call("pane.get", json!({"pane_id": a["id"]})))["pane"].clone();
    assert_eq!(got_a["tab_id"], tab2);
    assert_eq!(got_a["live"]["state"], "live", "the process is untouched");
    let kinds: Vec<String> = (0..4).map(|_| sub.next_event().event).collect();
    assert_eq!(
        kinds,
        vec!["tab.updated", "tab.updated", "pane.updated", "pane.updated"]
    );

    // Move: x (now in the first tab) goes next to a (in tab2), down.
    let tabs = ok(c.call(
        "pane.move",
        json!({"pane_id": x["id"], "target_pane_id": a["id"], "direction": "down"}),
    ))["tabs"]
        .clone();
    assert_eq!(tabs.as_array().map(Vec::len), Some(2));
    let ws = ok(c.call("workspace.get", json!({"workspace_id": "ops"})));
    let t1 = ws["tabs"][0].clone();
    let t2 = ws["tabs"][1].clone();
    assert_eq!(leaves(&t1), vec![b["id"].clone()]);
    assert_eq!(leaves(&t2), vec![a["id"].clone(), x["id"].clone()]);
    assert_eq!(t2["layout"]["dir"], "down");
    assert_eq!(t2["active_pane_id"], x["id"]);
    assert_eq!(
        ok(c.call("pane.get", json!({"pane_id": x["id"]})))["pane"]["tab_id"],
        tab2
    );

    expect_code(
        c.call(
            "pane.swap",
            json!({"pane_id": a["id"], "target_pane_id": a["id"]}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "pane.move",
            json!({"pane_id": a["id"], "target_pane_id": "pane_nope"}),
        ),
        ErrorCode::NoSuchPane,
    );
    ok(c.call("workspace.create", json!({"name": "other"})));
    let y = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": "other", "argv": ["cat"]}),
    ))["pane"]
        .clone();
    expect_code(
        c.call(
            "pane.swap",
            json!({"pane_id": a["id"], "target_pane_id": y["id"]}),
        ),
        ErrorCode::BadParams,
    );
}

#[test]
fn shutdown_refuses_while_panes_live_unless_forced_and_then_the_children_die() {
    let mut server = TestServer::start();
    let mut c = server.client();
    let pane = spawn(&mut c, &["sh", "-c", "echo pid=$$; exec sleep 600"]);
    let id = pane["id"].as_str().unwrap_or_default().to_owned();
    let line = ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": id, "match": "pid=", "timeout_s": 10}),
    ))["matched_line"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let pid: u32 = line.trim_start_matches("pid=").trim().parse().unwrap_or(0);
    assert!(pid > 0, "{line}");
    let refused = expect_code(c.call("server.shutdown", json!({})), ErrorCode::PanesAlive);
    assert_eq!(refused.details, Some(json!({"live_panes": 1})));
    assert_eq!(
        ok(c.call("server.shutdown", json!({"force": true})))["stopped"],
        true
    );
    server.process().expect_exit_code(0);
    crate::support::process::wait_process_gone(pid, "the pane's child after a forced shutdown");
}
