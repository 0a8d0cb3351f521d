//! AgentTracker: one pane's agent state (lifecycle, attention, decision) and
//! the evidence flags that decide which rules may move it: hooked, the
//! input_required the screen raised, the question watch, the last screen
//! evaluation, Cursor's tool calls, what was typed. Pure: no actix and no timers
//! of its own. Each step returns the effects the Pane actor performs (events to
//! publish, timers to arm or cancel, the answer route to check).
//!
//! ```text
//!   Pane actor                     AgentTracker                  state engine
//!   Hook ─────────── on_hook ───▶ H3 (hooks beat screens) ───▶ check_hook, apply_checked
//!   Output ─ on_output, on_screen ▶ question watch, arm tick
//!   timer fires ──── on_timer ───▶ screen tick / settle / approval ─▶ apply_screen, Axes
//!   exit, /proc, input, resume ──▶ on_exit, on_process, on_input, on_process_started
//!        ◀── Vec<Effect>: Publish(events) · Arm{timer, after} · Cancel(timer) · CheckRoute
//! ```

mod carry;
mod cursor;
mod hibernate;
mod interrupt;
mod limit;
mod printing;
mod process;
mod put_back;
mod screen;
mod session;
mod subagent;
#[cfg(test)]
mod tests;
mod version;

pub use carry::Carry;
pub use screen::Screen;

use super::Axes;
use super::apply::{HookInput, apply_checked, check_hook, record_session};
use crate::domain::state::question::QuestionWatch;
use crate::domain::state::stretch::Stretch;
use crate::ids::random_u128;
use serde_json::Value;
use signaltty_model::agents::AgentRules;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, LiveState, Pane, RestoreState};
use signaltty_protocol::state::{Decision, HookEventResult, Severity};
use signaltty_protocol::{Event, Timestamp};
use std::time::Duration;

/// A timer the tracker asks for. The Pane arms it and hands it back to
/// `AgentTracker::on_timer` when it fires; tokens are unique per pane, so a
/// timer that fires late is recognised as stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timer {
    /// The next screen evaluation (`SCREEN_TICK` after a change).
    ScreenTick,
    /// The settle check of a question that reads dismissed, by token.
    Settle(u64),
    /// A Cursor tool call's approval wait, by token.
    Approval(u64),
    /// The check of an idle screen on a hooked, working pane, by token.
    Interrupt(u64),
}

/// What the Pane actor does after a tracker step, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Publish these events, in this order, as one batch.
    Publish(Vec<Event>),
    /// Arm `timer` to fire `after` from now.
    Arm {
        /// Which timer.
        timer: Timer,
        /// How long from now.
        after: Duration,
    },
    /// Cancel `timer` if it has not fired yet.
    Cancel(Timer),
    /// The pane's state changed in a way that may end the native answer route
    /// (docs/decisions.md#the-waiting-reporter): check whether it still fits.
    CheckRoute,
}

/// A routed, validated hook for this pane, as the Pane actor received it.
#[derive(Debug, Clone)]
pub struct HookReport {
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

/// What a hook did: the effects to perform and the `hook-event` reply.
#[derive(Debug)]
pub struct HookOutcome {
    /// Timers, the events to publish and the route check, in order.
    pub effects: Vec<Effect>,
    /// The `hook-event` result, sent once the events are published.
    pub reply: HookEventResult,
}

/// Which evidence last moved an axis, and when (for `pane.explain`).
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// The source: `hook:claude:Stop`, `screen:<rule>`, `bell`, …
    pub source: String,
    /// When it moved the axis.
    pub at: Timestamp,
}

/// Which evidence last moved each axis.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Evidence {
    /// What last moved the lifecycle.
    pub lifecycle: Option<Observed>,
    /// What last moved attention.
    pub attention: Option<Observed>,
}

/// Whether the pane has a running process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Process {
    /// Spawned (or resumed) and not reported exited.
    Live,
    /// Exited or closed: no rule looks at the pane any more.
    Gone,
}

/// What the 10-second process refresh saw, as the tracker needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessReport {
    /// The program's name (a runtime's script name).
    pub name: String,
    /// A working directory that differs from the pane's and exists (the Pane
    /// checks the file system; the tracker does no I/O).
    pub new_cwd: Option<String>,
    /// `SIGNALTTY_AGENT` from the process environment.
    pub hint: Option<String>,
    /// The npm packages around its program, nearest first.
    pub packages: Vec<(String, String)>,
}

/// What the screen tick last looked at: a tick that would see the same gives
/// the same answer, so it is skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ScreenSeen {
    output_offset: u64,
    rules_generation: u64,
    kind: AgentKind,
    program: String,
}

/// The settle check that is pending, with the rule whose idle reading
/// scheduled it (its source, should the question count as dismissed).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingSettle {
    token: u64,
    rule: String,
}

/// One pane's agent state and the flags around the state engine.
#[derive(Debug)]
pub struct AgentTracker {
    /// The pane object: lifecycle, attention, decision, agent identity, and
    /// the fields the Pane actor sets (title, size, name, tab) through
    /// `pane_mut`.
    pane: Pane,
    /// The active screen rules and manifests.
    rules: AgentRules,
    /// How long a Cursor tool call runs before it counts as waiting.
    approval_wait: Duration,
    process: Process,
    /// The program the pane runs now, as the process refresh last saw it.
    process_name: String,
    /// Cumulative output bytes, as of the last `on_output`.
    output_offset: u64,
    /// The current process has sent a hook: screen rules no longer apply to it.
    hooked: bool,
    /// The pane's `input_required` was raised by a screen rule.
    screen_raised: bool,
    /// Input was written to this process since it started (`pane.input`).
    typed: bool,
    /// The pane's task closed it (cancel, finish): its exit raises nothing.
    task_closed: bool,
    /// Unhooked and blocked: a screen change read working since the screen
    /// last showed the question (`watch_blocked_turn`).
    worked_since_blocked: bool,
    /// What last moved lifecycle and attention.
    evidence: Evidence,
    /// What the last screen tick looked at.
    screen_seen: Option<ScreenSeen>,
    /// A screen tick is armed.
    screen_armed: bool,
    /// While a hook keeps the pane blocked: what the screen shows of its question.
    question: QuestionWatch,
    /// The settle check scheduled last.
    settle: Option<PendingSettle>,
    /// An idle screen on a pane its hooks keep working (`interrupt.rs`).
    interrupt: interrupt::InterruptWatch,
    /// The last hook was a session end that raised `unread` (`session.rs`).
    session_end_unread: bool,
    /// The start of the prompt last pasted or typed (`put_back.rs`).
    submitted: Option<String>,
    /// The line being typed through `pane.input`.
    typed_line: put_back::TypedLine,
    /// Blocked by a subagent after the main turn ended: that turn's state,
    /// to go back to once answered (`subagent.rs`).
    after_subagent_question: Option<Lifecycle>,
    /// Cursor tool calls and the approvals inferred from them.
    approvals: cursor::Approvals,
    /// When the current lifecycle began, on the monotonic clock.
    stretch: Stretch,
    /// The current stretch of output (`printing.rs`).
    printing: printing::PrintRun,
}

impl AgentTracker {
    /// A tracker with these rules and this Cursor approval wait.
    pub fn with_rules(pane: Pane, rules: AgentRules, approval_wait: Duration) -> AgentTracker {
        AgentTracker {
            process_name: signaltty_model::agents::programs::name_of(&pane.argv),
            // A restored tombstone has no process: screen rules and timers
            // never look at it until it is resumed.
            process: if pane.live == LiveState::Live {
                Process::Live
            } else {
                Process::Gone
            },
            pane,
            rules,
            approval_wait,
            output_offset: 0,
            hooked: false,
            screen_raised: false,
            typed: false,
            worked_since_blocked: false,
            task_closed: false,
            evidence: Evidence::default(),
            screen_seen: None,
            screen_armed: false,
            question: QuestionWatch::default(),
            settle: None,
            interrupt: interrupt::InterruptWatch::default(),
            session_end_unread: false,
            submitted: None,
            typed_line: put_back::TypedLine::default(),
            after_subagent_question: None,
            approvals: cursor::Approvals::default(),
            stretch: Stretch::default(),
            printing: printing::PrintRun::default(),
        }
    }

    /// Reads the clock times agents print in `zone`, the machine's.
    pub fn set_zone(&mut self, zone: signaltty_model::agents::resets::Zone) {
        self.stretch.zone = zone;
    }

    /// The pane object as it is now.
    pub fn pane(&self) -> &Pane {
        &self.pane
    }

    /// The pane object, for the fields no rule here judges (title, name,
    /// size, tab). Lifecycle and attention change only through the tracker.
    pub fn pane_mut(&mut self) -> &mut Pane {
        &mut self.pane
    }

    #[cfg(test)]
    /// Whether the current process has sent a hook.
    pub fn hooked(&self) -> bool {
        self.hooked
    }

    #[cfg(test)]
    /// Whether the pane has a running process.
    pub fn process(&self) -> Process {
        self.process
    }

    #[cfg(test)]
    /// What last moved each axis.
    pub fn evidence(&self) -> &Evidence {
        &self.evidence
    }

    /// A decision is pending on this pane: its attention survives reading.
    pub fn decision_pending(&self) -> bool {
        self.pane.pending_decision.is_some()
    }

    fn live(&self) -> bool {
        self.process == Process::Live
    }

    /// Runs state-engine operations on the pane at one instant, remembers
    /// `source` as the evidence of what moved, and returns the events.
    pub fn with_axes(&mut self, source: &str, f: impl FnOnce(&mut Axes<'_>)) -> Vec<Event> {
        let events = self.stretch.batch(&mut self.pane, |pane, now| {
            let mut axes = Axes::new(pane, now);
            f(&mut axes);
            axes.into_events()
        });
        self.note_evidence(source, &events);
        events
    }

    /// Remembers `source` as the evidence behind each axis `events` moved.
    fn note_evidence(&mut self, source: &str, events: &[Event]) {
        let now = Timestamp::now();
        let observed = || Observed {
            source: source.to_owned(),
            at: now.clone(),
        };
        if events.iter().any(|e| e.name().starts_with("agent.")) {
            self.evidence.lifecycle = Some(observed());
        }
        if events.iter().any(|e| e.name().starts_with("attention.")) {
            self.evidence.attention = Some(observed());
        }
    }

    /// The actor started: the first screen evaluation is armed.
    pub fn on_start(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.arm_screen(&mut effects);
        effects
    }

    /// Output arrived; `output_offset` counts every byte so far. Called before
    /// the terminal's own events (title, bell) are applied, so they carry the
    /// new activity time; `on_screen` follows once the grid has the bytes.
    pub fn on_output(&mut self, output_offset: u64, now: std::time::Instant) {
        self.output_offset = output_offset;
        self.printing.output(now);
        self.pane.last_activity_at = Timestamp::now();
    }

    /// The screen changed: a hook-blocked pane looks for its question at once,
    /// and the next screen tick is armed.
    pub fn on_screen(&mut self, screen: &dyn Screen) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.look_for_question(screen);
        self.watch_blocked_turn(screen);
        self.arm_screen(&mut effects);
        effects
    }

    /// Input of `bytes` bytes was written through `pane.input`: a turn the
    /// agent starts from now on was prompted (see `apply_screen`).
    pub fn on_input(&mut self, bytes: usize) {
        self.typed |= bytes > 0;
    }

    /// The active rule set changed (`agents.reload`): evaluate again.
    pub fn on_rules_changed(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.arm_screen(&mut effects);
        effects
    }

    /// Applies a hook (H1–H10 of docs/states.md#hook-processing-rules). H1 is
    /// checked once; an accepted hook marks the process hooked (H3: screen
    /// rules stop for it, and an `input_required` the screen raised is
    /// withdrawn first).
    pub fn on_hook(&mut self, hook: HookReport, screen: &dyn Screen) -> HookOutcome {
        let rules = self.rules.current();
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
            overlay: rules.overlay(hook.kind, &self.process_name),
        };
        let mut effects = Vec::new();
        let dropped = match check_hook(&self.pane, &input) {
            Err(reason) => Some(reason),
            Ok(mut checked) => {
                if self.turn_end_reads_interrupted(&checked, screen) {
                    checked.read_as_interrupted();
                }
                self.turn_end_reads_limit(&mut checked, screen);
                let role = checked.role();
                let unread_before = self.pane.attention == Attention::Unread;
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
                self.interrupt.cancel();
                let before = self.pane.lifecycle;
                let was_blocked = before == Lifecycle::Blocked;
                let applied = self.stretch.batch(&mut self.pane, |pane, now| {
                    apply_checked(pane, checked, now)
                });
                events.extend(applied);
                events.extend(self.session_replaced(role, unread_before));
                self.note_question_origin(before, &hook.payload);
                // Still blocked: the agent talks, so the screen's idle is not
                // a dismissal yet. Otherwise a new question (or none): the
                // screen has not shown it yet.
                if was_blocked && self.pane.lifecycle == Lifecycle::Blocked {
                    self.question.hook_while_blocked();
                } else {
                    self.question.reset();
                }
                // Blocked by a hook: look at the screen, which may already
                // show the question (it is then watched for being dismissed).
                if !was_blocked && self.pane.lifecycle == Lifecycle::Blocked {
                    self.look_for_question(screen);
                    self.screen_seen = None;
                    self.arm_screen(&mut effects);
                }
                if before != Lifecycle::Done && self.pane.lifecycle == Lifecycle::Done {
                    self.check_turn_end_later(&mut effects);
                }
                // A hook that leaves the turn working (Qwen Code's
                // Notification right after Esc) cancelled the interrupt
                // check: the screen, unchanged since, is read again.
                if self.pane.lifecycle == Lifecycle::Working && self.reads_interrupts() {
                    self.screen_seen = None;
                    self.arm_screen(&mut effects);
                }
                if hook.kind == AgentKind::Cursor {
                    events.extend(self.cursor_hook(&hook.event, &hook.payload, &mut effects));
                }
                self.note_evidence(&format!("hook:{}:{}", hook.agent, hook.event), &events);
                if !events.is_empty() {
                    effects.push(Effect::Publish(events));
                }
                None
            },
        };
        let accepted = dropped.is_none();
        let reply = HookEventResult {
            accepted,
            agent: hook.agent,
            event: hook.event,
            pane_id: Some(self.pane.id.clone()),
            dropped: dropped.map(|_| true),
            reason: dropped.map(str::to_owned),
            lifecycle: accepted.then_some(self.pane.lifecycle),
            attention: accepted.then_some(self.pane.attention),
        };
        effects.push(Effect::CheckRoute);
        HookOutcome { effects, reply }
    }

    /// `report-session`: records the agent session directly (a pane with no
    /// kind becomes `generic`). Always publishes exactly one `pane.updated`.
    pub fn on_session_report(&mut self, kind: Option<AgentKind>, session_id: &str) -> Vec<Effect> {
        let kind = kind.unwrap_or(match self.pane.agent.kind {
            AgentKind::None => AgentKind::Generic,
            kind => kind,
        });
        let rules = self.rules.current();
        let overlay = rules.overlay(kind, &self.process_name);
        record_session(&mut self.pane, kind, session_id, overlay, &Timestamp::now());
        vec![
            Effect::CheckRoute,
            Effect::Publish(vec![Event::PaneUpdated {
                pane_id: self.pane.id.clone(),
                pane: self.pane.clone(),
            }]),
        ]
    }

    /// The child exited with `code` and its output is drained
    /// (docs/states.md#when-the-process-exits): `pane.exited`, then the exit
    /// rules' events, in one batch.
    pub fn on_exit(&mut self, code: Option<i32>) -> Vec<Effect> {
        self.process = Process::Gone;
        self.pane.live = LiveState::Exited { code };
        self.pane.restore_state = RestoreState::Exited;
        self.pane.last_activity_at = Timestamp::now();
        let mut events = vec![Event::PaneExited {
            pane_id: self.pane.id.clone(),
            code,
        }];
        let quiet = self.task_closed;
        events.extend(self.with_axes("exit", |axes| axes.exit_as(code, quiet)));
        vec![Effect::Publish(events), Effect::CheckRoute]
    }

    /// The pane's task closes it: its attention and decision go now, and the
    /// exit that follows raises nothing.
    pub fn on_task_closed(&mut self) -> Vec<Event> {
        self.task_closed = true;
        self.with_axes("task_closed", |axes| {
            axes.clear_decision("pane_exited");
            axes.clear("task_closed");
        })
    }

    /// The pane was closed: its process is gone and nothing is judged again.
    pub fn on_closed(&mut self) {
        self.process = Process::Gone;
    }

    /// The native answer route of decision `id` ended (its reporter stopped
    /// waiting). If it is still the pending decision it is cleared
    /// (`native_cancelled`), and a still-blocked pane hands its question over
    /// to the screen (the agent gave up waiting, or asks in its own UI).
    pub fn on_route_ended(&mut self, id: &str) -> Vec<Effect> {
        let mut effects = Vec::new();
        let current = self
            .pane
            .pending_decision
            .as_ref()
            .is_some_and(|d| d.id == id);
        if !current {
            return effects;
        }
        let events = self.with_axes("native", |axes| {
            axes.clear_decision("native_cancelled");
        });
        effects.push(Effect::Publish(events));
        if self.pane.lifecycle == Lifecycle::Blocked {
            self.question.native_question_ended();
            self.screen_seen = None;
            self.arm_screen(&mut effects);
        }
        effects
    }

    /// An answer to the pending decision reached the agent: a blocked pane
    /// goes back to work. Returns the events.
    pub fn on_answer_delivered(&mut self) -> Vec<Event> {
        if self.pane.lifecycle != Lifecycle::Blocked {
            return Vec::new();
        }
        let to = self.after_answer();
        self.with_axes("answer", |axes| {
            axes.set_lifecycle(to, "answer");
        })
    }

    /// A timer the tracker asked for fired at `now`; `screen` is the pane's
    /// screen now.
    pub fn on_timer(
        &mut self,
        timer: Timer,
        screen: &dyn Screen,
        now: std::time::Instant,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        match timer {
            Timer::ScreenTick => {
                self.screen_armed = false;
                self.screen_tick(screen, now, &mut effects);
            },
            Timer::Settle(token) => self.on_settle(token, screen, &mut effects),
            Timer::Approval(token) => self.on_approval_timer(token, &mut effects),
            Timer::Interrupt(token) => self.on_interrupt_settle(token, screen, &mut effects),
        }
        effects
    }
}
