//! Real MCP clients (docs/mcp.md#how-to-test-it): Claude Code, Codex and
//! Gemini CLI, with signaltty's MCP server registered by `signaltty
//! integration install-mcp`, call its `list_panes` tool in a turn of the
//! fake model (`mode: "mcp"`), and the tool result the model receives names
//! the real panes.

use super::{
    LONG, Rig, agent_bin, claude_rig, codex_argv, codex_rig, gemini_rig, submit, wait_ready,
};
use crate::support::client::Client;
use crate::support::{ok, str_field};
use serde_json::{Value, json};

#[test]
fn claude_calls_signalttys_list_panes_over_mcp_and_the_model_sees_the_panes() {
    let claude = agent_bin("claude");
    let rig = claude_rig();
    rig.model
        .set(json!({"mode": "mcp", "tool": "list_panes", "tool_args": {},
        "final": "done: listed the panes", "delay": 0.5, "final_delay": 0.3}));
    let mut c = rig.server.client();
    let ws = ok(c.call(
        "workspace.create",
        json!({"name": "others", "cwd": rig.work.to_string_lossy()}),
    ));
    let other = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": ["sh", "-c", "exec cat"]}),
    ));
    let other = str_field(&other["pane"], "id").to_owned();
    ok(c.call(
        "pane.rename",
        json!({"pane_id": other, "name": "bystander"}),
    ));
    let pane = claude_with_signalttys_tools(&rig, &mut c, &claude);
    // Claude Code connects to its MCP servers beside its start-up: a turn
    // that came before the tools were there is told so and ends, and the
    // prompt is given again.
    let listed = panes_the_model_saw(&rig, &mut c, &pane, "mcp__signaltty__list_panes");
    let panes = listed["panes"].as_array().cloned().unwrap_or_default();
    let row = |id: &str| panes.iter().find(|p| p["pane_id"] == id).cloned();
    let me = row(&pane).unwrap_or_else(|| panic!("Claude's own pane is missing: {listed}"));
    assert_eq!(me["agent"], "claude", "{me}");
    let them = row(&other).unwrap_or_else(|| panic!("the other pane is missing: {listed}"));
    assert_eq!(them["name"], "bystander", "{them}");
    assert_eq!(them["workspace"]["name"], "others", "{them}");
    assert_eq!(me["workspace"]["name"], "real", "{me}");
}

/// Registers signaltty's MCP server with Claude Code through `install-mcp`
/// (checking what it wrote), allows its tools as a person would, and starts
/// Claude in a workspace `real`; returns its pane once it is ready.
fn claude_with_signalttys_tools(rig: &Rig, c: &mut Client, claude: &std::path::Path) -> String {
    // The server's environment is the agent's: CLAUDE_CONFIG_DIR points at
    // the rig's config, where Claude Code keeps its user MCP servers.
    let out = rig.server.cli(&["integration", "install-mcp", "claude"]);
    assert!(
        out.status.success(),
        "install-mcp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = rig.home.join(".claude").join(".claude.json");
    let text = std::fs::read_to_string(&state).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(
        v["mcpServers"]["signaltty"]["args"],
        json!(["mcp"]),
        "{text}"
    );
    assert_eq!(
        v["hasCompletedOnboarding"], true,
        "the rest of the file is kept"
    );
    // The person allows signaltty's tools, as Claude's own settings do it.
    std::fs::write(
        rig.home.join(".claude").join("settings.json"),
        json!({"permissions": {"allow": ["mcp__signaltty"]}}).to_string(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Claude Code defers MCP tools behind its ToolSearch tool by default;
    // the fake model calls tools it is offered, so they are offered directly.
    rig.install_hooks("claude");
    let mine = ok(c.call(
        "workspace.create",
        json!({"name": "real", "cwd": rig.work.to_string_lossy()}),
    ));
    let r = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": mine["workspace"]["id"], "argv": [claude], "cwd": rig.work.to_string_lossy(),
            "env": {"ENABLE_TOOL_SEARCH": "false"}, "cols": 120, "rows": 40}),
    ));
    let pane = str_field(&r["pane"], "id").to_owned();
    wait_ready(c, &pane, "? for shortcuts");
    pane
}

/// One agent asks another and waits for its answer (docs/ask.md): Claude
/// Code, as the orchestrator, calls signaltty's `ask` tool on a worker pane
/// (the agent look-alike of the `ask` tests); the model receives the
/// worker's answer.
#[test]
fn claude_asks_another_agent_through_signalttys_ask_tool_and_gets_its_answer() {
    let claude = agent_bin("claude");
    let rig = claude_rig();
    rig.model.set(json!({"mode": "mcp", "tool": "ask",
        "tool_args": {"pane": "worker", "prompt": "what is six times seven", "timeout_s": 60},
        "final": "done: the worker answered", "delay": 0.5, "final_delay": 0.3}));
    let mut c = rig.server.client();
    let ws = ok(c.call(
        "workspace.create",
        json!({"name": "workers", "cwd": rig.work.to_string_lossy()}),
    ));
    let agent = crate::support::agents::script(rig.home.as_path(), "asked", crate::ask::ASKED);
    let worker = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": ["bash", agent],
            "env": {"SIGNALTTY_BIN": crate::support::process::BIN, "ASK_MODE": "hook"}}),
    ));
    let worker = str_field(&worker["pane"], "id").to_owned();
    ok(c.call("pane.rename", json!({"pane_id": worker, "name": "worker"})));
    crate::support::agents::wait_state(&mut c, &worker, "idle");
    let pane = claude_with_signalttys_tools(&rig, &mut c, &claude);
    let answered = result_the_model_saw(&rig, &mut c, &pane, "mcp__signaltty__ask", "\"outcome\"");
    assert_eq!(answered["outcome"], "done", "{answered}");
    assert_eq!(answered["answer"], "It is 42.", "{answered}");
    assert_eq!(answered["pane_id"], worker.as_str());
}

/// Waits until the turn begun after `baseline` is done.
fn turn_ends(c: &mut Client, pane: &str, baseline: Value) {
    let _ = c
        .stream()
        .set_read_timeout(Some(LONG + std::time::Duration::from_secs(10)));
    let r = c.call(
        "wait",
        json!({"pane_id": pane, "until": "done", "after": baseline, "timeout_s": LONG.as_secs()}),
    );
    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    ok(r);
}

/// Gives the agent in `pane` a prompt until the model has received the
/// result of the `list_panes` call it makes (a turn that came before the
/// agent had its MCP tools is told so and ends, and the prompt is given
/// again); checks the model called it as `called` and returns the panes'
/// JSON it received.
fn panes_the_model_saw(rig: &Rig, c: &mut Client, pane: &str, called: &str) -> Value {
    result_the_model_saw(rig, c, pane, called, "\"panes\"")
}

/// As [`panes_the_model_saw`], for any tool: the first JSON result the
/// model received that contains `needle`.
fn result_the_model_saw(
    rig: &Rig,
    c: &mut Client,
    pane: &str,
    called: &str,
    needle: &str,
) -> Value {
    let mut seen = None;
    for _ in 0..3 {
        let before = ok(c.call("pane.get", json!({"pane_id": pane})))["wait_baseline"].clone();
        submit(c, pane, "Use the signaltty tool");
        turn_ends(c, pane, before);
        seen = rig
            .model
            .requests()
            .iter()
            .flat_map(|r| r["results"].as_array().cloned().unwrap_or_default())
            .filter_map(|t| t.as_str().map(str::to_owned))
            .find(|t| t.contains(needle));
        if seen.is_some() {
            break;
        }
    }
    let Some(seen) = seen else {
        let log: Vec<Value> = rig
            .model
            .requests()
            .iter()
            .map(|r| json!({"last": r["last"], "tool": r["tool"], "text": r["text"], "results": r["results"]}))
            .collect();
        panic!("the model never received {needle}: {}", Value::Array(log));
    };
    let requests = rig.model.requests();
    assert!(
        requests.iter().any(|r| r["tool"] == called),
        "the model called {called}"
    );
    // The result holds the tool's JSON (Claude Code gives the model the
    // structured content, Codex the text after a line of its own, Gemini CLI
    // the text inside a tag); an agent may add a note after it.
    let from = seen.find('{').unwrap_or(0);
    serde_json::Deserializer::from_str(&seen[from..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("the tool result is not JSON: {seen}"))
}

/// Codex, configured by `install-mcp codex` (the tools approved in its
/// config, as a person would allow them), calls `list_panes` from the
/// `signaltty` tool namespace it offers the model.
#[test]
fn codex_calls_signalttys_list_panes_over_mcp_and_the_model_sees_the_panes() {
    let rig = codex_rig();
    rig.model
        .set(json!({"mode": "mcp", "tool": "list_panes", "tool_args": {},
        "final": "done: listed the panes", "delay": 0.5, "final_delay": 0.3}));
    let out = rig.server.cli(&["integration", "install-mcp", "codex"]);
    assert!(
        out.status.success(),
        "install-mcp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = rig.home.join(".codex").join("config.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut config: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        config["model_provider"].as_str(),
        Some("fake"),
        "the rest is kept"
    );
    let entry = config
        .get_mut("mcp_servers")
        .and_then(|s| s.get_mut("signaltty"))
        .and_then(toml::Value::as_table_mut)
        .unwrap_or_else(|| panic!("no [mcp_servers.signaltty]: {text}"));
    entry.insert("default_tools_approval_mode".into(), "approve".into());
    std::fs::write(&path, toml::to_string(&config).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut c, pane) = rig.ready("codex", codex_argv(), "Ask Codex to do anything");
    let listed = panes_the_model_saw(&rig, &mut c, &pane, "list_panes");
    let panes = listed["panes"].as_array().cloned().unwrap_or_default();
    let me = panes
        .iter()
        .find(|p| p["pane_id"] == pane.as_str())
        .unwrap_or_else(|| panic!("Codex's own pane is missing: {listed}"));
    assert_eq!(me["agent"], "codex", "{me}");
}

/// Gemini CLI, configured by `install-mcp gemini` (the server trusted in its
/// settings, as a person would trust it), calls `mcp_signaltty_list_panes`.
#[test]
fn gemini_calls_signalttys_list_panes_over_mcp_and_the_model_sees_the_panes() {
    let gemini = agent_bin("gemini");
    let rig = gemini_rig();
    rig.model
        .set(json!({"mode": "mcp", "tool": "list_panes", "tool_args": {},
        "final": "done: listed the panes", "delay": 0.5, "final_delay": 0.3}));
    let out = rig.server.cli(&["integration", "install-mcp", "gemini"]);
    assert!(
        out.status.success(),
        "install-mcp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = rig.home.join(".gemini").join("settings.json");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut settings: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        settings["model"]["name"], "gemini-2.5-flash",
        "the rest is kept"
    );
    settings["mcpServers"]["signaltty"]["trust"] = json!(true);
    std::fs::write(&path, settings.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let (mut c, pane) = rig.ready("gemini", json!([gemini]), "Type your message");
    let listed = panes_the_model_saw(&rig, &mut c, &pane, "mcp_signaltty_list_panes");
    let panes = listed["panes"].as_array().cloned().unwrap_or_default();
    let me = panes
        .iter()
        .find(|p| p["pane_id"] == pane.as_str())
        .unwrap_or_else(|| panic!("Gemini's own pane is missing: {listed}"));
    assert_eq!(me["agent"], "gemini", "{me}");
}
