//! Decisions on the Pane actor (docs/decisions.md#every-way-a-decision-ends,
//! docs/methods.md#decisionanswer,
//! docs/decisions.md#native-permission-requests). The pane owns its pending
//! decision, so consuming it for an answer is one step in the pane's turn: a
//! concurrent hook, clear or second answer is handled before or after it, never
//! in between, and an answer is delivered at most once. A native permission
//! request also has a live answer route (a `Decision` actor holding the waiting
//! reporter); the pane keeps the route while it still fits the pane and ends it
//! the moment it does not.

use super::{Hook, Pane};
use crate::actors::decision::{Decision as Route, EndWait, RouteEnded, Verdict, WaitEnd};
use crate::actors::publish::Publish;
use crate::domain::state::decision::{typed_answer, verdict};
use crate::domain::state::hooks::answer_channel;
use crate::error::Error;
use crate::os::pty::{WriteError, WriteErrorKind};
use actix::prelude::*;
use signaltty_protocol::Event;
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::state::{DecisionAnswerResult, HookEventResult};
use std::time::Instant;

/// The live answer route of the pane's pending native decision.
pub struct NativeRoute {
    /// The decision it answers.
    pub id: String,
    /// The waiting reporter's route.
    pub addr: Addr<Route>,
    /// The agent kind and session that asked.
    pub kind: AgentKind,
    pub session: String,
    /// Past this, nobody waits for the answer.
    pub deadline: Instant,
}

/// A waiting `hook-event`: register the route, then ingest the hook with its
/// decision (the waiting mode of docs/methods.md#hook-event,
/// docs/decisions.md#the-waiting-reporter).
#[derive(Message)]
#[rtype(result = "Result<NativeStarted, Error>")]
pub struct NativeHook {
    /// The hook; its decision has the route's id and `answerable: true`.
    pub hook: Hook,
    pub route: NativeRoute,
}

/// What became of a waiting hook.
#[derive(Debug)]
pub enum NativeStarted {
    /// The decision is pending; the route waits for an answer.
    Waiting,
    /// The hook was dropped (harness mismatch): nothing waits.
    Dropped(HookEventResult),
}

/// `decision.answer` on this pane.
#[derive(Debug, Message)]
#[rtype(result = "Result<DecisionAnswerResult, Error>")]
pub struct Answer {
    pub decision_id: String,
    pub option_id: String,
}

/// How a consumed answer reaches the agent.
enum Delivery {
    /// The verdict goes to the waiting reporter.
    Native(Addr<Route>, serde_json::Value),
    /// The option's position is typed into the pane.
    Typed(tokio::sync::oneshot::Receiver<Result<usize, WriteError>>),
}

impl Pane {
    /// Ends the native route when it no longer fits the pane: the process is
    /// gone, the agent kind or session changed, or its decision is no longer
    /// the pending one ("moved on", docs/decisions.md#the-waiting-reporter).
    pub(super) fn check_route(&mut self) {
        let Some(route) = &self.route else { return };
        let state = self.tracker.pane();
        let fits = self.pty.is_some()
            && state.agent.kind == route.kind
            && state.agent.agent_session_id.as_deref() == Some(route.session.as_str())
            && state
                .pending_decision
                .as_ref()
                .is_some_and(|d| d.id == route.id);
        if !fits && let Some(route) = self.route.take() {
            route.addr.do_send(EndWait(WaitEnd::MovedOn));
        }
    }

    /// The checks of docs/methods.md#decisionanswer (steps 1–4), then the
    /// consumption (steps 5–6).
    fn consume_for_answer(&mut self, msg: &Answer) -> Result<(Delivery, Vec<Event>), Error> {
        let Some(pty) = self.pty.as_ref() else {
            return Err(self.pane_exited(None));
        };
        let stale = || {
            Error::NoSuchDecision(format!(
                "decision {} is not pending on this pane (answered, superseded or cleared): refresh",
                msg.decision_id
            ))
        };
        let state = self.tracker.pane();
        let Some(pending) = state
            .pending_decision
            .as_ref()
            .filter(|d| d.id == msg.decision_id)
        else {
            return Err(stale());
        };
        let delivery = if pending.is_native() {
            let Some(v) = verdict(&msg.option_id) else {
                return Err(Error::BadParams(format!(
                    "option {:?}: a permission request is answered once or deny",
                    msg.option_id
                )));
            };
            let route = self.route.as_ref().filter(|r| {
                r.id == pending.id
                    && r.kind == state.agent.kind
                    && state.agent.agent_session_id.as_deref() == Some(r.session.as_str())
                    && Instant::now() < r.deadline
            });
            match route {
                Some(r) if pending.answerable => Delivery::Native(r.addr.clone(), v),
                _ => {
                    return Err(Error::NoSuchDecision(format!(
                        "decision {}: nobody waits for this answer any more (the reporter ended, timed out or the session changed); answer in the terminal",
                        msg.decision_id
                    )));
                },
            }
        } else {
            let Some(bytes) = typed_answer(pending, &msg.option_id) else {
                return Err(Error::BadParams(format!(
                    "option {:?} is not one of the decision's options",
                    msg.option_id
                )));
            };
            if answer_channel(state.agent.kind).is_none() {
                return Err(Error::BadParams(
                    "this agent has no answer channel: answer in the terminal".into(),
                ));
            }
            // Bound to this PTY now: a later process never gets the answer.
            Delivery::Typed(pty.write(bytes, Instant::now() + super::INPUT_BUDGET))
        };
        let events = self.tracker.with_axes("answer", |axes| {
            axes.consume_decision(&msg.decision_id, &msg.option_id);
        });
        if matches!(delivery, Delivery::Native(..)) {
            self.route = None;
        }
        Ok((delivery, events))
    }

    /// The answer was delivered: a blocked pane goes back to work.
    fn answered(&mut self) -> (Vec<Event>, DecisionAnswerResult) {
        let events = self.tracker.on_answer_delivered();
        (events, self.answer_result())
    }

    fn answer_result(&self) -> DecisionAnswerResult {
        DecisionAnswerResult {
            answered: true,
            lifecycle: self.state().lifecycle,
            attention: self.state().attention,
        }
    }
}

impl Handler<NativeHook> for Pane {
    type Result = ResponseFuture<Result<NativeStarted, Error>>;

    fn handle(&mut self, msg: NativeHook, ctx: &mut Self::Context) -> Self::Result {
        if self.pty.is_none() {
            let e = self.pane_exited(None);
            return Box::pin(async move { Err(e) });
        }
        // The route is live before anything is published
        // (docs/decisions.md#the-waiting-reporter).
        if let Some(old) = self.route.replace(Box::new(msg.route)) {
            old.addr.do_send(EndWait(WaitEnd::MovedOn));
        }
        let (events, result) = self.ingest(msg.hook, ctx);
        let started = if result.accepted {
            NativeStarted::Waiting
        } else {
            NativeStarted::Dropped(result)
        };
        self.publish_observed_then(events, started)
    }
}

impl Handler<RouteEnded> for Pane {
    type Result = ();

    fn handle(&mut self, msg: RouteEnded, ctx: &mut Self::Context) {
        if self.route.as_ref().is_some_and(|r| r.id == msg.id) {
            self.route = None;
        }
        // The agent gave up waiting (Esc in Codex kills its hook) or will ask
        // in its own UI: the tracker hands the question over to the screen.
        let effects = self.tracker.on_route_ended(&msg.id);
        self.perform_now(effects, ctx);
    }
}

impl Handler<Answer> for Pane {
    type Result = ResponseActFuture<Self, Result<DecisionAnswerResult, Error>>;

    fn handle(&mut self, msg: Answer, _ctx: &mut Self::Context) -> Self::Result {
        let (delivery, events) = match self.consume_for_answer(&msg) {
            Ok(consumed) => consumed,
            Err(e) => return Box::pin(actix::fut::ready(Err(e))),
        };
        // Consumed (and recorded) before delivery: a retry now finds nothing.
        let published = self.events.send(Publish::new(events));
        let pane = self.state().id.0.clone();
        let id = msg.decision_id.clone();
        let decision_id = msg.decision_id;
        let deliver = async move {
            published.await??;
            match delivery {
                Delivery::Native(route, v) => match route.send(Verdict(v)).await {
                    Ok(Ok(())) => Ok(()),
                    _ => Err(Error::NoSuchDecision(format!(
                        "decision {decision_id}: the waiting reporter went away before the answer reached it"
                    ))),
                },
                Delivery::Typed(write) => match write.await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(WriteError { kind, written })) => Err(match kind {
                        WriteErrorKind::Io(why) => Error::Io {
                            what: format!("answer to pane {pane}"),
                            source: std::io::Error::other(why),
                        },
                        // Not a TIMEOUT: decision.answer reports a failed
                        // delivery as PANE_EXITED or IO_ERROR
                        // (docs/methods.md#decisionanswer).
                        WriteErrorKind::Timeout => Error::Io {
                            what: format!("answer to pane {pane}"),
                            source: std::io::Error::new(
                                std::io::ErrorKind::TimedOut,
                                "the program did not read its input within 5 s",
                            ),
                        },
                        WriteErrorKind::Exited => Error::PaneExited {
                            pane,
                            written: Some(written),
                        },
                    }),
                    Err(_) => Err(Error::PaneExited {
                        pane,
                        written: None,
                    }),
                },
            }
        };
        Box::pin(deliver.into_actor(self).then(move |delivered, act, _| {
            let (events, result) = match delivered {
                Ok(()) => {
                    let (events, result) = act.answered();
                    (events, Ok(result))
                },
                Err(e) => {
                    // A typed answer that could not be written leaves the pane
                    // blocked: the person answers in the terminal.
                    let events = match &e {
                        Error::PaneExited { .. } | Error::Io { .. } => {
                            vec![Event::DecisionCleared {
                                pane_id: act.state().id.clone(),
                                decision_id: id,
                                reason: "pane_exited".to_owned(),
                                pane: Box::new(act.state().clone()),
                            }]
                        },
                        _ => Vec::new(),
                    };
                    (events, Err(e))
                },
            };
            let sent = (!events.is_empty()).then(|| act.events.send(Publish::new(events)));
            async move {
                if let Some(sent) = sent {
                    sent.await??;
                }
                result
            }
            .into_actor(act)
        }))
    }
}
