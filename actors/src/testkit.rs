//! Test helpers: a config on temp directories, a probe connection that records
//! what it is sent, and a Supervisor on a memory journal to send requests to.
//! The probe Supervisor a pane publishes to, the fake PTY, the fake `Os`, the
//! journal stores that gate, record or fail their appends, the task fakes and
//! the settings of generated-input properties have files of their own.

use crate::actors::connection::{CloseConnection, Deliver, DeliverPty, Drain};
use crate::actors::connection::{ConnHandle, ConnId};
use crate::config::Config;
use actix::prelude::*;
use parking_lot::Mutex;
use signaltty_model::SocketOrigin;
use signaltty_model::settings::Limits;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod generated;
mod journal;
mod os;
mod pty;
mod publish;
pub mod tasks;

pub use journal::{FailingStore, FullDiskStore, GatedStore};
pub use os::fake_os;
pub use pty::{FakePty, FakeWrites};
pub use publish::{PublishProbe, Published};

/// A config whose paths point into `dir` (the state directory exists, as
/// the server makes it at start).
pub fn config(dir: &std::path::Path) -> Config {
    // A test's temporary directory: nothing to recover from if it fails.
    let _ = std::fs::create_dir_all(dir.join("state"));
    Config {
        agents_dir: None,
        agents: signaltty_model::agents::AgentRules::default(),
        socket: dir.join("test.sock"),
        socket_origin: SocketOrigin::Explicit,
        state_dir: dir.join("state"),
        data_dir: dir.join("data"),
        home: Some(dir.to_path_buf()),
        version: "test".into(),
        limits: Limits::default(),
        settings: Default::default(),
        os: crate::os::seams::Os::real(),
    }
}

/// What a probe connection has been sent.
#[derive(Debug, Default)]
pub struct ProbeLog {
    /// Event lines delivered, as JSON.
    pub events: Vec<serde_json::Value>,
    /// Close reasons.
    pub closed: Vec<String>,
}

/// Stands in for a Connection: records deliveries and close requests.
pub struct Probe {
    log: Arc<Mutex<ProbeLog>>,
}

impl Probe {
    /// Starts a probe and returns the handle the Supervisor uses, plus its log.
    pub fn start(id: u64) -> (ConnHandle, Arc<Mutex<ProbeLog>>) {
        let log = Arc::new(Mutex::new(ProbeLog::default()));
        let addr = Probe { log: log.clone() }.start();
        let handle = ConnHandle {
            id: ConnId(id),
            deliver: addr.clone().recipient(),
            close: addr.clone().recipient(),
            drain: addr.clone().recipient(),
            pty: addr.recipient(),
            socket: -1,
        };
        (handle, log)
    }
}

impl Actor for Probe {
    type Context = Context<Self>;
}

impl Handler<Deliver> for Probe {
    type Result = ();
    fn handle(&mut self, msg: Deliver, _: &mut Self::Context) {
        let value = serde_json::from_slice(&msg.line).expect("event lines are JSON");
        self.log.lock().events.push(value);
    }
}

impl Handler<DeliverPty> for Probe {
    type Result = ();
    fn handle(&mut self, msg: DeliverPty, _: &mut Self::Context) {
        let value = serde_json::from_slice(&msg.line).expect("pty lines are JSON");
        self.log.lock().events.push(value);
    }
}

impl Handler<Drain> for Probe {
    type Result = ();
    fn handle(&mut self, _msg: Drain, _: &mut Self::Context) {
        self.log.lock().closed.push("drained".into());
    }
}

impl Handler<CloseConnection> for Probe {
    type Result = ();
    fn handle(&mut self, msg: CloseConnection, _: &mut Self::Context) {
        self.log.lock().closed.push(msg.reason);
    }
}

/// Polls `cond` on the actor loop until it holds, failing with `what` after 10 s.
pub async fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// A Supervisor on a memory journal whose workflows run on `os`, and a probe
/// connection to send it requests on.
pub fn server_on(
    dir: &std::path::Path,
    os: crate::os::seams::Os,
) -> (Addr<crate::actors::supervisor::Supervisor>, ConnHandle) {
    let (stop_tx, _) = tokio::sync::watch::channel(crate::os::listener::Accepting::Open);
    let config = Config { os, ..config(dir) };
    let sup = crate::actors::supervisor::Supervisor::new(
        Arc::new(config),
        crate::store::journal::MemoryStore,
        None,
        stop_tx,
    )
    .start();
    let (conn, _) = Probe::start(1);
    (sup, conn)
}

/// Sends `method` as a request on `conn` and returns its result, or its
/// error's code and message.
pub async fn call(
    sup: &Addr<crate::actors::supervisor::Supervisor>,
    conn: &ConnHandle,
    method: signaltty_protocol::Method,
) -> Result<serde_json::Value, (signaltty_protocol::ErrorCode, String)> {
    let reply = sup
        .send(crate::actors::connection::Dispatch {
            request: signaltty_protocol::Request::new("t", method),
            conn: conn.clone(),
            generation: 1,
        })
        .await
        .expect("the Supervisor runs");
    match reply.result {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).expect("a JSON result")),
        Err(e) => Err((e.code(), e.to_string())),
    }
}
