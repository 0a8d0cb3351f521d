//! `layout.export` and `layout.apply` (docs/layouts.md) through the real
//! binary: the round trip of a nested tab into another workspace, the checks
//! that create nothing, the all-or-nothing start, a concurrent close, and the
//! `layout` CLI.

use crate::support::{Client, DEADLINE, TestServer, expect_code, ok, poll_until, str_field};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::Path;

fn workspace(c: &mut Client, name: &str, cwd: &Path) -> String {
    let ws = ok(c.call(
        "workspace.create",
        json!({"name": name, "cwd": cwd.to_string_lossy()}),
    ));
    str_field(&ws["workspace"], "id").to_owned()
}

fn dir(root: &Path, name: &str) -> String {
    let d = root.join(name);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d.to_string_lossy().into_owned()
}

/// A tab with three named panes: `alpha | (beta / gamma)`, the root at 0.3.
fn three_pane_tab(c: &mut Client, ws: &str, root: &Path) -> (String, [String; 3]) {
    let a = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "cwd": dir(root, "a"), "argv": ["sleep", "600"]}),
    ));
    let a_id = str_field(&a["pane"], "id").to_owned();
    let tab = str_field(&a["pane"], "tab_id").to_owned();
    let b = ok(c.call(
        "pane.split",
        json!({"pane_id": a_id, "cwd": dir(root, "b"), "argv": ["sleep", "601"]}),
    ));
    let b_id = str_field(&b["pane"], "id").to_owned();
    let g = ok(c.call(
        "pane.split",
        json!({"pane_id": b_id, "direction": "down", "cwd": dir(root, "c"),
               "argv": ["sh", "-c", "exec sleep 602"]}),
    ));
    let g_id = str_field(&g["pane"], "id").to_owned();
    for (id, name) in [(&a_id, "alpha"), (&b_id, "beta"), (&g_id, "gamma")] {
        ok(c.call("pane.rename", json!({"pane_id": id, "name": name})));
    }
    ok(c.call(
        "tab.set_ratio",
        json!({"tab_id": tab, "path": [], "ratio": 0.3}),
    ));
    (tab, [a_id, b_id, g_id])
}

/// The tree without what a copy cannot keep: pane ids (and names, if asked).
fn shape(node: &Value, names: bool) -> Value {
    let mut node = node.clone();
    if let Some(obj) = node.as_object_mut() {
        obj.remove("pane_id");
        if !names {
            obj.remove("name");
        }
        for side in ["first", "second"] {
            if let Some(child) = obj.get(side).cloned() {
                obj.insert(side.to_owned(), shape(&child, names));
            }
        }
    }
    node
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|b| {
                String::from_utf8_lossy(&b)
                    .replace('\0', " ")
                    .contains(marker)
            })
        })
        .collect()
}

#[test]
fn export_then_apply_reproduces_the_tree_in_another_workspace() {
    let server = TestServer::start();
    let root = server.env().root().to_owned();
    let mut c = server.client();
    let source = workspace(&mut c, "source", &root);
    let target = workspace(&mut c, "target", &root);
    let (tab, ids) = three_pane_tab(&mut c, &source, &root);

    let exported = ok(c.call("layout.export", json!({"tab_id": tab})));
    assert_eq!(exported["workspace_id"], source.as_str());
    assert_eq!(exported["tab_id"], tab.as_str());
    let tree = exported["root"].clone();
    assert_eq!(tree["type"], "split");
    assert_eq!(tree["dir"], "right");
    assert!(
        (tree["ratio"].as_f64().unwrap_or(0.0) - 0.3).abs() < 1e-6,
        "{tree}"
    );
    assert_eq!(
        tree["first"],
        json!({"type": "pane", "pane_id": ids[0], "argv": ["sleep", "600"],
               "cwd": dir(&root, "a"), "name": "alpha"})
    );
    assert_eq!(tree["second"]["dir"], "down");
    assert_eq!(tree["second"]["second"]["name"], "gamma");
    assert_eq!(
        tree["second"]["second"]["argv"],
        json!(["sh", "-c", "exec sleep 602"])
    );

    // The names are held by the source's panes: BAD_PARAMS
    // (docs/methods.md#layoutapply), and nothing is created in the target.
    let refused = expect_code(
        c.call(
            "layout.apply",
            json!({"workspace_id": target, "root": tree}),
        ),
        ErrorCode::BadParams,
    );
    assert!(refused.message.contains("alpha"), "{refused:?}");
    let got = ok(c.call("workspace.get", json!({"workspace_id": target})));
    assert_eq!(got["tabs"], json!([]), "{got}");

    // With drop_names the copy starts, events in order.
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["tab.*", "pane.created"]})));
    let applied = ok(c.call(
        "layout.apply",
        json!({"workspace_id": target, "title": "copy", "root": tree, "drop_names": true}),
    ));
    let panes = applied["panes"].as_array().cloned().unwrap_or_default();
    assert_eq!(panes.len(), 3, "{applied}");
    let new_tab = str_field(&applied["tab"], "id").to_owned();
    assert_eq!(applied["tab"]["title"], "copy");
    assert_eq!(applied["tab"]["active_pane_id"], panes[0]["pane"]["id"]);
    for (i, p) in panes.iter().enumerate() {
        assert_eq!(p["pane"]["workspace_id"], target.as_str());
        assert_eq!(p["pane"]["tab_id"], new_tab.as_str());
        assert_eq!(p["pane"]["live"]["state"], "live", "{p}");
        assert!(p["pane"].get("name").is_none_or(Value::is_null), "{p}");
        assert_ne!(p["pane"]["id"], ids[i].as_str());
    }
    let events: Vec<(String, Value)> = (0..5)
        .map(|_| sub.next_event())
        .map(|e| (e.event, e.payload))
        .collect();
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        [
            "tab.created",
            "pane.created",
            "pane.created",
            "pane.created",
            "tab.updated"
        ]
    );
    assert_eq!(events[4].1["tab"], applied["tab"]);
    let copy = ok(c.call("layout.export", json!({"tab_id": new_tab})));
    assert_eq!(shape(&copy["root"], false), shape(&tree, false));
    // The target's workspace.get agrees: the new tab is active, leaf order.
    let got = ok(c.call("workspace.get", json!({"workspace_id": target})));
    assert_eq!(got["workspace"]["active_tab_id"], new_tab.as_str());
    let order: Vec<&Value> = got["panes"]
        .as_array()
        .map(|a| a.iter().map(|p| &p["id"]).collect())
        .unwrap_or_default();
    let want: Vec<&Value> = panes.iter().map(|p| &p["pane"]["id"]).collect();
    assert_eq!(order, want);

    // Once the source tab is closed its names are free: the copy keeps them,
    // and they address the new panes.
    ok(c.call("tab.close", json!({"tab_id": tab})));
    let named = ok(c.call(
        "layout.apply",
        json!({"workspace_id": target, "root": tree}),
    ));
    let again = ok(c.call("layout.export", json!({"tab_id": named["tab"]["id"]})));
    assert_eq!(shape(&again["root"], true), shape(&tree, true));
    assert_eq!(named["tab"]["title"], "tab", "the default title");
    let beta = ok(c.call("pane.get", json!({"pane_id": "beta"})));
    assert_eq!(beta["pane"]["id"], named["panes"][1]["pane"]["id"]);
}

/// Asserts that nothing new was published since `sub` subscribed: the next
/// event is the marker rename.
#[track_caller]
fn nothing_published(c: &mut Client, sub: &mut Client, ws: &str) {
    ok(c.call(
        "workspace.rename",
        json!({"workspace_id": ws, "name": "marker"}),
    ));
    let next = sub.next_event();
    assert_eq!(next.event, "workspace.updated", "{next:?}");
}

#[test]
fn a_bad_tree_is_refused_before_anything_starts() {
    let server = TestServer::start();
    let root = server.env().root().to_owned();
    let mut c = server.client();
    let ws = workspace(&mut c, "w", &root);
    let held = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["sleep", "600"]}),
    ));
    let held = str_field(&held["pane"], "id").to_owned();
    ok(c.call("pane.rename", json!({"pane_id": held, "name": "taken"})));
    let file = root.join("a-file");
    std::fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
    let leaf = |extra: Value| {
        let mut l = json!({"type": "pane", "argv": ["sleep", "603"]});
        if let (Some(l), Some(extra)) = (l.as_object_mut(), extra.as_object()) {
            l.extend(extra.clone());
        }
        l
    };
    let pair = |a: Value, b: Value| json!({"type": "split", "dir": "right", "ratio": 0.5, "first": a, "second": b});
    let before = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["*"]})));
    let cases = [
        (
            pair(
                leaf(json!({})),
                leaf(json!({"cwd": file.to_string_lossy()})),
            ),
            "not a directory",
        ),
        (
            pair(
                leaf(json!({})),
                leaf(json!({"cwd": root.join("missing").to_string_lossy()})),
            ),
            "not a directory",
        ),
        (pair(leaf(json!({})), leaf(json!({"argv": []}))), "argv"),
        (leaf(json!({"name": "Not Valid"})), "invalid pane name"),
        (
            pair(leaf(json!({"name": "same"})), leaf(json!({"name": "same"}))),
            "two panes",
        ),
        (
            pair(
                leaf(json!({"name": "fresh"})),
                leaf(json!({"name": "taken"})),
            ),
            "taken",
        ),
        (
            pair(leaf(json!({})), leaf(json!({"env": {"LD_PRELOAD": "x"}}))),
            "LD_PRELOAD",
        ),
        (
            json!({"type": "split", "dir": "right", "ratio": "wide", "first": leaf(json!({})), "second": leaf(json!({}))}),
            "expected f32",
        ),
    ];
    for (root_tree, why) in cases {
        let e = expect_code(
            c.call(
                "layout.apply",
                json!({"workspace_id": ws, "root": root_tree}),
            ),
            ErrorCode::BadParams,
        );
        assert!(e.message.contains(why), "{why}: {e:?}");
    }
    expect_code(
        c.call(
            "layout.apply",
            json!({"workspace_id": "nope", "root": leaf(json!({}))}),
        ),
        ErrorCode::NoSuchWorkspace,
    );
    expect_code(
        c.call("layout.export", json!({"tab_id": "tab_nope"})),
        ErrorCode::NoSuchTab,
    );
    let after = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(after["tabs"], before["tabs"]);
    assert_eq!(after["panes"], before["panes"]);
    nothing_published(&mut c, &mut sub, &ws);
    // The name `fresh` of a refused tree was never held.
    ok(c.call("pane.rename", json!({"pane_id": held, "name": "fresh"})));
    assert!(processes_with("sleep 603").is_empty());
}

#[test]
fn a_leaf_that_cannot_start_leaves_nothing_behind() {
    let server = TestServer::start();
    let root = server.env().root().to_owned();
    let mut c = server.client();
    let ws = workspace(&mut c, "w", &root);
    let before = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["*"]})));
    let tree = json!({"type": "split", "dir": "down", "ratio": 0.5,
        "first": {"type": "pane", "argv": ["sleep", "987654"], "name": "first"},
        "second": {"type": "split", "dir": "right", "ratio": 0.5,
            "first": {"type": "pane", "argv": [root.join("no-such-program").to_string_lossy()]},
            "second": {"type": "pane", "argv": ["sleep", "987655"]}}});
    let e = expect_code(
        c.call("layout.apply", json!({"workspace_id": ws, "root": tree})),
        ErrorCode::SpawnFailed,
    );
    assert!(e.message.contains("leaf 2"), "{e:?}");
    let after = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(after["tabs"], before["tabs"], "{after}");
    assert_eq!(after["panes"], json!([]), "{after}");
    assert_eq!(after["workspace"], before["workspace"]);
    assert!(
        poll_until(DEADLINE, || processes_with("sleep 987654").is_empty()),
        "the first leaf's process was killed"
    );
    assert!(
        processes_with("sleep 987655").is_empty(),
        "the third never started"
    );
    nothing_published(&mut c, &mut sub, &ws);
    assert_eq!(ok(c.call("server.status", json!({})))["panes"], 0);
    // Its name was released.
    let p = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["sleep", "600"]}),
    ));
    ok(c.call(
        "pane.rename",
        json!({"pane_id": p["pane"]["id"], "name": "first"}),
    ));
}

#[test]
fn an_apply_racing_a_workspace_close_leaves_no_pane_and_no_process() {
    let server = TestServer::start();
    let root = server.env().root().to_owned();
    for round in 0..5 {
        let mut c = server.client();
        let name = format!("race{round}");
        let ws = workspace(&mut c, &name, &root);
        let marker = format!("98765{round}");
        let tree = json!({"type": "split", "dir": "right", "ratio": 0.5,
            "first": {"type": "pane", "argv": ["sleep", marker]},
            "second": {"type": "pane", "argv": ["sleep", marker]}});
        let mut applier = server.client();
        let id = applier.send("layout.apply", json!({"workspace_id": ws, "root": tree}));
        let closed = c.call("workspace.close", json!({"workspace_id": ws}));
        let applied = applier.read_response();
        assert_eq!(applied.id, id);
        assert!(closed.ok, "{closed:?}");
        if let Some(e) = &applied.error {
            assert_eq!(e.code, ErrorCode::NoSuchWorkspace, "{e:?}");
        }
        let status = ok(c.call("server.status", json!({})));
        assert_eq!(status["panes"], 0, "round {round}: {status}");
        assert!(
            poll_until(DEADLINE, || processes_with(&format!("sleep {marker}"))
                .is_empty()),
            "round {round}: no process survives its workspace"
        );
    }
}

/// `pane.spawn` (and so `pane.split`) races a workspace close as apply does:
/// the answer is the pane or `NO_SUCH_WORKSPACE`, never `INTERNAL`, and no
/// process outlives its workspace.
#[test]
fn a_spawn_racing_a_workspace_close_is_no_such_workspace_never_internal() {
    let server = TestServer::start();
    let root = server.env().root().to_owned();
    for round in 0..8 {
        let mut c = server.client();
        let ws = workspace(&mut c, &format!("spawnrace{round}"), &root);
        let marker = format!("87654{round}");
        let mut spawner = server.client();
        let id = spawner.send(
            "pane.spawn",
            json!({"workspace_id": ws, "argv": ["sleep", marker]}),
        );
        let closed = c.call("workspace.close", json!({"workspace_id": ws}));
        let spawned = spawner.read_response();
        assert_eq!(spawned.id, id);
        assert!(closed.ok, "{closed:?}");
        if let Some(e) = &spawned.error {
            assert_eq!(e.code, ErrorCode::NoSuchWorkspace, "round {round}: {e:?}");
        }
        assert!(
            poll_until(DEADLINE, || processes_with(&format!("sleep {marker}"))
                .is_empty()),
            "round {round}: no process survives its workspace"
        );
    }
}

#[test]
fn the_layout_cli_exports_and_applies_what_it_printed() {
    let server = TestServer::start();
    let root = server.env().root().to_owned();
    let mut c = server.client();
    let source = workspace(&mut c, "source", &root);
    let target = workspace(&mut c, "target", &root);
    let (tab, _) = three_pane_tab(&mut c, &source, &root);
    let text = server.cli(&["layout", "export", &tab]);
    assert!(text.status.success(), "{text:?}");
    let printed: Value = serde_json::from_slice(&text.stdout)
        .unwrap_or_else(|e| panic!("export prints JSON ({e}): {text:?}"));
    let raw = server.cli(&["--json", "layout", "export", &tab]);
    let raw_value: Value = serde_json::from_slice(&raw.stdout)
        .unwrap_or_else(|e| panic!("--json prints JSON ({e}): {raw:?}"));
    assert_eq!(printed, raw_value);
    assert_eq!(String::from_utf8_lossy(&raw.stdout).lines().count(), 1);
    let file = root.join("layout.json");
    std::fs::write(&file, &text.stdout).unwrap_or_else(|e| panic!("{e}"));
    let applied = server.cli(&[
        "layout",
        "apply",
        &target,
        "--title",
        "copied",
        "--drop-names",
        &file.to_string_lossy(),
    ]);
    assert!(applied.status.success(), "{applied:?}");
    let out = String::from_utf8_lossy(&applied.stdout);
    assert_eq!(out.lines().count(), 4, "the tab and three panes: {out}");
    assert!(
        out.lines().next().is_some_and(|l| l.ends_with("copied")),
        "{out}"
    );
    // From stdin, as --json: the raw result.
    let piped = server.cli_with_stdin(
        &["--json", "layout", "apply", &target, "--drop-names", "-"],
        &raw.stdout,
    );
    assert!(piped.status.success(), "{piped:?}");
    let result: Value =
        serde_json::from_slice(&piped.stdout).unwrap_or_else(|e| panic!("{e}: {piped:?}"));
    assert_eq!(result["panes"].as_array().map(Vec::len), Some(3));
    // Without --drop-names the held names are refused (exit 1).
    let refused = server.cli(&["layout", "apply", &target, &file.to_string_lossy()]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("BAD_PARAMS"));
    let got = ok(c.call("workspace.get", json!({"workspace_id": target})));
    assert_eq!(got["tabs"].as_array().map(Vec::len), Some(2), "{got}");
}
