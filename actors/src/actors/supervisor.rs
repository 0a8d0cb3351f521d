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

use crate::actors::connection::{Connected, Disconnected, Dispatch, Drain};
use crate::actors::decision::{AnswerRoutes, WaitEnd};
use crate::actors::supervisor::router::Cx;
use crate::actors::supervisor::sequencer::{Sequencer, TurnStart};
use crate::config::Config;
use crate::domain::registry::{Launches, Registry};
use crate::domain::turns::TurnBaselines;
use crate::error::Error;
use crate::os::listener::Accepting;
use crate::store::journal::file::DiskHistory;
use crate::store::journal::{JournalAck, JournalFailed, JournalStore};
use crate::store::restore::{RestoreReport, Restored};
use crate::store::snapshot::TailFiles;
use actix::prelude::*;
use signaltty_protocol::pane::LiveState;
use signaltty_protocol::{Event, Seq};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::watch;

use crate::actors::arbiters::PaneArbiters;
use crate::actors::connection::ConnId;
use crate::actors::connection::reply::Reply;
use crate::actors::publish::Publish;

/// What an in-place upgrade handed this binary: its PTYs' sinks reach their
/// pane actors through [`PaneSink`](crate::actors::pane::PaneSink)'s channel.
pub type Takeover = crate::os::upgrade::takeover::Takeover<PaneReach>;

/// How an adopted PTY's sink learns its pane actor.
pub type PaneReach = std::sync::mpsc::SyncSender<Addr<crate::actors::pane::Pane>>;

/// The registry of the running server: workspace and pane actors.
pub type ServerRegistry =
    Registry<Addr<crate::actors::workspace::Workspace>, Addr<crate::actors::pane::Pane>>;

/// Messages the Supervisor's mailbox holds before senders wait.
pub const SUPERVISOR_MAILBOX: usize = 65_536;

/// Stop the server: announce it, finish in-flight replies, exit. A second request
/// while already stopping stops at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct BeginShutdown {
    /// Why, for the log.
    pub reason: String,
}

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
    /// The tasks' actors and the starts under way.
    tasks: crate::actors::task::ServerTaskBook,
    /// This actor's own address, once it runs.
    me: Option<Addr<Supervisor>>,
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
            tasks: crate::actors::task::ServerTaskBook::default(),
            me: None,
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

    /// The server has stopped with `self.exit_code`.
    fn stopped(&mut self) {
        match self.on_stop.take() {
            Some(report) => report(self.exit_code),
            None => System::current().stop_with_code(self.exit_code),
        }
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

    /// Announces shutdown, stops accepting and drains every connection; the system
    /// stops once they are gone or the grace period ends.
    fn begin_shutdown(&mut self, ctx: &mut Context<Self>) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        let _ = self.stop_accepting.send(Accepting::Stopped);
        // Waiting permission reporters get their answer: none (`shutdown`).
        self.routes.end_all(WaitEnd::Shutdown);
        for (id, drain) in &self.connections {
            // A subscribed connection is drained through its Subscriber, behind the
            // events already offered to it, so `server.will_shutdown` reaches it.
            if !self.events.drain_subscribed(*id) {
                drain.do_send(Drain);
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
        self.events.close_journal();
        self.save_snapshot_now();
        self.stopped();
    }

    /// A journal failure is fatal: nothing unproven may be published.
    fn fail_stop(&mut self, why: &str) {
        log::error!("event journal failed, stopping the server: {why}");
        self.events.fail(why);
        // spec/persistence.md §3: a journal or reservation failure exits with status 1.
        self.exit_code = 1;
        let _ = self.stop_accepting.send(Accepting::Stopped);
        self.stopped();
    }

    /// Captures the workspace checkout's tree for a turn that just started, on a
    /// blocking thread, records it as the workspace's baseline (the newest turn
    /// wins) and publishes `workspace.turn_started`, also when the capture failed.
    fn capture_turn(&mut self, turn: TurnStart, ctx: &mut Context<Self>) {
        let Some(cwd) = self
            .events
            .projection()
            .workspace(&turn.workspace)
            .map(|w| w.cwd.clone())
        else {
            return;
        };
        let capture = crate::os::git::turns::capture_off_loop(cwd);
        ctx.spawn(capture.into_actor(self).map(move |tree, sup, _| {
            let started = sup.turns.record(turn, tree);
            if sup
                .events
                .projection()
                .workspace(&started.workspace_id)
                .is_some()
            {
                // Nobody waits for this publication; it happens all the same.
                drop(sup.events.publish(vec![started.event()]));
            }
        }));
    }

    /// Recomputes a workspace's git cache (`dirty`, branch) after a turn ended,
    /// on a blocking thread; the Workspace actor publishes `workspace.updated`
    /// only when it changed (docs/diffs.md).
    fn refresh_git(&mut self, workspace: signaltty_protocol::WorkspaceId, ctx: &mut Context<Self>) {
        let Some(cwd) = self
            .events
            .projection()
            .workspace(&workspace)
            .map(|w| std::path::PathBuf::from(&w.cwd))
        else {
            return;
        };
        let Some(addr) = self.registry.workspace_addr(&workspace) else {
            return;
        };
        let work = crate::actors::workspace::refresh_git(
            addr,
            self.config.os.clone(),
            cwd,
            crate::actors::workspace::Refresh::IfChanged,
        );
        ctx.spawn(actix::fut::wrap_future(async move {
            drop(work.await);
        }));
    }

    /// The process refresh (spec/lifecycle.md §6.2): reads `/proc` once on a
    /// blocking thread and tells each live pane what it runs now; the panes
    /// decide whether that changes anything.
    fn refresh_processes(&mut self, ctx: &mut Context<Self>) {
        if self.refreshing || self.shutting_down || self.upgrading.is_some() {
            return;
        }
        let projection = self.events.projection();
        let panes: Vec<(u32, Addr<crate::actors::pane::Pane>)> = self
            .registry
            .panes()
            .filter(|e| {
                projection
                    .pane(&e.id)
                    .is_some_and(|p| p.live == LiveState::Live)
            })
            .map(|e| (e.pid, e.addr.clone()))
            .collect();
        if panes.is_empty() {
            return;
        }
        self.refreshing = true;
        let scan = actix_rt::task::spawn_blocking(move || crate::os::procfs::scan_panes(panes));
        ctx.spawn(scan.into_actor(self).map(|seen, sup, _| {
            sup.refreshing = false;
            for (addr, seen) in seen.unwrap_or_default() {
                addr.do_send(crate::actors::pane::ProcessSeen { seen });
            }
        }));
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
            routes: &mut self.routes,
            arbiters: &mut self.arbiters,
            restore: &self.restore_report,
            tasks: &mut self.tasks,
            connections: &self.connections,
            turns: &self.turns,
            me: self.me.clone(),
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
        if let Some(store) = self.store.take() {
            let addr = ctx.address();
            if let Err(e) =
                self.events
                    .start_journal(store, addr.clone().recipient(), addr.recipient())
            {
                self.fail_stop(&format!("cannot start the journal thread: {e}"));
            }
        }
        if let Some(restored) = self.restored.take() {
            self.adopt(restored, ctx);
            self.answer_upgrade(ctx);
            self.begin_auto_resume(ctx);
        }
        ctx.run_interval(self.config.limits.process_refresh, |sup, ctx| {
            sup.refresh_processes(ctx);
        });
        ctx.run_interval(self.config.limits.snapshot_interval, |sup, ctx| {
            sup.flush_snapshot(ctx);
        });
        if !self.config.limits.worker_silent_timeout.is_zero() {
            ctx.run_interval(WATCHDOG_EVERY, |sup, _| sup.watch_silent_workers());
        }
    }
}

/// How often working tasks' workers are checked for silence (tasks.md §6.2).
const WATCHDOG_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

impl Supervisor {
    /// The silent-worker watchdog (tasks.md §6.2): a `working` task whose
    /// worker pane has had no output and no hook for the timeout needs input.
    fn watch_silent_workers(&mut self) {
        let timeout = self.config.limits.worker_silent_timeout;
        let now = signaltty_protocol::Timestamp::now().unix_millis();
        let projection = self.events.projection();
        let silent: Vec<_> = projection
            .tasks()
            .into_iter()
            .filter(|t| t.state == signaltty_protocol::task::TaskState::Working)
            .filter(|t| {
                let last = t
                    .pane_id
                    .as_ref()
                    .and_then(|p| projection.pane(p))
                    .and_then(|p| p.last_activity_at.unix_millis());
                match (last, now) {
                    (Some(last), Some(now)) => {
                        now.saturating_sub(last)
                            >= i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX)
                    },
                    _ => false,
                }
            })
            .map(|t| t.id.clone())
            .collect();
        for id in silent {
            if let Some(actor) = self.tasks.get(&id) {
                actor.do_send(crate::actors::task::Transition {
                    to: signaltty_protocol::task::TaskState::InputRequired,
                    reason: Some(serde_json::json!({
                        "reason": "worker_silent",
                        "timeout_s": timeout.as_secs(),
                    })),
                });
            }
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

impl Handler<Publish> for Supervisor {
    type Result = ResponseFuture<Result<Seq, Error>>;

    fn handle(&mut self, msg: Publish, _ctx: &mut Self::Context) -> Self::Result {
        let rx = self.events.publish(msg.events);
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())))
        })
    }
}

impl Handler<JournalAck> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: JournalAck, ctx: &mut Self::Context) {
        let applied = self.events.publish_through(msg.through);
        for turn in applied.turn_starts {
            self.capture_turn(turn, ctx);
        }
        // A worker pane's events, once durable, drive its task (tasks.md §6).
        for (task, event) in applied.worker_events {
            if let Some(actor) = self.tasks.get(&task) {
                actor.do_send(crate::actors::task::WorkerEvent(event));
            }
        }
        for workspace in applied.turn_ends {
            self.refresh_git(workspace, ctx);
        }
        self.journal_moved();
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
        self.events.disconnect(msg.id);
        self.routes.disconnect(msg.id);
        for pane in self.registry.disconnect(msg.id) {
            pane.addr
                .do_send(crate::actors::pane::Detach { conn: msg.id });
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
        let rx = self.events.publish(vec![Event::ServerWillShutdown {}]);
        ctx.spawn(
            rx.into_actor(self)
                .map(|_, act, ctx| act.begin_shutdown(ctx)),
        );
    }
}

mod autoresume;
mod directory;
mod persist;
pub(crate) mod router;
pub mod sequencer;
#[cfg(test)]
mod tests;
pub mod upgrade;
