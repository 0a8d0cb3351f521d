//! The router: one match from a typed `Method` to the code that serves it. It
//! runs inside the Supervisor's turn, so reads see the projection at a known
//! seq, and it is the only place an `Error` becomes a wire error body.
//!
//! Router functions see the server through [`Cx`]: the registry, the
//! sequencer, the config and the few counters routing needs, never the
//! Supervisor itself. What they return is a future that runs on the hosting
//! actor ([`Host`], the Supervisor in the server); when it resumes after an
//! await (a reply from a Workspace or Pane actor, a blocking check) it asks
//! the host for a fresh `Cx`, because the registry may have changed meanwhile.
//!
//! ```text
//!   Dispatch ─► route(host) ─► cx = host.cx() ─► panes::spawn(cx, …)
//!                                                   │ ask the Workspace actor
//!                                                   ▼
//!                          reply ◄─ host.cx().registry.add_pane(…) ◄─ placed
//! ```

use crate::actors::arbiters::PaneArbiters;
use crate::actors::connection::ConnHandle;
pub use crate::actors::connection::reply::Reply;
use crate::actors::decision::AnswerRoutes;
use crate::actors::supervisor::ServerRegistry;
use crate::actors::supervisor::Supervisor;
use crate::actors::supervisor::sequencer::Sequencer;
use crate::actors::workspace::{Close, Rename, Workspace as WorkspaceActor};
use crate::config::Config;
use crate::domain::events::{EventFilter, ReplaySource, coverage, finish_replay};
use crate::domain::registry::Launches;
use crate::error::Error;
use crate::ids::random_u128;
use actix::fut::future::FutureWrap;
use actix::prelude::*;
use bytes::Bytes;
use signaltty_protocol::envelope::EventFrame;
use signaltty_protocol::server::{
    ServerSchemaResult, ServerShutdownParams, ServerShutdownResult, ServerStatusResult,
};
use signaltty_protocol::subscribe::{Replay, ReplayStatus, SubscribeParams, SubscribeResult};
use signaltty_protocol::workspace::{
    ClosedResult, GitInfo, Workspace, WorkspaceCreateParams, WorkspaceGetResult,
    WorkspaceListResult, WorkspaceResult,
};
use signaltty_protocol::{
    Event, Method, PROTOCOL, Request, Seq, Timestamp, WorkspaceId, WorkspaceRef,
};
use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The longest workspace name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

mod attention;
mod decisions;
mod diff;
mod hooks;
mod layouts;
mod notifications;
mod panes;
mod submit;
mod tabs;
mod task_finish;
mod task_prompt;
mod task_wait;
mod tasks;
pub mod wait;
mod worktrees;

/// What routing may see and change of the server: borrowed from the host for
/// one routing step.
pub struct Cx<'a> {
    /// The server's configuration.
    pub config: &'a Arc<Config>,
    /// When the server started (for `server.status`).
    pub started: Instant,
    /// The server is stopping: nothing new is created.
    pub shutting_down: bool,
    /// Workspaces, tabs, panes, names and attachments.
    pub registry: &'a mut ServerRegistry,
    /// Publication of events, the projection and the pending waits.
    pub events: &'a mut Sequencer,
    /// Pane launches under way.
    pub launches: &'a mut Launches,
    /// Checkout reservations and locks (`worktree.*`, tasks).
    pub checkouts: &'a crate::domain::worktrees::Checkouts,
    /// Waiting permission reporters' answer routes.
    pub routes: &'a mut AnswerRoutes,
    /// Where new pane actors run.
    pub arbiters: &'a mut PaneArbiters,
    /// How the restore at start went.
    pub restore: &'a crate::store::restore::RestoreReport,
    /// The tasks' actors and the starts under way.
    pub tasks: &'a mut crate::actors::task::ServerTaskBook,
    /// The connections open now (a connection-bound wait ends with its own).
    pub connections: &'a HashMap<crate::ids::ConnId, Recipient<crate::actors::connection::Drain>>,
    /// The newest turn baseline of each workspace (turn-scoped diffs).
    pub turns: &'a crate::domain::turns::TurnBaselines,
}

/// The future a router function returns, resolved on the Supervisor.
pub type Routed = ResponseActFuture<Supervisor, Reply>;

/// Runs a plain future on the host, so its continuation gets the host back.
trait OnHost: std::future::Future + Sized {
    fn on_host(self) -> FutureWrap<Self, Supervisor> {
        actix::fut::wrap_future(self)
    }
}

impl<F: std::future::Future> OnHost for F {}

/// Serves one request.
pub fn route(host: &mut Supervisor, request: Request, conn: ConnHandle, generation: u64) -> Routed {
    if let Method::ServerUpgrade(p) = request.method {
        return host.upgrade(p, conn, request.id);
    }
    let upgrades = host.upgrade_status();
    let mut cx = host.cx();
    let cx = &mut cx;
    match request.method {
        Method::ServerStatus(_) => ready(Ok(ServerStatusResult {
            upgrades: Some(upgrades.0),
            last_upgrade: upgrades.1,
            ..status(cx)
        })),
        Method::ServerUpgrade(_) => fail(Err(Error::Internal("served above".into()))),
        Method::ServerSchema(_) => ready(Ok(ServerSchemaResult::current(&cx.config.version))),
        Method::ServerShutdown(p) => shutdown(cx, p),
        Method::WorkspaceCreate(p) => workspace_create(cx, p),
        Method::WorkspaceList(_) => ready(Ok(WorkspaceListResult {
            workspaces: cx.events.projection().workspaces(),
        })),
        Method::WorkspaceGet(p) => ready(workspace_get(cx, &p.workspace_id)),
        Method::WorkspaceRename(p) => {
            let name = match validate_name(&p.name) {
                Ok(n) => n,
                Err(e) => return fail(Err(e)),
            };
            ask_workspace(cx, &p.workspace_id, Rename { name }, |workspace| {
                WorkspaceResult { workspace }
            })
        },
        Method::WorkspaceSetAutoResume(p) => ask_workspace(
            cx,
            &p.workspace_id,
            crate::actors::workspace::SetAutoResume { on: p.auto_resume },
            |workspace| WorkspaceResult { workspace },
        ),
        Method::WorkspaceClose(p) => {
            let signal = p
                .signal
                .unwrap_or(signaltty_protocol::signal::SignalName::Term);
            workspace_close(cx, &p.workspace_id, signal)
        },
        Method::WorkspaceRefreshGit(p) => diff::refresh_git(cx, p),
        Method::WorkspaceDiff(p) => diff::summary(cx, p),
        Method::WorkspaceFileDiff(p) => diff::file(cx, p),
        Method::WorktreeList(p) => worktrees::list(cx, p),
        Method::WorktreeCreate(p) => worktrees::create(cx, p),
        Method::WorktreeOpen(p) => worktrees::open(cx, p),
        Method::WorktreeRemove(p) => worktrees::remove(cx, p),
        Method::TabCreate(p) => tabs::create(cx, p),
        Method::TabClose(p) => tabs::close(cx, p),
        Method::TabSetLayout(p) => tabs::set_layout(cx, p),
        Method::TabSetRatio(p) => tabs::set_ratio(cx, p),
        Method::LayoutExport(p) => ready(layouts::export(cx, &p)),
        Method::LayoutApply(p) => layouts::apply(cx, p),
        Method::PaneSpawn(p) => panes::spawn(cx, p),
        Method::PaneSplit(p) => panes::split(cx, p),
        Method::PaneSwap(p) => panes::swap(cx, p),
        Method::PaneRename(p) => panes::rename(cx, p),
        Method::PaneMove(p) => panes::move_pane(cx, p),
        Method::PaneGet(p) => panes::get(cx, p),
        Method::PaneInput(p) => panes::input(cx, p),
        Method::PaneResize(p) => panes::resize(cx, p),
        Method::PaneSignal(p) => panes::signal(cx, p),
        Method::PaneRead(p) => panes::read(cx, p),
        Method::PaneWaitForOutput(p) => panes::wait_for_output(cx, p),
        Method::PaneClear(p) => panes::clear(cx, p),
        Method::PaneAttach(p) => panes::attach(cx, &conn, p),
        Method::PaneDetach(p) => panes::detach(cx, &conn, p),
        Method::PaneClose(p) => panes::close(cx, p),
        Method::PaneResume(p) => panes::resume(cx, p),
        Method::PaneMarkSeen(p) => attention::mark_seen(cx, p),
        Method::PaneExplain(p) => attention::explain(cx, p),
        Method::PaneSubmit(p) => submit::submit(cx, conn.id, p),
        Method::DecisionAnswer(p) => decisions::answer(cx, p),
        Method::Notify(p) => attention::notify(cx, p),
        Method::NotificationList(p) => notifications::list(cx, p),
        Method::NotificationMarkRead(p) => notifications::mark_read(cx, p),
        Method::HookEvent(p) => hooks::hook_event(cx, conn.id, p),
        Method::ReportSession(p) => hooks::report_session(cx, p),
        Method::Subscribe(p) => subscribe(cx, &conn, generation, p),
        Method::Wait(p) => wait::wait(cx, conn.id, p),
        Method::FocusNextUnread(_) => attention::focus_next_unread(cx),
        Method::AttentionPending(p) => attention::pending(cx, p),
        Method::AgentsList(_) => ready(Ok(agents_result(&cx.config.agents.current()))),
        Method::AgentsReload(_) => agents_reload(cx),
        Method::TaskStart(p) => tasks::start(cx, p),
        Method::TaskGet(p) => ready(tasks::get(cx, &p.task_id)),
        Method::TaskList(p) => ready(tasks::list(cx, &p)),
        Method::TaskWait(p) => task_wait::wait(cx, conn.id, p),
        Method::TaskReport(p) => tasks::report(cx, p),
        Method::TaskFinish(p) => task_finish::finish(cx, p),
        Method::TaskDiff(p) => diff::task_summary(cx, p),
        Method::TaskFileDiff(p) => diff::task_file(cx, p),
        Method::TaskCancel(p) => tasks::cancel(cx, p),
    }
}

/// `pane.resume` of `pane` on the server's own initiative (auto-resume).
pub fn resume(cx: &mut Cx<'_>, pane: &signaltty_protocol::PaneId) -> Routed {
    panes::resume(
        cx,
        signaltty_protocol::pane::PaneTarget {
            pane_id: pane.into(),
        },
    )
}

/// A reply known at once.
fn ready<T: serde::Serialize>(result: Result<T, Error>) -> Routed {
    Box::pin(actix::fut::ready(Reply::of(result)))
}

/// An error reply known at once (`fail(Err(e))`: no result type to name).
fn fail(result: Result<Infallible, Error>) -> Routed {
    let e = match result {
        Err(e) => e,
        Ok(never) => match never {},
    };
    Box::pin(actix::fut::ready(Reply::error(e)))
}

fn status(cx: &Cx<'_>) -> ServerStatusResult {
    ServerStatusResult {
        version: cx.config.version.clone(),
        protocol: PROTOCOL.to_owned(),
        uptime_s: cx.started.elapsed().as_secs(),
        workspaces: cx.events.projection().workspace_count(),
        tabs: cx.events.projection().tab_count(),
        panes: cx.events.projection().pane_count(),
        live_panes: cx.events.projection().live_pane_count(),
        seq: cx.events.head().0,
        restore: Some(restore_status(cx)),
        config_file: cx
            .config
            .settings
            .file
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        config_problems: cx.config.settings.problems.clone(),
        pid: Some(std::process::id()),
        socket_activated: Some(crate::os::activation::socket_activated()),
        upgrades: None,
        last_upgrade: None,
    }
}

/// The restore report with the panes still waiting for a resume, counted now.
fn restore_status(cx: &Cx<'_>) -> signaltty_protocol::server::RestoreStatus {
    use signaltty_protocol::pane::RestoreState;
    let count = |state: RestoreState| cx.events.projection().count_restore_state(state);
    let report = cx.restore;
    let problem = [
        report
            .moved_aside
            .as_ref()
            .map(|(why, to)| format!("{why}: moved to {}", to.display())),
        report.unproven.clone(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>();
    signaltty_protocol::server::RestoreStatus {
        restored: count(RestoreState::Restored),
        resumable: count(RestoreState::Resumable),
        snapshot_seq: report.snapshot_seq.map(|s| s.0),
        journal_events: report.journal_events,
        problem: (!problem.is_empty()).then(|| problem.join("; ")),
        set_aside: report
            .set_aside
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    }
}

fn shutdown(cx: &mut Cx<'_>, p: ServerShutdownParams) -> Routed {
    let live = status(cx).live_panes;
    if live > 0 && !p.force.unwrap_or(false) {
        return fail(Err(Error::PanesAlive { live }));
    }
    let rx = cx.events.publish(vec![Event::ServerWillShutdown {}]);
    Box::pin(rx.on_host().map(|published, act, ctx| {
        let result = flatten(published).map(|_| ServerShutdownResult { stopped: true });
        if result.is_ok() {
            log::info!("server.shutdown requested: shutting down");
            act.begin_shutdown(ctx);
        }
        Reply::of(result)
    }))
}

fn flatten<T>(r: Result<Result<T, Error>, oneshot_closed::RecvError>) -> Result<T, Error> {
    r.unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())))
}

mod oneshot_closed {
    pub use tokio::sync::oneshot::error::RecvError;
}

fn validate_name(name: &str) -> Result<String, Error> {
    if name.trim().is_empty() {
        return Err(Error::BadParams("name must not be empty".into()));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::BadParams(format!(
            "name is longer than {MAX_NAME_BYTES} bytes"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::BadParams(
            "name must not contain control characters".into(),
        ));
    }
    Ok(name.to_owned())
}

fn workspace_create(cx: &mut Cx<'_>, p: WorkspaceCreateParams) -> Routed {
    workspace_create_with(cx, p, DirtyCheck::Now)
}

/// When a new workspace's `dirty` flag is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DirtyCheck {
    /// Before the reply (`workspace.create`).
    Now,
    /// After it, on a blocking thread, announced when known: a task's fresh
    /// checkout, whose `git status` over a large tree would hold the worker's
    /// start back (docs/performance.md, tasks). Until then it is unknown.
    Later,
}

pub(crate) fn workspace_create_with(
    cx: &mut Cx<'_>,
    p: WorkspaceCreateParams,
    dirty: DirtyCheck,
) -> Routed {
    let name = match p.name.as_deref().map(validate_name).transpose() {
        Ok(n) => n.unwrap_or_else(|| "workspace".to_owned()),
        Err(e) => return fail(Err(e)),
    };
    let cwd = match p.cwd {
        Some(c) => PathBuf::from(c),
        None => cx
            .config
            .home
            .clone()
            .unwrap_or_else(|| PathBuf::from("/tmp")),
    };
    // The directory check and git probe touch the filesystem: off the event loop.
    // The entering reference keeps a worktree.remove out until it is registered.
    let checkouts = cx.checkouts.clone();
    let probe = actix_rt::task::spawn_blocking(move || {
        let checked = check_cwd(cwd.clone(), dirty)?;
        let entering = checkouts.enter_dir(&cwd)?;
        Ok((checked, entering))
    });
    Box::pin(probe.on_host().then(move |probed, act, ctx| {
        let checked = match probed {
            Ok(r) => r,
            Err(e) => Err(Error::Io {
                what: "workspace cwd check".into(),
                source: std::io::Error::other(e.to_string()),
            }),
        };
        let mut cx = act.cx();
        let created = checked
            .and_then(|((cwd, git), _entering)| register_workspace(&mut cx, ctx, name, cwd, git));
        if let (Ok(w), DirtyCheck::Later) = (&created, dirty) {
            refresh_dirty_later(&cx, ctx, w);
        }
        let fut = match created {
            Ok(workspace) => {
                let rx = cx.events.publish(vec![Event::WorkspaceCreated {
                    workspace: workspace.clone(),
                }]);
                futures_util::future::Either::Left(async move {
                    flatten(rx.await).map(|_| WorkspaceResult { workspace })
                })
            },
            Err(e) => futures_util::future::Either::Right(std::future::ready(Err(e))),
        };
        fut.on_host().map(|r, _, _| Reply::of(r))
    }))
}

/// Starts and registers a new workspace (not published yet). Its handle is
/// chosen and registered with no await in between, so two concurrent creates
/// can never take the same handle.
fn register_workspace(
    cx: &mut Cx<'_>,
    ctx: &mut Context<Supervisor>,
    name: String,
    cwd: String,
    git: GitInfo,
) -> Result<Workspace, Error> {
    if cx.shutting_down {
        return Err(Error::ShuttingDown);
    }
    let id = WorkspaceId::from_random(random_u128());
    let handle = cx.registry.free_handle(&name);
    let now = Timestamp::now();
    let workspace = Workspace {
        id: id.clone(),
        name,
        handle: handle.clone(),
        cwd,
        git,
        tabs: Vec::new(),
        active_tab_id: None,
        auto_resume: false,
        created_at: now.clone(),
        updated_at: now,
    };
    let addr = WorkspaceActor::new(workspace.clone(), ctx.address().recipient()).start();
    cx.registry.add_workspace(id, handle, addr)?;
    Ok(workspace)
}

/// The deferred dirty check of a new workspace: `git status` on a blocking
/// thread, then the cache set and announced (`workspace.updated`) if it
/// changed.
fn refresh_dirty_later(cx: &Cx<'_>, ctx: &mut Context<Supervisor>, workspace: &Workspace) {
    let Some(addr) = cx.registry.workspace_addr(&workspace.id) else {
        return;
    };
    let cwd = PathBuf::from(&workspace.cwd);
    let work = crate::actors::workspace::refresh_git(
        addr,
        cwd,
        crate::actors::workspace::Announce::IfChanged,
    );
    ctx.spawn(actix::fut::wrap_future(async move {
        drop(work.await);
    }));
}

fn check_cwd(cwd: PathBuf, dirty: DirtyCheck) -> Result<(String, GitInfo), Error> {
    if !cwd.is_absolute() {
        return Err(Error::BadParams(format!(
            "cwd {} is not an absolute path",
            cwd.display()
        )));
    }
    match std::fs::metadata(&cwd) {
        Ok(m) if m.is_dir() => {},
        Ok(_) => {
            return Err(Error::BadParams(format!(
                "cwd {} is not a directory",
                cwd.display()
            )));
        },
        Err(e) => return Err(Error::BadParams(format!("cwd {}: {e}", cwd.display()))),
    }
    let text = cwd
        .to_str()
        .ok_or_else(|| Error::BadParams(format!("cwd {} is not valid UTF-8", cwd.display())))?
        .to_owned();
    let git = match dirty {
        DirtyCheck::Now => crate::os::git::status::git_info(&cwd),
        DirtyCheck::Later => crate::os::git::probe(&cwd),
    };
    Ok((text, git))
}

fn workspace_get(cx: &Cx<'_>, r: &WorkspaceRef) -> Result<WorkspaceGetResult, Error> {
    let by_id = cx
        .events
        .projection()
        .workspace(&WorkspaceId(r.0.clone()))
        .cloned();
    let workspace = by_id
        .or_else(|| {
            cx.events
                .projection()
                .workspaces()
                .into_iter()
                .find(|w| w.handle == r.0)
        })
        .ok_or_else(|| Error::NoSuchWorkspace(r.clone()))?;
    Ok(WorkspaceGetResult {
        tabs: cx.events.projection().tabs_of(&workspace),
        panes: cx.events.projection().panes_of(&workspace),
        workspace,
    })
}

fn ask_workspace<M, T, R>(cx: &mut Cx<'_>, r: &WorkspaceRef, msg: M, wrap: fn(T) -> R) -> Routed
where
    M: Message<Result = Result<T, Error>> + Send + 'static,
    M::Result: Send,
    T: 'static,
    R: serde::Serialize + 'static,
    WorkspaceActor: Handler<M>,
{
    let addr = match cx.registry.workspace(r) {
        Ok((_, addr)) => addr,
        Err(e) => return fail(Err(e)),
    };
    Box::pin(
        async move { addr.send(msg).await }
            .on_host()
            .map(move |r, _, _| {
                Reply::of(r.map_err(Error::from).and_then(|inner| inner).map(wrap))
            }),
    )
}

fn workspace_close(
    cx: &mut Cx<'_>,
    r: &WorkspaceRef,
    signal: signaltty_protocol::signal::SignalName,
) -> Routed {
    let (id, addr) = match cx.registry.workspace(r) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    Box::pin(
        async move { addr.send(Close { signal }).await }
            .on_host()
            .map(move |r, act, _| {
                let result = r.map_err(Error::from).and_then(|inner| inner);
                if result.is_ok() {
                    act.cx().registry.remove_workspace(&id);
                }
                Reply::of(result.map(|()| ClosedResult { closed: true }))
            }),
    )
}

fn subscribe(cx: &mut Cx<'_>, conn: &ConnHandle, generation: u64, p: SubscribeParams) -> Routed {
    let filter = EventFilter::new(p.events, p.task_ids);
    let head = cx.events.head();
    let Some(after) = p.from_seq.map(Seq) else {
        cx.events.subscribe(conn, generation, filter, head);
        return ready(Ok(SubscribeResult {
            subscribed: true,
            seq: head.0,
            replay: None,
        }));
    };
    let disk = cx.events.disk().and_then(|d| d.coverage());
    let (status, retained_after, source) =
        coverage(after, head, cx.events.ring().retained_after(), disk);
    match source {
        Some(ReplaySource::Ring) => {
            let events = cx.events.ring().matching(after, head, &filter);
            let (replay, lines) = finish_replay(status, after, head, retained_after, events);
            Box::pin(actix::fut::ready(subscribed_reply(
                cx, conn, generation, filter, head, replay, lines,
            )))
        },
        Some(ReplaySource::Disk) => {
            // Register now, in the same turn as the fence, so live events after
            // `head` are held by the connection until the replay is written.
            cx.events.subscribe(conn, generation, filter.clone(), head);
            let ring_events = cx.events.ring().matching(after, head, &filter);
            let Some(disk) = cx.events.disk().cloned() else {
                return fail(Err(Error::JournalFailed("journal history vanished".into())));
            };
            let read = actix_rt::task::spawn_blocking(move || disk.read(after, head));
            Box::pin(read.on_host().map(move |read, _act, _ctx| {
                let failed = |why: String| {
                    log::error!("replay from the journal failed: {why}");
                    let (replay, _) = finish_replay(
                        ReplayStatus::Unavailable,
                        after,
                        head,
                        retained_after,
                        Vec::new(),
                    );
                    not_subscribed(head, replay)
                };
                let records = match read {
                    Ok(Ok(records)) => records,
                    Ok(Err(why)) => return failed(why),
                    Err(join) => return failed(join.to_string()),
                };
                let mut events: Vec<(Seq, Bytes)> = records
                    .into_iter()
                    .filter(|r| filter.matches(&r.event, &r.payload))
                    .map(|r| {
                        (
                            Seq(r.seq),
                            Bytes::from(EventFrame::new(r.event, r.seq, r.payload).to_line()),
                        )
                    })
                    .collect();
                events.extend(ring_events);
                let (replay, lines) = finish_replay(status, after, head, retained_after, events);
                replay_reply(head, replay, lines)
            }))
        },
        None => {
            let (replay, _) = finish_replay(status, after, head, retained_after, Vec::new());
            Box::pin(actix::fut::ready(not_subscribed(head, replay)))
        },
    }
}

/// A complete replay from the ring, or a truncated one: registers the subscription
/// only when complete.
fn subscribed_reply(
    cx: &mut Cx<'_>,
    conn: &ConnHandle,
    generation: u64,
    filter: EventFilter,
    head: Seq,
    replay: Replay,
    lines: Vec<Bytes>,
) -> Reply {
    if replay.status == ReplayStatus::Complete {
        cx.events.subscribe(conn, generation, filter, head);
    }
    replay_reply(head, replay, lines)
}

/// The reply once the replay is known: `subscribed:true` followed by the replayed
/// frames when it is complete, else `not_subscribed`.
fn replay_reply(head: Seq, replay: Replay, lines: Vec<Bytes>) -> Reply {
    if replay.status != ReplayStatus::Complete {
        return not_subscribed(head, replay);
    }
    let mut reply = Reply::of(Ok(SubscribeResult {
        subscribed: true,
        seq: head.0,
        replay: Some(replay),
    }));
    reply.after = lines;
    reply
}

/// `subscribed:false`, no replay frames, and the connection closes after the reply
/// (spec/persistence.md §5.3).
fn not_subscribed(head: Seq, replay: Replay) -> Reply {
    let mut reply = Reply::of(Ok(SubscribeResult {
        subscribed: false,
        seq: head.0,
        replay: Some(replay),
    }));
    reply.close_after = true;
    reply
}

/// The `agents.list` / `agents.reload` answer for `set`.
fn agents_result(
    set: &signaltty_model::agents::AgentSet,
) -> signaltty_protocol::state::AgentsResult {
    use signaltty_protocol::state::{AgentsResult, ManifestFailure, ManifestInfo};
    AgentsResult {
        dir: set.dir.as_ref().map(|d| d.to_string_lossy().into_owned()),
        manifests: set
            .bundled
            .iter()
            .chain(&set.user)
            .map(|m| ManifestInfo {
                file: m.file.clone(),
                kind: m.kind,
                screen_rules: m.screen.len(),
                bundled: m.bundled,
                binaries: m.binaries.clone(),
                display_name: m.display_name.clone(),
            })
            .collect(),
        failures: set
            .failures
            .iter()
            .map(|f| ManifestFailure {
                file: f.file.clone(),
                error: f.error.clone(),
            })
            .collect(),
    }
}

/// `agents.reload`: reads the directory on a blocking thread, then swaps the
/// whole set; a directory that cannot be listed keeps the active one.
fn agents_reload(cx: &mut Cx<'_>) -> Routed {
    let dir = cx.config.agents_dir.clone();
    let load = actix_rt::task::spawn_blocking(move || {
        signaltty_model::agents::AgentSet::load(dir.as_deref())
    });
    Box::pin(load.on_host().map(|loaded, act, _| {
        let result = match loaded {
            Ok(Ok(set)) => {
                let result = agents_result(&set);
                let cx = act.cx();
                cx.config.agents.replace(set);
                for entry in cx.registry.panes() {
                    entry.addr.do_send(crate::actors::pane::RulesChanged);
                }
                Ok(result)
            },
            Ok(Err(e)) => Err(Error::Io {
                what: "reloading agent manifests".into(),
                source: std::io::Error::other(e),
            }),
            Err(e) => Err(Error::Io {
                what: "reloading agent manifests".into(),
                source: std::io::Error::other(e.to_string()),
            }),
        };
        Reply::of(result)
    }))
}
