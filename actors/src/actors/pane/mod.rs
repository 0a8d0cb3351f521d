//! Pane: owns one PTY, its headless terminal (grid, rendered ring, OSC scanner)
//! and its output offset. Output arrives from the PTY reader thread one chunk at a
//! time and is acknowledged only after it was processed, so a flooding child is
//! slowed by its own PTY rather than growing the server. Pane actors run on a
//! small pool of arbiters, away from the Supervisor's thread. The agent state
//! (lifecycle, attention and the flags around them) lives in an `AgentTracker`
//! (`state/tracker/`); the pane feeds it and performs the effects it returns.

use crate::actors::connection::DeliverPty;
use crate::actors::publish::{PtyOut, Publish};
use crate::config::Config;
use crate::domain::state::tracker::{AgentTracker, Effect, Screen, Timer};
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use signaltty_model::term::Terminal;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{MAX_READ_LINES, Pane as PaneState, PaneReadResult, ReadMode};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

mod decisions;
mod handoff;
mod hibernate;
mod hooks;
mod output;
mod process;
mod resume;
mod screen;
mod signals;
mod sink;
mod submit;
#[cfg(test)]
mod tests;
mod viewers;
pub use crate::os::pty::{PtyHandle, SignalTarget};
pub use decisions::{Answer, NativeHook, NativeRoute, NativeStarted};
pub use handoff::{HandOver, HandedOver, Released, TakeBack};
pub use hibernate::Hibernate;
pub use hooks::{Hook, ReportSession};
pub use process::{
    ChildExited, ClosePane, IsLive, OutputEnded, ResizePane, SignalPane, WriteInput,
};
pub use resume::{Relaunched, Resume};
pub use screen::RulesChanged;
pub use signals::{Explain, MarkSeen, Notify, NotifyGate, ProcessSeen, TaskClosed};
pub use sink::{Credit, PaneAddr, PaneSink};
pub use submit::{InputBox, InputBoxNow, SubmitEnter, SubmitPaste, SubmitRetry};
pub use viewers::{Attach, Detach};

/// The time budget of one `pane.input` (docs/terminal.md#the-bound-writer).
pub const INPUT_BUDGET: Duration = Duration::from_secs(5);

/// How long a pane's output stays quiet before its terminal gives back the
/// memory it reserved while output flowed (docs/terminal.md#memory).
const SHRINK_AFTER_QUIET: Duration = Duration::from_secs(5);

/// A chunk of PTY output. The PTY loop reads this pane on only while fewer
/// than `OUTPUT_WINDOW` credits are out.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Output {
    /// The bytes, as read.
    pub chunk: Vec<u8>,
    /// Dropped when the chunk is processed and every viewer took it
    /// (`output.rs`), or with the message if the pane is gone.
    pub credit: Credit,
}

/// Replies with the pane object.
#[derive(Debug, Message)]
#[rtype(result = "PaneState")]
pub struct GetPane;

/// Reads the screen or the rendered ring (docs/terminal.md#read-modes). Never
/// fails.
#[derive(Debug, Message)]
#[rtype(result = "Result<PaneReadResult, Error>")]
pub struct ReadPane {
    /// Which read.
    pub mode: ReadMode,
    /// Lines wanted (capped at 5000).
    pub lines: u64,
    /// `rendered` cursor.
    pub after_seq: u64,
    /// `false`: a `screen` read keeps the grid's SGR colours (the ring's
    /// lines are plain text either way).
    pub strip_ansi: bool,
}

/// Sets or clears the pane's name (already validated and reserved by the
/// Supervisor). Replies with the pane after `pane.updated`.
#[derive(Debug, Message)]
#[rtype(result = "Result<PaneState, Error>")]
pub struct SetName {
    /// The new name, or none.
    pub name: Option<String>,
}

/// Clears the screen as if the program had printed `ESC[H ESC[2J ESC[3J` (every
/// viewer clears at the same offset), then drops the history so earlier cursors
/// read as dropped (docs/terminal.md#clearing-a-pane). Replies with the offset.
#[derive(Debug, Message)]
#[rtype(result = "Result<u64, Error>")]
pub struct ClearPane;

/// The pane now shows in another tab (`pane.swap`, `pane.move`). Replies with the
/// pane; the caller publishes `pane.updated`.
#[derive(Debug, Message)]
#[rtype(result = "PaneState")]
pub struct SetTab {
    /// The new tab.
    pub tab_id: signaltty_protocol::TabId,
}

/// The child was reaped: its exit code (`None` when unknown), waiting for the
/// output to drain before the exit is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reaped {
    code: Option<i32>,
}

/// The Pane actor.
pub struct Pane {
    /// The pane object and its agent state.
    tracker: AgentTracker,
    term: Terminal,
    /// Cumulative output bytes of this pane in this server run.
    output_offset: u64,
    pty: Option<Box<dyn PtyHandle>>,
    events: Recipient<Publish>,
    /// The `pty.data` on its way to the viewers (`output.rs`).
    outbox: output::Outbox,
    /// Attached connections.
    viewers: HashMap<ConnId, Recipient<DeliverPty>>,
    /// The viewers that only watch (a board's preview): they get output but
    /// answer no terminal query.
    watchers: HashSet<ConnId>,
    /// The PTY reached EOF.
    ended: bool,
    /// The child was reaped (the exit may not be reported yet).
    reaped: Option<Reaped>,
    exit_reported: bool,
    /// Rate limit and coalescing of terminal notifications.
    notify_gate: NotifyGate,
    /// The live answer route of a pending native permission request (boxed,
    /// as `stopping`: most panes never have one).
    route: Option<Box<NativeRoute>>,
    /// The tracker's armed timers, so that it can cancel them.
    timers: HashMap<Timer, SpawnHandle>,
    /// An upgrade's release whose reader has not stopped yet.
    handing: Option<handoff::Handing>,
    /// The hibernation stop under way (docs/restore.md#hibernation).
    stopping: Option<Box<hibernate::Stopping>>,
    /// Input was typed without its Enter.
    unsent: bool,
    /// A `pane.resume` is starting the process.
    resuming: bool,
    /// The last input, prompt, attach or detach.
    touched: std::time::Instant,
    /// The last output (the first-prompt gate's quiet, `submit.rs`).
    last_output: std::time::Instant,
    /// A check for quiet output is armed (`shrink_when_quiet`).
    shrink_armed: bool,
}

impl Screen for Terminal {
    fn text(&self) -> String {
        self.screen_text()
    }

    fn width(&self) -> Option<usize> {
        Some(usize::from(self.size().1))
    }
}

/// Where a step's events go: published at once (`do_send`), or handed back
/// so that the handler can reply once they are published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Publishing {
    Now,
    Collect,
}

impl Pane {
    /// A pane actor for a freshly spawned process on `pty`; the agent rules
    /// and the Cursor approval wait come from `config`.
    pub fn new(
        state: PaneState,
        pty: Box<dyn PtyHandle>,
        events: Recipient<Publish>,
        pty_out: PtyOut,
        config: &Config,
    ) -> Pane {
        let term = Terminal::new(state.pty_size.rows, state.pty_size.cols);
        let tracker = AgentTracker::with_rules(
            state,
            config.agents.clone(),
            config.limits.cursor_approval_wait,
        );
        Pane::assemble(tracker, term, 0, Some(pty), events, pty_out)
    }

    /// A pane actor over `tracker` and `term`, its output counted from
    /// `output_offset`; without a `pty` it reads as a pane whose process
    /// has exited and been reported.
    fn assemble(
        mut tracker: AgentTracker,
        term: Terminal,
        output_offset: u64,
        pty: Option<Box<dyn PtyHandle>>,
        events: Recipient<Publish>,
        pty_out: PtyOut,
    ) -> Pane {
        let gone = pty.is_none();
        tracker.set_zone(crate::os::zone::LOCAL);
        Pane {
            tracker,
            term,
            output_offset,
            pty,
            events,
            outbox: output::Outbox::new(pty_out),
            viewers: HashMap::new(),
            watchers: HashSet::new(),
            ended: gone,
            reaped: gone.then_some(Reaped { code: None }),
            exit_reported: gone,
            notify_gate: NotifyGate::default(),
            route: None,
            timers: HashMap::new(),
            handing: None,
            stopping: None,
            unsent: false,
            resuming: false,
            touched: std::time::Instant::now(),
            last_output: std::time::Instant::now(),
            shrink_armed: false,
        }
    }

    /// A restored pane (docs/restore.md#tombstones): no process, its terminal
    /// rebuilt at the saved size from the saved `tail` (oldest line first),
    /// followed by one dimmed line saying it was restored and when. `resume`
    /// starts a process in it later; until then it answers as an exited pane.
    pub fn tombstone(
        state: PaneState,
        tail: Option<&str>,
        events: Recipient<Publish>,
        pty_out: PtyOut,
        config: &Config,
    ) -> Pane {
        let mut term = Terminal::new(state.pty_size.rows, state.pty_size.cols);
        let mut replay = String::new();
        if let Some(tail) = tail.filter(|t| !t.is_empty()) {
            // The tail is plain text lines; a terminal needs CR LF to start
            // each one at the left margin.
            replay.push_str(&tail.replace('\n', "\r\n"));
            replay.push_str("\r\n");
        }
        replay.push_str(&format!(
            "\x1b[2m── restored by signaltty at {} ──\x1b[0m\r\n",
            signaltty_protocol::Timestamp::now()
        ));
        // Nothing is scanned for signals here: the restored text is history.
        let _ = term.feed(replay.as_bytes());
        term.drop_earlier_cursors();
        let tracker = AgentTracker::with_rules(
            state,
            config.agents.clone(),
            config.limits.cursor_approval_wait,
        );
        Pane::assemble(tracker, term, 0, None, events, pty_out)
    }

    /// Leaves this pane's ring in `slot`, where the snapshot writer reads its
    /// tail (docs/persistence.md#screen-tails) without a message to the pane.
    pub fn with_tail_slot(self, slot: &signaltty_model::term::TailSlot) -> Pane {
        slot.fill(self.term.tail_source());
        self
    }

    /// The pane object.
    fn state(&self) -> &PaneState {
        self.tracker.pane()
    }

    /// Performs a tracker step's effects in order and returns the events
    /// collected for the caller to publish.
    fn perform(&mut self, effects: Vec<Effect>, ctx: &mut Context<Self>) -> Vec<Event> {
        self.run_effects(effects, Publishing::Collect, ctx)
    }

    /// Performs a tracker step's effects in order, publishing its events as
    /// they come (nobody waits for them).
    fn perform_now(&mut self, effects: Vec<Effect>, ctx: &mut Context<Self>) {
        self.run_effects(effects, Publishing::Now, ctx);
    }

    fn run_effects(
        &mut self,
        effects: Vec<Effect>,
        publishing: Publishing,
        ctx: &mut Context<Self>,
    ) -> Vec<Event> {
        let mut collected = Vec::new();
        for effect in effects {
            match effect {
                Effect::Publish(events) => match publishing {
                    Publishing::Collect => collected.extend(events),
                    Publishing::Now => self.events.do_send(Publish::new(events)),
                },
                Effect::Arm { timer, after } => {
                    let handle = ctx.run_later(after, move |pane, ctx| {
                        pane.timers.remove(&timer);
                        let now = std::time::Instant::now();
                        let effects = pane.tracker.on_timer(timer, &pane.term, now);
                        pane.perform_now(effects, ctx);
                    });
                    if let Some(old) = self.timers.insert(timer, handle) {
                        ctx.cancel_future(old);
                    }
                },
                Effect::Cancel(timer) => {
                    if let Some(handle) = self.timers.remove(&timer) {
                        ctx.cancel_future(handle);
                    }
                },
                Effect::CheckRoute => self.check_route(),
            }
        }
        collected
    }

    fn on_output(&mut self, chunk: &[u8], ctx: &mut Context<Self>) {
        self.output_offset += chunk.len() as u64;
        self.last_output = std::time::Instant::now();
        self.tracker.on_output(self.output_offset, self.last_output);
        let found = self.term.feed(chunk);
        if !found.is_empty() {
            self.on_term_events(found, ctx);
        }
        let effects = self.tracker.on_screen(&self.term);
        self.perform_now(effects, ctx);
        if !self.shrink_armed {
            self.shrink_armed = true;
            self.shrink_when_quiet(ctx);
        }
    }

    /// Once the output has stayed quiet for `SHRINK_AFTER_QUIET`, lets the
    /// terminal give back what it reserved while output flowed
    /// (docs/terminal.md#memory); while output goes on, looks again later.
    fn shrink_when_quiet(&mut self, ctx: &mut Context<Self>) {
        let offset = self.output_offset;
        ctx.run_later(SHRINK_AFTER_QUIET, move |pane, ctx| {
            if pane.output_offset == offset {
                pane.term.shrink_to_fit();
                pane.shrink_armed = false;
            } else {
                pane.shrink_when_quiet(ctx);
            }
        });
    }
}

impl Actor for Pane {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let effects = self.tracker.on_start();
        self.perform_now(effects, ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        crate::os::malloc::pane_went_away();
        // A closed pane answers nothing: its reporter stops waiting.
        if let Some(route) = self.route.take() {
            route.addr.do_send(crate::actors::decision::EndWait(
                crate::actors::decision::WaitEnd::MovedOn,
            ));
        }
    }
}

impl Handler<GetPane> for Pane {
    type Result = MessageResult<GetPane>;

    fn handle(&mut self, _msg: GetPane, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.state().clone())
    }
}

impl Handler<ReadPane> for Pane {
    type Result = MessageResult<ReadPane>;

    fn handle(&mut self, msg: ReadPane, _ctx: &mut Self::Context) -> Self::Result {
        let lines = msg.lines.min(MAX_READ_LINES) as usize;
        MessageResult(Ok(match msg.mode {
            ReadMode::Screen => PaneReadResult {
                text: if msg.strip_ansi {
                    self.term.screen_text()
                } else {
                    self.term.screen_formatted()
                },
                truncated: false,
                seq: None,
                next_seq: None,
                dropped: None,
            },
            ReadMode::Tail => {
                let tail = self.term.tail(lines);
                PaneReadResult {
                    text: tail.text,
                    truncated: tail.truncated,
                    seq: None,
                    next_seq: None,
                    dropped: None,
                }
            },
            ReadMode::Rendered => {
                let r = self.term.rendered(msg.after_seq, lines);
                PaneReadResult {
                    text: r.text,
                    truncated: r.truncated,
                    seq: Some(r.seq),
                    next_seq: Some(r.next_seq),
                    dropped: Some(r.dropped),
                }
            },
        }))
    }
}

impl Handler<SetName> for Pane {
    type Result = ResponseFuture<Result<PaneState, Error>>;

    fn handle(&mut self, msg: SetName, _ctx: &mut Self::Context) -> Self::Result {
        self.tracker.pane_mut().name = msg.name;
        let pane = self.state().clone();
        let sent = self.events.send(Publish::new(vec![Event::PaneUpdated {
            pane_id: pane.id.clone(),
            pane: pane.clone(),
        }]));
        Box::pin(async move {
            sent.await??;
            Ok(pane)
        })
    }
}

impl Handler<SetTab> for Pane {
    type Result = MessageResult<SetTab>;

    fn handle(&mut self, msg: SetTab, _ctx: &mut Self::Context) -> Self::Result {
        self.tracker.pane_mut().tab_id = msg.tab_id;
        MessageResult(self.state().clone())
    }
}
