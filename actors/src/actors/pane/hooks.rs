//! Hook events on the Pane actor (H1–H10 of
//! docs/states.md#hook-processing-rules): the messages, handed to the pane's
//! `AgentTracker`, which applies the adapter's classification with the guards
//! that keep a finished, reviewed or blocked pane as it should be.

use super::Pane;
use crate::domain::state::tracker::HookReport;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{AgentKind, RestoreState};
use signaltty_protocol::state::HookEventResult;

/// One ordinary hook event for this pane, already routed and validated: the
/// tracker's [`HookReport`], sent as a message. Replies with the `hook-event`
/// result once the events it produced are published.
pub use crate::domain::state::tracker::HookReport as Hook;

impl Message for HookReport {
    type Result = Result<HookEventResult, Error>;
}

impl Handler<Hook> for Pane {
    type Result = ResponseFuture<Result<HookEventResult, Error>>;

    fn handle(&mut self, hook: Hook, ctx: &mut Self::Context) -> Self::Result {
        let (events, result) = self.ingest(hook, ctx);
        self.publish_observed_then(events, result)
    }
}

impl Pane {
    /// Applies a hook through the tracker (H1–H10) and returns the events it
    /// produced, to be published before the `hook-event` reply. A native
    /// answer route that no longer fits the pane afterwards is ended.
    pub(super) fn ingest(
        &mut self,
        hook: Hook,
        ctx: &mut Context<Self>,
    ) -> (Vec<Event>, HookEventResult) {
        // What an agent reports while signaltty stops it to hibernate, or
        // after (its `SessionEnd`), is the stop, not news: dropped
        // (docs/restore.md#hibernation).
        if self.hibernating() || self.state().restore_state == RestoreState::Hibernated {
            let pane = self.state();
            return (
                Vec::new(),
                HookEventResult {
                    accepted: false,
                    agent: hook.agent,
                    event: hook.event,
                    pane_id: Some(pane.id.clone()),
                    dropped: Some(true),
                    reason: Some("hibernating".into()),
                    lifecycle: Some(pane.lifecycle),
                    attention: Some(pane.attention),
                },
            );
        }
        let outcome = self.tracker.on_hook(hook, &self.term);
        let events = self.perform(outcome.effects, ctx);
        (events, outcome.reply)
    }
}

/// `report-session` (docs/methods.md#report-session): the pane's agent session,
/// reported directly. Always publishes exactly one `pane.updated`.
#[derive(Debug, Message)]
#[rtype(result = "Result<signaltty_protocol::pane::Pane, Error>")]
pub struct ReportSession {
    /// The kind; `None` keeps the pane's (a pane with none becomes `generic`).
    pub kind: Option<AgentKind>,
    /// The agent's session id.
    pub session_id: String,
}

impl Handler<ReportSession> for Pane {
    type Result = ResponseFuture<Result<signaltty_protocol::pane::Pane, Error>>;

    fn handle(&mut self, msg: ReportSession, ctx: &mut Self::Context) -> Self::Result {
        let effects = self.tracker.on_session_report(msg.kind, &msg.session_id);
        let events = self.perform(effects, ctx);
        let pane = self.state().clone();
        self.publish_observed_then(events, pane)
    }
}
