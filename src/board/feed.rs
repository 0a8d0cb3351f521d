//! The board's subscription: one connection, one `subscribe`, then the world
//! read on the same connection, then every event as it comes. Never a poll
//! loop. When the connection drops (the server stopped, crashed or was
//! upgraded) it says so at once and reconnects with a growing pause, and
//! follows the recovery recipe of docs/persistence.md#how-a-client-recovers: a
//! fresh subscription first (with `from_seq` = the last seq it applied, so the
//! events of the gap are replayed when the journal still has them), then the
//! state read, which replaces what the board showed. A replay that is not
//! complete makes the server close the connection; the next attempt subscribes
//! without `from_seq`.

use super::Input;
use signaltty_model::client::{ConnRead, ConnWrite, Target};
use signaltty_protocol::subscribe::{ReplayStatus, SubscribeParams, SubscribeResult};
use signaltty_protocol::task::conflict::TaskConflict;
use signaltty_protocol::task::{Task, TaskListParams, TaskListResult};
use signaltty_protocol::workspace::{
    WorkspaceGetParams, WorkspaceGetResult, WorkspaceListParams, WorkspaceListResult,
};
use signaltty_protocol::{EventFrame, Method, Request, Response, ServerLine, WorkspaceRef};
use std::io::{BufRead as _, BufReader, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// What the feed tells the main loop.
#[derive(Debug)]
pub enum FeedNews {
    /// Connected: the world as of now, then the live events that came while
    /// it was read, to apply in order. `replayed` counts the events of the
    /// gap the server replayed: they are older than the world read (which is
    /// the truth: a restore changes panes without events), so they are not
    /// applied, only reported.
    World {
        world: Vec<WorkspaceGetResult>,
        /// Every task (`task.list`, at most 1000).
        tasks: Vec<Task>,
        /// The conflict radar's collisions among them.
        conflicts: Vec<TaskConflict>,
        seq: u64,
        events: Vec<EventFrame>,
        replayed: usize,
    },
    /// One live event, and when it was read off the socket.
    Event(EventFrame, std::time::Instant),
    /// The connection is gone; reconnecting.
    Lost(String),
}

/// The longest pause between two connection attempts.
const MAX_PAUSE: Duration = Duration::from_secs(2);

/// Runs the feed of the board's host `host` on its own thread until the main
/// loop goes away; its news says which host it is about. `last_seq` is the
/// newest seq the board applied from that host (shared, so a reconnect
/// replays from it). Each host has a feed of its own, so one that is slow
/// or down holds up nobody else's.
pub fn spawn(host: usize, socket: Target, news: Sender<Input>, last_seq: Arc<AtomicU64>) {
    std::thread::spawn(move || {
        let mut pause = Duration::from_millis(50);
        let mut replay = true;
        loop {
            let from = last_seq.load(Ordering::Relaxed);
            let from_seq = (replay && from > 0).then_some(from);
            match session(host, &socket, from_seq, &news) {
                Ended::MainLoopGone => return,
                Ended::Lost(why) => {
                    // A fresh world follows every reconnect: a replay is only
                    // worth asking for while the server keeps the gap.
                    replay = !why.contains("replay");
                    if news.send(Input::Feed(host, FeedNews::Lost(why))).is_err() {
                        return;
                    }
                },
                Ended::Connected(why) => {
                    pause = Duration::from_millis(50);
                    replay = true;
                    if news.send(Input::Feed(host, FeedNews::Lost(why))).is_err() {
                        return;
                    }
                },
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(MAX_PAUSE);
        }
    });
}

enum Ended {
    /// Could not get as far as the world.
    Lost(String),
    /// Was connected, then the connection ended.
    Connected(String),
    MainLoopGone,
}

/// Reads the lines of one connection: responses by id, events queued.
struct Conn {
    reader: BufReader<ConnRead>,
    writer: ConnWrite,
    events: Vec<EventFrame>,
    next_id: u64,
}

impl Conn {
    fn call(&mut self, method: Method) -> Result<Response, String> {
        self.next_id += 1;
        let id = format!("board-{}", self.next_id);
        let mut line = Request::new(id.clone(), method).to_line();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .map_err(|e| format!("cannot write to the server: {e}"))?;
        loop {
            match self.next_line()? {
                ServerLine::Response(r) if r.id == id => return Ok(r),
                ServerLine::Response(_) => {},
                ServerLine::Event(e) => self.events.push(e),
            }
        }
    }

    fn next_line(&mut self) -> Result<ServerLine, String> {
        let mut line = String::new();
        loop {
            line.clear();
            match self.reader.read_line(&mut line) {
                Ok(0) => return Err("the server closed the connection".into()),
                Err(e) => return Err(format!("the connection failed: {e}")),
                Ok(_) => {},
            }
            if let Ok(parsed) = ServerLine::parse(line.trim_end()) {
                return Ok(parsed);
            }
        }
    }
}

fn result<T: serde::de::DeserializeOwned>(r: Response, what: &str) -> Result<T, String> {
    match (r.result, r.error) {
        (Some(v), None) => {
            serde_json::from_value(v).map_err(|e| format!("unexpected {what} reply: {e}"))
        },
        (_, Some(e)) => Err(format!("{what}: {}: {}", e.code, e.message)),
        _ => Err(format!("empty {what} reply")),
    }
}

fn session(host: usize, socket: &Target, from_seq: Option<u64>, news: &Sender<Input>) -> Ended {
    let (stream, writer) = match socket.connect() {
        Ok(s) => s,
        Err(e) => return Ended::Lost(e.message),
    };
    let mut conn = Conn {
        reader: BufReader::new(stream),
        writer,
        events: Vec::new(),
        next_id: 0,
    };
    // Every event (`*`): the world's and the tasks' (`task.*`) alike.
    let subscribed = conn
        .call(Method::Subscribe(SubscribeParams {
            events: None,
            from_seq,
            task_ids: None,
        }))
        .and_then(|r| result::<SubscribeResult>(r, "subscribe"));
    let sub = match subscribed {
        Ok(s) => s,
        Err(e) => return Ended::Lost(e),
    };
    if let Some(replay) = &sub.replay
        && replay.status != ReplayStatus::Complete
    {
        return Ended::Lost(format!("the replay was {:?}", replay.status));
    }
    let world = match read_world(&mut conn) {
        Ok(w) => w,
        Err(e) => return Ended::Lost(e),
    };
    let (tasks, conflicts) = match read_tasks(&mut conn) {
        Ok(t) => t,
        Err(e) => return Ended::Lost(e),
    };
    let (replayed, events): (Vec<EventFrame>, Vec<EventFrame>) = std::mem::take(&mut conn.events)
        .into_iter()
        .partition(|e| e.seq <= sub.seq);
    let sent = news.send(Input::Feed(
        host,
        FeedNews::World {
            world,
            tasks,
            conflicts,
            seq: sub.seq,
            events,
            replayed: replayed.len(),
        },
    ));
    if sent.is_err() {
        return Ended::MainLoopGone;
    }
    loop {
        match conn.next_line() {
            Ok(ServerLine::Event(e)) => {
                let at = std::time::Instant::now();
                if news
                    .send(Input::Feed(host, FeedNews::Event(e, at)))
                    .is_err()
                {
                    return Ended::MainLoopGone;
                }
            },
            Ok(ServerLine::Response(_)) => {},
            Err(why) => return Ended::Connected(why),
        }
    }
}

/// Every workspace with its tabs and panes.
fn read_world(conn: &mut Conn) -> Result<Vec<WorkspaceGetResult>, String> {
    let list: WorkspaceListResult = conn
        .call(Method::WorkspaceList(WorkspaceListParams {}))
        .and_then(|r| result(r, "workspace.list"))?;
    let mut world = Vec::new();
    for w in list.workspaces {
        let got = conn.call(Method::WorkspaceGet(WorkspaceGetParams {
            workspace_id: WorkspaceRef(w.id.0.clone()),
        }))?;
        // Closed between the list and the get: its close event follows.
        if let Ok(got) = result::<WorkspaceGetResult>(got, "workspace.get") {
            world.push(got);
        }
    }
    Ok(world)
}

/// Every task, oldest first, and the collisions among them. A server that
/// refuses `task.list` (one without tasks) has none to show; only a broken
/// connection is an error.
fn read_tasks(conn: &mut Conn) -> Result<(Vec<Task>, Vec<TaskConflict>), String> {
    let reply = conn.call(Method::TaskList(TaskListParams {
        context_id: None,
        state: None,
        limit: Some(1000),
    }))?;
    Ok(result::<TaskListResult>(reply, "task.list")
        .map(|r| (r.tasks, r.conflicts))
        .unwrap_or_default())
}
