//! Round trips of the state results whose wire shape is not one struct: the
//! waiting `hook-event`'s reply.

use super::*;

/// Parses `line` as a reply, checks it writes back byte for byte, and returns it.
fn round_trip(line: &str) -> HookWaitReply {
    let reply: HookWaitReply = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(serde_json::to_string(&reply).ok().as_deref(), Some(line));
    reply
}

#[test]
fn a_waiting_hook_reply_round_trips_answered_cancelled_and_dropped() {
    let answered = format!(
        r#"{{"accepted":true,"agent":"claude","event":"PermissionRequest","pane_id":"pane_1","decision_id":"permission_1","native_verdict":{}}}"#,
        native_verdict_line(true)
    );
    let reply = round_trip(&answered);
    assert!(matches!(reply, HookWaitReply::Waited(_)));
    assert_eq!(
        reply.native_verdict().map(Value::to_string),
        Some(native_verdict_line(true))
    );
    assert_eq!(reply.unanswered_because(), None);

    let cancelled = round_trip(
        r#"{"accepted":true,"agent":"codex","event":"PermissionRequest","pane_id":"pane_2","decision_id":"permission_2","native_verdict":null,"cancelled":"timeout"}"#,
    );
    assert_eq!(cancelled.native_verdict(), None);
    assert_eq!(cancelled.unanswered_because(), Some("timeout"));

    let dropped = round_trip(
        r#"{"accepted":false,"agent":"claude","event":"PermissionRequest","pane_id":"pane_3","dropped":true,"reason":"harness_mismatch"}"#,
    );
    assert!(matches!(dropped, HookWaitReply::Dropped(_)));
    assert_eq!(dropped.native_verdict(), None);
    assert_eq!(dropped.unanswered_because(), Some("harness_mismatch"));
}
