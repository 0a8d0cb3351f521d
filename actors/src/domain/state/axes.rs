//! The two state axes of a pane, lifecycle and attention
//! (docs/states.md#lifecycle-states, docs/states.md#attention-states), as pure
//! operations on the pane object. Each operation records what it changed; the
//! Pane actor turns the record into events (`agent.*`, `attention.*`,
//! `notification.created`) and publishes them in order.
//!
//! ```text
//!   lifecycle (any → any; same value = no-op, no event)
//!     unknown ─► idle ─► working ⇄ blocked ─► done ─► working … ─► exited
//!                                   └──────► failed
//!   attention (raise never lowers; clear → none; exit lowers questions to unread)
//!     none < unread < warning < rate_limited < input_required < permission_required < error
//! ```

use super::notify::NewNotification;
use signaltty_model::agents::resets::{self, Zone};
use signaltty_protocol::pane::{Attention, Lifecycle, Pane};
use signaltty_protocol::state::{Decision, Notification};
use signaltty_protocol::{Event, Timestamp};
use std::time::Duration;

/// One change to a pane's state, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Lifecycle moved from `prev` to `to`.
    Lifecycle {
        to: Lifecycle,
        prev: Lifecycle,
        source: String,
    },
    /// Attention moved from `prev` (raise, or the exit-time lowering) to `to`.
    Attention { to: Attention, prev: Attention },
    /// Attention was cleared to `none`.
    Cleared { reason: &'static str },
    /// A notification was stored.
    Notification(Notification),
    /// A decision was set; `prev` is the one it superseded.
    DecisionCreated {
        decision: Decision,
        prev: Option<String>,
    },
    /// The pending decision was consumed by an answer (before delivery).
    DecisionAnswered { id: String, option: String },
    /// The pending decision was dropped unanswered.
    DecisionCleared { id: String, reason: &'static str },
}

impl Change {
    /// The event for this change; `pane` is the pane after the whole batch.
    pub fn into_event(self, pane: &Pane) -> Event {
        match self {
            Change::Lifecycle { to, prev, source } => {
                Event::lifecycle(pane.clone(), to, prev, source)
            },
            Change::Attention { to, prev } if prev == Attention::None => Event::AttentionCreated {
                pane_id: pane.id.clone(),
                attention: to,
                prev,
                pane: Box::new(pane.clone()),
            },
            Change::Attention { to, prev } => Event::AttentionUpdated {
                pane_id: pane.id.clone(),
                attention: to,
                prev,
                pane: Box::new(pane.clone()),
            },
            Change::Cleared { reason } => Event::AttentionCleared {
                pane_id: pane.id.clone(),
                reason: reason.to_owned(),
                pane: Box::new(pane.clone()),
            },
            Change::Notification(notification) => Event::NotificationCreated {
                notification,
                pane: Box::new(pane.clone()),
            },
            Change::DecisionCreated { decision, prev } => Event::DecisionCreated {
                pane_id: pane.id.clone(),
                decision,
                prev,
                pane: Box::new(pane.clone()),
            },
            Change::DecisionAnswered { id, option } => Event::DecisionAnswered {
                pane_id: pane.id.clone(),
                decision_id: id,
                option_id: option,
                pane: Box::new(pane.clone()),
            },
            Change::DecisionCleared { id, reason } => Event::DecisionCleared {
                pane_id: pane.id.clone(),
                decision_id: id,
                reason: reason.to_owned(),
                pane: Box::new(pane.clone()),
            },
        }
    }
}

/// The instant a batch of operations runs at: the wall clock, for what is
/// recorded and shown, and, when the caller knows it, how long the pane's
/// current lifecycle has lasted on the monotonic clock (`stretch.rs`).
#[derive(Debug, Clone)]
pub struct Now {
    /// The wall-clock time.
    pub wall: Timestamp,
    /// How long the lifecycle the batch finds has lasted.
    pub lasted: Option<Duration>,
    /// The machine's time zone, for the clock times agents print.
    pub zone: Zone,
}

impl From<Timestamp> for Now {
    fn from(wall: Timestamp) -> Now {
        Now {
            wall,
            lasted: None,
            zone: Zone::UTC,
        }
    }
}

/// The operations of docs/states.md#attention-operations on one pane, at one
/// instant.
pub struct Axes<'a> {
    pub pane: &'a mut Pane,
    now: Timestamp,
    /// How long the current lifecycle has lasted, on the monotonic clock.
    lasted: Option<Duration>,
    zone: Zone,
    changes: Vec<Change>,
}

impl<'a> Axes<'a> {
    pub fn new(pane: &'a mut Pane, now: impl Into<Now>) -> Axes<'a> {
        let Now { wall, lasted, zone } = now.into();
        Axes {
            pane,
            now: wall,
            lasted,
            zone,
            changes: Vec::new(),
        }
    }

    /// Ends the batch: the changes as events, each carrying the final pane.
    pub fn into_events(self) -> Vec<Event> {
        let pane = &*self.pane;
        self.changes
            .into_iter()
            .map(|c| c.into_event(pane))
            .collect()
    }

    /// Sets the lifecycle (docs/states.md#lifecycle-states): a no-op when equal;
    /// otherwise `last_lifecycle`, `lifecycle_since` and `last_activity_at`
    /// follow, and leaving `working` records how long it ran. Returns whether it
    /// changed.
    pub fn set_lifecycle(&mut self, to: Lifecycle, source: &str) -> bool {
        let prev = self.pane.lifecycle;
        if prev == to {
            return false;
        }
        if prev == Lifecycle::Working
            && let Some(secs) = self.run_secs()
        {
            self.pane.last_run_secs = Some(secs);
        }
        self.pane.lifecycle = to;
        self.pane.last_lifecycle = prev;
        self.pane.lifecycle_since = Some(self.now.clone());
        self.lasted = Some(Duration::ZERO);
        self.pane.last_activity_at = self.now.clone();
        self.changes.push(Change::Lifecycle {
            to,
            prev,
            source: source.to_owned(),
        });
        // A limit holds the pane `blocked`: whatever moves it on (the agent
        // at work again, a turn end, the exit) ends the wait
        // (docs/states.md#usage-limits).
        if prev == Lifecycle::Blocked && self.pane.attention == Attention::RateLimited {
            self.clear("limit_left");
        }
        true
    }

    /// The agent stopped at its usage limit (docs/states.md#usage-limits):
    /// `blocked`, attention raised to `rate_limited`, and `resets_at` as the
    /// agent said it, set when the pane enters the wait (a limit read again
    /// keeps the first reading).
    pub fn rate_limit(&mut self, resets_at: Option<Timestamp>, source: &str) {
        self.set_lifecycle(Lifecycle::Blocked, source);
        if self.raise(Attention::RateLimited) {
            self.pane.resets_at = resets_at;
        }
    }

    /// A new question or approval on a pane that waits at its usage limit:
    /// the agent went back to work to ask it (Gemini CLI fires no hook when
    /// it retries), so the pane is `working` for a moment, which ends the
    /// wait, before it is `blocked` again. The activity gate of a prompt
    /// that continued it sees the turn taken
    /// (docs/states.md#usage-limits).
    pub fn leave_limit_for_question(&mut self, source: &str) {
        if self.pane.lifecycle == Lifecycle::Blocked
            && self.pane.attention == Attention::RateLimited
        {
            self.set_lifecycle(Lifecycle::Working, source);
        }
    }

    /// `rate_limit`, with the reset time read from the agent's own words
    /// (docs/states.md#reading-the-reset-time): none when they give none.
    pub fn rate_limit_said(&mut self, words: &str, source: &str) {
        let resets_at = self
            .now
            .unix_millis()
            .and_then(|now| resets::resets_at(words, now, self.zone))
            .map(Timestamp::from_unix_millis);
        self.rate_limit(resets_at, source);
    }

    /// How long the current lifecycle has lasted, in whole seconds: on the
    /// monotonic clock when the batch knows it; otherwise (a stretch that
    /// began before this process saw it) from the wall clock, never below
    /// zero.
    fn run_secs(&self) -> Option<i64> {
        match self.lasted {
            Some(lasted) => Some(i64::try_from(lasted.as_secs()).unwrap_or(i64::MAX)),
            None => {
                let since = self.pane.lifecycle_since.as_ref()?;
                Some(self.now.seconds_since(since)?.max(0))
            },
        }
    }

    /// raise(x): `attention = max(attention, x)`; never lowers. Returns whether it
    /// changed.
    pub fn raise(&mut self, to: Attention) -> bool {
        let prev = self.pane.attention;
        if to.severity() <= prev.severity() {
            return false;
        }
        self.pane.attention = to;
        self.pane.attention_since = Some(self.now.clone());
        self.pane.resets_at = None;
        self.changes.push(Change::Attention { to, prev });
        true
    }

    /// clear(reason): attention to `none`, `last_seen_at = now`; a no-op when
    /// already `none`. Returns whether it changed.
    pub fn clear(&mut self, reason: &'static str) -> bool {
        if self.pane.attention == Attention::None {
            return false;
        }
        self.pane.attention = Attention::None;
        self.pane.attention_since = None;
        self.pane.resets_at = None;
        self.pane.last_seen_at = Some(self.now.clone());
        self.changes.push(Change::Cleared { reason });
        true
    }

    /// acknowledge / mark_seen(reason): `last_seen_at = now`, then clear unless a
    /// decision is pending (its attention survives reading and focusing) or
    /// the pane waits at its usage limit (a wait, not news: it lasts until
    /// the pane moves on, docs/states.md#usage-limits).
    pub fn acknowledge(&mut self, reason: &'static str, decision_pending: bool) -> bool {
        self.pane.last_seen_at = Some(self.now.clone());
        !decision_pending && self.pane.attention != Attention::RateLimited && self.clear(reason)
    }

    #[cfg(test)]
    /// The exit of the pane's child (steps 2 and 3 of
    /// docs/states.md#when-the-process-exits); step 1 (`live`, `pane.exited`) is
    /// the caller's. An agent pane becomes `exited`; a pane with no agent `done`
    /// for code 0 and `failed` otherwise. Questions that can no longer be
    /// answered lower to `unread`; a turn already reviewed stays quiet; anything
    /// else raises `unread`.
    pub fn exit(&mut self, code: Option<i32>) {
        self.exit_as(code, false);
    }

    /// `exit`, for a process its task stopped (`quiet`: `task.cancel` or
    /// `task.finish` cleared its attention first): the exit raises nothing,
    /// since whoever closed it needs no reminder to look.
    pub fn exit_as(&mut self, code: Option<i32>, quiet: bool) {
        let before = self.pane.lifecycle;
        let to = if self.pane.agent.kind.is_agent() {
            Lifecycle::Exited
        } else if code == Some(0) {
            Lifecycle::Done
        } else {
            Lifecycle::Failed
        };
        self.set_lifecycle(to, "exit");
        let attention = self.pane.attention;
        if matches!(
            attention,
            Attention::InputRequired | Attention::PermissionRequired
        ) {
            self.pane.attention = Attention::Unread;
            self.pane.attention_since = Some(self.now.clone());
            self.changes.push(Change::Attention {
                to: Attention::Unread,
                prev: attention,
            });
        } else if (quiet || matches!(before, Lifecycle::Done | Lifecycle::Failed))
            && attention == Attention::None
        {
            // Reviewed already, or closed on purpose: the exit is not news.
        } else {
            self.raise(Attention::Unread);
        }
        // Nobody can answer a question whose process is gone.
        self.clear_decision("pane_exited");
    }

    /// Sets the pending decision, superseding any other (one `decision.created`
    /// carrying the replaced id, never a clear and a create).
    pub fn set_decision(&mut self, decision: Decision) {
        let prev = self
            .pane
            .pending_decision
            .replace(Box::new(decision.clone()))
            .map(|d| d.id);
        self.changes
            .push(Change::DecisionCreated { decision, prev });
    }

    /// Drops the pending decision unanswered (`attention_cleared`, `moved_on`,
    /// `pane_exited`, `native_cancelled`). Returns it, if there was one.
    pub fn clear_decision(&mut self, reason: &'static str) -> Option<Decision> {
        let dropped = self.pane.pending_decision.take()?;
        self.changes.push(Change::DecisionCleared {
            id: dropped.id.clone(),
            reason,
        });
        Some(*dropped)
    }

    /// Consumes the pending decision `id` for an answer: the decision is gone
    /// before anything is delivered, so it can be answered at most once; then
    /// reading is acknowledged (`decision_answer`). `None` when `id` is not the
    /// pending decision.
    pub fn consume_decision(&mut self, id: &str, option: &str) -> Option<Decision> {
        if self.pane.pending_decision.as_ref().map(|d| d.id.as_str()) != Some(id) {
            return None;
        }
        let consumed = self.pane.pending_decision.take()?;
        self.changes.push(Change::DecisionAnswered {
            id: consumed.id.clone(),
            option: option.to_owned(),
        });
        self.acknowledge("decision_answer", false);
        Some(*consumed)
    }

    /// Stores a notification
    /// (docs/notifications.md#how-a-notification-is-stored): `last_message`
    /// follows the notify rule, activity is touched, and attention rises by
    /// severity.
    pub fn notify(&mut self, new: NewNotification) {
        if let Some(message) = new.last_message(self.pane.last_message.as_deref()) {
            self.pane.last_message = Some(message);
        }
        self.pane.last_activity_at = self.now.clone();
        let attention = new.notification.severity.attention();
        self.changes.push(Change::Notification(new.notification));
        self.raise(attention);
    }

    /// Sets `last_message` (an adapter's message or a decision prompt).
    pub fn set_message(&mut self, message: &str) {
        self.pane.last_message = Some(message.to_owned());
    }

    /// Touches `last_activity_at`.
    pub fn touch(&mut self) {
        self.pane.last_activity_at = self.now.clone();
    }
}
