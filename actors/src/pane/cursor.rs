//! Cursor's approval inference (spec/agents.md §10.4.1, seed 002): Cursor has
//! no permission hook, so a tool call whose `postToolUse` does not follow its
//! `preToolUse` within 10 s is taken to be waiting for the person's approval.
//! State is per tool-call id, never per turn: calls run concurrently.

use super::Pane;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{Attention, Lifecycle};
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

/// How long a tool call may run before it counts as waiting for approval.
pub const APPROVAL_WAIT: Duration = Duration::from_secs(10);

static WAIT: OnceLock<Duration> = OnceLock::new();

/// Sets the approval wait for this process (tests shorten it); the first call wins.
pub fn set_approval_wait(wait: Duration) {
    let _ = WAIT.set(wait);
}

fn approval_wait() -> Duration {
    *WAIT.get_or_init(|| APPROVAL_WAIT)
}

/// The tool calls of one pane.
#[derive(Debug, Default)]
pub struct Approvals {
    /// Running calls and their timers.
    timers: HashMap<String, (SpawnHandle, Option<String>)>,
    /// Calls taken to be waiting for approval.
    waiting: HashMap<String, Option<String>>,
}

/// The tool-call id of a Cursor hook payload.
fn tool_call_id(payload: &Value) -> Option<String> {
    ["tool_use_id", "toolUseId", "tool_call_id"]
        .iter()
        .find_map(|k| payload.get(k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl Pane {
    /// Follows a Cursor hook: a `preToolUse` starts its call's timer, the
    /// matching post hook cancels it (and resolves a waiting call), and the end
    /// of the run forgets every call. Returns the events of a resolution.
    pub(super) fn cursor_hook(
        &mut self,
        event: &str,
        payload: &Value,
        ctx: &mut Context<Self>,
    ) -> Vec<Event> {
        match event {
            "preToolUse" => {
                if let Some(id) = tool_call_id(payload) {
                    let tool = payload
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    if let Some((old, _)) = self.approvals.timers.remove(&id) {
                        ctx.cancel_future(old);
                    }
                    let key = id.clone();
                    let handle =
                        ctx.run_later(approval_wait(), move |pane, _| pane.approval_timeout(&key));
                    self.approvals.timers.insert(id, (handle, tool));
                }
                Vec::new()
            },
            "postToolUse" | "postToolUseFailure" => {
                let Some(id) = tool_call_id(payload) else {
                    return Vec::new();
                };
                if let Some((handle, _)) = self.approvals.timers.remove(&id) {
                    ctx.cancel_future(handle);
                }
                if self.approvals.waiting.remove(&id).is_none()
                    || !self.approvals.waiting.is_empty()
                {
                    return Vec::new();
                }
                // The last waiting call went through: back to work (the one case
                // where tool traffic moves a blocked pane, lifecycle.md H4).
                self.with_axes("hook:cursor:approval_resolved", |axes| {
                    axes.set_lifecycle(Lifecycle::Working, "hook:cursor:approval_resolved");
                    if axes.pane.attention == Attention::PermissionRequired {
                        axes.clear("approval_resolved");
                    }
                })
            },
            "stop" | "sessionEnd" | "beforeSubmitPrompt" => {
                self.forget_approvals(ctx);
                Vec::new()
            },
            _ => Vec::new(),
        }
    }

    /// Forgets every call (the run ended, the pane exited or its process changed).
    pub(super) fn forget_approvals(&mut self, ctx: &mut Context<Self>) {
        for (_, (handle, _)) in self.approvals.timers.drain() {
            ctx.cancel_future(handle);
        }
        self.approvals.waiting.clear();
    }

    /// A call ran past the approval wait: it is waiting for the person.
    fn approval_timeout(&mut self, id: &str) {
        let Some((_, tool)) = self.approvals.timers.remove(id) else {
            return;
        };
        if self.pty.is_none() {
            return;
        }
        let message = match &tool {
            Some(t) => format!("waiting for approval: {t}"),
            None => "waiting for approval".to_owned(),
        };
        self.approvals.waiting.insert(id.to_owned(), tool);
        let events = self.with_axes("hook:cursor:approval_inferred", |axes| {
            axes.set_lifecycle(Lifecycle::Blocked, "hook:cursor:approval_inferred");
            axes.raise(Attention::PermissionRequired);
            axes.set_message(&message);
        });
        if !events.is_empty() {
            self.events.do_send(crate::supervisor::Publish { events });
        }
    }
}
