//! The Sequencer: the one place an event becomes a fact. It gives every event
//! the next `seq`, hands it to the Journal, and only when the Journal reports it
//! durable applies it to the projection (the read model), keeps it in the ring
//! (recent history for replays), fans it out to subscribers and checks the
//! pending `wait`s. `pty.data` frames take a number in the same sequence but are
//! never journaled: they go to the pane's viewers in seq order with the rest.
//!
//! ```text
//!  publish(events) ─► seq N.. ─► pending ─► Journal thread ─► JournalAck{through}
//!                                                                  │
//!   publish_through(through): for each pending item up to `through`, in order:
//!     state event ─► projection.apply ─► ring ─► subscribers ─► publisher's reply
//!     pty.data    ─► the pane's viewers
//!   then: pending waits checked; turn starts reported to the caller
//! ```
//!
//! It is a plain struct owned by the Supervisor actor, whose mailbox feeds it
//! (`Publish`, `PtyData`, `JournalAck`); it never blocks. A journal failure is
//! fatal: every publisher still waiting is told, nothing unproven is ever
//! applied, and the Supervisor stops the server (spec/persistence.md §3).

use crate::actors::connection::{CloseConnection, ConnHandle, ConnId, DeliverPty, KickReason};
use crate::actors::publish::PtyData;
use crate::actors::subscriber::{DrainAfterEvents, Fanout, Subscriber};
use crate::domain::events::{EventFilter, Published, Ring};
use crate::domain::projection::Projection;
use crate::domain::waits::{WaitAnswer, Waits, Wanted};
use crate::error::Error;
use crate::store::journal::file::DiskHistory;
use crate::store::journal::{Journal, JournalAck, JournalFailed, JournalRecord, JournalStore};
use actix::prelude::*;
use base64::Engine as _;
use bytes::Bytes;
use signaltty_protocol::envelope::EventFrame;
use signaltty_protocol::{Event, Seq, Timestamp, WorkspaceId};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use tokio::sync::oneshot;

/// Resolves with the last seq of a publication once it is published, or with
/// the journal's failure.
pub type PublishReceipt = oneshot::Receiver<Result<Seq, Error>>;

pub use crate::domain::turns::TurnStart;

/// What one `publish_through` changed.
#[derive(Debug, Default)]
pub struct Applied {
    /// How many state events were applied.
    pub state_events: usize,
    /// The turns those events started.
    pub turn_starts: Vec<TurnStart>,
    /// The events of task workers' panes, with the task of each.
    pub worker_events: Vec<(signaltty_protocol::TaskId, Arc<Event>)>,
    /// The workspaces where an agent finished a turn (`agent.done`): their git
    /// cache is refreshed.
    pub turn_ends: Vec<WorkspaceId>,
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

/// A connection's subscription.
struct Subscription {
    sub: Addr<Subscriber>,
    close: Recipient<CloseConnection>,
}

/// The sequencer. See the module header.
pub struct Sequencer {
    journal: Option<Journal>,
    /// Told when an append cannot even be handed to the journal thread.
    failed: Option<Recipient<JournalFailed>>,
    /// The last seq handed out.
    last_seq: Seq,
    /// Sequenced items waiting for the journal, in seq order.
    pending: VecDeque<Pending>,
    projection: Projection,
    ring: Ring,
    /// What the journal files can prove, for replays the ring cannot serve.
    disk: Option<Arc<DiskHistory>>,
    subscribers: HashMap<ConnId, Subscription>,
    subscriber_mailbox: usize,
    waits: Waits,
}

impl Sequencer {
    /// A sequencer continuing after `head`, the store's last seq. The journal
    /// starts with [`Sequencer::start_journal`].
    pub fn new(
        head: Seq,
        ring_events: usize,
        subscriber_mailbox: usize,
        disk: Option<Arc<DiskHistory>>,
    ) -> Sequencer {
        Sequencer {
            journal: None,
            failed: None,
            last_seq: head,
            pending: VecDeque::new(),
            projection: Projection::new(head),
            ring: Ring::new(ring_events, head),
            disk,
            subscribers: HashMap::new(),
            subscriber_mailbox,
            waits: Waits::default(),
        }
    }

    /// Takes the world a restore rebuilt as the read model (at the head; no
    /// event is published for it, spec/persistence.md §8.1).
    pub fn restore(&mut self, projection: Projection) {
        self.projection = projection;
    }

    /// Starts the journal thread over `store`; its acks and failures go to the
    /// given recipients (the Supervisor's mailbox).
    pub fn start_journal(
        &mut self,
        store: Box<dyn JournalStore>,
        ack: Recipient<JournalAck>,
        failed: Recipient<JournalFailed>,
    ) -> std::io::Result<()> {
        self.journal = Some(Journal::spawn(store, ack, failed.clone())?);
        self.failed = Some(failed);
        Ok(())
    }

    /// Sequences `events` and sends them to the journal. The receiver resolves
    /// with the last seq once every one of them is published.
    pub fn publish(&mut self, events: Vec<Event>) -> PublishReceipt {
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
        self.append(batch);
        rx
    }

    /// Numbers a chunk of pane output and queues it behind the state events.
    pub fn sequence_pty(&mut self, msg: PtyData) {
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
        self.append(vec![record]);
    }

    fn append(&mut self, batch: Vec<JournalRecord>) {
        let sent = match &self.journal {
            Some(j) => j.append(batch),
            None => Err("journal is not running".to_owned()),
        };
        if let Err(e) = sent {
            self.fail(&e);
            // The Supervisor stops the server; until then nothing more is applied.
            if let Some(failed) = &self.failed {
                failed.do_send(JournalFailed { error: e });
            }
        }
    }

    /// Publishes everything the journal has made durable, in seq order, then
    /// checks the pending waits. Returns what changed.
    pub fn publish_through(&mut self, through: Seq) -> Applied {
        let mut applied = Applied::default();
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
                    applied.state_events += 1;
                    // A working turn that does not resume from a permission prompt
                    // is a new turn (spec/lifecycle.md §9).
                    if let Event::AgentWorking { pane, .. } = &*event
                        && crate::domain::state::starts_turn(&event)
                    {
                        applied.turn_starts.push(TurnStart {
                            workspace: pane.workspace_id.clone(),
                            pane: pane.id.clone(),
                            started_at: Timestamp::now(),
                        });
                    }
                    // Looked up before the event applies: a closed pane
                    // leaves the projection with it.
                    let worker = worker_task(&self.projection, &event);
                    if let Some(task) = worker {
                        applied
                            .worker_events
                            .push((task, Arc::new((*event).clone())));
                    }
                    if let Event::AgentDone { pane, .. } = &*event
                        && !applied.turn_ends.contains(&pane.workspace_id)
                    {
                        applied.turn_ends.push(pane.workspace_id.clone());
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
        if applied.state_events > 0 {
            self.waits.check_all(&self.projection);
        }
        applied
    }

    fn fan_out(&mut self, event: &Arc<Published>) {
        let mut gone = Vec::new();
        for (id, s) in &self.subscribers {
            match s.sub.try_send(Fanout(event.clone())) {
                Ok(()) => {},
                Err(SendError::Full(_)) => {
                    log::warn!("conn {}: subscriber lagged behind, closing it", id.0);
                    s.close.do_send(CloseConnection {
                        kind: KickReason::Lagged,
                        reason: "subscriber lagged behind the event stream".into(),
                    });
                    gone.push(*id);
                },
                Err(SendError::Closed(_)) => gone.push(*id),
            }
        }
        for id in gone {
            self.subscribers.remove(&id);
        }
    }

    /// The journal failed: every publisher still waiting is told, nothing
    /// pending is ever applied, and no more appends are taken.
    pub fn fail(&mut self, why: &str) {
        for p in self.pending.drain(..) {
            if let Pending::State {
                waiter: Some(w), ..
            } = p
            {
                let _ = w.send(Err(Error::JournalFailed(why.to_owned())));
            }
        }
        self.journal = None;
    }

    /// Stops the journal thread once it has written what it holds.
    pub fn close_journal(&mut self) {
        if let Some(mut j) = self.journal.take() {
            j.close();
        }
    }

    // ── subscriptions ──────────────────────────────────────────────────────

    /// Registers (or replaces) the subscription of a connection, delivering
    /// events after `fence`.
    pub fn subscribe(
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
            self.subscriber_mailbox,
        )
        .start();
        self.subscribers.insert(
            conn.id,
            Subscription {
                sub,
                close: conn.close.clone(),
            },
        );
    }

    /// A connection went away: its subscription and its waits end.
    pub fn disconnect(&mut self, conn: ConnId) {
        self.subscribers.remove(&conn);
        self.waits.drop_conn(conn);
    }

    /// At shutdown: drains a subscribed connection behind the events already
    /// offered to it, so `server.will_shutdown` reaches it. Returns false when
    /// the connection has no subscription (it is drained directly).
    pub fn drain_subscribed(&self, conn: ConnId) -> bool {
        match self.subscribers.get(&conn) {
            Some(s) => {
                s.sub.do_send(DrainAfterEvents);
                true
            },
            None => false,
        }
    }

    // ── reads ──────────────────────────────────────────────────────────────

    /// Whether everything sequenced has been journaled and published.
    pub fn settled(&self) -> bool {
        self.pending.is_empty()
    }

    /// The head: the seq of the last published event.
    pub fn head(&self) -> Seq {
        self.projection.seq()
    }

    /// The read model, at [`Sequencer::head`].
    pub fn projection(&self) -> &Projection {
        &self.projection
    }

    /// Recent history, for replays.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// The journal files' history, for replays the ring cannot serve.
    pub fn disk(&self) -> Option<&Arc<DiskHistory>> {
        self.disk.as_ref()
    }

    // ── waits ──────────────────────────────────────────────────────────────

    /// Registers a `wait`: checked now against the projection, then after every
    /// published batch.
    pub fn wait(&mut self, conn: ConnId, wanted: Wanted) -> WaitAnswer {
        self.waits.register(&self.projection, conn, wanted)
    }
}

/// The task whose worker pane `event` is about, if any (tasks.md §6): agent
/// and decision events carry the pane; an exit or a close names it.
fn worker_task(projection: &Projection, event: &Event) -> Option<signaltty_protocol::TaskId> {
    let pane = match event {
        Event::AgentWorking { pane, .. }
        | Event::AgentBlocked { pane, .. }
        | Event::AgentDone { pane, .. }
        | Event::AgentFailed { pane, .. }
        | Event::AgentIdle { pane, .. }
        | Event::AgentUnknown { pane, .. }
        | Event::AgentExited { pane, .. }
        | Event::DecisionCreated { pane, .. }
        | Event::DecisionAnswered { pane, .. }
        | Event::DecisionCleared { pane, .. } => {
            return pane.task_id.clone().map(signaltty_protocol::TaskId);
        },
        Event::PaneExited { pane_id, .. } | Event::PaneClosed { pane_id } => pane_id,
        _ => return None,
    };
    projection
        .pane(pane)
        .and_then(|p| p.task_id.clone())
        .map(signaltty_protocol::TaskId)
}
