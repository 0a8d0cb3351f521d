//! A question from a subagent that outlived its main turn. Codex's
//! sub-agents (`spawn_agent`) run on after the main turn's `Stop`, and ask
//! through the same hooks, their payloads naming the subagent (`agent_id`,
//! beside the main `session_id`); no hook says when they end. Such a
//! question blocks the pane like any other; once answered, the pane goes
//! back to the main turn's state (`done` or `idle`, as its own screen shows
//! it), not to a `working` nothing would ever end (docs/agents.md#subagents).

use super::AgentTracker;
use serde_json::Value;
use signaltty_protocol::pane::Lifecycle;

impl AgentTracker {
    /// After a hook is applied: remembers the main turn's state when a
    /// subagent's hook blocked a pane whose turn had ended (`before`: the
    /// lifecycle before the hook).
    pub(super) fn note_question_origin(&mut self, before: Lifecycle, payload: &Value) {
        if self.pane.lifecycle != Lifecycle::Blocked {
            self.after_subagent_question = None;
            return;
        }
        if before == Lifecycle::Blocked {
            return;
        }
        let subagent = payload
            .get("agent_id")
            .and_then(Value::as_str)
            .is_some_and(|id| !id.is_empty());
        self.after_subagent_question =
            (subagent && matches!(before, Lifecycle::Done | Lifecycle::Idle)).then_some(before);
    }

    /// Where an answered question leaves the pane: back at work, or at the
    /// main turn's state for a subagent's question after that turn ended.
    pub(super) fn after_answer(&mut self) -> Lifecycle {
        self.after_subagent_question
            .take()
            .unwrap_or(Lifecycle::Working)
    }
}
