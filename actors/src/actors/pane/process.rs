//! The pane's process through its PTY: input within a time budget, resizing,
//! signals, the close, and the exit, reported once the child is reaped and its
//! output has drained.

use super::{INPUT_BUDGET, Pane, PtyHandle, Reaped, SignalTarget};
use crate::actors::publish::Publish;
use crate::error::Error;
use crate::os::pty::{WriteError, WriteErrorKind};
use actix::prelude::*;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{Pane as PaneState, PtySize};
use signaltty_protocol::signal::SignalName;
use std::time::{Duration, Instant};

/// How long after its child was reaped a pane waits for the PTY to drain before it
/// reports the exit anyway (a background job may hold the terminal open).
const EXIT_DRAIN_GRACE: Duration = Duration::from_millis(500);

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

/// Whether the pane's process still runs.
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct IsLive;

impl Handler<OutputEnded> for Pane {
    type Result = ();

    fn handle(&mut self, _msg: OutputEnded, ctx: &mut Self::Context) {
        self.ended = true;
        self.maybe_report_exit(false, ctx);
    }
}

impl Handler<ChildExited> for Pane {
    type Result = ();

    fn handle(&mut self, msg: ChildExited, ctx: &mut Self::Context) {
        self.reaped = Some(Reaped { code: msg.code });
        self.maybe_report_exit(false, ctx);
        if !self.exit_reported {
            ctx.run_later(EXIT_DRAIN_GRACE, |act, ctx| {
                act.maybe_report_exit(true, ctx)
            });
        }
    }
}

impl Handler<WriteInput> for Pane {
    type Result = ResponseFuture<Result<usize, Error>>;

    fn handle(&mut self, msg: WriteInput, _ctx: &mut Self::Context) -> Self::Result {
        if self.hibernating() {
            let e = self.being_hibernated();
            return Box::pin(async move { Err(e) });
        }
        if self.pty.is_some() {
            self.tracker.on_input(msg.bytes.len());
            self.tracker.on_keys(&msg.bytes);
            self.on_typed(&msg.bytes);
        }
        let Some(pty) = self.pty.as_ref() else {
            let e = self.pane_exited(None);
            return Box::pin(async move { Err(e) });
        };
        Box::pin(self.write_bound(pty.as_ref(), msg.bytes))
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
            log::debug!("pane {}: resize failed: {e}", self.state().id);
        }
        self.term.resize(size.rows, size.cols);
        self.tracker.pane_mut().pty_size = size;
        let pane = self.state().clone();
        // A terminal's resize never waits on the disk (docs/reliability.md#a-full-disk).
        let sent = self.events.send(Publish::observed(vec![Event::PaneResized {
            pane: pane.clone(),
        }]));
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
        let target = if msg.group {
            SignalTarget::Group
        } else {
            SignalTarget::Child
        };
        pty.signal(to_nix(msg.signal), target)
            .map_err(|e| Error::Io {
                what: format!("signal {} to pane {}", msg.signal.as_str(), self.state().id),
                source: e,
            })
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
        self.tracker.on_closed();
        ctx.stop();
    }
}

/// The nix signal of an allowed name.
pub(super) fn to_nix(signal: SignalName) -> nix::sys::signal::Signal {
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

impl Pane {
    /// Starts writing `bytes` to `pty` within the input budget. The write is
    /// bound to this PTY now: a later process in this pane never gets them.
    pub(super) fn write_bound(
        &self,
        pty: &dyn PtyHandle,
        bytes: Vec<u8>,
    ) -> impl std::future::Future<Output = Result<usize, Error>> + 'static {
        let pending = pty.write(bytes, Instant::now() + INPUT_BUDGET);
        let pane = self.state().id.0.clone();
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

    /// Reports the exit once the child is reaped and its output drained (or the
    /// drain grace has passed).
    pub(super) fn maybe_report_exit(&mut self, drained_or_late: bool, ctx: &mut Context<Self>) {
        let Some(Reaped { code }) = self.reaped else {
            return;
        };
        if self.exit_reported || !(self.ended || drained_or_late) {
            return;
        }
        if self.hold_exit(drained_or_late) {
            return;
        }
        self.exit_reported = true;
        self.pty = None;
        // A notification held back by the gate has no pane to raise any more.
        self.notify_gate.forget_held();
        // The agent stopped for hibernation keeps its state (docs/restore.md#hibernation).
        if self.hibernated(code, ctx) {
            return;
        }
        let effects = self.tracker.on_exit(code);
        self.perform_now(effects, ctx);
    }

    /// The refusal of input and prompts while the hibernation stop runs.
    pub(super) fn being_hibernated(&self) -> Error {
        Error::AgentNotReady(format!(
            "pane {} is being hibernated: its agent is saving its session; \
             try again in a moment and it wakes (docs/restore.md#hibernation)",
            self.state().id
        ))
    }

    pub(super) fn pane_exited(&self, written: Option<usize>) -> Error {
        Error::PaneExited {
            pane: self.state().id.0.clone(),
            written,
        }
    }
}
