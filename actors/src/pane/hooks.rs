//! Hook events on the Pane actor (spec/lifecycle.md §4.1 H1–H10, agents.md
//! §6.3): the adapter's classification applied to the pane's state with the
//! guards that keep a finished, reviewed or blocked pane as it should be.

use super::Pane;
use crate::error::Error;
use crate::ids::random_u128;
use crate::state::apply::{Applied, HookInput, apply_hook, drop_reason, record_session};
use crate::supervisor::Publish;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle};
use signaltty_protocol::state::{Decision, HookEventResult, Severity};
use signaltty_protocol::{Event, Timestamp};

/// One ordinary hook event for this pane, already routed and validated.
#[derive(Debug, Message)]
#[rtype(result = "Result<HookEventResult, Error>")]
pub struct Hook {
    /// The adapter's kind.
    pub kind: AgentKind,
    /// The `agent` param as given.
    pub agent: String,
    pub event: String,
    pub payload: Value,
    /// An explicit notification body (`message`, else `body`).
    pub message: Option<String>,
    pub title: Option<String>,
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
    /// Applies a hook (H1–H10) and returns the events it produced and the
    /// `hook-event` result. A native answer route that no longer fits the pane
    /// afterwards is ended.
    pub(super) fn ingest(
        &mut self,
        hook: Hook,
        ctx: &mut Context<Self>,
    ) -> (Vec<Event>, HookEventResult) {
        let agents = crate::agents::active();
        let input = HookInput {
            kind: hook.kind,
            agent: &hook.agent,
            event: &hook.event,
            payload: &hook.payload,
            message: hook.message.as_deref(),
            title: hook.title.as_deref(),
            severity: hook.severity,
            decision: hook.decision.as_ref(),
            notification_id: format!("notif_{:032x}", random_u128()),
            overlay: agents.overlay(hook.kind, &self.process_name),
        };
        let (events, dropped) = match drop_reason(&self.state, &input) {
            Some(reason) => (Vec::new(), Some(reason)),
            None => {
                // H3: the process is hooked; screen rules stop for it, and an
                // input_required the screen raised is withdrawn first.
                let mut events = Vec::new();
                if !self.hooked && self.screen_raised {
                    events.extend(self.with_axes("screen", |axes| {
                        if axes.pane.attention == Attention::InputRequired {
                            axes.clear("screen");
                        }
                    }));
                }
                self.screen_raised = false;
                self.hooked = true;
                let was_blocked = self.state.lifecycle == Lifecycle::Blocked;
                match apply_hook(&mut self.state, &input, Timestamp::now()) {
                    Applied::Accepted(applied) => events.extend(applied),
                    Applied::Dropped(reason) => {
                        log::warn!("hook dropped after its check: {reason}")
                    },
                }
                // Still blocked: the agent talks, so the screen's idle is not
                // a dismissal yet. Otherwise a new question (or none): the
                // screen has not shown it yet.
                if was_blocked && self.state.lifecycle == Lifecycle::Blocked {
                    self.question.hook_while_blocked();
                } else {
                    self.question.reset();
                }
                // Blocked by a hook: look at the screen, which may already
                // show the question (it is then watched for being dismissed).
                if !was_blocked && self.state.lifecycle == Lifecycle::Blocked {
                    self.look_for_question();
                    self.screen_seen = None;
                    self.arm_screen(ctx);
                }
                if hook.kind == AgentKind::Cursor {
                    events.extend(self.cursor_hook(&hook.event, &hook.payload, ctx));
                }
                self.note_evidence(&format!("hook:{}:{}", hook.agent, hook.event), &events);
                (events, None)
            },
        };
        let accepted = dropped.is_none();
        let result = HookEventResult {
            accepted,
            agent: hook.agent,
            event: hook.event,
            pane_id: Some(self.state.id.clone()),
            dropped: dropped.map(|_| true),
            reason: dropped.map(str::to_owned),
            lifecycle: accepted.then_some(self.state.lifecycle),
            attention: accepted.then_some(self.state.attention),
        };
        self.check_route();
        (events, result)
    }
}

/// `report-session` (spec/ipc.md §8.7): the pane's agent session, reported
/// directly. Always publishes exactly one `pane.updated`.
#[derive(Debug, Message)]
#[rtype(result = "Result<signaltty_protocol::pane::Pane, Error>")]
pub struct ReportSession {
    /// The kind; `None` keeps the pane's (a pane with none becomes `generic`).
    pub kind: Option<AgentKind>,
    pub session_id: String,
}

impl Handler<ReportSession> for Pane {
    type Result = ResponseFuture<Result<signaltty_protocol::pane::Pane, Error>>;

    fn handle(&mut self, msg: ReportSession, _ctx: &mut Self::Context) -> Self::Result {
        let kind = msg.kind.unwrap_or(match self.state.agent.kind {
            AgentKind::None => AgentKind::Generic,
            kind => kind,
        });
        let agents = crate::agents::active();
        let overlay = agents.overlay(kind, &self.process_name);
        record_session(
            &mut self.state,
            kind,
            &msg.session_id,
            overlay,
            &Timestamp::now(),
        );
        self.check_route();
        let pane = self.state.clone();
        let sent = self.events.send(Publish {
            events: vec![Event::PaneUpdated {
                pane_id: pane.id.clone(),
                pane: pane.clone(),
            }],
        });
        Box::pin(async move {
            sent.await??;
            Ok(pane)
        })
    }
}
