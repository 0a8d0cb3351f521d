//! Hook events on the Pane actor (spec/lifecycle.md §4.1 H1–H10, agents.md
//! §6.3): the messages, handed to the pane's `AgentTracker`, which applies the
//! adapter's classification with the guards that keep a finished, reviewed or
//! blocked pane as it should be.

use super::Pane;
use crate::error::Error;
use crate::state::tracker::HookReport;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::Event;
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::state::{Decision, HookEventResult, Severity};

/// One ordinary hook event for this pane, already routed and validated.
#[derive(Debug, Message)]
#[rtype(result = "Result<HookEventResult, Error>")]
pub struct Hook {
    /// The adapter's kind.
    pub kind: AgentKind,
    /// The `agent` param as given.
    pub agent: String,
    /// The native hook name.
    pub event: String,
    /// The hook's payload.
    pub payload: Value,
    /// An explicit notification body (`message`, else `body`).
    pub message: Option<String>,
    /// An explicit notification title.
    pub title: Option<String>,
    /// The severity of an explicit notification.
    pub severity: Severity,
    /// The decision the hook carries, explicit or synthesized from a native
    /// permission request, `answerable` captured.
    pub decision: Option<Decision>,
}

impl Handler<Hook> for Pane {
    type Result = ResponseFuture<Result<HookEventResult, Error>>;

    fn handle(&mut self, hook: Hook, ctx: &mut Self::Context) -> Self::Result {
        let (events, result) = self.ingest(hook, ctx);
        self.publish_then(events, result)
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
        let report = HookReport {
            kind: hook.kind,
            agent: hook.agent,
            event: hook.event,
            payload: hook.payload,
            message: hook.message,
            title: hook.title,
            severity: hook.severity,
            decision: hook.decision,
        };
        let outcome = self.tracker.on_hook(report, &self.term);
        let events = self.perform(outcome.effects, ctx);
        (events, outcome.reply)
    }
}

/// `report-session` (spec/ipc.md §8.7): the pane's agent session, reported
/// directly. Always publishes exactly one `pane.updated`.
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
        self.publish_then(events, pane)
    }
}
