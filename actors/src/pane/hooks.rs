//! Hook events on the Pane actor (spec/lifecycle.md §4.1 H1–H10, agents.md
//! §6.3): the adapter's classification applied to the pane's state with the
//! guards that keep a finished, reviewed or blocked pane as it should be.

use super::Pane;
use crate::error::Error;
use crate::ids::random_u128;
use crate::state::hooks::{
    AttentionEffect, Classification, classify, is_liveness, is_session_end, is_tool_traffic,
    resume_argv, session_id,
};
use crate::state::{Draft, NewNotification};
use crate::supervisor::Publish;
use actix::prelude::*;
use serde_json::Value;
use signaltty_protocol::pane::{AgentKind, Lifecycle};
use signaltty_protocol::state::{HookEventResult, Severity};
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
    /// The prompt of a decision the hook carried (decisions themselves are set
    /// by the decisions layer).
    pub decision_prompt: Option<String>,
}

impl Hook {
    fn result(&self, pane: &Pane, accepted: bool, dropped: Option<&str>) -> HookEventResult {
        HookEventResult {
            accepted,
            agent: self.agent.clone(),
            event: self.event.clone(),
            pane_id: Some(pane.state.id.clone()),
            dropped: dropped.map(|_| true),
            reason: dropped.map(str::to_owned),
            lifecycle: accepted.then_some(pane.state.lifecycle),
            attention: accepted.then_some(pane.state.attention),
        }
    }

    /// H1: a payload naming another agent or harness.
    fn harness_mismatch(&self) -> bool {
        ["agent", "harness"].iter().any(|key| {
            self.payload
                .get(key)
                .and_then(Value::as_str)
                .is_some_and(|named| {
                    named != self.agent && Some(named) != kind_name(self.kind).as_deref()
                })
        })
    }
}

fn kind_name(kind: AgentKind) -> Option<String> {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
}

impl Handler<Hook> for Pane {
    type Result = ResponseFuture<Result<HookEventResult, Error>>;

    fn handle(&mut self, hook: Hook, _ctx: &mut Self::Context) -> Self::Result {
        if hook.harness_mismatch() {
            let result = hook.result(self, false, Some("harness_mismatch"));
            return Box::pin(async move { Ok(result) });
        }
        let session = session_id(hook.kind, &hook.payload);
        let mut class = classify(hook.kind, &hook.event, &hook.payload, self.state.lifecycle);
        let recognized = !class.is_empty()
            || class.known_noop
            || session.is_some()
            || hook.message.is_some()
            || hook.decision_prompt.is_some()
            || is_liveness(&hook.event);
        if !recognized {
            let result = hook.result(self, false, Some("unrecognized_hook"));
            return Box::pin(async move { Ok(result) });
        }
        let mut events = Vec::new();
        // H2: session identity, recorded even when the rest is suppressed.
        if let Some(id) = session {
            events.extend(self.record_session(hook.kind, &id));
        }
        // H3: the process is hooked; screen rules stop for it.
        self.hooked = true;
        // H4: tool traffic cannot move a blocked pane.
        if self.state.lifecycle == Lifecycle::Blocked && is_tool_traffic(&hook.event) {
            class.lifecycle = None;
            class.attention = None;
        }
        // H5: a session end after a finished turn changes nothing.
        if is_session_end(&hook.event)
            && class.lifecycle == Some(Lifecycle::Done)
            && matches!(self.state.lifecycle, Lifecycle::Done | Lifecycle::Failed)
        {
            class = Classification::default();
        }
        let source = format!("hook:{}:{}", hook.agent, hook.event);
        let notification = self.hook_notification(&hook, &class, &source);
        events.extend(self.with_axes(&source, |axes| {
            // H6: apply.
            if let Some(message) = &class.message {
                axes.set_message(message);
            }
            if let Some(lifecycle) = class.lifecycle {
                axes.set_lifecycle(lifecycle, &source);
            }
            match class.attention {
                Some(AttentionEffect::Clear) => {
                    axes.clear("hook");
                },
                Some(AttentionEffect::Raise(to)) => {
                    axes.raise(to);
                },
                None => {},
            }
            // H8: without a message of its own, the decision prompt.
            if class.message.is_none()
                && let Some(prompt) = &hook.decision_prompt
            {
                axes.set_message(prompt);
            }
            // H9, H10.
            if let Some(new) = notification {
                axes.notify(new);
            }
            axes.touch();
        }));
        let result = hook.result(self, true, None);
        if events.is_empty() {
            return Box::pin(async move { Ok(result) });
        }
        let sent = self.events.send(Publish { events });
        Box::pin(async move {
            sent.await??;
            Ok(result)
        })
    }
}

impl Pane {
    /// Records an agent session (H2): the kind, the resume command and the id.
    /// Returns `pane.updated` when something changed.
    fn record_session(&mut self, kind: AgentKind, id: &str) -> Option<Event> {
        let agent = &mut self.state.agent;
        let resume = resume_argv(kind, id, &self.state.argv);
        if agent.kind == kind
            && agent.agent_session_id.as_deref() == Some(id)
            && agent.resume_argv == resume
        {
            return None;
        }
        agent.kind = kind;
        agent.agent_session_id = Some(id.to_owned());
        agent.resume_argv = resume;
        self.state.last_activity_at = Timestamp::now();
        Some(Event::PaneUpdated {
            pane_id: self.state.id.clone(),
            pane: self.state.clone(),
        })
    }

    /// H9: an explicit message wins (with the `title` and `severity` params);
    /// otherwise the adapter's draft, whose title the `title` param overrides.
    fn hook_notification(
        &self,
        hook: &Hook,
        class: &Classification,
        source: &str,
    ) -> Option<NewNotification> {
        let draft = match (&hook.message, &class.draft) {
            (Some(message), _) => Draft {
                title: hook.title.as_deref(),
                draft_title: None,
                body: message,
                severity: hook.severity,
                source: source.to_owned(),
            },
            (None, Some(d)) => Draft {
                title: hook.title.as_deref(),
                draft_title: Some(d.title),
                body: &d.body,
                severity: d.severity,
                source: source.to_owned(),
            },
            (None, None) => return None,
        };
        let id = format!("notif_{:032x}", random_u128());
        Some(NewNotification::new(
            id,
            &self.state,
            draft,
            Timestamp::now(),
        ))
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
        self.record_session(kind, &msg.session_id);
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
