//! Cursor's approval inference (docs/agents.md#cursor-approval-inference):
//! Cursor has no permission hook, so a tool call whose `postToolUse` does not
//! follow its `preToolUse` within the approval wait
//! (`Limits::cursor_approval_wait`, 10 s) is taken to be waiting for the
//! person's approval. State is per tool-call id, never per turn: calls run
//! concurrently.

use super::{AgentTracker, Effect, Timer};
use serde_json::Value;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{Attention, Lifecycle};
use std::collections::HashMap;

/// A running tool call: its timer's token and the tool's name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RunningCall {
    token: u64,
    tool: Option<String>,
}

/// The tool calls of one pane.
#[derive(Debug, Default)]
pub(super) struct Approvals {
    /// Running calls by id, each with its approval timer.
    running: HashMap<String, RunningCall>,
    /// Calls taken to be waiting for approval, with their tool's name.
    waiting: HashMap<String, Option<String>>,
    /// Approval timers asked for so far (the next token).
    tokens: u64,
}

/// The tool-call id of a Cursor hook payload.
fn tool_call_id(payload: &Value) -> Option<String> {
    ["tool_use_id", "toolUseId", "tool_call_id"]
        .iter()
        .find_map(|k| payload.get(k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl AgentTracker {
    /// Follows a Cursor hook: a `preToolUse` starts its call's timer, the
    /// matching post hook cancels it (and resolves a waiting call), and the end
    /// of the run forgets every call. Returns the events of a resolution.
    pub(super) fn cursor_hook(
        &mut self,
        event: &str,
        payload: &Value,
        effects: &mut Vec<Effect>,
    ) -> Vec<Event> {
        match event {
            "preToolUse" => {
                if let Some(id) = tool_call_id(payload) {
                    let tool = payload
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    if let Some(old) = self.approvals.running.remove(&id) {
                        effects.push(Effect::Cancel(Timer::Approval(old.token)));
                    }
                    self.approvals.tokens += 1;
                    let token = self.approvals.tokens;
                    effects.push(Effect::Arm {
                        timer: Timer::Approval(token),
                        after: self.approval_wait,
                    });
                    self.approvals
                        .running
                        .insert(id, RunningCall { token, tool });
                }
                Vec::new()
            },
            "postToolUse" | "postToolUseFailure" => {
                let Some(id) = tool_call_id(payload) else {
                    return Vec::new();
                };
                if let Some(call) = self.approvals.running.remove(&id) {
                    effects.push(Effect::Cancel(Timer::Approval(call.token)));
                }
                if self.approvals.waiting.remove(&id).is_none()
                    || !self.approvals.waiting.is_empty()
                {
                    return Vec::new();
                }
                // The last waiting call went through: back to work (the one
                // case where tool traffic moves a blocked pane, H4 of
                // docs/states.md#hook-processing-rules).
                self.with_axes("hook:cursor:approval_resolved", |axes| {
                    axes.set_lifecycle(Lifecycle::Working, "hook:cursor:approval_resolved");
                    if axes.pane.attention == Attention::PermissionRequired {
                        axes.clear("approval_resolved");
                    }
                })
            },
            "stop" | "sessionEnd" | "beforeSubmitPrompt" => {
                self.forget_approvals(effects);
                Vec::new()
            },
            _ => Vec::new(),
        }
    }

    /// Forgets every call (the run ended or the process changed).
    pub(super) fn forget_approvals(&mut self, effects: &mut Vec<Effect>) {
        for (_, call) in self.approvals.running.drain() {
            effects.push(Effect::Cancel(Timer::Approval(call.token)));
        }
        self.approvals.waiting.clear();
    }

    /// The approval timer `token` fired: its call ran past the wait and is
    /// waiting for the person (unless it finished meanwhile or the process
    /// is gone).
    pub(super) fn on_approval_timer(&mut self, token: u64, effects: &mut Vec<Effect>) {
        let Some(id) = self
            .approvals
            .running
            .iter()
            .find(|(_, call)| call.token == token)
            .map(|(id, _)| id.clone())
        else {
            return;
        };
        let Some(call) = self.approvals.running.remove(&id) else {
            return;
        };
        if !self.live() {
            return;
        }
        let message = match &call.tool {
            Some(t) => format!("waiting for approval: {t}"),
            None => "waiting for approval".to_owned(),
        };
        self.approvals.waiting.insert(id, call.tool);
        let events = self.with_axes("hook:cursor:approval_inferred", |axes| {
            axes.set_lifecycle(Lifecycle::Blocked, "hook:cursor:approval_inferred");
            axes.raise(Attention::PermissionRequired);
            axes.set_message(&message);
        });
        if !events.is_empty() {
            effects.push(Effect::Publish(events));
        }
    }
}
