//! Tests of decisions as data: the native permission question, the provider's
//! verdict and a typed answer.

use super::*;

#[test]
fn native_payloads_need_a_session_a_tool_and_an_object_input() {
    let ok = json!({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    assert!(NativeRequest::parse(AgentKind::Claude, &ok).is_some());
    assert!(NativeRequest::parse(AgentKind::Codex, &ok).is_some());
    // Not native payloads (docs/decisions.md#the-permission-payload): `{}`,
    // `tool_input: null`, an empty session, opencode.
    assert!(NativeRequest::parse(AgentKind::Opencode, &ok).is_none());
    for bad in [
        json!({}),
        json!({"session_id": "s1", "tool_name": "Bash", "tool_input": null}),
        json!({"session_id": " ", "tool_name": "Bash", "tool_input": {}}),
        json!({"session_id": "s1", "tool_name": "", "tool_input": {}}),
        json!({"session_id": "s1", "tool_name": "Bash", "tool_input": "ls"}),
        json!(null),
    ] {
        assert!(
            NativeRequest::parse(AgentKind::Claude, &bad).is_none(),
            "{bad}"
        );
    }
}

#[test]
fn the_native_decision_asks_about_the_tool_with_allow_once_and_deny() {
    let payload = json!({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let Some(request) = NativeRequest::parse(AgentKind::Claude, &payload) else {
        panic!("valid payload refused");
    };
    let d = request.decision(native_id(), true, Timestamp::now());
    assert!(d.is_native());
    assert_eq!(d.id.len(), "permission_".len() + 32);
    assert!(d.prompt.starts_with("Allow Bash?\n{"), "{}", d.prompt);
    assert!(d.prompt.contains("\"command\": \"ls\""));
    let ids: Vec<&str> = d.options.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["once", "deny"]);
    assert_eq!(d.options[0].label, "Allow once");
}

#[test]
fn verdicts_are_the_providers_exact_json_and_always_has_none() {
    let allow = verdict("once").unwrap_or_default();
    assert_eq!(
        allow,
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})
    );
    assert_eq!(
        signaltty_protocol::state::native_verdict_line(true),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
    );
    let deny = verdict("deny").unwrap_or_default();
    assert_eq!(deny["hookSpecificOutput"]["decision"]["behavior"], "deny");
    assert_eq!(
        deny["hookSpecificOutput"]["decision"]["message"],
        DENIED_MESSAGE
    );
    assert_eq!(verdict("always"), None);
    assert_eq!(verdict(""), None);
}

#[test]
fn a_typed_answer_is_the_options_position() {
    let mut d = NativeRequest::parse(
        AgentKind::Codex,
        &json!({"session_id": "s", "tool_name": "t", "tool_input": {}}),
    )
    .map(|r| r.decision("d1".into(), true, Timestamp::now()))
    .unwrap_or_else(|| panic!("valid"));
    d.id = "d1".into();
    assert_eq!(typed_answer(&d, "deny"), Some(b"2\n".to_vec()));
    assert_eq!(typed_answer(&d, "once"), Some(b"1\n".to_vec()));
    assert_eq!(typed_answer(&d, "nope"), None);
}
