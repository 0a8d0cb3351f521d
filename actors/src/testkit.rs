//! Test helpers: a probe connection that records what it is sent, a probe
//! Supervisor that records what a pane publishes, a fake PTY, journal stores
//! that gate, record or fail their appends, and a config on temp directories.

use crate::actors::connection::{CloseConnection, Deliver, DeliverPty, Drain};
use crate::actors::connection::{ConnHandle, ConnId};
use crate::config::Config;
use crate::store::journal::{JournalRecord, JournalStore};
use actix::prelude::*;
use parking_lot::Mutex;
use signaltty_model::SocketOrigin;
use signaltty_model::settings::Limits;
use signaltty_protocol::Seq;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A config whose paths point into `dir`.
pub fn config(dir: &std::path::Path) -> Config {
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

/// What a `PublishProbe` has been sent.
#[derive(Debug, Default)]
pub struct PublishLog {
    /// Every `Publish`, one batch each, in arrival order.
    pub batches: Vec<Vec<signaltty_protocol::Event>>,
}

impl PublishLog {
    /// The names of every published event, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.batches.iter().flatten().map(|e| e.name()).collect()
    }
}

/// Stands in for the Supervisor a pane publishes to: records each `Publish`
/// batch and acknowledges it.
pub struct PublishProbe {
    log: Arc<Mutex<PublishLog>>,
    changed: Arc<tokio::sync::Notify>,
    seq: u64,
}

/// The test's side of a `PublishProbe`: what it recorded, and bounded waits.
#[derive(Clone)]
pub struct Published {
    log: Arc<Mutex<PublishLog>>,
    changed: Arc<tokio::sync::Notify>,
}

impl PublishProbe {
    /// Starts a probe on the current arbiter.
    pub fn start() -> (Addr<PublishProbe>, Published) {
        let log = Arc::new(Mutex::new(PublishLog::default()));
        let changed = Arc::new(tokio::sync::Notify::new());
        let probe = PublishProbe {
            log: log.clone(),
            changed: changed.clone(),
            seq: 0,
        }
        .start();
        (probe, Published { log, changed })
    }
}

impl Actor for PublishProbe {
    type Context = Context<Self>;
}

impl Handler<crate::actors::publish::Publish> for PublishProbe {
    type Result = Result<Seq, crate::error::Error>;
    fn handle(
        &mut self,
        msg: crate::actors::publish::Publish,
        _: &mut Self::Context,
    ) -> Self::Result {
        self.seq += msg.events.len() as u64;
        self.log.lock().batches.push(msg.events);
        self.changed.notify_waiters();
        Ok(Seq(self.seq))
    }
}

impl Published {
    /// Reads the log.
    pub fn with<T>(&self, f: impl FnOnce(&PublishLog) -> T) -> T {
        f(&self.log.lock())
    }

    /// The names of every published event so far.
    pub fn names(&self) -> Vec<&'static str> {
        self.log.lock().names()
    }

    /// Waits until `cond` holds for the log, failing after 10 s with `what`
    /// and everything published.
    pub async fn wait_for(&self, what: &str, cond: impl Fn(&PublishLog) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            // Registered before the check: a batch between them still wakes us.
            let changed = self.changed.notified();
            if cond(&self.log.lock()) {
                return;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                panic!(
                    "timed out waiting for {what}; published: {:?}",
                    self.names()
                );
            }
        }
    }

    /// Waits for the first batch that holds an event named `name` and returns it.
    pub async fn batch_with(&self, name: &str) -> Vec<signaltty_protocol::Event> {
        let find = |log: &PublishLog| {
            log.batches
                .iter()
                .find(|b| b.iter().any(|e| e.name() == name))
                .cloned()
        };
        self.wait_for(&format!("a batch with {name}"), |log| find(log).is_some())
            .await;
        self.with(find).unwrap_or_default()
    }
}

/// What a `FakePty` does with a write.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FakeWrites {
    /// Every write completes at once.
    #[default]
    Accept,
    /// A write takes this many bytes, then waits for its deadline to pass
    /// (`FakePty::expire_writes`), as a program that stopped reading does.
    Stall {
        /// The prefix the kernel accepts.
        accept: usize,
    },
    /// Every write fails at once with this error and nothing written.
    Fail(crate::os::pty::WriteErrorKind),
}

/// A write held by `FakeWrites::Stall` until its deadline passes.
struct StalledWrite {
    written: usize,
    deadline: Instant,
    reply: tokio::sync::oneshot::Sender<Result<usize, crate::os::pty::WriteError>>,
}

#[derive(Default)]
struct FakePtyState {
    writes: FakeWrites,
    written: Vec<u8>,
    stalled: Vec<StalledWrite>,
    deadlines: Vec<Instant>,
    resized: Vec<(u16, u16)>,
    signals: Vec<(nix::sys::signal::Signal, crate::actors::pane::SignalTarget)>,
    closed: Option<nix::sys::signal::Signal>,
    exited: bool,
}

/// A PTY for Pane actor tests: the test pushes output and the exit to the
/// pane, reads what the pane wrote, and makes writes stall or fail. Clones
/// share one terminal.
#[derive(Clone, Default)]
pub struct FakePty {
    state: Arc<Mutex<FakePtyState>>,
}

impl FakePty {
    /// A fake PTY whose writes complete at once.
    pub fn new() -> FakePty {
        FakePty::default()
    }

    /// A handle for `Pane::new`, sharing this fake.
    pub fn handle(&self) -> Box<dyn crate::actors::pane::PtyHandle> {
        Box::new(self.clone())
    }

    /// Sets what later writes do.
    pub fn set_writes(&self, writes: FakeWrites) {
        self.state.lock().writes = writes;
    }

    /// Every byte the pane's writes delivered, in order.
    pub fn written(&self) -> Vec<u8> {
        self.state.lock().written.clone()
    }

    /// The deadline of every write, in order.
    pub fn deadlines(&self) -> Vec<Instant> {
        self.state.lock().deadlines.clone()
    }

    /// Writes waiting for their deadline.
    pub fn stalled(&self) -> usize {
        self.state.lock().stalled.len()
    }

    /// The deadlines of the stalled writes pass: each fails with `Timeout`
    /// and the prefix it wrote.
    pub fn expire_writes(&self) {
        let stalled = std::mem::take(&mut self.state.lock().stalled);
        for write in stalled {
            assert!(
                write.deadline > Instant::now(),
                "expired before its deadline"
            );
            let _ = write.reply.send(Err(crate::os::pty::WriteError {
                kind: crate::os::pty::WriteErrorKind::Timeout,
                written: write.written,
            }));
        }
    }

    /// Every resize, in order.
    pub fn resized(&self) -> Vec<(u16, u16)> {
        self.state.lock().resized.clone()
    }

    /// Every signal sent, in order.
    pub fn signals(&self) -> Vec<(nix::sys::signal::Signal, crate::actors::pane::SignalTarget)> {
        self.state.lock().signals.clone()
    }

    /// The signal `close` was called with, if it was.
    pub fn closed(&self) -> Option<nix::sys::signal::Signal> {
        self.state.lock().closed
    }

    /// The program prints `bytes`; returns once the pane has processed them.
    pub async fn output(&self, pane: &Addr<crate::actors::pane::Pane>, bytes: &[u8]) {
        let (ack, _acked) = mpsc::sync_channel(1);
        pane.send(crate::actors::pane::Output {
            chunk: bytes.to_vec(),
            ack,
        })
        .await
        .expect("the pane is running");
    }

    /// The program exits with `code` after its output drained (EOF, then the
    /// reap, as the reader reports them); the terminal hangs up.
    pub async fn exit(&self, pane: &Addr<crate::actors::pane::Pane>, code: Option<i32>) {
        self.state.lock().exited = true;
        pane.send(crate::actors::pane::OutputEnded)
            .await
            .expect("the pane is running");
        pane.send(crate::actors::pane::ChildExited { code })
            .await
            .expect("the pane is running");
    }
}

impl crate::actors::pane::PtyHandle for FakePty {
    fn pid(&self) -> u32 {
        4242
    }

    fn resize(&self, rows: u16, cols: u16) -> std::io::Result<()> {
        self.state.lock().resized.push((rows, cols));
        Ok(())
    }

    fn signal(
        &self,
        sig: nix::sys::signal::Signal,
        target: crate::actors::pane::SignalTarget,
    ) -> std::io::Result<()> {
        let mut state = self.state.lock();
        if state.exited {
            return Err(nix::errno::Errno::ESRCH.into());
        }
        state.signals.push((sig, target));
        Ok(())
    }

    fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> tokio::sync::oneshot::Receiver<Result<usize, crate::os::pty::WriteError>> {
        use crate::os::pty::{WriteError, WriteErrorKind};
        let (reply, rx) = tokio::sync::oneshot::channel();
        let mut state = self.state.lock();
        state.deadlines.push(deadline);
        if state.exited || state.closed.is_some() {
            let _ = reply.send(Err(WriteError {
                kind: WriteErrorKind::Exited,
                written: 0,
            }));
            return rx;
        }
        match state.writes.clone() {
            FakeWrites::Accept => {
                state.written.extend_from_slice(&bytes);
                let _ = reply.send(Ok(bytes.len()));
            },
            FakeWrites::Stall { accept } => {
                let written = accept.min(bytes.len());
                state.written.extend_from_slice(&bytes[..written]);
                state.stalled.push(StalledWrite {
                    written,
                    deadline,
                    reply,
                });
            },
            FakeWrites::Fail(kind) => {
                let _ = reply.send(Err(WriteError { kind, written: 0 }));
            },
        }
        rx
    }

    fn close(&self, sig: nix::sys::signal::Signal) {
        let mut state = self.state.lock();
        state.closed.get_or_insert(sig);
        // A hangup resolves the writes still waiting (the real writer does too).
        for write in state.stalled.drain(..) {
            let _ = write.reply.send(Err(crate::os::pty::WriteError {
                kind: crate::os::pty::WriteErrorKind::Exited,
                written: write.written,
            }));
        }
    }

    fn release(&self) -> std::io::Result<std::os::fd::OwnedFd> {
        Err(std::io::Error::other(
            "a fake pty has no master to hand over",
        ))
    }
}
