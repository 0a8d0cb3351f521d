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
mod tests;
