//! The Pane actor's side of the state engine: terminal signals (BEL, OSC
//! notifications), `notify`, `pane.mark_seen`, the process refresh and
//! `pane.explain`. The rules are in `crate::domain::state` (the pane's `AgentTracker`);
//! this file feeds them and publishes what they changed.

use super::Pane;
use crate::actors::publish::{Hold, Publish};
use crate::domain::state::tracker::ProcessReport;
use crate::domain::state::{Draft, NewNotification};
use crate::error::Error;
use crate::ids::random_u128;
use actix::prelude::*;
use signaltty_model::term::TermEvent;
use signaltty_protocol::pane::{Attention, Pane as PaneState};
use signaltty_protocol::state::{Notification, Severity};
use signaltty_protocol::{Event, Timestamp};
use std::time::{Duration, Instant};

/// Terminal notifications a pane may store in a burst
/// (docs/notifications.md#how-a-notification-is-stored)…
pub const NOTIFY_BURST: f64 = 5.0;
/// …and per second after it. Notifications beyond that are coalesced: the newest
/// one waiting is stored when the budget allows, the others are dropped.
pub const NOTIFY_PER_SEC: f64 = 1.0;

/// A token bucket for terminal notifications, with the newest one held back.
#[derive(Debug)]
pub struct NotifyGate {
    tokens: f64,
    refilled: Instant,
    held: Option<(Option<String>, String, &'static str)>,
    flush_armed: bool,
}

impl Default for NotifyGate {
    fn default() -> NotifyGate {
        NotifyGate {
            tokens: NOTIFY_BURST,
            refilled: Instant::now(),
            held: None,
            flush_armed: false,
        }
    }
}

impl NotifyGate {
    /// Drops the notification held back, if any (the pane's process exited).
    pub(super) fn forget_held(&mut self) {
        self.held = None;
    }

    fn take(&mut self, now: Instant) -> bool {
        let gained = now.duration_since(self.refilled).as_secs_f64() * NOTIFY_PER_SEC;
        self.tokens = (self.tokens + gained).min(NOTIFY_BURST);
        self.refilled = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// `notify` (docs/methods.md#notify): stores a notification from the CLI.
/// Replies once it is published.
#[derive(Debug, Message)]
#[rtype(result = "Result<Notification, Error>")]
pub struct Notify {
    /// The notification's title.
    pub title: String,
    /// Its body.
    pub body: String,
    /// Its severity, which sets the attention it raises.
    pub severity: Severity,
}

/// `pane.mark_seen` or an attach that marks the pane seen: acknowledges the
/// pane (docs/states.md#attention-operations). Replies with the pane once
/// published.
#[derive(Debug, Message)]
#[rtype(result = "Result<PaneState, Error>")]
pub struct MarkSeen {
    /// `mark_seen` or `attach`.
    pub reason: &'static str,
}

impl Pane {
    fn new_notification(
        &self,
        title: Option<&str>,
        body: &str,
        severity: Severity,
        source: &str,
    ) -> NewNotification {
        let draft = Draft {
            title,
            draft_title: None,
            body,
            severity,
            source: source.to_owned(),
        };
        let id = format!("notif_{:032x}", random_u128());
        NewNotification::new(id, self.state(), draft, Timestamp::now())
    }

    /// Applies what the terminal reported for one chunk: titles, bells and
    /// notifications (docs/states.md#terminal-signals). Notifications pass the
    /// gate.
    pub(super) fn on_term_events(&mut self, found: Vec<TermEvent>, ctx: &mut Context<Self>) {
        let mut events = Vec::new();
        let mut newest = None;
        for event in found {
            match event {
                TermEvent::Title(title) => {
                    if title != self.state().title {
                        self.tracker.pane_mut().title = title;
                        events.push(Event::PaneUpdated {
                            pane_id: self.state().id.clone(),
                            pane: self.state().clone(),
                        });
                    }
                },
                TermEvent::Bell => {
                    events.extend(self.tracker.with_axes("bell", |axes| {
                        axes.raise(Attention::Unread);
                    }));
                },
                // Within a chunk only the newest notification counts.
                TermEvent::Notification {
                    source,
                    title,
                    body,
                } => newest = Some((title, body, source.as_str())),
                TermEvent::Reply(bytes) => self.answer_queries(bytes),
            }
        }
        if let Some(held) = newest {
            if self.notify_gate.take(Instant::now()) {
                events.extend(self.store_terminal_notification(held));
            } else {
                self.notify_gate.held = Some(held);
                self.arm_notify_flush(ctx);
            }
        }
        if !events.is_empty() {
            self.events.do_send(Publish::new(events));
        }
    }

    /// Writes the terminal's answers to the program's queries. An attached
    /// terminal sees the raw output and answers them itself, so the pane
    /// answers only while nobody is attached (never twice).
    fn answer_queries(&mut self, bytes: Vec<u8>) {
        if self.terminal_attached() {
            return;
        }
        if let Some(pty) = &self.pty {
            // Not awaited: an answer nobody reads is dropped with the PTY.
            drop(pty.write(bytes, Instant::now() + super::INPUT_BUDGET));
        }
    }

    fn store_terminal_notification(
        &mut self,
        (title, body, source): (Option<String>, String, &'static str),
    ) -> Vec<Event> {
        if body.is_empty() {
            return Vec::new();
        }
        let new = self.new_notification(title.as_deref(), &body, Severity::Info, source);
        self.tracker.with_axes(source, |axes| axes.notify(new))
    }

    /// Stores the held-back notification once the gate has a token again.
    fn arm_notify_flush(&mut self, ctx: &mut Context<Self>) {
        if self.notify_gate.flush_armed {
            return;
        }
        self.notify_gate.flush_armed = true;
        let wait = Duration::from_secs_f64(1.0 / NOTIFY_PER_SEC);
        ctx.run_later(wait, |pane, ctx| {
            pane.notify_gate.flush_armed = false;
            let Some(held) = pane.notify_gate.held.take() else {
                return;
            };
            if pane.notify_gate.take(Instant::now()) {
                let events = pane.store_terminal_notification(held);
                if !events.is_empty() {
                    pane.events.do_send(Publish::new(events));
                }
            } else {
                pane.notify_gate.held = Some(held);
                pane.arm_notify_flush(ctx);
            }
        });
    }

    /// Publishes `events` (if any) and replies `value` once they are published.
    pub(super) fn publish_then<T: Send + 'static>(
        &self,
        events: Vec<Event>,
        value: T,
    ) -> ResponseFuture<Result<T, Error>> {
        self.publish_held_then(events, value, Hold::Wait)
    }

    /// [`Pane::publish_then`] for what the agent reported: while the journal
    /// cannot write, the reply comes once the events are held
    /// (docs/reliability.md#a-full-disk), so a hook never waits on a disk.
    pub(super) fn publish_observed_then<T: Send + 'static>(
        &self,
        events: Vec<Event>,
        value: T,
    ) -> ResponseFuture<Result<T, Error>> {
        self.publish_held_then(events, value, Hold::Answer)
    }

    fn publish_held_then<T: Send + 'static>(
        &self,
        events: Vec<Event>,
        value: T,
        hold: Hold,
    ) -> ResponseFuture<Result<T, Error>> {
        if events.is_empty() {
            return Box::pin(async move { Ok(value) });
        }
        let sent = self.events.send(Publish { events, hold });
        Box::pin(async move {
            sent.await??;
            Ok(value)
        })
    }
}

impl Handler<Notify> for Pane {
    type Result = ResponseFuture<Result<Notification, Error>>;

    fn handle(&mut self, msg: Notify, _ctx: &mut Self::Context) -> Self::Result {
        let new = self.new_notification(Some(&msg.title), &msg.body, msg.severity, "cli");
        let notification = new.notification.clone();
        let events = self.tracker.with_axes("cli", |axes| axes.notify(new));
        self.publish_then(events, notification)
    }
}

impl Handler<MarkSeen> for Pane {
    type Result = ResponseFuture<Result<PaneState, Error>>;

    fn handle(&mut self, msg: MarkSeen, _ctx: &mut Self::Context) -> Self::Result {
        let pending = self.tracker.decision_pending();
        let events = self.tracker.with_axes(msg.reason, |axes| {
            axes.acknowledge(msg.reason, pending);
        });
        // `last_seen_at` changes even when attention does not; the pane in the
        // reply has it, the projection gets it with the next state event.
        self.publish_then(events, self.state().clone())
    }
}

/// The pane's task closed it (`task.cancel`, `task.finish`): its attention is
/// cleared (`task_closed`) and a pending decision dropped (`pane_exited`), so a
/// stopped worker does not keep asking for a person
/// (docs/states.md#spawn-resume-restart-and-close).
#[derive(Debug, Message)]
#[rtype(result = "Result<PaneState, Error>")]
pub struct TaskClosed;

impl Handler<TaskClosed> for Pane {
    type Result = ResponseFuture<Result<PaneState, Error>>;

    fn handle(&mut self, _msg: TaskClosed, _ctx: &mut Self::Context) -> Self::Result {
        let events = self.tracker.on_task_closed();
        self.publish_then(events, self.state().clone())
    }
}

/// What the 10-second process refresh saw of this pane's process
/// (docs/agents.md#process-detection): its name, which may identify an agent,
/// and its cwd.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ProcessSeen {
    /// What was seen.
    pub seen: crate::os::procfs::Seen,
}

impl Handler<ProcessSeen> for Pane {
    type Result = ();

    fn handle(&mut self, msg: ProcessSeen, ctx: &mut Self::Context) {
        if self.pty.is_none() {
            return;
        }
        let crate::os::procfs::Seen {
            name,
            cwd,
            hint,
            packages,
        } = msg.seen;
        // The tracker does no I/O: the directory is checked here.
        let new_cwd = cwd.filter(|c| *c != self.state().cwd && std::path::Path::new(c).is_dir());
        let effects = self.tracker.on_process(ProcessReport {
            name,
            new_cwd,
            hint,
            packages,
        });
        self.perform_now(effects, ctx);
    }
}

/// `pane.explain`: the pane's process, hook and screen-rule status, and the
/// evidence behind each axis. Read-only.
#[derive(Debug, Message)]
#[rtype(result = "Result<signaltty_protocol::state::PaneExplainResult, Error>")]
pub struct Explain {
    /// What the Supervisor knows of the pane's hibernation: its workspace's
    /// idle time, its quiet time, a waiting task.
    pub hibernate: super::Hibernate,
}

impl Handler<Explain> for Pane {
    type Result = Result<signaltty_protocol::state::PaneExplainResult, Error>;

    fn handle(&mut self, msg: Explain, _ctx: &mut Self::Context) -> Self::Result {
        let mut explained = self.tracker.explain(&self.term);
        explained.hibernation = Some(self.explain_hibernation(&msg.hibernate));
        Ok(explained)
    }
}
