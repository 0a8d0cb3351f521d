//! The router: one match from a typed `Method` to the code that serves it. It runs
//! inside the Supervisor, so reads see the projection at a known seq. It is also the
//! only place an `Error` becomes a wire error body.

use crate::error::Error;
use crate::events::{EventFilter, ReplaySource, coverage, finish_replay};
use crate::ids::random_u128;
use crate::slug::unique_handle;
use crate::supervisor::{ConnHandle, Dispatch, Reply, Supervisor};
use crate::workspace::{Close, Rename, Workspace as WorkspaceActor};
use actix::prelude::*;
use bytes::Bytes;
use signaltty_protocol::envelope::EventFrame;
use signaltty_protocol::envelope::{ErrorBody, Response};
use signaltty_protocol::server::{
    ServerSchemaResult, ServerShutdownParams, ServerShutdownResult, ServerStatusResult,
};
use signaltty_protocol::subscribe::{Replay, ReplayStatus, SubscribeParams, SubscribeResult};
use signaltty_protocol::workspace::{
    ClosedResult, GitInfo, Workspace, WorkspaceCreateParams, WorkspaceGetResult,
    WorkspaceListResult, WorkspaceResult,
};
use signaltty_protocol::{Event, Method, PROTOCOL, Seq, Timestamp, WorkspaceId, WorkspaceRef};
use std::path::PathBuf;

/// The longest workspace name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

mod attention;
mod decisions;
mod hooks;
mod panes;
mod submit;
mod tabs;
pub mod wait;

type Routed = ResponseActFuture<Supervisor, Reply>;

/// Serves one request.
pub fn route(sup: &mut Supervisor, msg: Dispatch, ctx: &mut Context<Supervisor>) -> Routed {
    let Dispatch {
        request,
        conn,
        generation,
    } = msg;
    match request.method {
        Method::ServerStatus(_) => ready(Ok(status(sup))),
        Method::ServerSchema(_) => ready(Ok(ServerSchemaResult::current(&sup.config.version))),
        Method::ServerShutdown(p) => shutdown(sup, p),
        Method::WorkspaceCreate(p) => workspace_create(sup, p),
        Method::WorkspaceList(_) => ready(Ok(WorkspaceListResult {
            workspaces: sup.projection.workspaces(),
        })),
        Method::WorkspaceGet(p) => ready(workspace_get(sup, &p.workspace_id)),
        Method::WorkspaceRename(p) => {
            let name = match validate_name(&p.name) {
                Ok(n) => n,
                Err(e) => return ready::<WorkspaceResult>(Err(e)),
            };
            ask_workspace(sup, &p.workspace_id, Rename { name }, |workspace| {
                WorkspaceResult { workspace }
            })
        },
        Method::WorkspaceClose(p) => {
            let signal = p
                .signal
                .unwrap_or(signaltty_protocol::signal::SignalName::Term);
            workspace_close(sup, &p.workspace_id, signal)
        },
        Method::TabCreate(p) => tabs::create(sup, p),
        Method::TabClose(p) => tabs::close(sup, p),
        Method::TabSetLayout(p) => tabs::set_layout(sup, p),
        Method::TabSetRatio(p) => tabs::set_ratio(sup, p),
        Method::PaneSpawn(p) => panes::spawn(sup, p, ctx),
        Method::PaneSplit(p) => panes::split(sup, p, ctx),
        Method::PaneSwap(p) => panes::swap(sup, p),
        Method::PaneRename(p) => panes::rename(sup, p),
        Method::PaneMove(p) => panes::move_pane(sup, p),
        Method::PaneGet(p) => panes::get(sup, p),
        Method::PaneInput(p) => panes::input(sup, p),
        Method::PaneResize(p) => panes::resize(sup, p),
        Method::PaneSignal(p) => panes::signal(sup, p),
        Method::PaneRead(p) => panes::read(sup, p),
        Method::PaneWaitForOutput(p) => panes::wait_for_output(sup, p),
        Method::PaneClear(p) => panes::clear(sup, p),
        Method::PaneAttach(p) => panes::attach(sup, &conn, p),
        Method::PaneDetach(p) => panes::detach(sup, &conn, p),
        Method::PaneClose(p) => panes::close(sup, p),
        Method::PaneResume(p) => panes::resume(sup, p),
        Method::PaneMarkSeen(p) => attention::mark_seen(sup, p),
        Method::PaneExplain(p) => attention::explain(sup, p),
        Method::PaneSubmit(p) => submit::submit(sup, conn.id, p),
        Method::DecisionAnswer(p) => decisions::answer(sup, p),
        Method::Notify(p) => attention::notify(sup, p),
        Method::HookEvent(p) => hooks::hook_event(sup, conn.id, p),
        Method::ReportSession(p) => hooks::report_session(sup, p),
        Method::Subscribe(p) => subscribe(sup, &conn, generation, p),
        Method::Wait(p) => wait::wait(sup, conn.id, p),
        Method::FocusNextUnread(_) => attention::focus_next_unread(sup),
        Method::AttentionPending(p) => attention::pending(sup, p),
        Method::AgentsList(_) => ready(Ok(agents_result(&sup.config.agents.current()))),
        Method::AgentsReload(_) => agents_reload(sup),
    }
}

/// The response line for a reply's result.
pub fn response_line(id: &str, result: Result<Bytes, Error>) -> Vec<u8> {
    match result {
        Ok(json) => {
            // The envelope of spec/ipc.md §2.2 around the already serialized result.
            let id = serde_json::to_string(id).unwrap_or_else(|_| "\"?\"".to_owned());
            let mut line = Vec::with_capacity(json.len() + id.len() + 48);
            line.extend_from_slice(b"{\"protocol\":\"");
            line.extend_from_slice(PROTOCOL.as_bytes());
            line.extend_from_slice(b"\",\"id\":");
            line.extend_from_slice(id.as_bytes());
            line.extend_from_slice(b",\"ok\":true,\"result\":");
            line.extend_from_slice(&json);
            line.extend_from_slice(b"}\n");
            line
        },
        Err(e) => Response::err(id, error_body(&e)).to_line(),
    }
}

/// The wire form of an error.
pub fn error_body(e: &Error) -> ErrorBody {
    let mut body = ErrorBody::new(e.code(), e.to_string());
    body.details = e.details();
    body
}

fn ready<T: serde::Serialize>(result: Result<T, Error>) -> Routed {
    Box::pin(actix::fut::ready(Reply::of(result)))
}

fn status(sup: &Supervisor) -> ServerStatusResult {
    ServerStatusResult {
        version: sup.config.version.clone(),
        protocol: PROTOCOL.to_owned(),
        uptime_s: sup.started.elapsed().as_secs(),
        workspaces: sup.projection.workspace_count(),
        tabs: sup.projection.tab_count(),
        panes: sup.projection.pane_count(),
        live_panes: sup.projection.live_pane_count(),
        seq: sup.head().0,
    }
}

fn shutdown(sup: &mut Supervisor, p: ServerShutdownParams) -> Routed {
    let live = status(sup).live_panes;
    if live > 0 && !p.force.unwrap_or(false) {
        return ready::<ServerShutdownResult>(Err(Error::PanesAlive { live }));
    }
    let rx = sup.publish(vec![Event::ServerWillShutdown {}]);
    Box::pin(rx.into_actor(sup).map(|published, act, ctx| {
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

fn workspace_create(sup: &mut Supervisor, p: WorkspaceCreateParams) -> Routed {
    let name = match p.name.as_deref().map(validate_name).transpose() {
        Ok(n) => n.unwrap_or_else(|| "workspace".to_owned()),
        Err(e) => return ready::<WorkspaceResult>(Err(e)),
    };
    let cwd = match p.cwd {
        Some(c) => PathBuf::from(c),
        None => sup
            .config
            .home
            .clone()
            .unwrap_or_else(|| PathBuf::from("/tmp")),
    };
    // The directory check and git probe touch the filesystem: off the event loop.
    let probe = actix_rt::task::spawn_blocking(move || check_cwd(cwd));
    Box::pin(probe.into_actor(sup).then(move |probed, act, ctx| {
        let checked = match probed {
            Ok(r) => r,
            Err(e) => Err(Error::Io {
                what: "workspace cwd check".into(),
                source: std::io::Error::other(e.to_string()),
            }),
        };
        let created = checked.and_then(|(cwd, git)| {
            if act.shutting_down {
                return Err(Error::ShuttingDown);
            }
            // Allocated with no await between the check and the insert, so two
            // concurrent creates can never take the same handle.
            let id = WorkspaceId::from_random(random_u128());
            let handle = unique_handle(&name, |h| act.handles.contains_key(h));
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
            act.workspaces.insert(id.clone(), addr);
            act.handles.insert(handle, id);
            Ok(workspace)
        });
        let fut = match created {
            Ok(workspace) => {
                let rx = act.publish(vec![Event::WorkspaceCreated {
                    workspace: workspace.clone(),
                }]);
                futures_util::future::Either::Left(async move {
                    flatten(rx.await).map(|_| WorkspaceResult { workspace })
                })
            },
            Err(e) => futures_util::future::Either::Right(std::future::ready(Err(e))),
        };
        fut.into_actor(act).map(|r, _, _| Reply::of(r))
    }))
}

fn check_cwd(cwd: PathBuf) -> Result<(String, GitInfo), Error> {
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
    Ok((text, crate::git::probe(&cwd)))
}

fn workspace_get(sup: &Supervisor, r: &WorkspaceRef) -> Result<WorkspaceGetResult, Error> {
    let by_id = sup.projection.workspace(&WorkspaceId(r.0.clone())).cloned();
    let workspace = by_id
        .or_else(|| {
            sup.projection
                .workspaces()
                .into_iter()
                .find(|w| w.handle == r.0)
        })
        .ok_or_else(|| Error::NoSuchWorkspace(r.clone()))?;
    Ok(WorkspaceGetResult {
        tabs: sup.projection.tabs_of(&workspace),
        panes: sup.projection.panes_of(&workspace),
        workspace,
    })
}

fn ask_workspace<M, T, R>(
    sup: &mut Supervisor,
    r: &WorkspaceRef,
    msg: M,
    wrap: fn(T) -> R,
) -> Routed
where
    M: Message<Result = Result<T, Error>> + Send + 'static,
    M::Result: Send,
    T: 'static,
    R: serde::Serialize + 'static,
    WorkspaceActor: Handler<M>,
{
    let addr = match sup.resolve_workspace(r) {
        Ok((_, addr)) => addr,
        Err(e) => return ready::<R>(Err(e)),
    };
    Box::pin(
        async move { addr.send(msg).await }
            .into_actor(sup)
            .map(move |r, _, _| {
                Reply::of(r.map_err(Error::from).and_then(|inner| inner).map(wrap))
            }),
    )
}

fn workspace_close(
    sup: &mut Supervisor,
    r: &WorkspaceRef,
    signal: signaltty_protocol::signal::SignalName,
) -> Routed {
    let (id, addr) = match sup.resolve_workspace(r) {
        Ok(found) => found,
        Err(e) => return ready::<ClosedResult>(Err(e)),
    };
    Box::pin(
        async move { addr.send(Close { signal }).await }
            .into_actor(sup)
            .map(move |r, act, _| {
                let result = r.map_err(Error::from).and_then(|inner| inner);
                if result.is_ok() {
                    act.workspaces.remove(&id);
                    act.handles.retain(|_, owner| *owner != id);
                    act.tabs.retain(|_, owner| *owner != id);
                    act.panes.retain(|_, entry| entry.workspace != id);
                    act.forget_closed_names();
                }
                Reply::of(result.map(|()| ClosedResult { closed: true }))
            }),
    )
}

fn subscribe(
    sup: &mut Supervisor,
    conn: &ConnHandle,
    generation: u64,
    p: SubscribeParams,
) -> Routed {
    let filter = EventFilter::new(p.events, p.task_ids);
    let head = sup.head();
    let Some(after) = p.from_seq.map(Seq) else {
        sup.subscribe(conn, generation, filter, head);
        return ready(Ok(SubscribeResult {
            subscribed: true,
            seq: head.0,
            replay: None,
        }));
    };
    let disk = sup.disk.as_ref().and_then(|d| d.coverage());
    let (status, retained_after, source) = coverage(after, head, sup.ring.retained_after(), disk);
    match source {
        Some(ReplaySource::Ring) => {
            let events = sup.ring.matching(after, head, &filter);
            let (replay, lines) = finish_replay(status, after, head, retained_after, events);
            Box::pin(actix::fut::ready(subscribed_reply(
                sup, conn, generation, filter, head, replay, lines,
            )))
        },
        Some(ReplaySource::Disk) => {
            // Register now, in the same turn as the fence, so live events after
            // `head` are held by the connection until the replay is written.
            sup.subscribe(conn, generation, filter.clone(), head);
            let ring_events = sup.ring.matching(after, head, &filter);
            let Some(disk) = sup.disk.clone() else {
                return ready::<SubscribeResult>(Err(Error::JournalFailed(
                    "journal history vanished".into(),
                )));
            };
            let read = actix_rt::task::spawn_blocking(move || disk.read(after, head));
            Box::pin(read.into_actor(sup).map(move |read, _act, _ctx| {
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
    sup: &mut Supervisor,
    conn: &ConnHandle,
    generation: u64,
    filter: EventFilter,
    head: Seq,
    replay: Replay,
    lines: Vec<Bytes>,
) -> Reply {
    if replay.status == ReplayStatus::Complete {
        sup.subscribe(conn, generation, filter, head);
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
fn agents_result(set: &crate::agents::AgentSet) -> signaltty_protocol::state::AgentsResult {
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
fn agents_reload(sup: &mut Supervisor) -> Routed {
    let dir = sup.config.agents_dir.clone();
    let load =
        actix_rt::task::spawn_blocking(move || crate::agents::AgentSet::load(dir.as_deref()));
    Box::pin(load.into_actor(sup).map(|loaded, act, _| {
        let result = match loaded {
            Ok(Ok(set)) => {
                let result = agents_result(&set);
                act.config.agents.replace(set);
                for entry in act.panes.values() {
                    entry.addr.do_send(crate::pane::RulesChanged);
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

#[cfg(test)]
mod tests {
    use super::*;
    use signaltty_protocol::ServerLine;

    #[test]
    fn a_hand_built_success_line_is_the_protocol_response_with_the_id_escaped() {
        let id = "weird \"id\" \\ ü";
        let line = response_line(id, Ok(Bytes::from_static(b"{\"x\":[1,2]}")));
        let text = String::from_utf8(line).unwrap();
        assert!(text.ends_with('\n'));
        let ServerLine::Response(r) = ServerLine::parse(text.trim_end()).unwrap() else {
            panic!("not a response")
        };
        assert_eq!(r, Response::ok(id, serde_json::json!({"x": [1, 2]})));
    }
}
