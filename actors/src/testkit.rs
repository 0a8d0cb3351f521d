//! Test helpers: a probe connection that records what it is sent, journal stores
//! that gate, record or fail their appends, and a config on temp directories.

use crate::config::{Config, Limits, SocketOrigin};
use crate::connection::{CloseConnection, Deliver, DeliverPty, Drain};
use crate::journal::{JournalRecord, JournalStore};
use crate::supervisor::{ConnHandle, ConnId};
use actix::prelude::*;
use parking_lot::Mutex;
use signaltty_protocol::Seq;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A config whose paths point into `dir`.
pub fn config(dir: &std::path::Path) -> Config {
    Config {
        agents_dir: None,
        agents: crate::agents::AgentRules::default(),
        socket: dir.join("test.sock"),
        socket_origin: SocketOrigin::Explicit,
        state_dir: dir.join("state"),
        home: Some(dir.to_path_buf()),
        version: "test".into(),
        limits: Limits::default(),
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

/// The seqs of every batch a store was asked to append, in order.
pub type BatchLog = Arc<Mutex<Vec<Vec<Seq>>>>;

/// A store whose appends block until the test lets each one through, and which
/// records the size of every batch.
pub struct GatedStore {
    gate: mpsc::Receiver<()>,
    batches: BatchLog,
}

impl GatedStore {
    /// The store, the gate's sender (one `()` per append to let through) and the batch log.
    pub fn new() -> (GatedStore, mpsc::Sender<()>, BatchLog) {
        let (tx, rx) = mpsc::channel();
        let batches = Arc::new(Mutex::new(Vec::new()));
        (
            GatedStore {
                gate: rx,
                batches: batches.clone(),
            },
            tx,
            batches,
        )
    }
}

impl JournalStore for GatedStore {
    fn head(&self) -> Seq {
        Seq(100)
    }

    fn append(&mut self, batch: &[JournalRecord]) -> std::io::Result<()> {
        self.batches
            .lock()
            .push(batch.iter().map(|r| r.seq).collect());
        self.gate
            .recv()
            .map_err(|_| std::io::Error::other("gate dropped"))
    }
}

/// A store that fails every append, like a full disk.
pub struct FailingStore;

impl JournalStore for FailingStore {
    fn head(&self) -> Seq {
        Seq(0)
    }

    fn append(&mut self, _batch: &[JournalRecord]) -> std::io::Result<()> {
        Err(std::io::Error::other("no space left on device"))
    }
}
