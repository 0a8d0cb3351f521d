//! The Sequencer: the one place an event becomes a fact. It gives every event
//! the next `seq`, hands it to the Journal, and only when the Journal reports it
//! durable applies it to the projection (the read model), keeps it in the ring
//! (recent history for replays), fans it out to subscribers and checks the
//! pending `wait`s. The numbers come from the server's [`SeqClock`], which
//! the panes share: a pane numbers its own `pty.data` there and sends it to
//! its viewers itself, never through here (docs/terminal.md#the-output-path).
//!
//! ```text
//!  publish(events) ─► seq N.. ─► pending ─► Journal thread ─► JournalAck{through}
//!                                                                  │
//!   publish_through(through): for each pending event up to `through`, in order:
//!     projection.apply ─► ring ─► subscribers ─► publisher's reply
//!   then: pending waits checked; turn starts reported to the caller
//! ```
//!
//! It is a plain struct owned by the Supervisor actor, whose mailbox feeds it
//! (`Publish`, `JournalAck`, `JournalStalled`); it never blocks. A journal
//! that cannot write (a full disk) stalls: what was not written and what is
//! published meanwhile is held, in order and bounded, until a retry writes it
//! (`hold.rs`, docs/reliability.md#a-full-disk). A journal failure is fatal:
//! every publisher still waiting is told, nothing unproven is ever applied,
//! and the Supervisor stops the server (docs/persistence.md#writing-the-journal).

use crate::actors::connection::{CloseConnection, ConnHandle, ConnId, KickReason};
use crate::actors::publish::PtyOut;
use crate::actors::subscriber::{DrainAfterEvents, Fanout, Subscriber};
use crate::domain::events::{EventFilter, Published, Ring};
use crate::domain::projection::Projection;
use crate::domain::waits::{WaitAnswer, Waits, Wanted};
use crate::error::Error;
use crate::store::health::StorageHealth;
use crate::store::journal::clock::SeqClock;
use crate::store::journal::file::DiskHistory;
use crate::store::journal::{Journal, JournalFailed, JournalRecord, JournalStore, Reports};
use actix::prelude::*;
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
    /// The tasks created or changed (the conflict radar looks again, the
    /// queue may move).
    pub tasks_changed: Vec<signaltty_protocol::TaskId>,
}

/// A sequenced state event waiting for the journal's acknowledgement: then
/// it is applied, kept in the ring and fanned out.
struct Pending {
    event: Box<Event>,
    published: Arc<Published>,
    waiter: Option<oneshot::Sender<Result<Seq, Error>>>,
    /// What its publisher is told if it has to be held.
    hold: Hold,
    /// When it was sequenced.
    at: Timestamp,
}

pub use crate::actors::publish::Hold;

mod hold;

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
    /// The server's seq counter, shared with the panes and the journal.
    clock: Arc<SeqClock>,
    /// Sequenced events waiting for the journal, in seq order.
    pending: VecDeque<Pending>,
    projection: Projection,
    ring: Ring,
    /// What the journal files can prove, for replays the ring cannot serve.
    disk: Option<Arc<DiskHistory>>,
    subscribers: HashMap<ConnId, Subscription>,
    subscriber_mailbox: usize,
    waits: Waits,
    /// The journal's stall: what it holds, what it dropped
    /// (docs/reliability.md#a-full-disk).
    stall: hold::Stall,
}

impl Sequencer {
    /// A sequencer continuing after `head`, the store's last seq. The journal
    /// starts with [`Sequencer::start_journal`].
    pub fn new(
        head: Seq,
        ring_events: usize,
        subscriber_mailbox: usize,
        disk: Option<Arc<DiskHistory>>,
        health: Arc<StorageHealth>,
        hold_events: usize,
    ) -> Sequencer {
        Sequencer {
            journal: None,
            failed: None,
            clock: SeqClock::new(head),
            pending: VecDeque::new(),
            projection: Projection::new(head),
            ring: Ring::new(ring_events, head),
            disk,
            subscribers: HashMap::new(),
            subscriber_mailbox,
            waits: Waits::default(),
            stall: hold::Stall::new(health, hold_events),
        }
    }

    /// Takes the world a restore rebuilt as the read model (at the head; no
    /// event is published for it, docs/restore.md#rebuilding-the-world).
    pub fn restore(&mut self, projection: Projection) {
        self.projection = projection;
    }

    /// Starts the journal thread over `store`; its acks and failures go to the
    /// given recipients (the Supervisor's mailbox).
    pub fn start_journal(
        &mut self,
        store: Box<dyn JournalStore>,
        reports: Reports,
    ) -> std::io::Result<()> {
        let failed = reports.failed.clone();
        self.journal = Some(Journal::spawn(
            store,
            self.clock.clone(),
            self.stall.health().clone(),
            reports,
        )?);
        self.failed = Some(failed);
        Ok(())
    }

    /// Sequences `events` and sends them to the journal. The receiver resolves
    /// with the last seq once every one of them is published.
    pub fn publish(&mut self, events: Vec<Event>) -> PublishReceipt {
        self.publish_held(events, Hold::Wait)
    }

    /// [`Sequencer::publish`], saying what the publisher is told while the
    /// journal is stalled.
    pub fn publish_held(&mut self, events: Vec<Event>, hold: Hold) -> PublishReceipt {
        let (tx, rx) = oneshot::channel();
        if events.is_empty() {
            let _ = tx.send(Ok(self.clock.last()));
            return rx;
        }
        let at = Timestamp::now();
        let count = events.len();
        let mut pendings = Vec::with_capacity(count);
        let mut waiter = Some(tx);
        // One block: a batch's numbers are consecutive, even while panes
        // take numbers on other threads.
        let first = self.clock.next_states(count as u64);
        for (i, event) in events.into_iter().enumerate() {
            let seq = Seq(first.0 + i as u64);
            let published = Published::new(seq, &event);
            let waiter = if i + 1 == count { waiter.take() } else { None };
            pendings.push(Pending {
                event: Box::new(event),
                published,
                waiter,
                hold,
                at: at.clone(),
            });
        }
        if self.stall.stalled() {
            self.hold(pendings);
        } else {
            let batch = pendings.iter().map(hold::record_of).collect();
            self.pending.extend(pendings);
            self.append(batch);
        }
        rx
    }

    /// What the panes number their `pty.data` with.
    pub fn pty_out(&self) -> PtyOut {
        PtyOut::new(self.clock.clone())
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
        while self
            .pending
            .front()
            .is_some_and(|p| p.published.seq <= through)
        {
            let Some(Pending {
                event,
                published,
                waiter,
                ..
            }) = self.pending.pop_front()
            else {
                break;
            };
            let seq = published.seq;
            if let Event::JournalGap { .. } = &*event {
                self.gap_published(seq);
            }
            applied.state_events += 1;
            // A working turn that does not resume from a permission prompt is a
            // new turn (docs/states.md#turns).
            if let Event::AgentWorking { pane, .. } = &*event
                && crate::domain::state::starts_turn(&event)
            {
                applied.turn_starts.push(TurnStart {
                    workspace: pane.workspace_id.clone(),
                    pane: pane.id.clone(),
                    seq,
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
            if let Event::TaskCreated { task } | Event::TaskUpdated { task, .. } = &*event {
                applied.tasks_changed.push(task.id.clone());
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
        let held = self.stall.take_all();
        for p in self.pending.drain(..).chain(held) {
            if let Some(w) = p.waiter {
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
        self.pending.is_empty() && !self.stall.holds_any()
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

    /// Whether the state directory takes writes.
    pub fn health(&self) -> &Arc<StorageHealth> {
        self.stall.health()
    }

    /// The journal's stall (its retry schedule).
    pub fn stall_mut(&mut self) -> &mut hold::Stall {
        &mut self.stall
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

/// The task whose worker pane `event` is about, if any
/// (docs/tasks.md#the-worker-and-its-task): agent and decision events carry the
/// pane; an exit or a close names it.
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
