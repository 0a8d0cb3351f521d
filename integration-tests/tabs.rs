//! `tab.*` through the real binary (docs/methods.md#tabs-and-layouts): create
//! and close with the active-tab rules, their events and projection, and
//! validation of layouts and ratios. Layout arrangements of real panes are
//! tested where panes are spawned; here a tab is empty.

use crate::support::{Client, TestServer, expect_code, ok};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;

fn create_tab(client: &mut Client, workspace: &str, title: Option<&str>) -> Value {
    let mut params = json!({"workspace_id": workspace});
    if let Some(t) = title {
        params["title"] = json!(t);
    }
    ok(client.call("tab.create", params))["tab"].clone()
}

fn workspace(client: &mut Client, handle: &str) -> Value {
    ok(client.call("workspace.get", json!({"workspace_id": handle})))
}

#[test]
fn tabs_are_appended_made_active_and_listed_by_workspace_get() {
    let server = TestServer::start();
    let mut c = server.client();
    ok(c.call("workspace.create", json!({"name": "proj"})));
    let first = create_tab(&mut c, "proj", None);
    assert_eq!(first["title"], "tab");
    assert_eq!(first["layout"], Value::Null);
    assert!(first.get("active_pane_id").is_none());
    assert!(
        first["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("tab_") && id.len() == 36)
    );
    let second = create_tab(&mut c, "proj", Some("logs"));
    let got = workspace(&mut c, "proj");
    assert_eq!(got["workspace"]["tabs"], json!([first["id"], second["id"]]));
    assert_eq!(got["workspace"]["active_tab_id"], second["id"]);
    let titles: Vec<_> = got["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].clone())
        .collect();
    assert_eq!(titles, vec![json!("tab"), json!("logs")]);
    assert_eq!(ok(c.call("server.status", json!({})))["tabs"], 2);
}

#[test]
fn closing_the_active_tab_makes_the_last_remaining_tab_active() {
    let server = TestServer::start();
    let mut c = server.client();
    ok(c.call("workspace.create", json!({"name": "proj"})));
    let a = create_tab(&mut c, "proj", Some("a"));
    let b = create_tab(&mut c, "proj", Some("b"));
    let third = create_tab(&mut c, "proj", Some("c"));
    assert_eq!(
        ok(c.call("tab.close", json!({"tab_id": third["id"]})))["closed"],
        true
    );
    let got = workspace(&mut c, "proj");
    assert_eq!(got["workspace"]["tabs"], json!([a["id"], b["id"]]));
    assert_eq!(got["workspace"]["active_tab_id"], b["id"]);
    ok(c.call("tab.close", json!({"tab_id": a["id"]})));
    ok(c.call("tab.close", json!({"tab_id": b["id"]})));
    let got = workspace(&mut c, "proj");
    assert_eq!(got["workspace"]["tabs"], json!([]));
    assert!(got["workspace"].get("active_tab_id").is_none());
    expect_code(
        c.call("tab.close", json!({"tab_id": a["id"]})),
        ErrorCode::NoSuchTab,
    );
}

#[test]
fn tab_events_carry_the_tab_and_workspace_close_closes_tabs_first() {
    let server = TestServer::start();
    let mut c = server.client();
    ok(c.call("workspace.create", json!({"name": "proj"})));
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["tab.*", "workspace.closed"]}),
    ));
    let t = create_tab(&mut c, "proj", Some("x"));
    let created = sub.next_event();
    assert_eq!(created.event, "tab.created");
    assert_eq!(created.payload["tab"], t);
    let u = create_tab(&mut c, "proj", Some("y"));
    sub.next_event();
    ok(c.call("workspace.close", json!({"workspace_id": "proj"})));
    let order: Vec<(String, Value)> = (0..3)
        .map(|_| sub.next_event())
        .map(|e| (e.event, e.payload))
        .collect();
    assert_eq!(order[0], ("tab.closed".into(), json!({"tab_id": t["id"]})));
    assert_eq!(order[1], ("tab.closed".into(), json!({"tab_id": u["id"]})));
    assert_eq!(order[2].0, "workspace.closed");
    assert_eq!(ok(c.call("server.status", json!({})))["tabs"], 0);
    expect_code(
        c.call("tab.close", json!({"tab_id": t["id"]})),
        ErrorCode::NoSuchTab,
    );
}

#[test]
fn tab_methods_validate_their_params() {
    let server = TestServer::start();
    let mut c = server.client();
    expect_code(
        c.call("tab.create", json!({"workspace_id": "nope"})),
        ErrorCode::NoSuchWorkspace,
    );
    ok(c.call("workspace.create", json!({"name": "proj"})));
    expect_code(
        c.call("tab.create", json!({"workspace_id": "proj", "title": 5})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("tab.create", json!({"workspace_id": "proj", "title": ""})),
        ErrorCode::BadParams,
    );
    let tab = create_tab(&mut c, "proj", None);
    let id = tab["id"].clone();
    expect_code(
        c.call("tab.close", json!({"tab_id": id, "signal": "STOP"})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("tab.close", json!({"tab_id": "tab_0"})),
        ErrorCode::NoSuchTab,
    );

    // An empty tab has nothing to arrange and no divider to move.
    let leaf = json!({"type": "pane", "pane_id": "pane_0123"});
    expect_code(
        c.call("tab.set_layout", json!({"tab_id": id, "layout": leaf})),
        ErrorCode::NoSuchPane,
    );
    expect_code(
        c.call("tab.set_layout", json!({"tab_id": "tab_0", "layout": leaf})),
        ErrorCode::NoSuchTab,
    );
    let bad_dir =
        json!({"type": "split", "dir": "up", "ratio": 0.5, "first": leaf, "second": leaf});
    let e = expect_code(
        c.call("tab.set_layout", json!({"tab_id": id, "layout": bad_dir})),
        ErrorCode::BadParams,
    );
    assert!(e.message.contains("layout"), "{}", e.message);
    expect_code(
        c.call(
            "tab.set_ratio",
            json!({"tab_id": id, "path": [], "ratio": 0.5}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "tab.set_ratio",
            json!({"tab_id": id, "path": [2], "ratio": 0.5}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "tab.set_ratio",
            json!({"tab_id": id, "path": [0], "ratio": "half"}),
        ),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call(
            "tab.set_ratio",
            json!({"tab_id": "tab_0", "path": [], "ratio": 0.5}),
        ),
        ErrorCode::NoSuchTab,
    );
}
