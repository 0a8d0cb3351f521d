//! A pane's output to its viewers (docs/terminal.md#the-output-path): each
//! chunk the pane processed becomes a `pty.data`, numbered from the server's
//! seq clock and sent straight to the connections that were attached when it
//! was printed — no other actor in between, no journal to wait for.
//!
//! ```text
//!  Output ─► terminal ─► Outbox ─try_next()─► seq ─► DeliverPty ─► each viewer's Connection
//!                          │ no number below the ceiling yet:
//!                          └─ queue (in output order) ─► wait_issuable() ─► flush
//! ```
//!
//! Per pane and viewer, chunks go out in output order with contiguous
//! offsets: the pane sends them from its own turns, and a chunk that has to
//! wait for a number holds back every chunk after it. The PTY reader is paced
//! by its chunks being taken: the acknowledgement it waits for travels with
//! the chunk's lines and fires when the last viewer has taken it (or dropped
//! it), so at most `OUTPUT_WINDOW` chunks of a pane are on their way, and a
//! chunk waiting for a number waits with its reader.

use super::{ClearPane, Output, Pane};
use crate::actors::connection::DeliverPty;
use crate::actors::publish::PtyOut;
use crate::error::Error;
use actix::prelude::*;
use base64::Engine as _;
use bytes::Bytes;
use signaltty_protocol::{PaneId, Seq};
use std::any::Any;
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::oneshot;

/// Told once every viewer has taken a chunk: dropped with its last copy.
enum Taken {
    /// The PTY loop may read on: the credit goes back when this drops.
    Reader { _credit: super::Credit },
    /// A `pane.clear` may reply.
    Reply(Option<oneshot::Sender<()>>),
}

impl Drop for Taken {
    fn drop(&mut self) {
        match self {
            Taken::Reader { .. } => {},
            Taken::Reply(reply) => {
                if let Some(reply) = reply.take() {
                    let _ = reply.send(());
                }
            },
        }
    }
}

/// A chunk on its way to the viewers it had when it was printed.
struct Chunk {
    data: Vec<u8>,
    /// The pane's output offset at the chunk's end.
    end_offset: u64,
    viewers: Vec<Recipient<DeliverPty>>,
    taken: Arc<Taken>,
}

/// The pane's sending side: the clock, and the chunks waiting for a number.
pub(super) struct Outbox {
    out: PtyOut,
    queue: VecDeque<Chunk>,
    /// A wait for the clock is under way.
    waiting: bool,
    /// The exit, held until every chunk before it has gone out (`true`: the
    /// drain grace passed).
    exit_held: Option<bool>,
}

impl Outbox {
    /// An empty outbox numbering from `out`.
    pub(super) fn new(out: PtyOut) -> Outbox {
        Outbox {
            out,
            queue: VecDeque::new(),
            waiting: false,
            exit_held: None,
        }
    }
}

/// The `pty.data` line of `data` ending at `end_offset`, as `EventFrame`
/// writes it (`{protocol, type, event, seq, payload: {pane_id, data_b64,
/// output_offset}}`), without building a JSON value around the bytes.
fn line(pane: &PaneId, seq: Seq, data: &[u8], end_offset: u64) -> Bytes {
    let b64 = base64::engine::general_purpose::STANDARD;
    let id = serde_json::to_string(&pane.0).unwrap_or_else(|_| "\"\"".into());
    let mut out = Vec::with_capacity(data.len() * 4 / 3 + id.len() + 160);
    out.extend_from_slice(
        format!(
            "{{\"protocol\":\"{}\",\"type\":\"event\",\"event\":\"pty.data\",\"seq\":{},\"payload\":{{\"pane_id\":{id},\"data_b64\":\"",
            signaltty_protocol::PROTOCOL,
            seq.0
        )
        .as_bytes(),
    );
    let start = out.len();
    out.resize(
        start + base64::encoded_len(data.len(), true).unwrap_or(0),
        0,
    );
    let written = b64.encode_slice(data, &mut out[start..]).unwrap_or(0);
    out.truncate(start + written);
    out.extend_from_slice(format!("\",\"output_offset\":{end_offset}}}}}\n").as_bytes());
    Bytes::from(out)
}

impl Pane {
    /// Sends `data`, which ends at the current output offset, to the live
    /// viewers after every chunk before it; `taken` is told once they all
    /// took it (at once without viewers).
    fn send_out(&mut self, data: Vec<u8>, taken: Taken, ctx: &mut Context<Self>) {
        let viewers = self.live_viewers();
        if viewers.is_empty() {
            return;
        }
        let chunk = Chunk {
            data,
            end_offset: self.output_offset,
            viewers,
            taken: Arc::new(taken),
        };
        if self.outbox.queue.is_empty()
            && let Some(seq) = self.outbox.out.clock().try_next()
        {
            self.deliver(seq, chunk);
            return;
        }
        self.outbox.queue.push_back(chunk);
        self.wait_for_numbers(ctx);
    }

    fn deliver(&self, seq: Seq, chunk: Chunk) {
        let line = line(&self.state().id, seq, &chunk.data, chunk.end_offset);
        for viewer in chunk.viewers {
            let taken: Arc<dyn Any + Send + Sync> = chunk.taken.clone();
            viewer.do_send(DeliverPty {
                line: line.clone(),
                taken: Some(taken),
            });
        }
    }

    fn wait_for_numbers(&mut self, ctx: &mut Context<Self>) {
        if self.outbox.waiting {
            return;
        }
        self.outbox.waiting = true;
        let wait = self.outbox.out.clock().wait_issuable();
        ctx.spawn(wait.into_actor(self).map(|open, pane, ctx| {
            pane.outbox.waiting = false;
            pane.flush_out(open, ctx);
        }));
    }

    /// Sends the waiting chunks that get a number now, in order.
    fn flush_out(&mut self, open: bool, ctx: &mut Context<Self>) {
        while !self.outbox.queue.is_empty() {
            if !open {
                // The journal has stopped (the server is stopping): no number
                // will come; the chunks are dropped and their readers read on.
                self.outbox.queue.clear();
                break;
            }
            let Some(seq) = self.outbox.out.clock().try_next() else {
                self.wait_for_numbers(ctx);
                return;
            };
            if let Some(chunk) = self.outbox.queue.pop_front() {
                self.deliver(seq, chunk);
            }
        }
        if let Some(late) = self.outbox.exit_held.take() {
            self.maybe_report_exit(late, ctx);
        }
    }

    /// Whether the exit must wait for chunks still to go out (it is then
    /// reported when they have): the last bytes come before `pane.exited`.
    pub(super) fn hold_exit(&mut self, late: bool) -> bool {
        if self.outbox.queue.is_empty() {
            return false;
        }
        let held = self.outbox.exit_held.get_or_insert(late);
        *held |= late;
        true
    }
}

impl Handler<Output> for Pane {
    type Result = ();

    fn handle(&mut self, msg: Output, ctx: &mut Self::Context) {
        self.on_output(&msg.chunk, ctx);
        // Acknowledged once every viewer took the chunk: a flood with viewers
        // is paced by their connections, never queued without bound.
        self.send_out(
            msg.chunk,
            Taken::Reader {
                _credit: msg.credit,
            },
            ctx,
        );
    }
}

impl Handler<ClearPane> for Pane {
    type Result = ResponseFuture<Result<u64, Error>>;

    fn handle(&mut self, _msg: ClearPane, ctx: &mut Self::Context) -> Self::Result {
        const CLEAR: &[u8] = b"\x1b[H\x1b[2J\x1b[3J";
        self.on_output(CLEAR, ctx);
        self.term.clear_history();
        let offset = self.output_offset;
        let (reply, taken) = oneshot::channel();
        self.send_out(CLEAR.to_vec(), Taken::Reply(Some(reply)), ctx);
        Box::pin(async move {
            // Every viewer has the bytes (or is gone) when the reply is sent.
            let _ = taken.await;
            Ok(offset)
        })
    }
}

#[cfg(test)]
mod tests;
