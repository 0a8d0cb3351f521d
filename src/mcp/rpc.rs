//! The JSON-RPC 2.0 side of `signaltty mcp` (docs/mcp.md#the-protocol): one
//! line in, at most one line out, no I/O. The lifecycle (`initialize` and its
//! version negotiation, `notifications/initialized`, `ping`) and `tools/list`
//! are answered here; a `tools/call` is handed back to the caller to run, so a
//! long call (a task's wait, an ask) never holds up the next line.

use serde_json::{Value, json};

/// The protocol versions this server speaks, newest first.
pub const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC's error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one line.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// Write this message.
    Reply(Value),
    /// Run the tool `name` with `arguments`, then answer request `id` with
    /// [`tool_result`].
    Call {
        id: Value,
        name: String,
        arguments: Value,
    },
    /// The client gave up on request `id` (`notifications/cancelled`): its
    /// answer, when the tool ends, is not written.
    Cancel(Value),
    /// Nothing to write (a notification, a response to us).
    Nothing,
}

/// One MCP session's state: what the client said at `initialize`.
pub struct Session {
    /// The tools offered, by name.
    tools: Vec<Value>,
    /// The version agreed at `initialize`.
    pub version: Option<&'static str>,
    /// The server's name and version for `serverInfo`.
    version_text: &'static str,
}

impl Session {
    /// A session offering `tools` (each `{name, description, inputSchema}`).
    pub fn new(tools: Vec<Value>, version_text: &'static str) -> Session {
        Session {
            tools,
            version: None,
            version_text,
        }
    }

    /// What one line from the client asks for.
    pub fn step(&mut self, line: &str) -> Step {
        let message: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return Step::Reply(error(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                ));
            },
        };
        let Value::Object(fields) = &message else {
            return Step::Reply(error(
                Value::Null,
                INVALID_REQUEST,
                "a message must be one JSON object (batches are not supported)",
            ));
        };
        let id = fields.get("id").cloned();
        let method = fields.get("method").and_then(Value::as_str);
        match (id, method) {
            // A response to a request of ours: this server sends none.
            (Some(_), None) if fields.contains_key("result") || fields.contains_key("error") => {
                Step::Nothing
            },
            (None, Some("notifications/cancelled")) => {
                match fields.get("params").and_then(|p| p.get("requestId")) {
                    Some(id) if valid_id(id) => Step::Cancel(id.clone()),
                    _ => Step::Nothing,
                }
            },
            // Other notifications (initialized, …) need no answer.
            (None, Some(_)) => Step::Nothing,
            (Some(id), Some(method)) if valid_id(&id) => {
                let params = fields.get("params").cloned().unwrap_or(Value::Null);
                self.request(id, method, params)
            },
            (id, _) => Step::Reply(error(
                id.filter(valid_id).unwrap_or(Value::Null),
                INVALID_REQUEST,
                "not a JSON-RPC request: it needs a string or number `id` and a string `method`",
            )),
        }
    }

    fn request(&mut self, id: Value, method: &str, params: Value) -> Step {
        match method {
            "initialize" => Step::Reply(result(id, self.initialize(&params))),
            "ping" => Step::Reply(result(id, json!({}))),
            "tools/list" => Step::Reply(result(id, json!({"tools": self.tools}))),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str);
                let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
                match name {
                    Some(n) if self.offers(n) && arguments.is_object() => Step::Call {
                        id,
                        name: n.to_owned(),
                        arguments,
                    },
                    Some(n) if self.offers(n) => {
                        Step::Reply(error(id, INVALID_PARAMS, "`arguments` must be an object"))
                    },
                    Some(n) => {
                        Step::Reply(error(id, INVALID_PARAMS, &format!("unknown tool {n:?}")))
                    },
                    None => Step::Reply(error(
                        id,
                        INVALID_PARAMS,
                        "tools/call needs a string `name`",
                    )),
                }
            },
            _ => Step::Reply(error(
                id,
                METHOD_NOT_FOUND,
                &format!("method not found: {method}"),
            )),
        }
    }

    fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t["name"] == name)
    }

    /// The answer to `initialize`: the client's version when this server
    /// speaks it, else the newest this one does.
    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let version = VERSIONS
            .iter()
            .copied()
            .find(|v| Some(*v) == asked)
            .unwrap_or(VERSIONS[0]);
        self.version = Some(version);
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "signaltty", "version": self.version_text},
            "instructions": "signaltty runs coding agents in terminal panes. list_panes shows \
                every pane and its state; read_pane its screen; ask gives an agent a prompt and \
                waits for its answer; start_task runs a worker agent in its own git worktree.",
        })
    }
}

/// JSON-RPC ids are strings or numbers (null is not allowed for requests).
fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_number()
}

/// A success response.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A tool's outcome as the `tools/call` result: `text` as the content, the
/// object (if any) as `structuredContent`, `isError` for a failure.
pub fn tool_result(id: Value, outcome: Result<(String, Option<Value>), String>) -> Value {
    let body = match outcome {
        Ok((text, structured)) => {
            let mut body = json!({"content": [{"type": "text", "text": text}], "isError": false});
            if let Some(s) = structured.filter(Value::is_object) {
                body["structuredContent"] = s;
            }
            body
        },
        Err(text) => json!({"content": [{"type": "text", "text": text}], "isError": true}),
    };
    result(id, body)
}

#[cfg(test)]
mod tests;
