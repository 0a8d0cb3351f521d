//! The JSON-RPC handling of docs/mcp.md#the-protocol, line by line, and the
//! tools over a fake server.

use super::*;
use crate::mcp::tools::{self, Backend};
use signaltty_model::client::CallError;
use signaltty_protocol::ErrorCode;

fn session(allow_answers: bool) -> Session {
    Session::new(tools::list(allow_answers), "0.0.0-test")
}

fn reply(s: &mut Session, line: &str) -> Value {
    match s.step(line) {
        Step::Reply(v) => v,
        other => panic!("{line}: expected a reply, got {other:?}"),
    }
}

#[test]
fn initialize_answers_the_clients_version_when_known_else_the_newest() {
    let mut s = session(false);
    let r = reply(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(r["result"]["serverInfo"]["name"], "signaltty");
    assert_eq!(r["result"]["capabilities"]["tools"]["listChanged"], false);
    let r = reply(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#,
    );
    assert_eq!(r["id"], "a");
    assert_eq!(r["result"]["protocolVersion"], VERSIONS[0]);
}

#[test]
fn notifications_and_responses_get_no_answer_and_ping_an_empty_result() {
    let mut s = session(false);
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
    ] {
        assert_eq!(s.step(line), Step::Nothing, "{line}");
    }
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
    assert_eq!(s.step(cancel), Step::Cancel(json!(3)));
    let r = reply(&mut s, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

#[test]
fn tools_list_gives_each_tool_a_description_and_an_object_schema() {
    let mut s = session(false);
    let r = reply(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tools = r["result"]["tools"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "list_panes",
            "read_pane",
            "ask",
            "start_task",
            "wait_task",
            "task_diff",
            "get_task",
            "list_tasks",
            "list_decisions"
        ]
    );
    for t in &tools {
        assert!(
            t["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        for required in t["inputSchema"]["required"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let key = required.as_str().unwrap_or_default();
            assert!(t["inputSchema"]["properties"].get(key).is_some(), "{t}");
        }
    }
}

#[test]
fn answering_decisions_is_a_tool_only_when_the_settings_allow_it() {
    let call = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"answer_decision","arguments":{"pane":"p","decision_id":"d","option_id":"once"}}}"#;
    let r = reply(&mut session(false), call);
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
    let mut allowed = session(true);
    assert!(matches!(allowed.step(call), Step::Call { name, .. } if name == "answer_decision"));
}

#[test]
fn bad_input_gets_a_json_rpc_error_and_the_session_goes_on() {
    let mut s = session(false);
    let r = reply(&mut s, "{not json");
    assert_eq!(r["error"]["code"], PARSE_ERROR);
    assert_eq!(r["id"], Value::Null);
    let r = reply(&mut s, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(r["error"]["code"], INVALID_REQUEST);
    let r = reply(&mut s, r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#);
    assert_eq!(r["error"]["code"], INVALID_REQUEST);
    let r = reply(
        &mut s,
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#,
    );
    assert_eq!(r["error"]["code"], METHOD_NOT_FOUND);
    assert_eq!(r["id"], 5);
    let r = reply(
        &mut s,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}"#,
    );
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
    let r = reply(
        &mut s,
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_panes","arguments":[1]}}"#,
    );
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
    let r = reply(&mut s, r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#);
    assert_eq!(r["result"], json!({}));
}

/// A server of canned answers that notes each call.
struct Fake {
    calls: Vec<(String, Value)>,
    answer: fn(&str, &Value) -> Result<Value, CallError>,
}

impl Backend for Fake {
    fn call(&mut self, method: &str, params: Value) -> Result<Value, CallError> {
        let r = (self.answer)(method, &params);
        self.calls.push((method.to_owned(), params));
        r
    }
}

fn fake(answer: fn(&str, &Value) -> Result<Value, CallError>) -> Fake {
    Fake {
        calls: Vec::new(),
        answer,
    }
}

#[test]
fn a_tools_failure_is_an_error_result_with_the_code_and_message() {
    let mut f = fake(|_, _| {
        Err(CallError {
            code: ErrorCode::NoSuchPane,
            message: "no pane \"x\"".into(),
        })
    });
    let outcome = tools::call(&mut f, "read_pane", &json!({"pane": "x"}));
    let r = tool_result(json!(1), outcome);
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(
        r["result"]["content"][0]["text"],
        "NO_SUCH_PANE: no pane \"x\""
    );
    // A missing argument never reaches the server.
    let outcome = tools::call(&mut f, "ask", &json!({"pane": "x"}));
    assert_eq!(outcome, Err("BAD_PARAMS: `prompt` is required".into()));
    assert_eq!(f.calls.len(), 1);
}

#[test]
fn ask_passes_its_prompt_and_options_to_pane_ask_and_its_result_back() {
    let mut f = fake(|_, p| {
        Ok(
            json!({"outcome": "done", "pane_id": p["pane_id"], "answer": "42",
            "last_message": "42", "decision": null}),
        )
    });
    let args = json!({"pane": "w1", "prompt": "what is it?", "timeout_s": 5, "only_if_idle": true});
    let (text, structured) = tools::call(&mut f, "ask", &args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        f.calls,
        [(
            "pane.ask".to_owned(),
            json!({"pane_id": "w1", "text": "what is it?", "timeout_ms": 5000, "only_if_idle": true})
        )]
    );
    let structured = structured.unwrap_or_default();
    assert_eq!(structured["answer"], "42");
    assert!(text.contains("\"outcome\": \"done\""), "{text}");
}

#[test]
fn start_task_puts_the_objective_and_its_companions_in_the_contract() {
    let mut f = fake(|_, _| Ok(json!({"task": {"id": "task_1"}, "pane": {}})));
    let args = json!({"repo": "/r", "objective": "fix it", "agent": "claude",
        "acceptance_criteria": ["tests pass"], "label": "fix"});
    tools::call(&mut f, "start_task", &args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        f.calls[0].1,
        json!({"repo": "/r", "contract": {"objective": "fix it", "acceptance_criteria": ["tests pass"]},
            "agent": "claude", "label": "fix"})
    );
}

#[test]
fn list_panes_reads_every_workspace_and_leaves_out_one_closed_meanwhile() {
    let mut f = fake(|method, p| match method {
        "workspace.list" => Ok(json!({"workspaces": [{"id": "ws_1"}, {"id": "ws_2"}]})),
        "workspace.get" if p["workspace_id"] == "ws_2" => Err(CallError {
            code: ErrorCode::NoSuchWorkspace,
            message: "closed".into(),
        }),
        _ => Ok(
            json!({"workspace": {"id": "ws_1", "handle": "w", "name": "main"},
            "panes": [{"id": "pane_1", "name": "worker", "agent": {"kind": "claude"},
                "lifecycle": "done", "attention": "unread", "last_message": "all green",
                "pending_decision": null, "live": {"state": "live"}}]}),
        ),
    });
    let (_, v) = tools::call(&mut f, "list_panes", &json!({})).unwrap_or_else(|e| panic!("{e}"));
    let v = v.unwrap_or_default();
    assert_eq!(v["panes"].as_array().map(Vec::len), Some(1));
    let p = &v["panes"][0];
    assert_eq!(p["pane_id"], "pane_1");
    assert_eq!(p["workspace"]["handle"], "w");
    assert_eq!(p["agent"], "claude");
    assert_eq!(p["lifecycle"], "done");
    assert_eq!(p["last_message"], "all green");
}
