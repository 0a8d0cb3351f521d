//! Pane: owns one PTY, its headless terminal (grid, rendered ring, OSC scanner)
//! and its output offset. Output arrives from the PTY reader thread one chunk at a
//! time and is acknowledged only after it was processed, so a flooding child is
//! slowed by its own PTY rather than growing the server. Pane actors run on a
//! small pool of arbiters, away from the Supervisor's thread.

use crate::connection::DeliverPty;
use crate::error::Error;
use crate::pty::{Pty, PtySink, WriteError, WriteErrorKind};
use crate::supervisor::{ConnId, PtyData, Publish};
use crate::term::Terminal;
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::pane::{
    LiveState, MAX_READ_LINES, Pane as PaneState, PaneAttachResult, PaneReadResult, PtySize,
    ReadMode, RestoreState,
};
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::{Event, Timestamp};
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};

mod cursor;
mod decisions;
mod hooks;
mod resume;
mod screen;
mod signals;
mod submit;
pub use cursor::set_approval_wait;
pub use decisions::{Answer, NativeHook, NativeRoute, NativeStarted, RouteEnded};
pub use hooks::{Hook, ReportSession};
pub use resume::Resume;
pub use screen::RulesChanged;
pub use signals::{Evidence, Explain, MarkSeen, Notify, NotifyGate, ProcessSeen};
pub use submit::{SubmitEnter, SubmitPaste, SubmitRetry};

/// How long after its child was reaped a pane waits for the PTY to drain before it
/// reports the exit anyway (a background job may hold the terminal open).
pub const EXIT_DRAIN_GRACE: Duration = Duration::from_millis(500);
/// The time budget of one `pane.input` (spec/pty-terminal.md §4.2).
pub const INPUT_BUDGET: Duration = Duration::from_secs(5);

/// A chunk of PTY output. The reader waits for `ack` before reading more.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Output {
    /// The bytes, as read.
    pub chunk: Vec<u8>,
    /// Dropped (or sent) when the chunk is processed.
    pub ack: SyncSender<()>,
}

/// The PTY reached EOF: every byte has been delivered.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct OutputEnded;

/// The child was reaped with this code (128 + signal for a signalled child).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ChildExited {
    /// Exit code, `None` when unknown.
    pub code: Option<i32>,
}

/// Replies with the pane object.
#[derive(Debug, Message)]
#[rtype(result = "PaneState")]
pub struct GetPane;

/// Reads the screen or the rendered ring (spec/pty-terminal.md §7.1). Never fails.
#[derive(Debug, Message)]
#[rtype(result = "Result<PaneReadResult, Error>")]
pub struct ReadPane {
    /// Which read.
    pub mode: ReadMode,
    /// Lines wanted (capped at 5000).
    pub lines: u64,
    /// `rendered` cursor.
    pub after_seq: u64,
}

/// Writes input through the pane's bounded writer. Replies with the bytes written,
/// or `PANE_EXITED` / `TIMEOUT` / `IO_ERROR` with the prefix written.
#[derive(Debug, Message)]
#[rtype(result = "Result<usize, Error>")]
pub struct WriteInput {
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// Resizes the pane (and its PTY when live). Replies with the pane after
/// `pane.resized` is published.
#[derive(Debug, Message)]
#[rtype(result = "Result<PaneState, Error>")]
pub struct ResizePane {
    /// The clamped size.
    pub size: PtySize,
}

/// Sends a signal to the child or its process group; `PANE_EXITED` without one.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct SignalPane {
    /// Which signal.
    pub signal: SignalName,
    /// Signal the process group.
    pub group: bool,
}

/// Hangs up the PTY (signalling the child) and stops the actor. The caller
/// publishes `pane.closed`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ClosePane {
    /// The signal for the child.
    pub signal: SignalName,
}

/// Registers a viewer (idempotent per connection), optionally resizing first, and
/// replies with the screen snapshot and the offset it covers, taken in the same
/// turn as the registration: no byte is lost or doubled between them.
#[derive(Message)]
#[rtype(result = "Result<PaneAttachResult, Error>")]
pub struct Attach {
    /// The connection.
    pub conn: ConnId,
    /// Where its `pty.data` goes.
    pub viewer: Recipient<DeliverPty>,
    /// A size to apply first.
    pub size: Option<PtySize>,
    /// Acknowledge the pane (spec/lifecycle.md §6.5: attach marks it seen).
    pub mark_seen: bool,
}

/// Removes a viewer; the process is untouched.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Detach {
    /// The connection.
    pub conn: ConnId,
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
/// read as dropped (spec/pty-terminal.md §7.4). Replies with the offset.
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

/// Whether the pane's process still runs.
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct IsLive;

/// The Pane actor.
pub struct Pane {
    state: PaneState,
    term: Terminal,
    /// Cumulative output bytes of this pane in this server run.
    output_offset: u64,
    pty: Option<Pty>,
    events: Recipient<Publish>,
    /// Where numbered `pty.data` goes.
    pty_out: Recipient<PtyData>,
    /// Attached connections.
    viewers: HashMap<ConnId, Recipient<DeliverPty>>,
    ended: bool,
    exit_code: Option<Option<i32>>,
    exit_reported: bool,
    /// Rate limit and coalescing of terminal notifications.
    notify_gate: NotifyGate,
    /// The current process has sent a hook: screen rules no longer apply to it.
    hooked: bool,
    /// The program the pane runs now, as the process refresh last saw it.
    process_name: String,
    /// What last moved lifecycle and attention.
    evidence: Evidence,
    /// The pane's `input_required` was raised by a screen rule.
    screen_raised: bool,
    /// Cursor tool calls and the approvals inferred from them.
    approvals: cursor::Approvals,
    /// What the last screen tick looked at: output offset, rule set, kind, program.
    screen_seen: Option<(u64, u64, signaltty_protocol::pane::AgentKind, String)>,
    /// The live answer route of a pending native permission request.
    route: Option<NativeRoute>,
    /// A screen evaluation is scheduled.
    screen_armed: bool,
    /// While a hook keeps the pane blocked: what the screen shows of its question.
    question: crate::state::question::QuestionWatch,
    /// Input was written to this process since it started (`pane.input`).
    typed: bool,
}

impl Pane {
    /// A pane actor for a freshly spawned process.
    pub fn new(
        state: PaneState,
        pty: Pty,
        events: Recipient<Publish>,
        pty_out: Recipient<PtyData>,
    ) -> Pane {
        let term = Terminal::new(state.pty_size.rows, state.pty_size.cols);
        Pane {
            term,
            output_offset: 0,
            pty: Some(pty),
            events,
            pty_out,
            viewers: HashMap::new(),
            ended: false,
            exit_code: None,
            exit_reported: false,
            notify_gate: NotifyGate::default(),
            hooked: false,
            process_name: crate::procfs::name_of(&state.argv),
            evidence: Evidence::default(),
            screen_raised: false,
            approvals: cursor::Approvals::default(),
            screen_seen: None,
            route: None,
            screen_armed: false,
            question: Default::default(),
            typed: false,
            state,
        }
    }

    /// The viewers still connected (closed connections are forgotten here).
    fn live_viewers(&mut self) -> Vec<Recipient<DeliverPty>> {
        self.viewers.retain(|_, v| v.connected());
        self.viewers.values().cloned().collect()
    }

    fn on_output(&mut self, chunk: &[u8], ctx: &mut Context<Self>) {
        self.output_offset += chunk.len() as u64;
        self.state.last_activity_at = Timestamp::now();
        let found = self.term.feed(chunk);
        if !found.is_empty() {
            self.on_term_events(found, ctx);
        }
        self.look_for_question();
        self.arm_screen(ctx);
    }

    /// Reports the exit once the child is reaped and its output drained (or the
    /// drain grace has passed).
    fn maybe_report_exit(&mut self, drained_or_late: bool) {
        let Some(code) = self.exit_code else { return };
        if self.exit_reported || !(self.ended || drained_or_late) {
            return;
        }
        self.exit_reported = true;
        self.pty = None;
        self.state.live = LiveState::Exited { code };
        self.state.restore_state = RestoreState::Exited;
        self.state.last_activity_at = Timestamp::now();
        let mut events = vec![Event::PaneExited {
            pane_id: self.state.id.clone(),
            code,
        }];
        events.extend(self.exit_events(code));
        self.events.do_send(Publish { events });
        self.check_route();
    }

    fn pane_exited(&self, written: Option<usize>) -> Error {
        Error::PaneExited {
            pane: self.state.id.0.clone(),
            written,
        }
    }
}

impl Actor for Pane {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.arm_screen(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        // A closed pane answers nothing: its reporter stops waiting.
        if let Some(route) = self.route.take() {
            route
                .addr
                .do_send(crate::decision::EndWait(crate::decision::WaitEnd::MovedOn));
        }
    }
}

impl Handler<Output> for Pane {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, msg: Output, ctx: &mut Self::Context) -> Self::Result {
        self.on_output(&msg.chunk, ctx);
        let viewers = self.live_viewers();
        let ack = msg.ack;
        if viewers.is_empty() {
            // The reader may already be gone (closing); nothing waits then.
            let _ = ack.try_send(());
            return Box::pin(async {});
        }
        let sent = self.pty_out.send(PtyData {
            pane_id: self.state.id.clone(),
            chunk: msg.chunk,
            end_offset: self.output_offset,
            viewers,
        });
        // Acknowledged once the Supervisor took the chunk: a flood with viewers is
        // paced by the Supervisor's mailbox, never queued without bound.
        Box::pin(async move {
            let _ = sent.await;
            let _ = ack.try_send(());
        })
    }
}

impl Handler<OutputEnded> for Pane {
    type Result = ();

    fn handle(&mut self, _msg: OutputEnded, _ctx: &mut Self::Context) {
        self.ended = true;
        self.maybe_report_exit(false);
    }
}

impl Handler<ChildExited> for Pane {
    type Result = ();

    fn handle(&mut self, msg: ChildExited, ctx: &mut Self::Context) {
        self.exit_code = Some(msg.code);
        self.maybe_report_exit(false);
        if !self.exit_reported {
            ctx.run_later(EXIT_DRAIN_GRACE, |act, _| act.maybe_report_exit(true));
        }
    }
}

impl Handler<GetPane> for Pane {
    type Result = MessageResult<GetPane>;

    fn handle(&mut self, _msg: GetPane, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(self.state.clone())
    }
}

impl Handler<ReadPane> for Pane {
    type Result = MessageResult<ReadPane>;

    fn handle(&mut self, msg: ReadPane, _ctx: &mut Self::Context) -> Self::Result {
        let lines = msg.lines.min(MAX_READ_LINES) as usize;
        MessageResult(Ok(match msg.mode {
            ReadMode::Screen => PaneReadResult {
                text: self.term.screen_text(),
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

impl Handler<WriteInput> for Pane {
    type Result = ResponseFuture<Result<usize, Error>>;

    fn handle(&mut self, msg: WriteInput, _ctx: &mut Self::Context) -> Self::Result {
        let Some(pty) = self.pty.as_ref() else {
            let e = self.pane_exited(None);
            return Box::pin(async move { Err(e) });
        };
        self.typed |= !msg.bytes.is_empty();
        Box::pin(self.write_bound(pty, msg.bytes))
    }
}

impl Pane {
    /// Starts writing `bytes` to `pty` within the input budget. The write is
    /// bound to this PTY now: a later process in this pane never gets them.
    fn write_bound(
        &self,
        pty: &Pty,
        bytes: Vec<u8>,
    ) -> impl std::future::Future<Output = Result<usize, Error>> + 'static {
        let pending = pty.write(bytes, Instant::now() + INPUT_BUDGET);
        let pane = self.state.id.0.clone();
        async move {
            match pending.await {
                Ok(Ok(n)) => Ok(n),
                Ok(Err(WriteError { kind, written })) => Err(match kind {
                    WriteErrorKind::Timeout => Error::Timeout {
                        what: format!("input to pane {pane}"),
                        written: Some(written),
                    },
                    WriteErrorKind::Exited => Error::PaneExited {
                        pane,
                        written: Some(written),
                    },
                    WriteErrorKind::Io(why) => Error::Io {
                        what: format!("input to pane {pane}"),
                        source: std::io::Error::other(why),
                    },
                }),
                Err(_) => Err(Error::PaneExited {
                    pane,
                    written: None,
                }),
            }
        }
    }
}

impl Handler<ResizePane> for Pane {
    type Result = ResponseFuture<Result<PaneState, Error>>;

    fn handle(&mut self, msg: ResizePane, _ctx: &mut Self::Context) -> Self::Result {
        let size = msg.size;
        if let Some(pty) = &self.pty
            && let Err(e) = pty.resize(size.rows, size.cols)
        {
            // The child may have just exited; the stored size still changes.
            log::debug!("pane {}: resize failed: {e}", self.state.id);
        }
        self.term.resize(size.rows, size.cols);
        self.state.pty_size = size;
        let pane = self.state.clone();
        let sent = self.events.send(Publish {
            events: vec![Event::PaneResized { pane: pane.clone() }],
        });
        Box::pin(async move {
            sent.await??;
            Ok(pane)
        })
    }
}

impl Handler<SignalPane> for Pane {
    type Result = Result<(), Error>;

    fn handle(&mut self, msg: SignalPane, _ctx: &mut Self::Context) -> Self::Result {
        let Some(pty) = &self.pty else {
            return Err(self.pane_exited(None));
        };
        pty.signal(to_nix(msg.signal), msg.group)
            .map_err(|e| Error::Io {
                what: format!("signal {} to pane {}", msg.signal.as_str(), self.state.id),
                source: e,
            })
    }
}

impl Handler<Attach> for Pane {
    type Result = ResponseFuture<Result<PaneAttachResult, Error>>;

    fn handle(&mut self, msg: Attach, _ctx: &mut Self::Context) -> Self::Result {
        let resized = msg.size.filter(|s| *s != self.state.pty_size).map(|size| {
            if let Some(pty) = &self.pty
                && let Err(e) = pty.resize(size.rows, size.cols)
            {
                log::debug!("pane {}: resize failed: {e}", self.state.id);
            }
            self.term.resize(size.rows, size.cols);
            self.state.pty_size = size;
            self.events.send(Publish {
                events: vec![Event::PaneResized {
                    pane: self.state.clone(),
                }],
            })
        });
        self.viewers.insert(msg.conn, msg.viewer);
        let seen = if msg.mark_seen {
            let pending = self.decision_pending();
            let events = self.with_axes("attach", |axes| {
                axes.acknowledge("attach", pending);
            });
            (!events.is_empty()).then(|| self.events.send(Publish { events }))
        } else {
            None
        };
        // Registration and snapshot in one turn: every later chunk goes to this viewer
        // with an offset past the snapshot's.
        let result = PaneAttachResult {
            snapshot_b64: base64::engine::general_purpose::STANDARD
                .encode(self.term.state_formatted()),
            output_offset: self.output_offset,
            size: self.state.pty_size,
            live: self.state.live,
            restore_state: self.state.restore_state,
            lifecycle: self.state.lifecycle,
            attention: self.state.attention,
        };
        Box::pin(async move {
            if let Some(sent) = resized {
                sent.await??;
            }
            if let Some(sent) = seen {
                sent.await??;
            }
            Ok(result)
        })
    }
}

impl Handler<Detach> for Pane {
    type Result = ();

    fn handle(&mut self, msg: Detach, _ctx: &mut Self::Context) {
        self.viewers.remove(&msg.conn);
    }
}

impl Handler<SetName> for Pane {
    type Result = ResponseFuture<Result<PaneState, Error>>;

    fn handle(&mut self, msg: SetName, _ctx: &mut Self::Context) -> Self::Result {
        self.state.name = msg.name;
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

impl Handler<ClearPane> for Pane {
    type Result = ResponseFuture<Result<u64, Error>>;

    fn handle(&mut self, _msg: ClearPane, ctx: &mut Self::Context) -> Self::Result {
        const CLEAR: &[u8] = b"\x1b[H\x1b[2J\x1b[3J";
        self.on_output(CLEAR, ctx);
        self.term.clear_history();
        let offset = self.output_offset;
        let viewers = self.live_viewers();
        let sent = (!viewers.is_empty()).then(|| {
            self.pty_out.send(PtyData {
                pane_id: self.state.id.clone(),
                chunk: CLEAR.to_vec(),
                end_offset: offset,
                viewers,
            })
        });
        Box::pin(async move {
            if let Some(sent) = sent {
                sent.await?;
            }
            Ok(offset)
        })
    }
}

impl Handler<SetTab> for Pane {
    type Result = MessageResult<SetTab>;

    fn handle(&mut self, msg: SetTab, _ctx: &mut Self::Context) -> Self::Result {
        self.state.tab_id = msg.tab_id;
        MessageResult(self.state.clone())
    }
}

impl Handler<IsLive> for Pane {
    type Result = bool;

    fn handle(&mut self, _msg: IsLive, _ctx: &mut Self::Context) -> bool {
        self.pty.is_some()
    }
}

impl Handler<ClosePane> for Pane {
    type Result = ();

    fn handle(&mut self, msg: ClosePane, ctx: &mut Self::Context) {
        if let Some(pty) = self.pty.take() {
            pty.close(to_nix(msg.signal));
        }
        ctx.stop();
    }
}

/// The nix signal of an allowed name.
pub fn to_nix(signal: SignalName) -> nix::sys::signal::Signal {
    use nix::sys::signal::Signal as S;
    match signal {
        SignalName::Int => S::SIGINT,
        SignalName::Term => S::SIGTERM,
        SignalName::Kill => S::SIGKILL,
        SignalName::Hup => S::SIGHUP,
        SignalName::Quit => S::SIGQUIT,
        SignalName::Winch => S::SIGWINCH,
        SignalName::Usr1 => S::SIGUSR1,
        SignalName::Usr2 => S::SIGUSR2,
    }
}

/// Feeds a pane actor from its PTY threads. The pane's address arrives once the
/// actor has started (the PTY is spawned first, so a failed spawn creates no actor).
pub struct PaneSink {
    addr: Option<Addr<Pane>>,
    addr_rx: Receiver<Addr<Pane>>,
    ack_tx: SyncSender<()>,
    ack_rx: Receiver<()>,
    /// Chunks sent and not yet acknowledged.
    in_flight: usize,
}

/// Chunks a reader may have in a pane's mailbox at once: enough to overlap the
/// next read with the pane's parsing, few enough (32 KiB) to keep the pace of a
/// flood set by the pane.
pub const OUTPUT_WINDOW: usize = 4;

impl PaneSink {
    /// A sink and the sender its pane address will come through.
    pub fn new() -> (PaneSink, SyncSender<Addr<Pane>>) {
        let (addr_tx, addr_rx) = sync_channel(1);
        let (ack_tx, ack_rx) = sync_channel(OUTPUT_WINDOW);
        (
            PaneSink {
                addr: None,
                addr_rx,
                ack_tx,
                ack_rx,
                in_flight: 0,
            },
            addr_tx,
        )
    }

    fn addr(&mut self) -> Option<&Addr<Pane>> {
        if self.addr.is_none() {
            self.addr = self.addr_rx.recv().ok();
        }
        self.addr.as_ref()
    }
}

impl PtySink for PaneSink {
    fn output(&mut self, chunk: Vec<u8>) {
        let ack = self.ack_tx.clone();
        let Some(addr) = self.addr().cloned() else {
            return;
        };
        addr.do_send(Output { chunk, ack });
        self.in_flight += 1;
        while self.ack_rx.try_recv().is_ok() {
            self.in_flight -= 1;
        }
        // At most OUTPUT_WINDOW chunks in flight: past that the reader waits for the
        // pane. A stopped pane drops its messages (and their ack senders) while this
        // sink still holds one, so the wait polls whether the pane is still there.
        while self.in_flight >= OUTPUT_WINDOW {
            match self.ack_rx.recv_timeout(Duration::from_millis(200)) {
                Ok(()) => self.in_flight -= 1,
                Err(_) if !addr.connected() => return,
                Err(_) => {},
            }
        }
    }

    fn output_ended(&mut self) {
        if let Some(addr) = self.addr() {
            addr.do_send(OutputEnded);
        }
    }

    fn exited(&mut self, code: Option<i32>) {
        if let Some(addr) = self.addr() {
            addr.do_send(ChildExited { code });
        }
    }
}
