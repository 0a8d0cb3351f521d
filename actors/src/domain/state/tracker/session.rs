//! A session replaced in place (docs/states.md#hook-processing-rules, H5):
//! some agents end their session and start a new one in the same process —
//! Qwen Code and Gemini CLI after a folder is trusted, Claude Code on
//! `/clear`. The session end raises `unread` when no turn had finished; the
//! new session starting right after it shows nothing ended that a person
//! must read, so that `unread` is withdrawn.

use super::AgentTracker;
use signaltty_model::agents::vocabulary::Role;
use signaltty_protocol::Event;
use signaltty_protocol::pane::Attention;

impl AgentTracker {
    /// After a hook of `role` was applied: remembers a session end that
    /// raised `unread`, and withdraws it when the next hook starts a session.
    pub(super) fn session_replaced(
        &mut self,
        role: Option<Role>,
        unread_before: bool,
    ) -> Vec<Event> {
        let raised = std::mem::take(&mut self.session_end_unread);
        match role {
            Some(Role::SessionEnd) => {
                self.session_end_unread =
                    !unread_before && self.pane.attention == Attention::Unread;
                Vec::new()
            },
            Some(Role::SessionStart) if raised && self.pane.attention == Attention::Unread => self
                .with_axes("session_replaced", |axes| {
                    axes.clear("session_replaced");
                }),
            _ => Vec::new(),
        }
    }
}
