//! `signaltty mcp` end to end (docs/mcp.md): the real server, and the MCP
//! server as a child spoken to over its stdin and stdout the way an agent
//! does, each tool checked against real panes of fake agents and a real task;
//! `integration install-mcp|uninstall-mcp` through the CLI; `ask` with the
//! agent look-alike of `ask.rs`.

use crate::support::agents::{fake, spawn_fake_with, type_line, wait_state, workspace};
use crate::support::git::init_repo;
use crate::support::process::BIN;
use crate::support::{DEADLINE, TestServer, ok, str_field, wait_until};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(30);

/// `signaltty mcp` as a child, its stdout read by a thread into a channel.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next: u64,
}

impl Mcp {
    fn start(server: &TestServer) -> Mcp {
        let mut cmd = Command::new(BIN);
        cmd.arg("mcp")
            .current_dir(server.env().root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        server.env().apply_env(&mut cmd);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start signaltty mcp: {e}"));
        let stdin = child.stdin.take();
        let out = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Mcp {
            child,
            stdin,
            lines,
            next: 1,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self
            .stdin
            .as_mut()
            .unwrap_or_else(|| panic!("stdin closed"));
        writeln!(stdin, "{line}").unwrap_or_else(|e| panic!("write to mcp: {e}"));
    }

    /// The next line on stdout, which must be one JSON-RPC message.
    fn read(&mut self, within: Duration) -> Value {
        let line = match self.lines.recv_timeout(within) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => panic!("signaltty mcp said nothing for {within:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("signaltty mcp closed its stdout"),
        };
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("a line on stdout that is not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        v
    }

    /// Sends request `method` and returns its response (others' responses
    /// are not expected while it is open).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&msg.to_string());
        let r = self.read(LONG);
        assert_eq!(r["id"], id, "{r}");
        r
    }

    fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "1"}}),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r["result"].clone()
    }

    /// A tool's result, which must not be an error.
    fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.tool_result(name, arguments);
        assert_eq!(r["isError"], false, "{name}: {r}");
        r
    }

    /// A tool's result as it comes (`content`, `isError`, `structuredContent`).
    fn tool_result(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = r["result"].clone();
        assert!(result.is_object(), "{name}: {r}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(result["content"][0]["type"], "text", "{r}");
        if result["isError"] == false
            && result["structuredContent"].is_object()
            && name != "read_pane"
        {
            // The text is the same object, for a model to read.
            let parsed: Value = serde_json::from_str(text).unwrap_or_default();
            assert_eq!(parsed, result["structuredContent"], "{name}");
        }
        result
    }

    fn tool_names(&mut self) -> Vec<String> {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// Closes stdin; the server must exit 0 without writing anything more.
    fn finish(mut self) {
        drop(self.stdin.take());
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap_or(None) {
                assert!(status.success(), "signaltty mcp exited {status}");
                break;
            }
            assert!(Instant::now() < until, "signaltty mcp did not exit at EOF");
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100)) {
            panic!("more on stdout after EOF: {line}");
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lifecycle and bad lines, as docs/mcp.md#the-protocol has them.
#[test]
fn mcp_speaks_json_rpc_and_survives_bad_lines() {
    let server = TestServer::start();
    let mut m = Mcp::start(&server);
    let init = m.initialize();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "signaltty");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    assert_eq!(m.request("ping", json!({}))["result"], json!({}));
    m.send("this is not json");
    let r = m.read(LONG);
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(
        m.request("prompts/list", json!({}))["error"]["code"],
        -32601
    );
    let r = m.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let names = m.tool_names();
    assert!(names.contains(&"list_panes".to_owned()), "{names:?}");
    assert!(!names.contains(&"answer_decision".to_owned()), "{names:?}");
    // A tool whose server call fails is a result marked as an error.
    let r = m.tool_result("read_pane", json!({"pane": "nope"}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("NO_SUCH_PANE: "),
        "{r}"
    );
    m.finish();
}

/// list_panes, read_pane and list_decisions against two fake Claude panes,
/// one of them waiting on a permission question.
#[test]
fn mcp_tools_see_the_real_panes_their_screens_and_their_decisions() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "mcp");
    let dir = server.env().root().to_string_lossy().into_owned();
    let quiet = spawn_fake_with(
        &mut c,
        &ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_DIR": dir}),
    );
    let asking = spawn_fake_with(
        &mut c,
        &ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_DIR": dir}),
    );
    ok(c.call("pane.rename", json!({"pane_id": asking, "name": "asker"})));
    wait_state(&mut c, &quiet, "idle");
    wait_state(&mut c, &asking, "idle");
    type_line(&mut c, &asking, "ask Bash");
    let decision = wait_until("the pending decision", LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": asking})));
        let d = p["pane"]["pending_decision"].clone();
        d.is_object().then_some(d)
    });

    let mut m = Mcp::start(&server);
    m.initialize();
    let listed = m.tool("list_panes", json!({}))["structuredContent"].clone();
    let panes = listed["panes"].as_array().cloned().unwrap_or_default();
    assert_eq!(panes.len(), 2, "{listed}");
    let row = |id: &str| {
        panes
            .iter()
            .find(|p| p["pane_id"] == id)
            .cloned()
            .unwrap_or_default()
    };
    let (q, a) = (row(&quiet), row(&asking));
    assert_eq!(q["agent"], "claude");
    assert_eq!(q["lifecycle"], "idle");
    assert_eq!(q["workspace"]["id"], ws.as_str());
    assert_eq!(q["workspace"]["name"], "mcp");
    assert_eq!(a["name"], "asker");
    assert_eq!(a["lifecycle"], "blocked");
    assert_eq!(a["attention"], "permission_required");
    assert_eq!(a["pending_decision"], decision["id"]);
    let only = m.tool("list_panes", json!({"workspace": ws}))["structuredContent"].clone();
    assert_eq!(only["panes"].as_array().map(Vec::len), Some(2));

    let screen = m.tool("read_pane", json!({"pane": "asker"}));
    let text = screen["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Welcome to Claude Code"), "{text}");
    assert_eq!(screen["structuredContent"]["text"], text);
    let tail = m.tool("read_pane", json!({"pane": quiet, "lines": 1}));
    assert!(
        tail["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .count()
            <= 1,
        "{tail}"
    );

    let decisions = m.tool("list_decisions", json!({}))["structuredContent"].clone();
    let items = decisions["decisions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(items.len(), 1, "{decisions}");
    assert_eq!(items[0]["pane_id"], asking.as_str());
    assert_eq!(items[0]["name"], "asker");
    assert_eq!(items[0]["decision"]["id"], decision["id"]);
    assert_eq!(items[0]["decision"]["prompt"], decision["prompt"]);
    // Without the setting nobody answers through MCP.
    let r = m.request(
        "tools/call",
        json!({"name": "answer_decision", "arguments": {"pane": asking,
            "decision_id": decision["id"], "option_id": "once"}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    m.finish();
}

/// With `[mcp] allow_answers = true` the answering tool is offered, and an
/// answer through it reaches the waiting agent.
#[test]
fn mcp_answers_a_decision_only_when_the_config_allows_it() {
    let server = TestServer::start();
    let config = server.env().root().join("config/signaltty");
    std::fs::create_dir_all(&config).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(config.join("config.toml"), "[mcp]\nallow_answers = true\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "mcp");
    let dir = server.env().root().to_string_lossy().into_owned();
    let pane = spawn_fake_with(
        &mut c,
        &ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_DIR": dir}),
    );
    wait_state(&mut c, &pane, "idle");
    type_line(&mut c, &pane, "ask Bash");
    let decision = wait_until("the pending decision", LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        let d = p["pane"]["pending_decision"].clone();
        (d.is_object() && d["answerable"] == true).then_some(d)
    });
    let mut m = Mcp::start(&server);
    m.initialize();
    assert!(m.tool_names().contains(&"answer_decision".to_owned()));
    let answered = m.tool(
        "answer_decision",
        json!({"pane": pane, "decision_id": decision["id"], "option_id": "once"}),
    )["structuredContent"]
        .clone();
    assert_eq!(answered["answered"], true, "{answered}");
    assert_eq!(answered["lifecycle"], "working", "{answered}");
    m.finish();
}

/// start_task, wait_task, get_task, list_tasks and task_diff over a real
/// repository and the fake worker, which commits a file and reports.
#[test]
fn mcp_starts_a_task_waits_for_it_and_reads_its_diff() {
    let server = TestServer::start();
    let repo = server.env().root().join("repo");
    init_repo(&repo, "README", "hello\n");
    let mut m = Mcp::start(&server);
    m.initialize();
    // Relative: the repository is found from the directory the agent
    // started `signaltty mcp` in.
    let started = m.tool(
        "start_task",
        json!({"repo": "repo", "objective": "commit: out.txt",
            "agent": "claude", "label": "mcp-worker",
            "argv": ["bash", fake("fake-worker"), BIN, "normal"]}),
    )["structuredContent"]
        .clone();
    let id = str_field(&started["task"], "id").to_owned();
    assert_eq!(started["task"]["label"], "mcp-worker");
    let waited = m.tool(
        "wait_task",
        json!({"task_id": id, "until": ["completed"], "timeout_s": 30}),
    );
    let waited = &waited["structuredContent"];
    assert_eq!(waited["satisfied"], true, "{waited}");
    assert_eq!(waited["tasks"][0]["state"], "completed", "{waited}");
    let got = m.tool("get_task", json!({"task_id": id}))["structuredContent"].clone();
    assert_eq!(got["task"]["result"]["summary"], "committed out.txt");
    let listed = m.tool("list_tasks", json!({"state": "completed"}))["structuredContent"].clone();
    assert_eq!(listed["tasks"][0]["id"], id.as_str(), "{listed}");
    assert_eq!(
        got["task"]["source_repo"].as_str(),
        Some(&*repo.to_string_lossy()),
        "{got}"
    );
    let diff = m.tool("task_diff", json!({"task_id": id}))["structuredContent"].clone();
    let files = diff["files"].to_string();
    assert!(files.contains("out.txt"), "{diff}");
    let r = m.tool_result("get_task", json!({"task_id": "task_nope"}));
    assert_eq!(r["isError"], true, "{r}");
    m.finish();
}

/// `integration install-mcp` writes the running binary's entry into each
/// agent's file (keeping what was there), a repeat changes nothing, and
/// `uninstall-mcp` gives the files back.
#[test]
fn install_mcp_registers_this_binary_with_each_agent_and_uninstall_removes_it() {
    let server = TestServer::start();
    let home = server.env().root().join("mcp-home");
    let home_arg = home.to_string_lossy().into_owned();
    std::fs::create_dir_all(home.join(".codex")).unwrap_or_else(|e| panic!("{e}"));
    let codex_before = "# mine\nmodel = \"gpt-5\"\n";
    std::fs::write(home.join(".codex/config.toml"), codex_before).unwrap_or_else(|e| panic!("{e}"));
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--home", &home_arg, "--json"]);
        let out = server.cli(&all);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or_default()
    };
    let first = run(&["integration", "install-mcp", "all"]);
    let results = first["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3, "{first}");
    assert!(results.iter().all(|r| r["changed"] == true), "{first}");
    let claude: Value = serde_json::from_str(
        &std::fs::read_to_string(home.join(".claude.json")).unwrap_or_default(),
    )
    .unwrap_or_default();
    assert_eq!(claude["mcpServers"]["signaltty"]["command"], BIN);
    assert_eq!(claude["mcpServers"]["signaltty"]["args"], json!(["mcp"]));
    let gemini = std::fs::read_to_string(home.join(".gemini/settings.json")).unwrap_or_default();
    assert!(gemini.contains(BIN), "{gemini}");
    let codex = std::fs::read_to_string(home.join(".codex/config.toml")).unwrap_or_default();
    assert!(codex.starts_with(codex_before), "{codex}");
    assert!(
        codex.contains("[mcp_servers.signaltty]") && codex.contains(BIN),
        "{codex}"
    );
    let again = run(&["integration", "install-mcp", "claude"]);
    assert_eq!(again["results"][0]["changed"], false, "{again}");
    let mcp_status = |status: Value| -> Vec<String> {
        status["mcp"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| format!("{} {}", str_field(m, "agent"), str_field(m, "status")))
            .collect()
    };
    let status = run(&["integration", "status"]);
    assert_eq!(
        mcp_status(status),
        ["codex installed", "claude installed", "gemini installed"]
    );
    run(&["integration", "uninstall-mcp", "all"]);
    let status = run(&["integration", "status", "codex"]);
    assert_eq!(mcp_status(status), ["codex not installed"]);
    assert_eq!(
        std::fs::read_to_string(home.join(".codex/config.toml")).unwrap_or_default(),
        codex_before
    );
    let claude = std::fs::read_to_string(home.join(".claude.json")).unwrap_or_default();
    assert!(!claude.contains("signaltty"), "{claude}");
    let out = server.cli(&[
        "integration",
        "install-mcp",
        "opencode",
        "--home",
        &home_arg,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("claude, codex, gemini or all"));
}

/// A call the client cancels gets no answer; the calls after it do.
#[test]
fn mcp_writes_no_answer_for_a_cancelled_call() {
    let server = TestServer::start();
    let repo = server.env().root().join("repo");
    init_repo(&repo, "README", "hello\n");
    let mut m = Mcp::start(&server);
    m.initialize();
    let started = m.tool(
        "start_task",
        json!({"repo": repo.to_string_lossy(), "objective": "wait",
            "argv": ["sh", "-c", "exec cat"]}),
    )["structuredContent"]
        .clone();
    let id = str_field(&started["task"], "id").to_owned();
    // Two waits that time out, the first one sooner; the first is cancelled.
    let call = |n: u64, timeout: u64| {
        json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "wait_task",
            "arguments": {"task_id": id, "until": ["completed"], "timeout_s": timeout}}})
        .to_string()
    };
    m.send(&call(100, 1));
    m.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}"#);
    m.send(&call(101, 3));
    let r = m.read(LONG);
    assert_eq!(r["id"], 101, "{r}");
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("TIMEOUT: "), "{r}");
    m.finish();
}

/// The `ask` tool is `pane.ask`: the agent's answer for a finished turn, the
/// question for one that asks (docs/mcp.md#ask).
#[test]
fn mcp_ask_gives_an_agent_a_prompt_and_returns_its_answer_or_its_question() {
    let (server, _c, pane) = crate::ask::asked("hook");
    let mut m = Mcp::start(&server);
    m.initialize();
    let done = m.tool(
        "ask",
        json!({"pane": pane, "prompt": "what is six times seven", "timeout_s": 30}),
    )["structuredContent"]
        .clone();
    assert_eq!(done["outcome"], "done", "{done}");
    assert_eq!(done["answer"], "It is 42.");
    assert_eq!(done["answer_source"], "hook");
    let blocked = m.tool(
        "ask",
        json!({"pane": pane, "prompt": "deploy it, with permission", "timeout_s": 30}),
    )["structuredContent"]
        .clone();
    assert_eq!(blocked["outcome"], "blocked", "{blocked}");
    assert!(blocked["decision"].is_object(), "the question: {blocked}");
    // Still asking: only_if_idle refuses it as a tool error.
    let refused = m.tool_result(
        "ask",
        json!({"pane": pane, "prompt": "x", "only_if_idle": true}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("AGENT_BUSY"), "{text}");
}
