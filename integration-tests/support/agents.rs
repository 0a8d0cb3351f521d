//! Fake agents in panes: the fixtures under `integration-tests/fixtures/agents`
//! started the way a person would start the real ones, and driven by typing
//! their one-line commands.

use super::client::Client;
use super::process::{BIN, TestServer};
use super::{ok, str_field};
use base64::Engine as _;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The path of a fake agent script.
pub fn fake(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("integration-tests/fixtures/agents")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Writes an executable `/bin/sh` script `name` into `<root>/bin` and returns
/// its path (an agent look-alike is named after the agent it plays).
pub fn script(root: &Path, name: &str, body: &str) -> PathBuf {
    let dir = root.join("bin");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("bin dir: {e}"));
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}"))
        .unwrap_or_else(|e| panic!("write script: {e}"));
    super::process::set_mode(&path, 0o755);
    path
}

/// A workspace rooted in the test's temp dir.
pub fn workspace(c: &mut Client, server: &TestServer, name: &str) -> String {
    let cwd = server.env().root().to_string_lossy().into_owned();
    let ws = ok(c.call("workspace.create", json!({"name": name, "cwd": cwd})));
    str_field(&ws["workspace"], "id").to_owned()
}

/// Starts fake agent `agent` in a new tab of `ws`, with `env` added to the
/// pane's environment (the binary under test is always `$SIGNALTTY_BIN`).
pub fn spawn_fake_with(c: &mut Client, ws: &str, agent: &str, mut env: Value) -> String {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let tab = str_field(&tab["tab"], "id").to_owned();
    env["SIGNALTTY_BIN"] = json!(BIN);
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab, "argv": ["bash", fake(agent)], "env": env}),
    ));
    str_field(&pane["pane"], "id").to_owned()
}

/// Types one command line into a pane.
pub fn type_line(c: &mut Client, pane: &str, line: &str) {
    let data = base64::engine::general_purpose::STANDARD.encode(format!("{line}\n"));
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": data})));
}

/// Waits (up to 20 s) until the pane is in state `until` (current state).
pub fn wait_state(c: &mut Client, pane: &str, until: &str) -> Value {
    ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": until, "timeout_s": 20}),
    ))
}

/// Waits (up to 20 s) until a line of the pane's screen contains `text`.
pub fn wait_screen(c: &mut Client, pane: &str, text: &str) -> Value {
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": text, "mode": "screen", "timeout_s": 20}),
    ))
}
