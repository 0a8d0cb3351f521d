//! The pane's viewers: a connection attaches with a screen snapshot and the
//! offset it covers, and detaches. A watch-only viewer gets the output but
//! never answers the program's terminal queries.

use super::Pane;
use crate::actors::connection::DeliverPty;
use crate::actors::publish::Publish;
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use base64::Engine as _;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{PaneAttachResult, PtySize};

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
    /// Acknowledge the pane (attach marks it seen:
    /// docs/states.md#what-a-persons-actions-do).
    pub mark_seen: bool,
    /// A watch-only viewer: it never answers the program's queries.
    pub watch: bool,
}

/// Removes a viewer; the process is untouched.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Detach {
    /// The connection.
    pub conn: ConnId,
}

impl Handler<Attach> for Pane {
    type Result = ResponseFuture<Result<PaneAttachResult, Error>>;

    fn handle(&mut self, msg: Attach, _ctx: &mut Self::Context) -> Self::Result {
        let resized = msg
            .size
            .filter(|s| *s != self.state().pty_size)
            .map(|size| {
                if let Some(pty) = &self.pty
                    && let Err(e) = pty.resize(size.rows, size.cols)
                {
                    log::debug!("pane {}: resize failed: {e}", self.state().id);
                }
                self.term.resize(size.rows, size.cols);
                self.tracker.pane_mut().pty_size = size;
                // An attach never waits on the disk (docs/reliability.md#a-full-disk).
                self.events.send(Publish::observed(vec![Event::PaneResized {
                    pane: self.state().clone(),
                }]))
            });
        self.viewers.insert(msg.conn, msg.viewer);
        self.touch();
        if msg.watch {
            self.watchers.insert(msg.conn);
        } else {
            self.watchers.remove(&msg.conn);
        }
        let seen = if msg.mark_seen {
            let pending = self.tracker.decision_pending();
            let events = self.tracker.with_axes("attach", |axes| {
                axes.acknowledge("attach", pending);
            });
            (!events.is_empty()).then(|| self.events.send(Publish::observed(events)))
        } else {
            None
        };
        // Registration and snapshot in one turn: every later chunk goes to this viewer
        // with an offset past the snapshot's.
        let result = PaneAttachResult {
            snapshot_b64: base64::engine::general_purpose::STANDARD
                .encode(self.term.state_formatted()),
            output_offset: self.output_offset,
            size: self.state().pty_size,
            live: self.state().live,
            restore_state: self.state().restore_state,
            lifecycle: self.state().lifecycle,
            attention: self.state().attention,
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
        self.watchers.remove(&msg.conn);
        self.touch();
    }
}

impl Pane {
    /// The viewers still connected (closed connections are forgotten here).
    pub(super) fn live_viewers(&mut self) -> Vec<Recipient<DeliverPty>> {
        self.viewers.retain(|_, v| v.connected());
        let viewers = &self.viewers;
        self.watchers.retain(|c| viewers.contains_key(c));
        self.viewers.values().cloned().collect()
    }

    /// Whether a viewer that is a terminal (not only a watcher) is attached:
    /// that terminal answers the program's queries then.
    pub(super) fn terminal_attached(&mut self) -> bool {
        self.live_viewers();
        self.viewers.len() > self.watchers.len()
    }
}
