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
use std::sync::mpsc::SyncSender;
use tokio::sync::oneshot;

/// Told once every viewer has taken a chunk: dropped with its last copy.
enum Taken {
    /// The PTY reader may read on.
    Reader(SyncSender<()>),
    /// A `pane.clear` may reply.
    Reply(Option<oneshot::Sender<()>>),
}

impl Drop for Taken {
    fn drop(&mut self) {
        match self {
            // The reader may already be gone (closing); nothing waits then.
            Taken::Reader(ack) => drop(ack.try_send(())),
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
        self.send_out(msg.chunk, Taken::Reader(msg.ack), ctx);
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
mod tests {
    use super::*;
    use crate::actors::pane::{Attach, ChildExited, GetPane, OutputEnded};
    use crate::store::journal::clock::SeqClock;
    use crate::testkit::{FakePty, ProbeLog, PublishProbe, Published};
    use parking_lot::Mutex;
    use signaltty_protocol::Event;
    use signaltty_protocol::envelope::EventFrame;
    use signaltty_protocol::pane::{AgentKind, LiveState};
    use std::time::Duration;

    /// A pane numbering from `clock`, with one attached probe connection.
    async fn attached(clock: Arc<SeqClock>) -> (Addr<Pane>, Arc<Mutex<ProbeLog>>, Published) {
        let (probe, published) = PublishProbe::start();
        let config = crate::testkit::config(&std::env::temp_dir().join("signaltty-output-tests"));
        let state = crate::domain::state::tests::pane(AgentKind::Generic);
        let pane = Pane::new(
            state,
            FakePty::new().handle(),
            probe.recipient(),
            PtyOut::new(clock),
            &config,
        )
        .start();
        let (conn, log) = crate::testkit::Probe::start(7);
        pane.send(Attach {
            conn: conn.id,
            viewer: conn.pty.clone(),
            size: None,
            mark_seen: false,
            watch: false,
        })
        .await
        .expect("the pane is running")
        .expect("attached");
        (pane, log, published)
    }

    /// Sends a chunk and returns the reader's side of its acknowledgement.
    async fn print(pane: &Addr<Pane>, bytes: &[u8]) -> std::sync::mpsc::Receiver<()> {
        let (ack, acked) = std::sync::mpsc::sync_channel(1);
        pane.send(Output {
            chunk: bytes.to_vec(),
            ack,
        })
        .await
        .expect("the pane is running");
        acked
    }

    /// `(seq, data, output_offset)` of every `pty.data` the probe got.
    fn received(log: &Mutex<ProbeLog>) -> Vec<(u64, Vec<u8>, u64)> {
        log.lock()
            .events
            .iter()
            .filter(|e| e["event"] == "pty.data")
            .map(|e| {
                let data = base64::engine::general_purpose::STANDARD
                    .decode(e["payload"]["data_b64"].as_str().unwrap_or_default())
                    .unwrap_or_default();
                (
                    e["seq"].as_u64().unwrap_or_default(),
                    data,
                    e["payload"]["output_offset"].as_u64().unwrap_or_default(),
                )
            })
            .collect()
    }

    async fn acked(rx: &std::sync::mpsc::Receiver<()>) {
        crate::testkit::wait_for("the reader's acknowledgement", || rx.try_recv().is_ok()).await;
    }

    #[actix::test]
    async fn chunks_reach_a_viewer_in_order_numbered_from_the_clock_and_ack_the_reader() {
        let (pane, log, _) = attached(SeqClock::bounded(Seq(100), Seq(10_000))).await;
        for chunk in [&b"a"[..], b"bc", b"def"] {
            acked(&print(&pane, chunk).await).await;
        }
        crate::testkit::wait_for("three chunks", || received(&log).len() == 3).await;
        assert_eq!(
            received(&log),
            [
                (101, b"a".to_vec(), 1),
                (102, b"bc".to_vec(), 3),
                (103, b"def".to_vec(), 6)
            ]
        );
    }

    #[actix::test]
    async fn a_chunk_without_a_reserved_number_holds_back_later_chunks_the_reader_and_the_exit() {
        let clock = SeqClock::bounded(Seq(0), Seq(1));
        let (pane, log, published) = attached(clock.clone()).await;
        acked(&print(&pane, b"one").await).await;
        let second = print(&pane, b"two").await;
        let third = print(&pane, b"three").await;
        pane.send(OutputEnded).await.expect("running");
        pane.send(ChildExited { code: Some(0) })
            .await
            .expect("running");
        let state = pane.send(GetPane).await.expect("running");
        assert_eq!(state.live, LiveState::Live, "the exit waits for the output");
        assert_eq!(received(&log).len(), 1);
        assert!(second.try_recv().is_err() && third.try_recv().is_err());

        clock.raise_to(Seq(2));
        acked(&second).await;
        assert!(
            third.recv_timeout(Duration::from_millis(50)).is_err(),
            "one number, one chunk"
        );
        clock.raise_to(Seq(10));
        acked(&third).await;
        published
            .wait_for("pane.exited", |l| l.names().contains(&"pane.exited"))
            .await;
        assert_eq!(
            received(&log),
            [
                (1, b"one".to_vec(), 3),
                (2, b"two".to_vec(), 6),
                (3, b"three".to_vec(), 11)
            ]
        );
    }

    #[actix::test]
    async fn a_clear_replies_once_its_bytes_reached_the_viewers() {
        let (pane, log, _) = attached(SeqClock::bounded(Seq(0), Seq(100))).await;
        acked(&print(&pane, b"x").await).await;
        let offset = pane
            .send(ClearPane)
            .await
            .expect("running")
            .expect("cleared");
        assert_eq!(offset, 1 + 11);
        assert_eq!(
            received(&log).last(),
            Some(&(2, b"\x1b[H\x1b[2J\x1b[3J".to_vec(), offset))
        );
    }

    #[test]
    fn a_line_is_the_event_frame_of_the_chunk() {
        let pane = PaneId("pane_\"odd\\id".into());
        for data in [&b""[..], b"a", b"ab", b"hello\r\n\x1b[31m\xff\x00"] {
            let event = Event::PtyData {
                pane_id: pane.clone(),
                data_b64: base64::engine::general_purpose::STANDARD.encode(data),
                output_offset: 12_345,
            };
            let expected = EventFrame::new(event.name(), 77, event.payload()).to_line();
            assert_eq!(
                line(&pane, Seq(77), data, 12_345),
                Bytes::from(expected),
                "{data:?}"
            );
        }
    }
}
