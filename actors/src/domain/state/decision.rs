//! Decisions as data (docs/decisions.md): the native permission question
//! synthesized from a Claude or Codex `PermissionRequest` payload, and the
//! provider verdict an answer becomes. The pane's pending decision itself
//! changes through `Axes` (set, supersede, consume, clear).

use serde_json::Value;
#[cfg(test)]
use serde_json::json;
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::state::{Decision, DecisionOption};

/// The two options of a native permission request. There is deliberately no
/// "always": no permanent policy is ever granted
/// (docs/decisions.md#the-permission-payload).
pub const ALLOW_ONCE: &str = "once";
pub const DENY: &str = "deny";

/// What the provider's hook gets on a denial.
#[cfg(test)]
pub const DENIED_MESSAGE: &str = "Denied in signaltty";

/// The fields of a native permission payload, when it is one
/// (docs/decisions.md#the-permission-payload): a Claude or Codex payload with a
/// non-blank `session_id` and `tool_name` and an object `tool_input`.
pub struct NativeRequest<'a> {
    pub session_id: &'a str,
    pub tool_name: &'a str,
    pub tool_input: &'a Value,
}

impl<'a> NativeRequest<'a> {
    /// Reads a payload of an agent of kind `kind`.
    pub fn parse(kind: AgentKind, payload: &'a Value) -> Option<NativeRequest<'a>> {
        if !matches!(kind, AgentKind::Claude | AgentKind::Codex) {
            return None;
        }
        let text = |key: &str| {
            payload
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        };
        let tool_input = payload.get("tool_input").filter(|v| v.is_object())?;
        Some(NativeRequest {
            session_id: text("session_id")?,
            tool_name: text("tool_name")?,
            tool_input,
        })
    }

    /// The decision a person sees: `Allow <tool>?` and the tool's input.
    pub fn decision(&self, id: String, answerable: bool, now: Timestamp) -> Decision {
        let input =
            serde_json::to_string_pretty(self.tool_input).unwrap_or_else(|_| "{}".to_owned());
        Decision {
            id,
            prompt: format!("Allow {}?\n{input}", self.tool_name),
            options: vec![
                DecisionOption {
                    id: ALLOW_ONCE.to_owned(),
                    label: "Allow once".to_owned(),
                },
                DecisionOption {
                    id: DENY.to_owned(),
                    label: "Deny".to_owned(),
                },
            ],
            answerable,
            received_at: now,
        }
    }
}

/// A fresh native decision id: `permission_` and 32 hex digits.
pub fn native_id() -> String {
    format!(
        "{}{:032x}",
        Decision::NATIVE_PREFIX,
        crate::ids::random_u128()
    )
}

/// The provider verdict JSON for a native option
/// (docs/decisions.md#what-the-reporter-prints); `None` for any other option.
pub fn verdict(option_id: &str) -> Option<Value> {
    let allow = match option_id {
        ALLOW_ONCE => true,
        DENY => false,
        _ => return None,
    };
    serde_json::from_str(&signaltty_protocol::state::native_verdict_line(allow)).ok()
}

/// The bytes a typed answer writes: the option's 1-based position and a newline.
pub fn typed_answer(decision: &Decision, option_id: &str) -> Option<Vec<u8>> {
    decision
        .position(option_id)
        .map(|n| format!("{n}\n").into_bytes())
}

#[cfg(test)]
mod tests {
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
        let payload =
            json!({"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
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
}
