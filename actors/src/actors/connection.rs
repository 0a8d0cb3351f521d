//! Connection: the JSONL codec actor for one socket client. It frames request
//! lines, parses them, and serves them one at a time in arrival order, so a
//! request sees the effects of every earlier request on the same connection
//! (docs/protocol.md#connection-rules). Subscribed events interleave at line
//! boundaries. No input can stop it except EOF: a bad line gets an error reply and
//! the next line is read as usual.
//!
//! Input is paced (see `flow.rs`): while many requests wait, or while the client
//! leaves its replies unread, the connection stops reading. Events cannot wait, so
//! a subscriber whose unwritten output passes `slow_subscriber_bytes` is
//! disconnected, as is any client past `max_queued_bytes`.

use crate::actors::connection::codec::{Frame, JsonLines};
use crate::actors::connection::flow::{CountingWriter, Flow, GatedStream};
use crate::actors::connection::reply::{Reply, response_line};
use actix::io::{WriteHandler, Writer};
use actix::prelude::*;
use bytes::Bytes;
use signaltty_model::settings::Limits;
use signaltty_protocol::envelope::{ErrorBody, Response};
use signaltty_protocol::method::RequestFlow;
use signaltty_protocol::{ErrorCode, MAX_LINE_BYTES, Request, UNKNOWN_REQUEST_ID};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio_util::codec::FramedRead;

pub use crate::ids::ConnId;
pub use kick::{CloseConnection, KickReason};

/// Serves one parsed request. Replies when the request's events are published.
#[derive(Message)]
#[rtype(result = "Reply")]
pub struct Dispatch {
    /// The request.
    pub request: Request,
    /// The connection it came on.
    pub conn: ConnHandle,
    /// The connection's subscription generation, for a `subscribe` request.
    pub generation: u64,
}

/// A connection was accepted; it is drained at shutdown.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Connected {
    /// The connection.
    pub id: ConnId,
    /// How to drain it.
    pub drain: Recipient<Drain>,
}

/// A connection is gone: drop its subscription, waits, routes and attachments.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Disconnected {
    /// The connection.
    pub id: ConnId,
}

/// Where a connection sends what it reads and when it comes and goes: the
/// Supervisor in the server, a probe in tests.
#[derive(Clone)]
pub struct Hub {
    /// Requests.
    pub dispatch: Recipient<Dispatch>,
    /// A connection was accepted.
    pub connected: Recipient<Connected>,
    /// A connection is gone.
    pub disconnected: Recipient<Disconnected>,
}

impl Hub {
    /// The hub of an actor that takes all three.
    pub fn of<A>(addr: &Addr<A>) -> Hub
    where
        A: Actor<Context = Context<A>>
            + Handler<Dispatch>
            + Handler<Connected>
            + Handler<Disconnected>,
    {
        Hub {
            dispatch: addr.clone().recipient(),
            connected: addr.clone().recipient(),
            disconnected: addr.clone().recipient(),
        }
    }
}

/// How the server reaches a connection: for subscriptions, attachments and
/// shutdown.
#[derive(Clone)]
pub struct ConnHandle {
    /// The connection.
    pub id: ConnId,
    /// Where subscribed events go.
    pub deliver: Recipient<Deliver>,
    /// How to close it (lag, out-of-order delivery, failed replay).
    pub close: Recipient<CloseConnection>,
    /// How to drain it at shutdown.
    pub drain: Recipient<Drain>,
    /// Where `pty.data` of attached panes goes.
    pub pty: Recipient<DeliverPty>,
    /// Its socket's descriptor (an upgrade hands the asking connection over).
    pub socket: std::os::fd::RawFd,
}

/// A subscribed event line for this connection.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Deliver {
    /// The subscription generation it belongs to; older generations are dropped.
    pub generation: u64,
    /// The event's seq.
    pub seq: u64,
    /// The event line, newline included.
    pub line: Bytes,
}

/// A `pty.data` line for a pane this connection attached, straight from the
/// pane (docs/terminal.md#the-output-path).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct DeliverPty {
    /// The event line, newline included.
    pub line: Bytes,
    /// Dropped with the message once the connection took the line: the pane
    /// paces its PTY reader by it.
    #[allow(dead_code)] // Never read: dropping it is the signal.
    pub taken: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

/// The server is stopping: read no more requests, answer the ones already read,
/// then close.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Drain;

/// A line to write in its turn, as if it answered a request read before any
/// other: the answer to `server.upgrade` on the connection that crossed the
/// exec (docs/upgrade.md).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Say(pub Bytes);

/// Requests read but not yet served past which the connection stops reading.
pub const MAX_WAITING_REQUESTS: usize = 1024;

/// A line waiting its turn.
enum Queued {
    /// A request to dispatch (boxed: a request is large, an answer small).
    Request(Box<Request>),
    /// An answer already known (a parse error): written in its turn.
    Answer(Bytes),
}

static NEXT_CONN_ID: AtomicU64 = AtomicU64::new(1);

/// The Connection actor.
pub struct Connection {
    id: ConnId,
    hub: Hub,
    limits: Limits,
    writer: Writer<CountingWriter<OwnedWriteHalf>, std::io::Error>,
    flow: Rc<Flow>,
    /// Lines read and not yet served, in arrival order.
    queue: VecDeque<Queued>,
    /// A request is with the Supervisor; the next waits for its answer.
    in_flight: Option<InFlight>,
    /// Subscription generation: bumped by every `subscribe` request.
    generation: u64,
    /// Live events held while a `subscribe` reply (and its replay) is
    /// unwritten, with their seqs (0 for `pty.data`).
    held: Vec<(u64, Bytes)>,
    held_bytes: u64,
    /// The highest seq of a state event written to the client: where it can
    /// resume from when the server cuts it off.
    written_seq: u64,
    reader: Option<SpawnHandle>,
    /// The socket's descriptor, owned by the stream's halves.
    socket: std::os::fd::RawFd,
    /// No more requests will be read (EOF, read error or drain).
    read_closed: bool,
    /// The client closed its side: its subscription is over
    /// (docs/protocol.md#connection-rules).
    eof: bool,
    closing: bool,
}

/// The request being served.
struct InFlight {
    /// How it is served: whether events that arrive meanwhile wait for its reply,
    /// whether a further line cancels it (docs/protocol.md#connection-rules).
    flow: RequestFlow,
    /// The future awaiting the Supervisor's reply.
    handle: Option<SpawnHandle>,
}

impl Connection {
    /// Starts a connection actor for an accepted, authorized stream.
    pub fn start(stream: UnixStream, hub: Hub, limits: Limits) -> Addr<Connection> {
        let socket = std::os::fd::AsRawFd::as_raw_fd(&stream);
        let (read, write) = stream.into_split();
        Connection::create(move |ctx| {
            let flow = Flow::new();
            let writer = Writer::new(CountingWriter::new(write, flow.clone()), ctx);
            let lines = FramedRead::new(read, JsonLines::new(MAX_LINE_BYTES));
            let reader = ctx.add_stream(GatedStream::new(lines, flow.clone()));
            Connection {
                id: ConnId(NEXT_CONN_ID.fetch_add(1, Ordering::Relaxed)),
                hub,
                limits,
                writer,
                flow,
                queue: VecDeque::new(),
                in_flight: None,
                generation: 0,
                held: Vec::new(),
                held_bytes: 0,
                written_seq: 0,
                reader: Some(reader),
                socket,
                read_closed: false,
                eof: false,
                closing: false,
            }
        })
    }

    fn enqueue(&mut self, item: Queued, ctx: &mut Context<Self>) {
        self.queue.push_back(item);
        if self.queue.len() >= MAX_WAITING_REQUESTS {
            self.flow.pause_for_requests(true);
        }
        self.pump(ctx);
    }

    fn enqueue_line(&mut self, line: &[u8], ctx: &mut Context<Self>) {
        let item = match Request::parse(line) {
            Ok(request) => Queued::Request(Box::new(request)),
            Err(e) => Queued::Answer(Bytes::from(Response::err(e.id, e.error).to_line())),
        };
        self.enqueue(item, ctx);
    }

    /// Serves queued lines until one has to wait for the Supervisor.
    fn pump(&mut self, ctx: &mut Context<Self>) {
        while self.in_flight.is_none() && !self.closing {
            let Some(item) = self.queue.pop_front() else {
                break;
            };
            match item {
                Queued::Answer(line) => self.write(&line, false, ctx),
                Queued::Request(request) => self.dispatch(*request, ctx),
            }
        }
        if self.queue.len() < MAX_WAITING_REQUESTS / 2 {
            self.flow.pause_for_requests(false);
        }
        if self.read_closed && self.in_flight.is_none() && self.queue.is_empty() {
            self.finish();
        }
    }

    fn dispatch(&mut self, request: Request, ctx: &mut Context<Self>) {
        let flow = request.method.flow();
        if flow.starts_subscription() {
            self.generation += 1;
        }
        self.in_flight = Some(InFlight { flow, handle: None });
        let id = request.id.clone();
        let dispatch = Dispatch {
            request,
            conn: self.conn_handle(ctx),
            generation: self.generation,
        };
        let sent = self.hub.dispatch.send(dispatch);
        let handle = ctx.spawn(sent.into_actor(self).map(move |reply, act, ctx| {
            let (result, after, feed, close_after) = match reply {
                Ok(reply) => (reply.result, reply.after, reply.feed, reply.close_after),
                Err(e) => (Err(crate::error::Error::from(e)), Vec::new(), None, false),
            };
            act.write(&response_line(&id, result), false, ctx);
            for line in &after {
                act.write(line, false, ctx);
            }
            match feed {
                Some(feed) if !close_after => act.feed_replay(feed, ctx),
                _ => act.reply_done(close_after, ctx),
            }
        }));
        if let Some(f) = &mut self.in_flight {
            f.handle = Some(handle);
        }
    }

    /// The request in flight is answered, with every line that goes with it:
    /// write the events held meanwhile and serve the next request, or close.
    fn reply_done(&mut self, close_after: bool, ctx: &mut Context<Self>) {
        if self.in_flight.take().is_some_and(|f| f.flow.holds_events()) {
            self.held_bytes = 0;
            let held = std::mem::take(&mut self.held);
            // A subscribe that did not subscribe (its replay was not complete)
            // closes with no events at all.
            if !close_after {
                for (seq, line) in held {
                    self.write_event(seq, &line, ctx);
                }
            }
        }
        if close_after {
            self.stop_reading(ctx);
            self.queue.clear();
            self.finish();
        } else {
            self.pump(ctx);
        }
    }

    /// Writes a state event's line, remembering its seq for a resume hint.
    fn write_event(&mut self, seq: u64, line: &[u8], ctx: &mut Context<Self>) {
        if seq > 0 {
            self.written_seq = self.written_seq.max(seq);
        }
        self.write(line, true, ctx);
    }

    /// Whether a single-flight call is pending.
    fn single_flight(&self) -> bool {
        self.in_flight
            .as_ref()
            .is_some_and(|f| f.flow.single_flight())
    }

    /// Cancels the pending single-flight call: no response, the connection closes
    /// (its going away also drops the call in the Supervisor).
    fn cancel_single_flight(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.in_flight.take().and_then(|f| f.handle) {
            ctx.cancel_future(handle);
        }
        self.stop_reading(ctx);
        self.queue.clear();
        self.finish();
    }

    fn conn_handle(&self, ctx: &Context<Self>) -> ConnHandle {
        let addr = ctx.address();
        ConnHandle {
            id: self.id,
            deliver: addr.clone().recipient(),
            close: addr.clone().recipient(),
            drain: addr.clone().recipient(),
            pty: addr.recipient(),
            socket: self.socket,
        }
    }

    /// Queues a line for the client; disconnects a client that does not read.
    fn write(&mut self, line: &[u8], event: bool, ctx: &mut Context<Self>) {
        if self.closing {
            return;
        }
        self.writer.write(line);
        let queued = self.flow.queued_after_encoding(line.len());
        let limit = if event {
            self.limits.slow_subscriber_bytes
        } else {
            self.limits.max_queued_bytes
        };
        if queued > limit {
            let why = if event {
                format!("subscriber fell behind: more than {limit} bytes of events unread")
            } else {
                format!("client does not read its replies: more than {limit} bytes unread")
            };
            self.kick(KickReason::SlowReader, &why, ctx);
        }
    }

    /// Closes once the queued output is flushed.
    fn finish(&mut self) {
        if !self.closing {
            self.closing = true;
            self.writer.close();
            // `close` only sets a flag; an idle writer would never look at it. An
            // empty write wakes it so it flushes, sees the flag and finishes.
            self.writer.write(&[]);
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
        self.hub.connected.do_send(Connected {
            id: self.id,
            drain: ctx.address().recipient(),
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.hub.disconnected.do_send(Disconnected { id: self.id });
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
        if self.single_flight() {
            self.cancel_single_flight(ctx);
            return;
        }
        match item {
            Ok(Frame::Line(line)) => self.enqueue_line(&line, ctx),
            Ok(Frame::TooLong) => {
                let body = ErrorBody::new(
                    ErrorCode::RateLimited,
                    format!("line too large: requests are limited to {MAX_LINE_BYTES} bytes"),
                );
                let line = Response::err(UNKNOWN_REQUEST_ID, body).to_line();
                self.enqueue(Queued::Answer(Bytes::from(line)), ctx);
            },
            Err(e) => {
                log::debug!("conn {}: read failed: {e}", self.id.0);
                self.stop_reading(ctx);
                self.pump(ctx);
            },
        }
    }

    fn finished(&mut self, ctx: &mut Self::Context) {
        // EOF: answer what was asked, then close
        // (docs/protocol.md#connection-rules).
        self.reader = None;
        self.read_closed = true;
        self.eof = true;
        if self.single_flight() {
            self.cancel_single_flight(ctx);
            return;
        }
        self.pump(ctx);
    }
}

impl Handler<Deliver> for Connection {
    type Result = ();

    fn handle(&mut self, msg: Deliver, ctx: &mut Self::Context) {
        if msg.generation != self.generation || self.eof {
            return;
        }
        self.deliver(msg.seq, msg.line, ctx);
    }
}

impl Handler<DeliverPty> for Connection {
    type Result = ();

    fn handle(&mut self, msg: DeliverPty, ctx: &mut Self::Context) {
        if self.eof {
            return;
        }
        self.deliver(0, msg.line, ctx);
    }
}

impl Connection {
    /// Writes an event line, or holds it while a subscribe or attach reply is pending.
    fn deliver(&mut self, seq: u64, line: Bytes, ctx: &mut Context<Self>) {
        if self
            .in_flight
            .as_ref()
            .is_some_and(|f| f.flow.holds_events())
        {
            self.held_bytes += line.len() as u64;
            self.held.push((seq, line));
            if self.held_bytes > self.limits.slow_subscriber_bytes {
                let why = format!(
                    "subscriber fell behind: more than {} bytes of live events wait behind its reply or replay",
                    self.limits.slow_subscriber_bytes
                );
                self.kick(KickReason::SlowReader, &why, ctx);
            }
        } else {
            self.write_event(seq, &line, ctx);
        }
    }
}

impl Handler<Say> for Connection {
    type Result = ();

    fn handle(&mut self, msg: Say, ctx: &mut Self::Context) {
        self.queue.push_front(Queued::Answer(msg.0));
        self.pump(ctx);
    }
}

impl Handler<Drain> for Connection {
    type Result = ();

    fn handle(&mut self, _msg: Drain, ctx: &mut Self::Context) {
        let answered = self
            .in_flight
            .as_ref()
            .is_some_and(|f| f.flow.answered_at_shutdown());
        if self.single_flight() && !answered {
            self.cancel_single_flight(ctx);
            return;
        }
        self.stop_reading(ctx);
        self.pump(ctx);
    }
}

pub mod codec;
pub mod flow;
mod kick;
mod replay;
pub mod reply;
