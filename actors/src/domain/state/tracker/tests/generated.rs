//! Generated hook payloads: for every agent kind, any JSON value under any
//! hook name is read, classified and applied without a panic, and what the
//! readers accept has the shape docs/decisions.md#the-permission-payload
//! and docs/agents.md#per-agent-hooks describe.

use super::*;
use crate::domain::state::decision::NativeRequest;
use crate::domain::state::hooks;
use crate::domain::state::progress::Outcome;
use crate::testkit::generated::{config, json};
use proptest::prelude::*;
use signaltty_model::agents::vocabulary;

/// The keys the adapters read, and values they compare with.
const KEYS: &[&str] = &[
    "session_id",
    "sessionId",
    "sessionID",
    "thread-id",
    "thread_id",
    "conversation_id",
    "chatId",
    "tool_name",
    "tool_input",
    "agent",
    "harness",
    "message",
    "title",
    "notification_type",
    "idle_prompt",
    "permission_prompt",
    "status",
    "state",
    "type",
    "error",
    "reason",
    "last_assistant_message",
    "last-assistant-message",
    "background_tasks",
    "prompt",
    "claude",
    "codex",
    "done",
    "failed",
    "busy",
    "idle",
    "completed",
    "cancelled",
    "interrupted",
];

/// A kind with one of its own hook names, another kind's, or any name.
fn kind_and_event() -> impl Strategy<Value = (AgentKind, String)> {
    (
        proptest::sample::select(&AgentKind::ALL[..]),
        any::<prop::sample::Index>(),
        "[A-Za-z_.]{0,16}",
        0u8..4,
    )
        .prop_map(|(kind, i, other, pick)| {
            let names: Vec<&str> = match pick {
                0 => Vec::new(),
                1 => AgentKind::ALL
                    .iter()
                    .flat_map(|k| vocabulary::hooks(*k))
                    .map(|h| h.name)
                    .collect(),
                _ => vocabulary::hooks(kind).iter().map(|h| h.name).collect(),
            };
            let event = if names.is_empty() {
                other
            } else {
                names[i.index(names.len())].to_owned()
            };
            (kind, event)
        })
}

/// A payload: any JSON value, or an object that has the fields a native
/// permission request needs, each of any value.
fn payload() -> impl Strategy<Value = Value> {
    prop_oneof![
        json(KEYS),
        (json(KEYS), json(KEYS), json(KEYS), json(KEYS)).prop_map(
            |(session, tool, input, rest)| {
                let mut fields = match rest {
                    Value::Object(fields) => fields,
                    _ => serde_json::Map::new(),
                };
                fields.insert("session_id".into(), session);
                fields.insert("tool_name".into(), tool);
                fields.insert("tool_input".into(), input);
                Value::Object(fields)
            }
        ),
    ]
}

/// The decision a payload that is a native permission request gives.
fn native_decision(kind: AgentKind, payload: &Value) -> Result<Option<Decision>, TestCaseError> {
    let Some(request) = NativeRequest::parse(kind, payload) else {
        return Ok(None);
    };
    prop_assert!(matches!(kind, AgentKind::Claude | AgentKind::Codex));
    prop_assert!(!request.session_id.trim().is_empty());
    prop_assert!(!request.tool_name.trim().is_empty());
    prop_assert!(request.tool_input.is_object());
    let decision = request.decision("permission_1".into(), true, Timestamp::from_unix_millis(0));
    prop_assert_eq!(decision.options.len(), 2);
    Ok(Some(decision))
}

proptest! {
    #![proptest_config(config(256))]

    /// Each reader of a payload takes any value: a session id it finds is
    /// trimmed and non-blank, and a native permission request has its fields.
    #[test]
    fn every_payload_reader_takes_any_value(
        (kind, event) in kind_and_event(),
        payload in payload(),
        lifecycle in proptest::sample::select(&Lifecycle::ALL[..]),
    ) {
        if let Some(id) = hooks::session_id(kind, &payload) {
            prop_assert!(!id.is_empty() && id == id.trim(), "{id:?}");
        }
        native_decision(kind, &payload)?;
        let _ = hooks::classify(kind, &event, &payload, lifecycle);
        let _ = hooks::is_tool_traffic(&event);
        let _ = hooks::is_liveness(&event);
        let _ = hooks::is_session_end(&event);
    }

    /// A run of hooks with any payloads through a pane's tracker: each one is
    /// accepted or dropped with a reply, and the pane stays one the protocol
    /// can write.
    #[test]
    fn a_tracker_takes_any_run_of_hooks(
        kind in proptest::sample::select(&AgentKind::ALL[..]),
        hooks in proptest::collection::vec((kind_and_event(), payload(), any::<bool>()), 1..6),
    ) {
        let mut h = Harness::new(kind);
        for ((_, event), payload, as_kind) in hooks {
            let decision = native_decision(kind, &payload)?;
            let agent = if as_kind {
                serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
            } else {
                "some-agent".to_owned()
            };
            let report = HookReport {
                kind,
                agent,
                event,
                payload,
                message: None,
                title: None,
                severity: Severity::Info,
                decision,
            };
            let outcome = h.tracker.on_hook(report, &h.screen);
            prop_assert!(serde_json::to_value(&outcome.reply).is_ok());
        }
        prop_assert!(serde_json::to_value(h.tracker.pane()).is_ok());
    }

    /// A `wait.until` name is an outcome exactly when it names a lifecycle,
    /// an attention or `seen`.
    #[test]
    fn an_outcome_name_parses_only_when_it_names_a_state(
        name in prop_oneof![
            proptest::sample::select(&["seen", "attention_cleared", "done", "idle", "working", "unread", "exited"][..]).prop_map(str::to_owned),
            ".{0,12}",
        ],
    ) {
        let known = name == "seen"
            || name == "attention_cleared"
            || Lifecycle::parse(&name).is_some()
            || Attention::parse(&name).is_some();
        prop_assert_eq!(Outcome::parse(&name).is_some(), known);
    }
}
