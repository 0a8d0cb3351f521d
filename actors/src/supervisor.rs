//! Supervisor: the single sequencer. It allocates ids, holds the registry of actor
//! addresses, gives every state event the next `seq`, has the Journal make it
//! durable, and only then applies it to the projection, keeps it in the ring and
//! fans it out. Requests arrive here from Connections as `Dispatch` and are routed
//! by `router.rs`.
//!
//! ```text
//!  Publish(events) ─► seq N.. ─► pending ─► Journal ─► JournalAck{through}
//!                                                         │
//!        reply to the publisher ◄─ fan-out ◄─ ring ◄─ projection.apply (seq order)
//! ```

use crate::config::Config;
use crate::connection::{CloseConnection, Deliver, DeliverPty, Drain, KickReason};
use crate::error::Error;
use crate::events::{EventFilter, Published, Ring};
use crate::journal::file::DiskHistory;
use crate::journal::{Journal, JournalAck, JournalFailed, JournalRecord, JournalStore};
use crate::pane::Pane;
use crate::projection::Projection;
use crate::subscriber::{DrainAfterEvents, Fanout, Subscriber};
use crate::workspace::Workspace;
use actix::prelude::*;
use base64::Engine as _;
use bytes::Bytes;
use signaltty_protocol::envelope::EventFrame;
use signaltty_protocol::{
    Event, PaneId, Request, Seq, TabId, Timestamp, WorkspaceId, WorkspaceRef,
};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{oneshot, watch};

/// Messages the Supervisor's mailbox holds before senders wait.
pub const SUPERVISOR_MAILBOX: usize = 65_536;

/// Identifies one client connection for the life of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnId(pub u64);

/// A live pane in the registry.
#[derive(Clone)]
pub struct PaneEntry {
    /// Its id.
    pub id: PaneId,
    /// Its actor.
    pub addr: Addr<Pane>,
    /// Its workspace.
    pub workspace: WorkspaceId,
    /// Its tab.
    pub tab: TabId,
    /// The pid of the process it started (for hook attribution by ancestry).
    pub pid: u32,
}

/// How the Supervisor reaches a connection: for subscriptions and shutdown.
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
}

/// What a request produces: its result, lines to write right after the response
/// (a subscription's replay), and whether to close the connection afterwards.
#[derive(Debug)]
pub struct Reply {
    /// The method's result as JSON text, or its error.
    pub result: Result<Bytes, Error>,
    /// Lines written right after the response, before any other line.
    pub after: Vec<Bytes>,
    /// Close the connection once these lines are written.
    pub close_after: bool,
}

impl Reply {
    /// A plain reply. The result is serialized here, once, straight to JSON text.
    pub fn of<T: serde::Serialize>(result: Result<T, Error>) -> Reply {
        let result = result.and_then(|r| {
            serde_json::to_vec(&r)
                .map(Bytes::from)
                .map_err(|e| Error::BadParams(format!("unserializable result: {e}")))
        });
        Reply {
            result,
            after: Vec::new(),
            close_after: false,
        }
    }
}

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

/// Sequences, journals and publishes events for their owning actor. Replies with
/// the seq of the last event once all are published; fails only when the journal
/// has failed (and the server is stopping).
#[derive(Debug, Message)]
#[rtype(result = "Result<Seq, Error>")]
pub struct Publish {
    /// The events, published in this order with consecutive seqs.
    pub events: Vec<Event>,
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

/// A connection is gone: drop its subscription.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Disconnected {
    /// The connection.
    pub id: ConnId,
}

/// Stop the server: announce it, finish in-flight replies, exit. A second request
/// while already stopping stops at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct BeginShutdown {
    /// Why, for the log.
    pub reason: String,
}

/// A sequenced item waiting for the journal's acknowledgement.
enum Pending {
    /// A state event: journaled, then applied, kept in the ring and fanned out.
    State {
        event: Box<Event>,
        published: Arc<Published>,
        waiter: Option<oneshot::Sender<Result<Seq, Error>>>,
    },
    /// A `pty.data` frame: its number is reserved like any other, but it is only
    /// sent to the pane's viewers.
    Pty {
        seq: Seq,
        line: Bytes,
        viewers: Vec<Recipient<DeliverPty>>,
    },
}

impl Pending {
    fn seq(&self) -> Seq {
        match self {
            Pending::State { published, .. } => published.seq,
            Pending::Pty { seq, .. } => *seq,
        }
    }
}

/// A chunk of a pane's output for its viewers (`pty.data`). The Supervisor numbers
/// it and delivers it in seq order with the state events.
#[derive(Message)]
#[rtype(result = "()")]
pub struct PtyData {
    /// The pane.
    pub pane_id: PaneId,
    /// The bytes.
    pub chunk: Vec<u8>,
    /// The pane's cumulative output offset at the end of the chunk.
    pub end_offset: u64,
    /// The connections attached to the pane.
    pub viewers: Vec<Recipient<DeliverPty>>,
}

/// The Supervisor actor.
pub struct Supervisor {
    pub(crate) config: Arc<Config>,
    pub(crate) started: Instant,
    journal: Option<Journal>,
    store: Option<Box<dyn JournalStore>>,
    /// The last seq handed out.
    last_seq: Seq,
    /// Sequenced events waiting for the journal, in seq order.
    pending: VecDeque<Pending>,
    pub(crate) projection: Projection,
    pub(crate) ring: Ring,
    /// What the journal files can prove, for replays the ring cannot serve.
    pub(crate) disk: Option<Arc<DiskHistory>>,
    /// Live workspace actors, the write-side registry.
    pub(crate) workspaces: HashMap<WorkspaceId, Addr<Workspace>>,
    /// Handles in use, reserved at create and freed at close.
    pub(crate) handles: HashMap<String, WorkspaceId>,
    /// Which workspace owns each live tab.
    pub(crate) tabs: HashMap<TabId, WorkspaceId>,
    /// Every pane actor, with where it lives.
    pub(crate) panes: HashMap<PaneId, PaneEntry>,
    /// Pane names in use.
    pub(crate) pane_names: HashMap<String, PaneId>,
    /// The panes each connection attached, detached when it goes away.
    pub(crate) attachments: HashMap<ConnId, HashSet<Addr<Pane>>>,
    /// Arbiters pane actors run on, used round robin.
    pane_arbiters: Vec<ArbiterHandle>,
    next_arbiter: usize,
    subscribers: HashMap<ConnId, (Addr<Subscriber>, Recipient<CloseConnection>)>,
    /// `wait` requests not settled yet, checked after every published batch.
    pub(crate) waits: Vec<crate::router::wait::PendingWait>,
    /// Live answer routes of waiting permission reporters, by the connection
    /// that waits: ended when it goes away, and at shutdown.
    pub(crate) decisions: Vec<(ConnId, Addr<crate::decision::Decision>)>,
    /// Pane launches under way: their processes may report hooks before the
    /// launch is registered here.
    pub(crate) launching: usize,
    /// Counts finished launches; hooks that found no pane wait on it.
    pub(crate) launched: watch::Sender<u64>,
    /// A process refresh is reading `/proc`.
    refreshing: bool,
    /// Turns started by the last published batch, to capture (spec lifecycle.md §9).
    turn_starts: Vec<(signaltty_protocol::WorkspaceId, PaneId, Timestamp)>,
    /// The newest turn baseline of each workspace: the captured tree, or why not.
    pub(crate) turn_baselines: HashMap<WorkspaceId, TurnBaseline>,
    connections: HashMap<ConnId, Recipient<Drain>>,
    pub(crate) shutting_down: bool,
    stop_accepting: watch::Sender<bool>,
    exit_code: i32,
}

impl Supervisor {
    /// A supervisor over `store`. `stop_accepting` is flipped to `true` at shutdown.
    pub fn new(
        config: Arc<Config>,
        store: impl JournalStore,
        disk: Option<Arc<DiskHistory>>,
        stop_accepting: watch::Sender<bool>,
    ) -> Supervisor {
        let head = store.head();
        Supervisor {
            ring: Ring::new(config.limits.ring_events, head),
            config,
            started: Instant::now(),
            journal: None,
            store: Some(Box::new(store)),
            last_seq: head,
            pending: VecDeque::new(),
            projection: Projection::new(head),
            disk,
            workspaces: HashMap::new(),
            handles: HashMap::new(),
            tabs: HashMap::new(),
            panes: HashMap::new(),
            attachments: HashMap::new(),
            pane_names: HashMap::new(),
            pane_arbiters: Vec::new(),
            next_arbiter: 0,
            subscribers: HashMap::new(),
            waits: Vec::new(),
            decisions: Vec::new(),
            launching: 0,
            launched: watch::channel(0).0,
            refreshing: false,
            turn_starts: Vec::new(),
            turn_baselines: HashMap::new(),
            connections: HashMap::new(),
            shutting_down: false,
            stop_accepting,
            exit_code: 0,
        }
    }

    /// Sequences `events`, sends them to the journal, and returns a receiver that
    /// resolves with the last seq once every one of them is published.
    pub(crate) fn publish(&mut self, events: Vec<Event>) -> oneshot::Receiver<Result<Seq, Error>> {
        let (tx, rx) = oneshot::channel();
        if events.is_empty() {
            let _ = tx.send(Ok(self.last_seq));
            return rx;
        }
        let at = Timestamp::now();
        let count = events.len();
        let mut batch = Vec::with_capacity(count);
        let mut waiter = Some(tx);
        for (i, event) in events.into_iter().enumerate() {
            self.last_seq = self.last_seq.next();
            let published = Published::new(self.last_seq, &event);
            batch.push(JournalRecord {
                seq: self.last_seq,
                event: published.name,
                payload: published.payload_json.clone(),
                at: at.clone(),
                journaled: true,
            });
            let waiter = if i + 1 == count { waiter.take() } else { None };
            self.pending.push_back(Pending::State {
                event: Box::new(event),
                published,
                waiter,
            });
        }
        let sent = match &self.journal {
            Some(j) => j.append(batch),
            None => Err("journal is not running".to_owned()),
        };
        if let Err(e) = sent {
            self.fail_stop(&e);
        }
        rx
    }

    /// Numbers a chunk of pane output and queues it behind the state events.
    fn sequence_pty(&mut self, msg: PtyData) {
        self.last_seq = self.last_seq.next();
        let seq = self.last_seq;
        let event = Event::PtyData {
            pane_id: msg.pane_id,
            data_b64: base64::engine::general_purpose::STANDARD.encode(&msg.chunk),
            output_offset: msg.end_offset,
        };
        let line = Bytes::from(EventFrame::new(event.name(), seq.0, event.payload()).to_line());
        let record = JournalRecord {
            seq,
            event: event.name(),
            payload: Bytes::new(),
            at: Timestamp::now(),
            journaled: false,
        };
        self.pending.push_back(Pending::Pty {
            seq,
            line,
            viewers: msg.viewers,
        });
        let sent = match &self.journal {
            Some(j) => j.append(vec![record]),
            None => Err("journal is not running".to_owned()),
        };
        if let Err(e) = sent {
            self.fail_stop(&e);
        }
    }

    /// Publishes everything the journal has made durable, in seq order.
    fn publish_through(&mut self, through: Seq) {
        let mut state_changed = false;
        while self.pending.front().is_some_and(|p| p.seq() <= through) {
            let Some(p) = self.pending.pop_front() else {
                break;
            };
            match p {
                Pending::State {
                    event,
                    published,
                    waiter,
                } => {
                    let seq = published.seq;
                    state_changed = true;
                    // A working turn that does not resume from a permission prompt
                    // is a new turn (spec/lifecycle.md §9).
                    if let Event::AgentWorking { pane, .. } = &*event
                        && crate::state::starts_turn(&event)
                    {
                        self.turn_starts.push((
                            pane.workspace_id.clone(),
                            pane.id.clone(),
                            Timestamp::now(),
                        ));
                    }
                    self.projection.apply(seq, *event);
                    self.ring.push(published.clone());
                    self.fan_out(&published);
                    if let Some(w) = waiter {
                        // The publisher may have gone away (its client disconnected);
                        // the event is published all the same.
                        let _ = w.send(Ok(seq));
                    }
                },
                Pending::Pty { line, viewers, .. } => {
                    for viewer in viewers {
                        viewer.do_send(DeliverPty { line: line.clone() });
                    }
                },
            }
        }
        if state_changed {
            crate::router::wait::check_pending(self);
        }
    }

    fn fan_out(&mut self, event: &Arc<Published>) {
        let mut gone = Vec::new();
        for (id, (sub, close)) in &self.subscribers {
            match sub.try_send(Fanout(event.clone())) {
                Ok(()) => {},
                Err(SendError::Full(_)) => {
                    log::warn!("conn {}: subscriber lagged behind, closing it", id.0);
                    close.do_send(CloseConnection {
                        kind: KickReason::Lagged,
                        reason: "subscriber lagged behind the event stream".into(),
                    });
                    gone.push(*id);
                },
                Err(SendError::Closed(_)) => gone.push(*id),
            }
        }
        for id in gone {
            if let Some((sub, _)) = self.subscribers.remove(&id) {
                drop(sub);
            }
        }
    }

    /// Registers (or replaces) the subscription of a connection.
    pub(crate) fn subscribe(
        &mut self,
        conn: &ConnHandle,
        generation: u64,
        filter: EventFilter,
        fence: Seq,
    ) {
        let sub = Subscriber::new(
            filter,
            fence,
            generation,
            conn.clone(),
            self.config.limits.subscriber_mailbox,
        )
        .start();
        self.subscribers.insert(conn.id, (sub, conn.close.clone()));
    }

    /// The head: the seq of the last published event.
    pub(crate) fn head(&self) -> Seq {
        self.projection.seq()
    }

    /// Finds a live workspace actor by id, then by handle.
    pub(crate) fn resolve_workspace(
        &self,
        r: &WorkspaceRef,
    ) -> Result<(WorkspaceId, Addr<Workspace>), Error> {
        let id = WorkspaceId(r.0.clone());
        if let Some(addr) = self.workspaces.get(&id) {
            return Ok((id, addr.clone()));
        }
        if let Some(id) = self.handles.get(r.as_str())
            && let Some(addr) = self.workspaces.get(id)
        {
            return Ok((id.clone(), addr.clone()));
        }
        Err(Error::NoSuchWorkspace(r.clone()))
    }

    /// Finds the Workspace actor owning a tab.
    pub(crate) fn resolve_tab(&self, id: &TabId) -> Result<Addr<Workspace>, Error> {
        self.tabs
            .get(id)
            .and_then(|ws| self.workspaces.get(ws))
            .cloned()
            .ok_or_else(|| Error::NoSuchTab(id.clone()))
    }

    /// Resolves a pane reference (a pane id, else a unique pane name) to a pane id.
    pub(crate) fn resolve_pane_ref(&self, r: &PaneId) -> Result<PaneId, Error> {
        if self.panes.contains_key(r) {
            return Ok(r.clone());
        }
        self.pane_names
            .get(r.as_str())
            .cloned()
            .ok_or_else(|| Error::NoSuchPane(r.0.clone()))
    }

    /// Frees the names of panes that no longer exist.
    pub(crate) fn forget_closed_names(&mut self) {
        let panes = &self.panes;
        self.pane_names.retain(|_, id| panes.contains_key(id));
    }

    /// The registry entry of a pane reference.
    pub(crate) fn pane_entry(&self, r: &PaneId) -> Result<PaneEntry, Error> {
        let id = self.resolve_pane_ref(r)?;
        self.panes.get(&id).cloned().ok_or(Error::NoSuchPane(id.0))
    }

    /// Sets the arbiters pane actors run on (default: the Supervisor's own).
    pub fn with_pane_arbiters(mut self, arbiters: Vec<ArbiterHandle>) -> Supervisor {
        self.pane_arbiters = arbiters;
        self
    }

    /// The arbiter for the next pane, round robin.
    pub(crate) fn next_pane_arbiter(&mut self) -> ArbiterHandle {
        if self.pane_arbiters.is_empty() {
            return Arbiter::current();
        }
        self.next_arbiter = (self.next_arbiter + 1) % self.pane_arbiters.len();
        self.pane_arbiters[self.next_arbiter].clone()
    }

    /// Announces shutdown, stops accepting and drains every connection; the system
    /// stops once they are gone or the grace period ends.
    pub(crate) fn begin_shutdown(&mut self, ctx: &mut Context<Self>) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        let _ = self.stop_accepting.send(true);
        // Waiting permission reporters get their answer: none (`shutdown`).
        for (_, route) in self.decisions.drain(..) {
            route.do_send(crate::decision::EndWait(crate::decision::WaitEnd::Shutdown));
        }
        for (id, drain) in &self.connections {
            // A subscribed connection is drained through its Subscriber, behind the
            // events already offered to it, so `server.will_shutdown` reaches it.
            match self.subscribers.get(id) {
                Some((sub, _)) => sub.do_send(DrainAfterEvents),
                None => drain.do_send(Drain),
            }
        }
        if self.connections.is_empty() {
            self.stop_now();
        } else {
            ctx.run_later(self.config.limits.shutdown_grace, |act, _| {
                log::warn!(
                    "{} connection(s) did not finish in time",
                    act.connections.len()
                );
                act.stop_now();
            });
        }
    }

    fn stop_now(&mut self) {
        if let Some(mut j) = self.journal.take() {
            j.close();
        }
        System::current().stop_with_code(self.exit_code);
    }

    /// A journal failure is fatal: nothing unproven may be published.
    fn fail_stop(&mut self, why: &str) {
        log::error!("event journal failed, stopping the server: {why}");
        for p in self.pending.drain(..) {
            if let Pending::State {
                waiter: Some(w), ..
            } = p
            {
                let _ = w.send(Err(Error::JournalFailed(why.to_owned())));
            }
        }
        // spec/persistence.md §3: a journal or reservation failure exits with status 1.
        self.exit_code = 1;
        self.journal = None;
        let _ = self.stop_accepting.send(true);
        System::current().stop_with_code(self.exit_code);
    }
}

impl Actor for Supervisor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        // Every request and every publish goes through here; a roomy mailbox keeps
        // bursts from many clients flowing, and `send` still waits when it is full.
        ctx.set_mailbox_capacity(SUPERVISOR_MAILBOX);
        if let Some(store) = self.store.take() {
            let addr = ctx.address();
            match Journal::spawn(store, addr.clone().recipient(), addr.recipient()) {
                Ok(j) => self.journal = Some(j),
                Err(e) => self.fail_stop(&format!("cannot start the journal thread: {e}")),
            }
        }
        ctx.run_interval(self.config.limits.process_refresh, |sup, ctx| {
            sup.refresh_processes(ctx);
        });
    }
}

/// The baseline of a workspace's latest turn (runtime only).
#[derive(Debug, Clone)]
pub struct TurnBaseline {
    /// The pane whose turn it is.
    pub pane: PaneId,
    /// The checkout's tree when the turn started, or why it could not be written.
    pub tree: Result<String, String>,
    pub started_at: Timestamp,
}

impl Supervisor {
    /// Captures the workspace checkout's tree for a turn that just started, on a
    /// blocking thread, records it as the workspace's baseline (the newest turn
    /// wins) and publishes `workspace.turn_started`, also when the capture failed.
    fn capture_turn(
        &mut self,
        workspace: WorkspaceId,
        pane: PaneId,
        started_at: Timestamp,
        ctx: &mut Context<Self>,
    ) {
        let Some(cwd) = self.projection.workspace(&workspace).map(|w| w.cwd.clone()) else {
            return;
        };
        let capture = actix_rt::task::spawn_blocking(move || {
            crate::turns::capture_tree(std::path::Path::new(&cwd))
        });
        ctx.spawn(capture.into_actor(self).map(move |tree, sup, _| {
            let tree = tree.unwrap_or_else(|e| Err(format!("capture failed: {e}")));
            // A later turn may have finished capturing first: the newest start wins.
            let newer = sup
                .turn_baselines
                .get(&workspace)
                .is_some_and(|b| b.started_at > started_at);
            if !newer {
                sup.turn_baselines.insert(
                    workspace.clone(),
                    TurnBaseline {
                        pane: pane.clone(),
                        tree,
                        started_at: started_at.clone(),
                    },
                );
            }
            if sup.projection.workspace(&workspace).is_some() {
                // Nobody waits for this publication; it happens all the same.
                drop(sup.publish(vec![Event::WorkspaceTurnStarted {
                    workspace_id: workspace,
                    pane_id: pane,
                    started_at,
                }]));
            }
        }));
    }

    /// The process refresh (spec/lifecycle.md §6.2): reads `/proc` once on a
    /// blocking thread and tells each live pane what it runs now; the panes
    /// decide whether that changes anything.
    fn refresh_processes(&mut self, ctx: &mut Context<Self>) {
        if self.refreshing || self.shutting_down {
            return;
        }
        let panes: Vec<(u32, Addr<Pane>)> = self
            .panes
            .values()
            .filter(|e| {
                self.projection
                    .pane(&e.id)
                    .is_some_and(|p| p.live == signaltty_protocol::pane::LiveState::Live)
            })
            .map(|e| (e.pid, e.addr.clone()))
            .collect();
        if panes.is_empty() {
            return;
        }
        self.refreshing = true;
        let scan = actix_rt::task::spawn_blocking(move || {
            let table = crate::procfs::ProcessTable::scan();
            panes
                .into_iter()
                .filter_map(|(pid, addr)| {
                    let target = table.deepest(pid);
                    let mut seen = crate::procfs::describe(target)?;
                    if !crate::procfs::SHELLS.contains(&seen.name.as_str()) {
                        seen.hint = crate::procfs::agent_hint(target)
                            .or_else(|| crate::procfs::agent_hint(pid));
                    }
                    Some((addr, seen))
                })
                .collect::<Vec<_>>()
        });
        ctx.spawn(scan.into_actor(self).map(|seen, sup, _| {
            sup.refreshing = false;
            for (addr, seen) in seen.unwrap_or_default() {
                addr.do_send(crate::pane::ProcessSeen { seen });
            }
        }));
    }
}

impl Handler<Dispatch> for Supervisor {
    type Result = ResponseActFuture<Self, Reply>;

    fn handle(&mut self, msg: Dispatch, ctx: &mut Self::Context) -> Self::Result {
        crate::router::route(self, msg, ctx)
    }
}

impl Handler<Publish> for Supervisor {
    type Result = ResponseFuture<Result<Seq, Error>>;

    fn handle(&mut self, msg: Publish, _ctx: &mut Self::Context) -> Self::Result {
        let rx = self.publish(msg.events);
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())))
        })
    }
}

impl Handler<PtyData> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: PtyData, _ctx: &mut Self::Context) {
        self.sequence_pty(msg);
    }
}

impl Handler<JournalAck> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: JournalAck, ctx: &mut Self::Context) {
        self.publish_through(msg.through);
        for (workspace, pane, started_at) in std::mem::take(&mut self.turn_starts) {
            self.capture_turn(workspace, pane, started_at, ctx);
        }
    }
}

impl Handler<JournalFailed> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: JournalFailed, _ctx: &mut Self::Context) {
        self.fail_stop(&msg.error);
    }
}

impl Handler<Connected> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: Connected, _ctx: &mut Self::Context) {
        if self.shutting_down {
            msg.drain.do_send(Drain);
        }
        self.connections.insert(msg.id, msg.drain);
    }
}

impl Handler<Disconnected> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: Disconnected, _ctx: &mut Self::Context) {
        self.subscribers.remove(&msg.id);
        // A wait ends with its connection (spec/ipc.md §1, single-flight).
        self.waits.retain(|w| w.conn != msg.id);
        self.decisions.retain(|(conn, route)| {
            if *conn == msg.id {
                route.do_send(crate::decision::EndWait(
                    crate::decision::WaitEnd::Abandoned,
                ));
            }
            *conn != msg.id && route.connected()
        });
        for pane in self.attachments.remove(&msg.id).unwrap_or_default() {
            pane.do_send(crate::pane::Detach { conn: msg.id });
        }
        self.connections.remove(&msg.id);
        if self.shutting_down && self.connections.is_empty() {
            self.stop_now();
        }
    }
}

impl Handler<BeginShutdown> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: BeginShutdown, ctx: &mut Self::Context) {
        if self.shutting_down {
            log::info!("{}: stopping now", msg.reason);
            self.stop_now();
            return;
        }
        log::info!("{}: shutting down", msg.reason);
        let rx = self.publish(vec![Event::ServerWillShutdown {}]);
        ctx.spawn(
            rx.into_actor(self)
                .map(|_, act, ctx| act.begin_shutdown(ctx)),
        );
    }
}

#[cfg(test)]
mod tests;
