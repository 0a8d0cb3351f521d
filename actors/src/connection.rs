//! Connection: the JSONL codec actor for one socket client. It frames request
//! lines, parses them, dispatches them to the Supervisor, and writes responses in
//! request order however their results arrive. Subscribed events interleave at
//! line boundaries. No input can stop it except EOF: a bad line gets an error
//! reply and the next line is read as usual.
//!
//! Output is bounded: a subscriber whose unwritten output passes
//! `slow_subscriber_bytes`, or any client whose unwritten output passes
//! `max_queued_bytes`, is disconnected instead of growing the server's memory.

use crate::codec::{Frame, JsonLines};
use crate::config::Limits;
use crate::router::response_line;
use crate::supervisor::{ConnHandle, ConnId, Connected, Disconnected, Dispatch, Supervisor};
use actix::io::{WriteHandler, Writer};
use actix::prelude::*;
use bytes::Bytes;
use signaltty_protocol::envelope::{ErrorBody, Response};
use signaltty_protocol::{ErrorCode, MAX_LINE_BYTES, Method, Request, UNKNOWN_REQUEST_ID};
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context as TaskContext, Poll};
use tokio::io::AsyncWrite;
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio_util::codec::FramedRead;

/// A subscribed event line for this connection.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Deliver {
    /// The subscription generation it belongs to; older generations are dropped.
    pub generation: u64,
    /// The event line, newline included.
    pub line: Bytes,
}

/// Close this connection now, dropping unwritten output (lag, out-of-order
/// delivery).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct CloseConnection {
    /// Why, for the log.
    pub reason: String,
}

/// The server is stopping: read no more requests, finish the pending responses,
/// then close.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Drain;

/// The result of a dispatched request, for response slot `slot`.
#[derive(Message)]
#[rtype(result = "()")]
struct Answered {
    slot: u64,
    lines: Vec<Bytes>,
    close_after: bool,
}

/// One response position, in request order.
enum Slot {
    Waiting {
        subscribe: bool,
    },
    Ready {
        lines: Vec<Bytes>,
        close_after: bool,
        subscribe: bool,
    },
}

/// Counts the bytes the socket has accepted, so the actor can tell how much output
/// is still queued (actix's writer does not expose it).
struct CountingWriter {
    inner: OwnedWriteHalf,
    written: Arc<AtomicU64>,
}

impl AsyncWrite for CountingWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = poll {
            self.written.fetch_add(n as u64, Ordering::Relaxed);
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

static NEXT_CONN_ID: AtomicU64 = AtomicU64::new(1);

/// The Connection actor.
pub struct Connection {
    id: ConnId,
    supervisor: Addr<Supervisor>,
    limits: Limits,
    writer: Writer<CountingWriter, std::io::Error>,
    written: Arc<AtomicU64>,
    encoded: u64,
    /// Response slots in request order; `front_slot` is the number of the first.
    slots: VecDeque<Slot>,
    front_slot: u64,
    /// Subscription generation: bumped by every `subscribe` request.
    generation: u64,
    /// Live events held while a `subscribe` reply (and its replay) is unwritten.
    held: Vec<Bytes>,
    held_bytes: u64,
    subscribes_in_flight: usize,
    reader: Option<SpawnHandle>,
    read_closed: bool,
    /// The client closed its side: its subscription is over (spec/ipc.md §1).
    eof: bool,
    closing: bool,
}

impl Connection {
    /// Starts a connection actor for an accepted, authorized stream.
    pub fn start(
        stream: UnixStream,
        supervisor: Addr<Supervisor>,
        limits: Limits,
    ) -> Addr<Connection> {
        let (read, write) = stream.into_split();
        Connection::create(move |ctx| {
            let written = Arc::new(AtomicU64::new(0));
            let writer = Writer::new(
                CountingWriter {
                    inner: write,
                    written: written.clone(),
                },
                ctx,
            );
            let reader = ctx.add_stream(FramedRead::new(read, JsonLines::new(MAX_LINE_BYTES)));
            Connection {
                id: ConnId(NEXT_CONN_ID.fetch_add(1, Ordering::Relaxed)),
                supervisor,
                limits,
                writer,
                written,
                encoded: 0,
                slots: VecDeque::new(),
                front_slot: 0,
                generation: 0,
                held: Vec::new(),
                held_bytes: 0,
                subscribes_in_flight: 0,
                reader: Some(reader),
                read_closed: false,
                eof: false,
                closing: false,
            }
        })
    }

    fn handle_line(&mut self, line: &[u8], ctx: &mut Context<Self>) {
        if line.iter().all(u8::is_ascii_whitespace) {
            // A blank line (a stray newline from a hand-typed session) asks nothing.
            return;
        }
        let request = match Request::parse(line) {
            Ok(r) => r,
            Err(e) => {
                let line = Response::err(e.id, e.error).to_line();
                self.push_ready(vec![Bytes::from(line)]);
                return;
            },
        };
        let subscribe = matches!(request.method, Method::Subscribe(_));
        if subscribe {
            self.generation += 1;
            self.subscribes_in_flight += 1;
        }
        let slot = self.front_slot + self.slots.len() as u64;
        self.slots.push_back(Slot::Waiting { subscribe });
        let id = request.id.clone();
        let dispatch = Dispatch {
            request,
            conn: self.conn_handle(ctx),
            generation: self.generation,
        };
        let me = ctx.address();
        let sent = self.supervisor.send(dispatch);
        // Spawned as a plain task so a slow request never holds up the next line.
        actix_rt::spawn(async move {
            let (result, after, close_after) = match sent.await {
                Ok(reply) => (reply.result, reply.after, reply.close_after),
                Err(e) => (Err(crate::error::Error::from(e)), Vec::new(), false),
            };
            let mut lines = Vec::with_capacity(1 + after.len());
            lines.push(Bytes::from(response_line(&id, result)));
            lines.extend(after);
            me.do_send(Answered {
                slot,
                lines,
                close_after,
            });
        });
    }

    fn conn_handle(&self, ctx: &Context<Self>) -> ConnHandle {
        let addr = ctx.address();
        ConnHandle {
            id: self.id,
            deliver: addr.clone().recipient(),
            close: addr.clone().recipient(),
            drain: addr.recipient(),
        }
    }

    fn push_ready(&mut self, lines: Vec<Bytes>) {
        self.slots.push_back(Slot::Ready {
            lines,
            close_after: false,
            subscribe: false,
        });
    }

    /// Writes every response whose turn has come.
    fn flush_ready(&mut self, ctx: &mut Context<Self>) {
        while let Some(Slot::Ready { .. }) = self.slots.front() {
            let Some(Slot::Ready {
                lines,
                close_after,
                subscribe,
            }) = self.slots.pop_front()
            else {
                break;
            };
            self.front_slot += 1;
            for line in &lines {
                self.write(line, false, ctx);
            }
            if subscribe {
                self.subscribes_in_flight -= 1;
                if self.subscribes_in_flight == 0 {
                    self.held_bytes = 0;
                    for line in std::mem::take(&mut self.held) {
                        self.write(&line, true, ctx);
                    }
                }
            }
            if close_after {
                self.finish(ctx);
                return;
            }
        }
        if self.read_closed && self.slots.is_empty() {
            self.finish(ctx);
        }
    }

    /// Queues a line; disconnects a client that does not read its output.
    fn write(&mut self, line: &[u8], event: bool, ctx: &mut Context<Self>) {
        if self.closing {
            return;
        }
        self.writer.write(line);
        self.encoded += line.len() as u64;
        let queued = self
            .encoded
            .saturating_sub(self.written.load(Ordering::Relaxed));
        let limit = if event {
            self.limits.slow_subscriber_bytes
        } else {
            self.limits.max_queued_bytes
        };
        if queued > limit {
            log::warn!(
                "conn {}: {queued} bytes unread by the client, disconnecting it",
                self.id.0
            );
            self.closing = true;
            ctx.stop();
        }
    }

    /// Stops reading and closes once the queued output is flushed.
    fn finish(&mut self, ctx: &mut Context<Self>) {
        self.stop_reading(ctx);
        if !self.closing {
            self.closing = true;
            self.writer.close();
        }
    }

    fn stop_reading(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.reader.take() {
            ctx.cancel_future(h);
        }
        self.read_closed = true;
    }
}

impl Actor for Connection {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.supervisor.do_send(Connected {
            id: self.id,
            drain: ctx.address().recipient(),
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.supervisor.do_send(Disconnected { id: self.id });
    }
}

impl WriteHandler<std::io::Error> for Connection {
    fn error(&mut self, err: std::io::Error, _ctx: &mut Self::Context) -> Running {
        log::debug!("conn {}: write failed: {err}", self.id.0);
        Running::Stop
    }
}

impl StreamHandler<Result<Frame, std::io::Error>> for Connection {
    fn handle(&mut self, item: Result<Frame, std::io::Error>, ctx: &mut Self::Context) {
        match item {
            Ok(Frame::Line(line)) => self.handle_line(&line, ctx),
            Ok(Frame::TooLong) => {
                let body = ErrorBody::new(
                    ErrorCode::RateLimited,
                    format!("line too large: requests are limited to {MAX_LINE_BYTES} bytes"),
                );
                self.push_ready(vec![Bytes::from(
                    Response::err(UNKNOWN_REQUEST_ID, body).to_line(),
                )]);
            },
            Err(e) => {
                log::debug!("conn {}: read failed: {e}", self.id.0);
                self.stop_reading(ctx);
            },
        }
        self.flush_ready(ctx);
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        // EOF: answer what was asked, then close (spec/ipc.md §1 "Disconnect").
        self.reader = None;
        self.read_closed = true;
        self.eof = true;
        self.flush_ready(ctx);
    }
}

impl Handler<Answered> for Connection {
    type Result = ();

    fn handle(&mut self, msg: Answered, ctx: &mut Self::Context) {
        let Some(index) = msg.slot.checked_sub(self.front_slot) else {
            return;
        };
        if let Some(slot) = self.slots.get_mut(index as usize) {
            let subscribe = matches!(slot, Slot::Waiting { subscribe: true });
            *slot = Slot::Ready {
                lines: msg.lines,
                close_after: msg.close_after,
                subscribe,
            };
        }
        self.flush_ready(ctx);
    }
}

impl Handler<Deliver> for Connection {
    type Result = ();

    fn handle(&mut self, msg: Deliver, ctx: &mut Self::Context) {
        if msg.generation != self.generation || self.eof {
            return;
        }
        if self.subscribes_in_flight > 0 {
            self.held_bytes += msg.line.len() as u64;
            self.held.push(msg.line);
            if self.held_bytes > self.limits.slow_subscriber_bytes {
                log::warn!(
                    "conn {}: subscriber fell behind while its reply was pending",
                    self.id.0
                );
                self.closing = true;
                ctx.stop();
            }
        } else {
            self.write(&msg.line, true, ctx);
        }
    }
}

impl Handler<CloseConnection> for Connection {
    type Result = ();

    fn handle(&mut self, msg: CloseConnection, ctx: &mut Self::Context) {
        log::info!("conn {}: closing: {}", self.id.0, msg.reason);
        self.closing = true;
        ctx.stop();
    }
}

impl Handler<Drain> for Connection {
    type Result = ();

    fn handle(&mut self, _msg: Drain, ctx: &mut Self::Context) {
        self.stop_reading(ctx);
        self.flush_ready(ctx);
    }
}
