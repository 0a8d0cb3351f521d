//! The tools `signaltty mcp` offers (docs/mcp.md#tools): each one's name,
//! description and input schema, and how it runs as calls of the signaltty
//! protocol. A tool's failure is its result's text, never a JSON-RPC error.

use serde_json::{Map, Value, json};
use signaltty_model::client::CallError;

/// What a tool calls: one method of the signaltty protocol by its wire name
/// and JSON params (the real one is a connection to the server).
pub trait Backend {
    fn call(&mut self, method: &str, params: Value) -> Result<Value, CallError>;
}

/// A tool's outcome: readable text and the object behind it, or the text
/// of its failure.
pub type Outcome = Result<(String, Option<Value>), String>;

/// Every tool offered: the answering one only when the settings allow it
/// (docs/mcp.md#answering-decisions).
pub fn list(allow_answers: bool) -> Vec<Value> {
    let pane = json!({"type": "string", "description": "a pane id, shortened id or name"});
    let task = json!({"type": "string", "description": "a task id (task_…)"});
    let mut tools = vec![
        tool(
            "list_panes",
            "List every pane with its workspace, name, agent, lifecycle and attention state, and last message.",
            json!({"workspace": {"type": "string", "description": "only this workspace (id or handle)"}}),
            &[],
        ),
        tool(
            "read_pane",
            "Read a pane's terminal: its visible screen, or with `lines` the last lines of its scrollback.",
            json!({"pane": pane, "lines": {"type": "integer", "minimum": 1, "maximum": 5000,
                "description": "the last this many lines instead of the visible screen"}}),
            &["pane"],
        ),
        tool(
            "ask",
            "Give the agent in a pane a prompt and wait until its turn ends; returns its answer, or the decision it is blocked on.",
            json!({"pane": pane, "prompt": {"type": "string"},
                "timeout_s": {"type": "integer", "minimum": 1, "description": "give up waiting after this many seconds"},
                "only_if_idle": {"type": "boolean", "description": "refuse (AGENT_BUSY) instead of typing into a busy agent"}}),
            &["pane", "prompt"],
        ),
        tool(
            "start_task",
            "Start a worker agent on an objective in its own git worktree of a repository.",
            json!({"repo": {"type": "string", "description": "the repository (a relative path is taken from the agent's directory)"},
                "objective": {"type": "string", "description": "what the worker is to do"},
                "agent": {"type": "string", "description": "the agent kind (claude, codex, gemini, …)"},
                "label": {"type": "string"},
                "argv": {"type": "array", "items": {"type": "string"}, "description": "the worker's command, when it is not the agent's own program"},
                "constraints": {"type": "string"},
                "acceptance_criteria": {"type": "array", "items": {"type": "string"}},
                "output_format": {"type": "string"},
                "base_ref": {"type": "string"}, "branch": {"type": "string"},
                "context_id": {"type": "string"}, "client_request_id": {"type": "string"}}),
            &["repo", "objective"],
        ),
        tool(
            "wait_task",
            "Wait until a task is settled (done, failed or needing input) or in the states given.",
            json!({"task_id": task, "until": {"type": "array", "items": {"type": "string"},
                "description": "task states, `terminal` or `settled` (the default)"},
                "timeout_s": {"type": "integer", "minimum": 1, "description": "default 300"}}),
            &["task_id"],
        ),
        tool(
            "task_diff",
            "What a task changed against its base commit, and whether it would merge cleanly.",
            json!({"task_id": task}),
            &["task_id"],
        ),
        tool(
            "get_task",
            "Show one task: its state, branch, checkout and result.",
            json!({"task_id": task}),
            &["task_id"],
        ),
        tool(
            "list_tasks",
            "List the tasks, oldest first.",
            json!({"context_id": {"type": "string"}, "state": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000}}),
            &[],
        ),
        tool(
            "list_decisions",
            "List the pending decisions: questions (permission requests, choices) agents are waiting on a person for.",
            json!({}),
            &[],
        ),
    ];
    if allow_answers {
        tools.push(tool(
            "answer_decision",
            "Answer a pane's pending decision with one of its option ids (once, deny, …).",
            json!({"pane": pane, "decision_id": {"type": "string"}, "option_id": {"type": "string"}}),
            &["pane", "decision_id", "option_id"],
        ));
    }
    tools
}

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": required},
    })
}

/// Runs tool `name` (one `list` offers) with `args` through `backend`.
pub fn call(backend: &mut dyn Backend, name: &str, args: &Value) -> Outcome {
    match name {
        "list_panes" => super::views::list_panes(backend, opt_str(args, "workspace")?),
        "list_decisions" => super::views::list_decisions(backend),
        "read_pane" => read_pane(backend, args),
        "ask" => ask(backend, args),
        "start_task" => start_task(backend, args),
        "wait_task" => {
            let until = match args.get("until") {
                None | Some(Value::Null) => json!("settled"),
                Some(u) => u.clone(),
            };
            let timeout = args.get("timeout_s").cloned().unwrap_or(json!(300));
            let p = json!({"task_id": need_str(args, "task_id")?, "until": until, "timeout_s": timeout});
            pass(backend, "task.wait", p)
        },
        "task_diff" => pass(
            backend,
            "task.diff",
            json!({"task_id": need_str(args, "task_id")?}),
        ),
        "get_task" => pass(
            backend,
            "task.get",
            json!({"task_id": need_str(args, "task_id")?}),
        ),
        "list_tasks" => pass(
            backend,
            "task.list",
            pick(args, &["context_id", "state", "limit"], Map::new()),
        ),
        "answer_decision" => {
            let p = json!({"pane_id": need_str(args, "pane")?,
                "decision_id": need_str(args, "decision_id")?, "option_id": need_str(args, "option_id")?});
            pass(backend, "decision.answer", p)
        },
        other => Err(format!("unknown tool {other:?}")),
    }
}

/// `read_pane`: the screen, or the tail's last `lines`; the text itself is
/// the content.
fn read_pane(backend: &mut dyn Backend, args: &Value) -> Outcome {
    let pane = need_str(args, "pane")?;
    let params = match args.get("lines") {
        None | Some(Value::Null) => json!({"pane_id": pane, "mode": "screen"}),
        Some(n) => json!({"pane_id": pane, "mode": "tail", "lines": n}),
    };
    let read = backend.call("pane.read", params).map_err(failed)?;
    let text = read["text"].as_str().unwrap_or_default().to_owned();
    let structured = json!({"pane_id": pane, "text": text, "truncated": read["truncated"]});
    Ok((text, Some(structured)))
}

/// `ask`: `pane.ask` with its params (docs/mcp.md#ask).
fn ask(backend: &mut dyn Backend, args: &Value) -> Outcome {
    let mut params = Map::new();
    params.insert("pane_id".into(), json!(need_str(args, "pane")?));
    params.insert("text".into(), json!(need_str(args, "prompt")?));
    if let Some(t) = args.get("timeout_s").and_then(Value::as_u64) {
        params.insert("timeout_ms".into(), json!(t.saturating_mul(1000)));
    }
    if let Some(b) = args.get("only_if_idle").and_then(Value::as_bool) {
        params.insert("only_if_idle".into(), json!(b));
    }
    pass(backend, "pane.ask", Value::Object(params))
}

/// `start_task`: `task.start` with the objective and its companions as the
/// contract.
fn start_task(backend: &mut dyn Backend, args: &Value) -> Outcome {
    let mut contract = Map::new();
    contract.insert("objective".into(), json!(need_str(args, "objective")?));
    let contract = pick(
        args,
        &["constraints", "acceptance_criteria", "output_format"],
        contract,
    );
    // A relative repository is the agent's: the directory it started this
    // server in (the server itself takes absolute paths only).
    let repo = std::path::absolute(need_str(args, "repo")?)
        .map_err(|e| format!("BAD_PARAMS: repo: {e}"))?;
    let mut params = Map::new();
    params.insert("repo".into(), json!(repo.to_string_lossy()));
    params.insert("contract".into(), contract);
    let params = pick(
        args,
        &[
            "agent",
            "label",
            "argv",
            "base_ref",
            "branch",
            "context_id",
            "client_request_id",
        ],
        params,
    );
    pass(backend, "task.start", params)
}

/// One call whose result is the tool's, as pretty JSON and as itself.
fn pass(backend: &mut dyn Backend, method: &str, params: Value) -> Outcome {
    let value = backend.call(method, params).map_err(failed)?;
    Ok((pretty(&value), Some(value)))
}

/// JSON for a model to read.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A failed call as a tool's text: `CODE: message`.
pub fn failed(e: CallError) -> String {
    format!("{}: {}", e.code, e.message)
}

/// `into` with those of `keys` that `args` has (and are not null).
fn pick(args: &Value, keys: &[&str], mut into: Map<String, Value>) -> Value {
    for k in keys {
        if let Some(v) = args.get(*k).filter(|v| !v.is_null()) {
            into.insert((*k).to_owned(), v.clone());
        }
    }
    Value::Object(into)
}

fn need_str<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            Err(format!("BAD_PARAMS: `{key}` is required"))
        },
        Some(_) => Err(format!("BAD_PARAMS: `{key}` must be a string")),
    }
}

fn opt_str<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => need_str(args, key).map(Some),
    }
}
