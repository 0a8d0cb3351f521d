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

pub mod tasks;

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

/// The file system as a launch sees it, made of directories the test names;
/// a check can be held until the test lets it go.
#[derive(Default)]
pub struct FakeFiles {
    dirs: Mutex<std::collections::HashSet<std::path::PathBuf>>,
    /// While set, every check waits until it is cleared.
    hold: Mutex<Option<mpsc::Receiver<()>>>,
    checked: Mutex<Vec<std::path::PathBuf>>,
}

impl FakeFiles {
    /// `path` is a directory.
    pub fn dir(&self, path: impl Into<std::path::PathBuf>) {
        self.dirs.lock().insert(path.into());
    }

    /// The next check waits until the returned sender sends (or drops).
    pub fn hold_next(&self) -> mpsc::Sender<()> {
        let (tx, rx) = mpsc::channel();
        *self.hold.lock() = Some(rx);
        tx
    }

    /// Every path checked, in order.
    pub fn checked(&self) -> Vec<std::path::PathBuf> {
        self.checked.lock().clone()
    }
}

impl crate::os::seams::Files for FakeFiles {
    fn kind(&self, path: &std::path::Path) -> std::io::Result<crate::os::seams::FileKind> {
        self.checked.lock().push(path.to_path_buf());
        let held = self.hold.lock().take();
        if let Some(rx) = held {
            let _ = rx.recv();
        }
        if self.dirs.lock().contains(path) {
            Ok(crate::os::seams::FileKind::Dir)
        } else {
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        }
    }
}

/// A PTY layer that starts nothing: every spawn is recorded and answered
/// with a [`FakePty`] (or the failure the test set).
#[derive(Default)]
pub struct FakeSpawner {
    spawned: Mutex<Vec<(crate::domain::launch::SpawnSpec, FakePty)>>,
    fail: Mutex<Option<String>>,
    missing: Mutex<Vec<String>>,
}

impl FakeSpawner {
    /// `program` is not installed: it cannot be found, as on a `PATH` without it.
    pub fn missing(&self, program: &str) {
        self.missing.lock().push(program.to_owned());
    }

    /// Later spawns fail as a program that cannot start.
    pub fn fail_with(&self, why: &str) {
        *self.fail.lock() = Some(why.to_owned());
    }

    /// Every spawn that started, with its fake terminal.
    pub fn spawned(&self) -> Vec<(crate::domain::launch::SpawnSpec, FakePty)> {
        self.spawned.lock().clone()
    }
}

impl crate::os::seams::Spawner for FakeSpawner {
    fn locate(
        &self,
        spec: &crate::domain::launch::SpawnSpec,
    ) -> Result<(), crate::os::pty::SpawnError> {
        match spec.argv.first() {
            Some(program) if self.missing.lock().contains(program) => {
                Err(crate::os::pty::SpawnError::Io {
                    argv0: program.clone(),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                })
            },
            _ => Ok(()),
        }
    }

    fn spawn(
        &self,
        spec: &crate::domain::launch::SpawnSpec,
        _sink: Box<dyn crate::os::pty::PtySink>,
    ) -> Result<Box<dyn crate::os::pty::PtyHandle>, crate::os::pty::SpawnError> {
        if let Some(why) = self.fail.lock().clone() {
            return Err(crate::os::pty::SpawnError::Io {
                argv0: spec.argv.first().cloned().unwrap_or_default(),
                source: std::io::Error::other(why),
            });
        }
        let pty = FakePty::new();
        self.spawned.lock().push((spec.clone(), pty.clone()));
        Ok(pty.handle())
    }
}

/// Agents' hook setup that writes nothing: each call is recorded, and the
/// test may have it run another command (as Codex's setup adds a flag).
#[derive(Default)]
pub struct FakeHooks {
    calls: Mutex<Vec<Vec<String>>>,
    exec: Mutex<Option<Vec<String>>>,
}

impl FakeHooks {
    /// The argv of every agent launch prepared, in order.
    pub fn calls(&self) -> Vec<Vec<String>> {
        self.calls.lock().clone()
    }

    /// Later setups run `argv` instead and report an installed integration.
    pub fn exec(&self, argv: &[&str]) {
        *self.exec.lock() = Some(argv.iter().map(|a| (*a).to_owned()).collect());
    }
}

impl crate::os::seams::HookSetup for FakeHooks {
    fn prepare(
        &self,
        argv: &[String],
        _config_env: &std::collections::BTreeMap<String, String>,
        _cwd: &std::path::Path,
        _child_env: &[(String, String)],
    ) -> signaltty_model::integration::launch::Prepared {
        self.calls.lock().push(argv.to_vec());
        let exec = self.exec.lock().clone();
        signaltty_model::integration::launch::Prepared {
            integration: exec
                .as_ref()
                .map(|_| signaltty_protocol::pane::Integration {
                    agent: "fake".into(),
                    status: "installed".into(),
                    changed: false,
                    file: None,
                    notice: None,
                }),
            exec_argv: exec,
        }
    }
}

/// Git that knows nothing: no checkout anywhere.
pub struct FakeGit;

impl crate::os::seams::GitProbe for FakeGit {
    fn git_info(&self, _cwd: &std::path::Path) -> signaltty_protocol::workspace::GitInfo {
        signaltty_protocol::workspace::GitInfo::default()
    }

    fn probe(&self, _cwd: &std::path::Path) -> signaltty_protocol::workspace::GitInfo {
        signaltty_protocol::workspace::GitInfo::default()
    }
}

/// The fakes behind a [`fake_os`].
#[derive(Clone)]
pub struct FakeWorld {
    /// Directories.
    pub files: Arc<FakeFiles>,
    /// Spawns.
    pub spawner: Arc<FakeSpawner>,
    /// Hook setups.
    pub hooks: Arc<FakeHooks>,
}

/// An [`Os`](crate::os::seams::Os) of fakes, and the fakes to drive.
pub fn fake_os() -> (crate::os::seams::Os, FakeWorld) {
    let world = FakeWorld {
        files: Arc::new(FakeFiles::default()),
        spawner: Arc::new(FakeSpawner::default()),
        hooks: Arc::new(FakeHooks::default()),
    };
    let os = crate::os::seams::Os {
        files: world.files.clone(),
        spawner: world.spawner.clone(),
        hooks: world.hooks.clone(),
        git: Arc::new(FakeGit),
        task_git: Arc::new(tasks::FakeTaskGit::default()),
        workbench: Arc::new(tasks::FakeWorkbench::default()),
    };
    (os, world)
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
