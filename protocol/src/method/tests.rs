//! Round trips of every envelope and the parse rules of a request line
//! (docs/protocol.md#parameter-validation).

use super::*;
use crate::envelope::{ErrorBody, EventFrame, Request, Response, ServerLine};
use crate::error::ErrorCode;
use crate::server::ServerShutdownParams;
use crate::signal::SignalName;
use crate::workspace::{WorkspaceCloseParams, WorkspaceCreateParams};
use crate::{PROTOCOL, WorkspaceRef};
use serde_json::json;

#[allow(clippy::result_large_err)]
fn parse(line: &str) -> Result<Request, crate::RequestError> {
    Request::parse(line.as_bytes())
}

fn code_of(line: &str) -> (String, ErrorCode) {
    let e = parse(line).unwrap_err();
    (e.id, e.error.code)
}

#[test]
fn every_method_name_parses_to_the_variant_that_reports_it() {
    for name in Method::NAMES {
        // Fill the required params every method of this table has.
        let mut params = json!({
            "workspace_id": "ws_x", "name": "n", "tab_id": "tab_x", "path": [],
            "ratio": 0.5, "layout": {"type": "pane", "pane_id": "pane_x"},
            "pane_id": "pane_x", "argv": ["sh"], "data_b64": "", "cols": 80, "rows": 24,
            "signal": "TERM", "match": "x", "target_pane_id": "pane_y", "title": "t",
            "until": "done", "agent": "claude", "event": "Stop", "agent_session_id": "s",
            "text": "hi", "decision_id": "d", "option_id": "o", "auto_resume": true, "after_s": 30, "enabled": true,
            "repo": "/r", "contract": {"objective": "o"}, "task_id": "task_x",
            "status": "completed", "summary": "s", "root": {"type": "pane"}
        });
        if *name == "task.finish" {
            params["mode"] = json!("merge");
        }
        // Methods whose `path` is a filesystem path, not a layout path.
        if name.starts_with("task.") || name.starts_with("worktree.") || name.contains("diff") {
            params["path"] = json!("/p");
            params["branch"] = json!("b");
        }
        let m = Method::parse(name, params).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(m.name(), *name);
    }
}

#[test]
fn method_names_are_unique() {
    let mut names = Method::NAMES.to_vec();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Method::NAMES.len());
}

#[test]
fn requests_round_trip_through_their_line() {
    let calls = vec![
        Method::ServerStatus(Default::default()),
        Method::ServerShutdown(ServerShutdownParams { force: Some(true) }),
        Method::WorkspaceCreate(WorkspaceCreateParams {
            name: Some("My API".into()),
            cwd: None,
        }),
        Method::WorkspaceClose(WorkspaceCloseParams {
            workspace_id: WorkspaceRef("my-api".into()),
            signal: Some(SignalName::Hup),
        }),
        Method::TaskConflicts(crate::task::conflict::TaskConflictsParams {
            workspace_id: None,
            repo: Some("/src/app".into()),
        }),
        Method::TaskConflicts(Default::default()),
    ];
    for method in calls {
        let req = Request::new("c-1", method);
        let back = parse(&req.to_line()).unwrap();
        assert_eq!(back, req);
    }
}

#[test]
fn responses_and_events_round_trip_and_are_told_apart() {
    let ok = Response::ok("a", json!({"x": 1}));
    let err = Response::err("?", ErrorBody::new(ErrorCode::BadParams, "invalid JSON"));
    let mut detailed = ErrorBody::new(ErrorCode::AgentBusy, "busy");
    detailed.details = Some(json!({"stage": "delayed_enter"}));
    let err2 = Response::err("b", detailed);
    for r in [ok, err, err2] {
        let line = String::from_utf8(r.to_line()).unwrap();
        assert!(line.ends_with('\n'));
        assert_eq!(
            ServerLine::parse(line.trim_end()).unwrap(),
            ServerLine::Response(r)
        );
    }
    let ev = EventFrame::new("workspace.created", 7, json!({"workspace": {}}));
    let line = String::from_utf8(ev.to_line()).unwrap();
    assert!(line.contains("\"type\":\"event\""));
    assert_eq!(
        ServerLine::parse(line.trim_end()).unwrap(),
        ServerLine::Event(ev)
    );
}

#[test]
fn error_details_are_omitted_not_null() {
    let line = String::from_utf8(
        Response::err("x", ErrorBody::new(ErrorCode::Internal, "boom")).to_line(),
    )
    .unwrap();
    assert!(!line.contains("details"));
    assert!(!line.contains("result"));
}

#[test]
fn every_error_code_survives_an_error_response_round_trip() {
    for code in ErrorCode::ALL {
        let r = Response::err("id", ErrorBody::new(*code, "m"));
        let line = String::from_utf8(r.to_line()).unwrap();
        let ServerLine::Response(back) = ServerLine::parse(line.trim_end()).unwrap() else {
            panic!("not a response")
        };
        assert_eq!(back.error.unwrap().code, *code);
    }
}

#[test]
fn invalid_json_is_bad_params_with_unknown_id() {
    assert_eq!(code_of("{nope"), ("?".into(), ErrorCode::BadParams));
    assert_eq!(code_of("[1,2]"), ("?".into(), ErrorCode::BadParams));
    assert_eq!(
        code_of(r#"{"protocol":"signaltty/1","method":"server.status"}"#).0,
        "?"
    );
    assert_eq!(
        code_of(r#"{"id":5,"protocol":"signaltty/1","method":"x"}"#).0,
        "?"
    );
}

#[test]
fn deeply_nested_json_is_refused_without_overflowing_the_stack() {
    let deep = "[".repeat(100_000);
    assert_eq!(code_of(&deep), ("?".into(), ErrorCode::BadParams));
}

#[test]
fn wrong_or_missing_protocol_is_bad_protocol_with_the_id() {
    let wrong = r#"{"protocol":"signaltty/2","id":"a","method":"server.status"}"#;
    assert_eq!(code_of(wrong), ("a".into(), ErrorCode::BadProtocol));
    let missing = r#"{"id":"b","method":"server.status"}"#;
    assert_eq!(code_of(missing), ("b".into(), ErrorCode::BadProtocol));
}

#[test]
fn unknown_method_is_unknown_method() {
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"pane.teleport","params":{}}"#;
    assert_eq!(code_of(line), ("a".into(), ErrorCode::UnknownMethod));
}

#[test]
fn missing_method_or_non_object_params_is_bad_params() {
    assert_eq!(
        code_of(r#"{"protocol":"signaltty/1","id":"a"}"#),
        ("a".into(), ErrorCode::BadParams)
    );
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"server.status","params":[1]}"#;
    assert_eq!(code_of(line), ("a".into(), ErrorCode::BadParams));
}

#[test]
fn mistyped_params_are_bad_params_naming_the_field() {
    let line =
        r#"{"protocol":"signaltty/1","id":"a","method":"workspace.create","params":{"cwd":5}}"#;
    let e = parse(line).unwrap_err();
    assert_eq!(e.error.code, ErrorCode::BadParams);
    assert!(e.error.message.contains("cwd"), "{}", e.error.message);
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"workspace.rename","params":{"workspace_id":"w"}}"#;
    let e = parse(line).unwrap_err();
    assert!(e.error.message.contains("name"), "{}", e.error.message);
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"workspace.close","params":{"workspace_id":"w","signal":"STOP"}}"#;
    assert_eq!(code_of(line).1, ErrorCode::BadParams);
    let line =
        r#"{"protocol":"signaltty/1","id":"a","method":"subscribe","params":{"from_seq":-1}}"#;
    assert_eq!(code_of(line).1, ErrorCode::BadParams);
}

#[test]
fn unknown_fields_are_ignored_and_null_optionals_mean_absent() {
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"workspace.create","params":{"name":null,"cwd":null,"colour":"red"},"extra":1}"#;
    let req = parse(line).unwrap();
    assert_eq!(
        req.method,
        Method::WorkspaceCreate(WorkspaceCreateParams::default())
    );
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"server.status","params":null}"#;
    assert!(parse(line).is_ok());
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"server.status"}"#;
    assert!(parse(line).is_ok());
    assert_eq!(PROTOCOL, "signaltty/1");
}

#[test]
fn layouts_parse_internally_tagged_and_reject_unknown_directions() {
    let line = r#"{"protocol":"signaltty/1","id":"a","method":"tab.set_layout","params":{"tab_id":"tab_1","layout":{"type":"split","dir":"right","ratio":0.5,"first":{"type":"pane","pane_id":"a"},"second":{"type":"pane","pane_id":"b"}}}}"#;
    assert!(parse(line).is_ok());
    let up = line.replace("\"right\"", "\"up\"");
    let e = parse(&up).unwrap_err();
    assert_eq!(e.error.code, ErrorCode::BadParams);
    assert!(e.error.message.contains("layout"), "{}", e.error.message);
    let bad_path = r#"{"protocol":"signaltty/1","id":"a","method":"tab.set_ratio","params":{"tab_id":"tab_1","path":[-1],"ratio":0.5}}"#;
    assert_eq!(code_of(bad_path).1, ErrorCode::BadParams);
}

/// One call of `name` with the params every method of the table accepts, laid
/// over with `extra`.
fn call(name: &str, extra: serde_json::Value) -> Method {
    let mut params = json!({
        "workspace_id": "ws_x", "pane_id": "pane_x", "until": "done",
        "agent": "claude", "event": "PermissionRequest"
    });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    Method::parse(name, params).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

#[test]
fn each_method_kind_has_its_flow() {
    let cases = [
        ("subscribe", json!({}), RequestFlow::Subscribe),
        ("pane.attach", json!({}), RequestFlow::HoldsEvents),
        ("wait", json!({}), RequestFlow::SingleFlight),
        (
            "hook-event",
            json!({"wait_for_answer": true}),
            RequestFlow::WaitForAnswer,
        ),
        (
            "hook-event",
            json!({"wait_for_answer": false}),
            RequestFlow::Plain,
        ),
        ("hook-event", json!({}), RequestFlow::Plain),
        ("pane.get", json!({}), RequestFlow::Plain),
        ("server.status", json!({}), RequestFlow::Plain),
    ];
    for (name, extra, flow) in cases {
        assert_eq!(call(name, extra.clone()).flow(), flow, "{name} {extra}");
    }
    // Only subscribe and attach hold events, only wait and the waiting hook
    // are single-flight, only the waiting hook is answered at shutdown.
    let flows = [
        RequestFlow::Plain,
        RequestFlow::Subscribe,
        RequestFlow::HoldsEvents,
        RequestFlow::SingleFlight,
        RequestFlow::WaitForAnswer,
    ];
    let table: Vec<(bool, bool, bool, bool)> = flows
        .iter()
        .map(|f| {
            (
                f.starts_subscription(),
                f.holds_events(),
                f.single_flight(),
                f.answered_at_shutdown(),
            )
        })
        .collect();
    assert_eq!(
        table,
        [
            (false, false, false, false),
            (true, true, false, false),
            (false, true, false, false),
            (false, false, true, false),
            (false, false, true, true),
        ]
    );
}
