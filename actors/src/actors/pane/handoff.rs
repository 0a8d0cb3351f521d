//! The Pane actor's side of an in-place upgrade (docs/upgrade.md).
//! `HandOver` lets go of the PTY without touching its process (the reader
//! stops after the chunk it holds; every chunk it read is in the terminal
//! first) and replies with everything the next binary needs to continue the
//! pane: the pane object, the tracker's evidence, the output offset, the
//! terminal whole, and the master. `TakeBack` re-adopts the master in this
//! process when the exec failed. [`Pane::adopted`] is the pane the next
//! binary starts from a handed-over one.

use super::{Pane, PaneSink, PtyHandle};
use crate::actors::publish::{PtyOut, Publish};
use crate::config::Config;
use crate::domain::state::tracker::{AgentTracker, Carry};
use crate::error::Error;
pub use crate::os::upgrade::record::Carried;
use actix::prelude::*;

use signaltty_model::term::Terminal;
use signaltty_protocol::pane::{LiveState, Pane as PaneState};
use std::os::fd::OwnedFd;
use tokio::sync::oneshot;

/// A handed-over pane.
#[derive(Debug)]
pub struct HandedOver {
    /// What crosses the exec.
    pub carried: Carried,
    /// The master, when the pane's process still runs (close-on-exec until
    /// the exec clears it).
    pub master: Option<OwnedFd>,
    /// The process, when it still runs.
    pub pid: Option<u32>,
    /// When the reader stopped, in milliseconds of the monotonic clock: the
    /// pane's output is unread from then on.
    pub unread_since_ms: u64,
}

/// Let go of the PTY for an upgrade and reply with the pane. The actor stays,
/// frozen (no timers, no reader), until the process execs or `TakeBack`.
#[derive(Debug, Message)]
#[rtype(result = "Result<HandedOver, Error>")]
pub struct HandOver;

/// The reader has stopped after a release (from `PaneSink::released`).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Released;

/// The exec failed: adopt the master again, as before `HandOver`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct TakeBack {
    /// The master `HandOver` gave.
    pub master: OwnedFd,
    /// The process `HandOver` gave.
    pub pid: u32,
}

/// A release whose reader has not stopped yet.
#[derive(Debug)]
pub(super) struct Handing {
    reply: oneshot::Sender<HandedOver>,
    master: OwnedFd,
    pid: u32,
}

impl Pane {
    /// A pane continuing one an upgrade handed over: `pty` is its adopted
    /// PTY (none when its process had exited, or could not be adopted: then
    /// the pane reads as a tombstone of `pane` and the caller has made it
    /// one).
    #[allow(clippy::too_many_arguments)]
    pub fn adopted(
        pane: PaneState,
        carry: Carry,
        term: Terminal,
        output_offset: u64,
        pty: Option<Box<dyn PtyHandle>>,
        events: Recipient<Publish>,
        pty_out: PtyOut,
        config: &Config,
    ) -> Pane {
        let tracker = AgentTracker::with_rules(
            pane,
            config.agents.clone(),
            config.limits.cursor_approval_wait,
        )
        .with_carry(carry);
        Pane::assemble(tracker, term, output_offset, pty, events, pty_out)
    }

    fn carried(&self) -> Carried {
        Carried {
            pane: self.state().clone(),
            carry: self.tracker.carry(),
            output_offset: self.output_offset,
            term: self.term.export(),
        }
    }

    fn freeze(&mut self, ctx: &mut Context<Self>) {
        for (_, handle) in self.timers.drain() {
            ctx.cancel_future(handle);
        }
    }
}

impl Handler<HandOver> for Pane {
    type Result = ResponseFuture<Result<HandedOver, Error>>;

    fn handle(&mut self, _msg: HandOver, ctx: &mut Self::Context) -> Self::Result {
        self.freeze(ctx);
        let released = match self.pty.as_ref() {
            Some(pty) => pty.release().map(|master| (master, pty.pid())),
            None => Err(std::io::Error::other("no process")),
        };
        let (master, pid) = match released {
            Ok(r) => r,
            Err(e) => {
                // Exited (or exiting: its exit is on its way and is lost with
                // this process; the next binary reads it as a tombstone).
                if self.state().live == LiveState::Live {
                    log::info!(
                        "pane {}: handed over without a process: {e}",
                        self.state().id
                    );
                }
                self.pty = None;
                let done = HandedOver {
                    carried: self.carried(),
                    master: None,
                    pid: None,
                    unread_since_ms: crate::os::upgrade::takeover::monotonic_ms(),
                };
                return Box::pin(async move { Ok(done) });
            },
        };
        let (reply, rx) = oneshot::channel();
        self.handing = Some(Handing { reply, master, pid });
        let id = self.state().id.0.clone();
        Box::pin(async move {
            rx.await
                .map_err(|_| Error::Internal(format!("pane {id} stopped during the handover")))
        })
    }
}

impl Handler<Released> for Pane {
    type Result = ();

    fn handle(&mut self, _msg: Released, _ctx: &mut Self::Context) {
        let Some(Handing { reply, master, pid }) = self.handing.take() else {
            return;
        };
        // Every chunk the reader took is in the terminal: it is final now.
        self.pty = None;
        let _ = reply.send(HandedOver {
            carried: self.carried(),
            master: Some(master),
            pid: Some(pid),
            unread_since_ms: crate::os::upgrade::takeover::monotonic_ms(),
        });
    }
}

impl Handler<TakeBack> for Pane {
    type Result = ();

    fn handle(&mut self, msg: TakeBack, ctx: &mut Self::Context) {
        let (sink, addr_tx) = PaneSink::new();
        match crate::os::pty::adopt(msg.master, msg.pid, Box::new(sink)) {
            Ok(pty) => {
                self.pty = Some(Box::new(pty));
                addr_tx.send(ctx.address());
                let effects = self.tracker.on_start();
                self.perform_now(effects, ctx);
            },
            Err(e) => log::error!(
                "pane {}: cannot take its terminal back after the failed upgrade: {e}",
                self.state().id
            ),
        }
    }
}
