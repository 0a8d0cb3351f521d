//! The Supervisor's routing: one match from a typed `Method` to the owner that
//! serves it. A route function resolves the request's references in the
//! registry (an id, a name, a handle), reads what it needs of the projection,
//! and asks the owning actor with a typed message; it never changes another
//! actor's state itself, and the future it returns never comes back to the
//! Supervisor's state: owners tell the registry what changed
//! ([`Directory`](crate::actors::directory::Directory)), and workflows that
//! outlive a request run in the owner (a task's start in its Task actor).
//!
//! Every answer is typed until it leaves: [`answer`] and [`ready`] serialize
//! the result once, into the [`Reply`] the Connection writes, and this is the
//! only place an `Error` becomes a wire error body.
//!
//! ```text
//!   Dispatch ─► route(cx) ─► resolve refs ─► owner.send(Msg) ─► Result<T, Error>
//!                                                                  │ answer()
//!   Connection ◄──────────────────── Reply (result serialized once) ◄┘
//! ```

use crate::actors::arbiters::PaneArbiters;
use crate::actors::connection::ConnHandle;
pub use crate::actors::connection::reply::Reply;
use crate::actors::supervisor::ServerRegistry;
use crate::actors::supervisor::Supervisor;
use crate::actors::supervisor::sequencer::Sequencer;
use crate::config::Config;
use crate::domain::registry::Launches;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::server::{ServerSchemaResult, ServerStatusResult};
use signaltty_protocol::{Method, Request};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

mod ask;
mod attention;
mod conflicts;
mod decisions;
mod diff;
mod hooks;
mod layouts;
mod notifications;
mod panes;
mod server;
mod spawns;
mod submit;
mod subscribe;
mod tabs;
mod task_queue;
mod task_wait;
mod tasks;
pub mod wait;
mod wake;
mod workspaces;
mod worktrees;

use crate::domain::slug::checked_name as validate_name;
pub(crate) use notifications::read_of_pane;

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
    /// The Supervisor's own address, for what routing asks of it later
    /// (opening a workspace); none only before it starts.
    pub me: Option<Addr<Supervisor>>,
    /// The owner of `worktree.*`; none only before the Supervisor starts.
    pub worktrees: Option<Addr<crate::actors::worktrees::Worktrees>>,
    /// The owner of the conflict radar; none only before the Supervisor starts.
    pub radar: Option<Addr<crate::actors::radar::ConflictRadar>>,
}

/// The future a router function returns, resolved on the Supervisor.
pub type Routed = ResponseActFuture<Supervisor, Reply>;

/// Serves one request.
pub fn route(
    host: &mut Supervisor,
    mut request: Request,
    conn: ConnHandle,
    generation: u64,
) -> Routed {
    if asks_for_a_change(&request.method)
        && let Err(trouble) = host.events.health().check()
    {
        return fail(Err(trouble.to_error()));
    }
    if let Method::ServerUpgrade(p) = request.method {
        return host.upgrade(p, conn, request.id);
    }
    let upgrades = host.upgrade_status();
    let mut cx = host.cx();
    let cx = &mut cx;
    if let Err(e) = tasks::full_ids(cx, &mut request.method) {
        return fail(Err(e));
    }
    match request.method {
        Method::ServerStatus(_) => ready(Ok(ServerStatusResult {
            upgrades: Some(upgrades.0),
            last_upgrade: upgrades.1,
            ..server::status(cx)
        })),
        Method::ServerUpgrade(_) => fail(Err(Error::Internal("served above".into()))),
        Method::ServerSchema(_) => ready(Ok(ServerSchemaResult::current(&cx.config.version))),
        Method::ServerShutdown(p) => server::shutdown(cx, p),
        Method::WorkspaceCreate(p) => workspaces::create(cx, p),
        Method::WorkspaceList(_) => workspaces::list(cx),
        Method::WorkspaceGet(p) => ready(workspaces::get(cx, &p.workspace_id)),
        Method::WorkspaceRename(p) => workspaces::rename(cx, &p.workspace_id, &p.name),
        Method::WorkspaceSetAutoResume(p) => {
            workspaces::set_auto_resume(cx, &p.workspace_id, p.auto_resume)
        },
        Method::WorkspaceSetHibernate(p) => {
            workspaces::set_hibernate(cx, &p.workspace_id, p.after_s)
        },
        Method::WorkspaceSetAutoContinue(p) => workspaces::set_auto_continue(cx, p),
        Method::WorkspaceClose(p) => workspaces::close(cx, &p.workspace_id, p.signal),
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
        Method::PaneSpawn(p) => spawns::spawn(cx, p),
        Method::PaneSplit(p) => spawns::split(cx, p),
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
        Method::PaneResume(p) => spawns::resume(cx, p),
        Method::PaneMarkSeen(p) => attention::mark_seen(cx, p),
        Method::PaneExplain(p) => attention::explain(cx, p),
        Method::PaneSubmit(p) => submit::submit(cx, conn.id, p),
        Method::PaneAsk(p) => ask::ask(cx, conn.id, p),
        Method::DecisionAnswer(p) => decisions::answer(cx, p),
        Method::Notify(p) => attention::notify(cx, p),
        Method::NotificationList(p) => notifications::list(cx, p),
        Method::NotificationMarkRead(p) => notifications::mark_read(cx, p),
        Method::HookEvent(p) => hooks::hook_event(cx, conn.id, p),
        Method::ReportSession(p) => hooks::report_session(cx, p),
        Method::Subscribe(p) => subscribe::subscribe(cx, &conn, generation, p),
        Method::Wait(p) => wait::wait(cx, conn.id, p),
        Method::FocusNextUnread(_) => attention::focus_next_unread(cx),
        Method::AttentionPending(p) => attention::pending(cx, p),
        Method::AgentsList(_) => ready(Ok(server::agents_result(&cx.config.agents.current()))),
        Method::AgentsReload(_) => server::agents_reload(cx),
        Method::TaskStart(p) => tasks::start(cx, p),
        Method::TaskGet(p) => ready(tasks::get(cx, &p.task_id)),
        Method::TaskList(p) => ready(tasks::list(cx, &p)),
        Method::TaskWait(p) => task_wait::wait(cx, conn.id, p),
        Method::TaskReport(p) => tasks::report(cx, p),
        Method::TaskFinish(p) => tasks::finish(cx, p),
        Method::TaskDiff(p) => diff::task_summary(cx, p),
        Method::TaskFileDiff(p) => diff::task_file(cx, p),
        Method::TaskCancel(p) => tasks::cancel(cx, p),
        Method::TaskConflicts(p) => conflicts::conflicts(cx, &p),
    }
}

/// Whether `method` is a change a client asks for, refused with `IO_ERROR`
/// before it does anything while the state directory takes no writes
/// (docs/reliability.md#a-full-disk). Reads, input, attach, resize,
/// subscriptions, waits and what agents report go on; so does a shutdown.
fn asks_for_a_change(method: &Method) -> bool {
    !matches!(
        method,
        Method::ServerStatus(_)
            | Method::ServerSchema(_)
            | Method::ServerShutdown(_)
            | Method::WorkspaceList(_)
            | Method::WorkspaceGet(_)
            | Method::WorkspaceDiff(_)
            | Method::WorkspaceFileDiff(_)
            | Method::WorktreeList(_)
            | Method::LayoutExport(_)
            | Method::PaneGet(_)
            | Method::PaneInput(_)
            | Method::PaneResize(_)
            | Method::PaneSignal(_)
            | Method::PaneRead(_)
            | Method::PaneWaitForOutput(_)
            | Method::PaneClear(_)
            | Method::PaneAttach(_)
            | Method::PaneDetach(_)
            | Method::PaneExplain(_)
            | Method::PaneSubmit(_)
            | Method::PaneAsk(_)
            | Method::NotificationList(_)
            | Method::HookEvent(_)
            | Method::ReportSession(_)
            | Method::Subscribe(_)
            | Method::Wait(_)
            | Method::AttentionPending(_)
            | Method::AgentsList(_)
            | Method::AgentsReload(_)
            | Method::TaskGet(_)
            | Method::TaskList(_)
            | Method::TaskWait(_)
            | Method::TaskDiff(_)
            | Method::TaskFileDiff(_)
            | Method::TaskConflicts(_)
    )
}

/// `pane.resume` of `pane` on the server's own initiative (auto-resume).
pub fn resume(cx: &mut Cx<'_>, pane: &signaltty_protocol::PaneId) -> Routed {
    spawns::resume(
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

/// `pane.spawn` for a workflow (a task's worker), typed.
pub(crate) fn start_pane(
    cx: &mut Cx<'_>,
    p: signaltty_protocol::pane::PaneSpawnParams,
) -> impl std::future::Future<Output = Result<crate::actors::workspace::Launched, Error>> + 'static
{
    spawns::start(cx, p)
}

/// A reply that comes later, built by `work` (a subscription's, with its
/// replay lines).
fn later(work: impl std::future::Future<Output = Reply> + 'static) -> Routed {
    Box::pin(actix::fut::wrap_future(work))
}

/// `task.start` for the Supervisor's own retry (a start whose idempotency
/// key another start holds, docs/tasks.md#repeated-starts), typed.
pub(crate) fn start_task(
    cx: &mut Cx<'_>,
    p: signaltty_protocol::task::TaskStartParams,
) -> std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<signaltty_protocol::task::TaskStartResult, Error>>>,
> {
    tasks::begin(cx, p)
}

/// `pane.submit` typed, for a `pane.ask` that waited for its pane.
pub(crate) fn submit_for(
    cx: &mut Cx<'_>,
    conn: crate::ids::ConnId,
    p: signaltty_protocol::state::PaneSubmitParams,
) -> Result<submit::Submitting, Error> {
    submit::submit_typed(cx, conn, p)
}

/// Starts the queued tasks whose turn came (docs/tasks.md#the-task-queue).
pub(crate) fn drain_task_queue(cx: &mut Cx<'_>) {
    task_queue::drain(cx);
}

/// One look of `task.wait` (docs/tasks.md#waiting-for-tasks).
pub(crate) fn look_tasks(
    cx: &Cx<'_>,
    conn: crate::ids::ConnId,
    watched: &crate::domain::task::wait::Watched,
    wanted: &[crate::domain::task::wait::Wanted],
) -> Result<Option<Vec<signaltty_protocol::task::Task>>, Error> {
    task_wait::look(cx, conn, watched, wanted)
}

/// A reply that comes later: the typed result of `work`, serialized once
/// when it is ready.
fn answer<T: serde::Serialize + 'static>(
    work: impl std::future::Future<Output = Result<T, Error>> + 'static,
) -> Routed {
    Box::pin(actix::fut::wrap_future(
        async move { Reply::of(work.await) },
    ))
}

/// `msg` asked of `addr`; an actor already stopped answers as a mailbox
/// error (`INTERNAL`).
async fn ask<A, M, T>(addr: Addr<A>, msg: M) -> Result<T, Error>
where
    A: Actor + Handler<M>,
    A::Context: actix::dev::ToEnvelope<A, M>,
    M: Message<Result = Result<T, Error>> + Send + 'static,
    T: Send + 'static,
{
    addr.send(msg).await?
}

/// The answer of a publication: the journal failed when it was abandoned.
fn flatten<T>(r: Result<Result<T, Error>, oneshot_closed::RecvError>) -> Result<T, Error> {
    r.unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())))
}

mod oneshot_closed {
    pub use tokio::sync::oneshot::error::RecvError;
}
