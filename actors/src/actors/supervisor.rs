//! Supervisor: the actor at the centre. It owns the server's shared state, and
//! every request and every state event passes through its mailbox, so that
//! state changes one message at a time:
//!
//! - the [`Registry`](crate::domain::registry) (workspaces, tabs, panes, names,
//!   attachments), changed only through its methods;
//! - the [`Sequencer`](crate::actors::supervisor::sequencer) (seq, journal, projection, ring,
//!   fan-out, pending waits), which publishes what the journal made durable;
//! - the answer routes of waiting permission reporters, the connections to
//!   drain at shutdown, and the turn baselines.
//!
//! Requests arrive from Connections as `Dispatch` and are served by the router
//! (`router.rs`), which sees this state through a narrow [`Cx`]; the
//! Supervisor only hands it over. Blocking work (turn capture, the `/proc`
//! scan) runs on blocking threads.
//!
//! ```text
//!  Connection ──Dispatch──► Supervisor ──router(Cx)──► Workspace / Pane actors
//!  Pane/Workspace ──Publish──► Sequencer ──► Journal ──JournalAck──► publish_through
//! ```

use crate::actors::connection::{Dispatch, Drain};
use crate::actors::decision::AnswerRoutes;
use crate::actors::supervisor::router::Cx;
use crate::actors::supervisor::sequencer::Sequencer;
use crate::config::Config;
use crate::domain::registry::{Launches, Registry};
use crate::domain::turns::TurnBaselines;
use crate::os::listener::Accepting;
use crate::store::journal::JournalStore;
use crate::store::journal::file::DiskHistory;
use crate::store::restore::{RestoreReport, Restored};
use crate::store::snapshot::TailFiles;
use actix::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;

use crate::actors::arbiters::PaneArbiters;
use crate::actors::connection::ConnId;
use crate::actors::connection::reply::Reply;

/// What an in-place upgrade handed this binary: its PTYs' sinks reach their
/// pane actors through [`PaneAddr`](crate::actors::pane::PaneAddr).
pub type Takeover = crate::os::upgrade::takeover::Takeover<PaneReach>;

/// How an adopted PTY's sink learns its pane actor.
pub type PaneReach = crate::actors::pane::PaneAddr;

/// The registry of the running server: workspace and pane actors.
pub type ServerRegistry =
    Registry<Addr<crate::actors::workspace::Workspace>, Addr<crate::actors::pane::Pane>>;

/// Messages the Supervisor's mailbox holds before senders wait.
pub const SUPERVISOR_MAILBOX: usize = 65_536;

/// The Supervisor actor.
pub struct Supervisor {
    config: Arc<Config>,
    started: Instant,
    /// The journal's store until the actor starts the journal thread over it.
    store: Option<Box<dyn JournalStore>>,
    events: Sequencer,
    registry: ServerRegistry,
    launches: Launches,
    checkouts: crate::domain::worktrees::Checkouts,
    routes: AnswerRoutes,
    arbiters: PaneArbiters,
    /// The newest turn baseline of each workspace.
    turns: TurnBaselines,
    /// A process refresh is reading `/proc`.
    refreshing: bool,
    connections: HashMap<ConnId, Recipient<Drain>>,
    shutting_down: bool,
    stop_accepting: watch::Sender<Accepting>,
    /// Plain requests being served (an upgrade waits for them).
    in_flight: usize,
    /// An in-place upgrade under way (`upgrade.rs`).
    upgrading: Option<upgrade::Upgrading>,
    /// The listening socket, for an upgrade's exec.
    listener: Option<upgrade::ListenerInfo>,
    /// In-place upgrades this process has been through.
    upgrades: u64,
    /// How the last one went.
    last_upgrade: Option<signaltty_protocol::server::UpgradeReport>,
    /// What an upgrade handed this binary, adopted when the actor starts.
    takeover: Option<Takeover>,
    exit_code: i32,
    /// Told the exit code once the server has stopped; without it the
    /// Supervisor stops the actix System with that code.
    on_stop: Option<Box<dyn FnOnce(i32)>>,
    /// The world a restore rebuilt, adopted when the actor starts.
    restored: Option<Restored>,
    /// How the restore went.
    restore_report: RestoreReport,
    /// Snapshots: where, whether one is due, whether one is being written.
    snapshots: persist::Snapshots,
    /// The panes auto-resume starts after a restart.
    auto: autoresume::AutoResume,
    /// The hibernation check's quiet ages and asks.
    sweep: hibernate::Sweep,
    /// The reset each pane was last auto-continued for, before the journal
    /// has it (docs/states.md#auto-continue).
    continuing:
        std::collections::HashMap<signaltty_protocol::PaneId, signaltty_protocol::Timestamp>,
    /// The tasks' actors and the starts under way.
    tasks: crate::actors::task::ServerTaskBook,
    /// The monotonic ages of the watched workers' last activity.
    activity_ages: crate::domain::ages::Ages<signaltty_protocol::PaneId>,
    /// This actor's own address, once it runs.
    me: Option<Addr<Supervisor>>,
    /// The owner of `worktree.*`, once the Supervisor runs.
    worktrees: Option<Addr<crate::actors::worktrees::Worktrees>>,
    /// The owner of the conflict radar, once the Supervisor runs.
    radar: Option<Addr<crate::actors::radar::ConflictRadar>>,
}

impl Supervisor {
    /// A supervisor over `store`. `stop_accepting` is set to `Stopped` at
    /// shutdown (and `Paused` during an upgrade).
    pub fn new(
        config: Arc<Config>,
        store: impl JournalStore,
        disk: Option<Arc<DiskHistory>>,
        stop_accepting: watch::Sender<Accepting>,
    ) -> Supervisor {
        let head = store.head();
        let tail_cap = config.limits.history_tail_bytes;
        Supervisor {
            events: Sequencer::new(
                head,
                config.limits.ring_events,
                config.limits.subscriber_mailbox,
                disk,
                crate::store::health::StorageHealth::new(
                    &config.state_dir,
                    config.limits.state_dir_reserve_bytes,
                ),
                config.limits.hold_events,
            ),
            config,
            started: Instant::now(),
            store: Some(Box::new(store)),
            registry: ServerRegistry::new(),
            launches: Launches::default(),
            checkouts: crate::domain::worktrees::Checkouts::new(),
            routes: AnswerRoutes::default(),
            arbiters: PaneArbiters::default(),
            turns: TurnBaselines::default(),
            refreshing: false,
            connections: HashMap::new(),
            shutting_down: false,
            stop_accepting,
            in_flight: 0,
            upgrading: None,
            listener: None,
            upgrades: 0,
            last_upgrade: None,
            takeover: None,
            exit_code: 0,
            on_stop: None,
            restored: None,
            restore_report: RestoreReport::default(),
            snapshots: persist::Snapshots::with_tail_cap(tail_cap),
            auto: autoresume::AutoResume::default(),
            sweep: hibernate::Sweep::default(),
            continuing: Default::default(),
            tasks: crate::actors::task::ServerTaskBook::default(),
            activity_ages: Default::default(),
            me: None,
            worktrees: None,
            radar: None,
        }
    }

    /// Starts from what a restore rebuilt, and writes snapshots into
    /// `state_dir`.
    pub fn restored(mut self, restored: Restored, state_dir: std::path::PathBuf) -> Supervisor {
        self.snapshots.dir = Some(state_dir);
        // The journal keeps what no snapshot covers yet (journal/file.rs).
        if let Some(disk) = self.events.disk() {
            if let Some(seq) = restored.report.snapshot_seq {
                disk.snapshot_saved(seq);
            }
            disk.gate_rotation();
        }
        self.snapshots.taken_at = restored.report.snapshot_seq;
        // A restored pane's tail on disk is what it shows: nothing to rewrite
        // until its screen changes.
        *self.snapshots.tails.lock() = TailFiles::restored(restored.tails.keys().cloned())
            .with_cap(self.config.limits.history_tail_bytes);
        self.restored = Some(restored);
        self
    }

    /// Reports the exit code to `report` at stop instead of stopping the
    /// System (an in-process server, `crate::run`).
    pub fn on_stop(mut self, report: impl FnOnce(i32) + 'static) -> Supervisor {
        self.on_stop = Some(Box::new(report));
        self
    }

    /// The listening socket an upgrade hands over.
    pub fn with_listener(mut self, listener: upgrade::ListenerInfo) -> Supervisor {
        self.listener = Some(listener);
        self
    }

    /// Continues what an in-place upgrade handed over (docs/upgrade.md).
    pub fn taken_over(mut self, takeover: Takeover) -> Supervisor {
        self.upgrades = takeover.upgrades;
        self.takeover = Some(takeover);
        self
    }

    /// Sets the arbiters pane actors run on (default: the Supervisor's own).
    pub fn with_pane_arbiters(mut self, arbiters: Vec<ArbiterHandle>) -> Supervisor {
        self.arbiters = PaneArbiters::new(arbiters);
        self
    }
}

impl Supervisor {
    /// What routing may see and change, lent for one routing step.
    pub(crate) fn cx(&mut self) -> Cx<'_> {
        Cx {
            config: &self.config,
            started: self.started,
            shutting_down: self.shutting_down,
            registry: &mut self.registry,
            events: &mut self.events,
            launches: &mut self.launches,
            checkouts: &self.checkouts,
            arbiters: &mut self.arbiters,
            restore: &self.restore_report,
            tasks: &mut self.tasks,
            connections: &self.connections,
            turns: &self.turns,
            me: self.me.clone(),
            worktrees: self.worktrees.clone(),
            radar: self.radar.clone(),
        }
    }
}

impl Actor for Supervisor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        // Every request and every publish goes through here; a roomy mailbox keeps
        // bursts from many clients flowing, and `send` still waits when it is full.
        ctx.set_mailbox_capacity(SUPERVISOR_MAILBOX);
        self.me = Some(ctx.address());
        self.worktrees = Some(self.start_worktrees(ctx));
        self.radar = Some(self.start_radar(ctx));
        if let Some(store) = self.store.take() {
            let addr = ctx.address();
            let reports = crate::store::journal::Reports {
                ack: addr.clone().recipient(),
                stalled: addr.clone().recipient(),
                failed: addr.recipient(),
            };
            if let Err(e) = self.events.start_journal(store, reports) {
                self.fail_stop(&format!("cannot start the journal thread: {e}"));
            }
        }
        if let Some(restored) = self.restored.take() {
            self.adopt(restored, ctx);
            self.answer_upgrade(ctx);
            self.begin_auto_resume(ctx);
        }
        self.restore_radar();
        ctx.run_interval(self.config.limits.process_refresh, |sup, ctx| {
            sup.refresh_processes(ctx);
        });
        ctx.run_interval(self.config.limits.snapshot_interval, |sup, ctx| {
            sup.flush_snapshot(ctx);
        });
        ctx.run_interval(hibernate::CHECK_EVERY, |sup, ctx| {
            sup.check_hibernation(ctx);
            sup.check_auto_continue(ctx);
        });
        if !self.config.limits.worker_silent_timeout.is_zero() {
            ctx.run_interval(timers::WATCHDOG_EVERY, |sup, _| sup.watch_silent_workers());
        }
    }
}

impl Handler<Dispatch> for Supervisor {
    type Result = ResponseActFuture<Self, Reply>;

    fn handle(&mut self, msg: Dispatch, _ctx: &mut Self::Context) -> Self::Result {
        if let Some(up) = &mut self.upgrading {
            // Held until the exec (which closes its connection) or a failed
            // upgrade (which serves it then).
            let (tx, rx) = tokio::sync::oneshot::channel();
            up.held.push(tx);
            return Box::pin(
                actix::fut::wrap_future::<_, Self>(rx).then(move |_, act, _| {
                    crate::actors::supervisor::router::route(
                        act,
                        msg.request,
                        msg.conn,
                        msg.generation,
                    )
                }),
            );
        }
        let plain = matches!(
            msg.request.method.flow(),
            signaltty_protocol::method::RequestFlow::Plain
                | signaltty_protocol::method::RequestFlow::HoldsEvents
        );
        let routed =
            crate::actors::supervisor::router::route(self, msg.request, msg.conn, msg.generation);
        if !plain {
            return routed;
        }
        self.in_flight += 1;
        Box::pin(routed.map(|reply, act, _| {
            act.request_done();
            reply
        }))
    }
}

mod autocontinue;
mod autoresume;
mod directory;
pub(crate) mod hibernate;
mod journal;
mod lifecycle;
mod persist;
mod radar;
pub(crate) mod router;
pub mod sequencer;
mod services;
mod tasks;
#[cfg(test)]
mod tests;
mod timers;
pub mod upgrade;

pub use lifecycle::BeginShutdown;
