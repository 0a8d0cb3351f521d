//! What the soak's threads share: where the server is, the panes kept live,
//! the requests the server acknowledged, counters, and the flags with which
//! the main thread stops the load, pauses its transient part for a
//! measurement and says that a fault is under way.

use super::conn::Conn;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a thread may go without reaching the server before the soak
/// fails: far longer than any restart or upgrade takes.
pub const RECONNECT_DEADLINE: Duration = Duration::from_secs(120);

/// What a pane of the soak is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// It receives the hook events of the 50/s stream.
    Hooks,
    /// Its fake Claude asks permissions with the waiting reporter.
    Asks,
}

/// A pane the churner keeps live.
#[derive(Debug, Clone)]
pub struct LivePane {
    pub id: String,
    pub tab: String,
    pub role: Role,
    /// The session id its fake Claude reports (`SIGNALTTY_FAKE_SESSION`).
    pub session: String,
}

/// A request the server answered `ok` whose effect is a state event: the
/// journal must hold that event.
#[derive(Debug, Clone)]
pub enum Ack {
    WorkspaceCreated(String),
    WorkspaceRenamed {
        id: String,
        name: String,
    },
    TabCreated(String),
    PaneCreated {
        pane: String,
        tab: String,
    },
    PaneClosed(String),
    /// `tab.close`: `tab.closed`, and `pane.closed` of the pane it held.
    TabClosed {
        tab: String,
        pane: Option<String>,
    },
    /// `decision.answer`: `decision.answered` with this option.
    Answered {
        pane: String,
        decision: String,
        option: String,
    },
    /// An accepted `hook-event` with a message: its `notification.created`.
    Hook {
        pane: String,
        body: String,
    },
}

/// A decision the soak left to time out.
#[derive(Debug, Clone)]
pub struct Left {
    pub pane: String,
    pub decision: String,
    pub at: Instant,
}

/// Everything the threads share.
pub struct Shared {
    pub socket: PathBuf,
    /// The test's temp dir.
    pub root: PathBuf,
    /// The variables a CLI reporter needs to find the server.
    pub cli_env: Vec<(&'static str, PathBuf)>,
    pub seed: u64,
    /// The soak's workspaces (the marker's is not among them).
    pub workspaces: Vec<String>,
    /// How many panes the churner keeps live at a measurement.
    pub target_panes: usize,
    /// Between two churn steps.
    pub churn_every: Duration,
    /// Between two full replays.
    pub full_replay_every: Duration,
    stop: AtomicBool,
    quiet: AtomicBool,
    faulting: AtomicBool,
    epoch: AtomicU64,
    /// The last seq the recorder read.
    pub head: AtomicU64,
    /// Numbers the hook messages.
    pub hook_n: AtomicU64,
    /// Numbers the panes spawned.
    pub pane_n: AtomicU64,
    pub panes: Mutex<Vec<LivePane>>,
    pub acks: Mutex<Vec<Ack>>,
    pub left: Mutex<Vec<Left>>,
    counters: Mutex<BTreeMap<String, u64>>,
    parked: Mutex<BTreeSet<&'static str>>,
    failure: Mutex<Option<String>>,
    /// The seqs the recorder read, in order.
    pub recorded: Mutex<Vec<u64>>,
    /// When each fault began.
    pub fault_times: Mutex<Vec<Instant>>,
}

/// Locks `m`, also after a thread panicked holding it (the soak then fails
/// anyway, with that thread's message).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        socket: PathBuf,
        root: PathBuf,
        cli_env: Vec<(&'static str, PathBuf)>,
        seed: u64,
        workspaces: Vec<String>,
        target_panes: usize,
        churn_every: Duration,
        full_replay_every: Duration,
    ) -> Shared {
        Shared {
            socket,
            root,
            cli_env,
            seed,
            workspaces,
            target_panes,
            churn_every,
            full_replay_every,
            stop: AtomicBool::new(false),
            quiet: AtomicBool::new(false),
            faulting: AtomicBool::new(false),
            epoch: AtomicU64::new(0),
            head: AtomicU64::new(0),
            hook_n: AtomicU64::new(0),
            pane_n: AtomicU64::new(0),
            panes: Mutex::new(Vec::new()),
            acks: Mutex::new(Vec::new()),
            left: Mutex::new(Vec::new()),
            counters: Mutex::new(BTreeMap::new()),
            parked: Mutex::new(BTreeSet::new()),
            failure: Mutex::new(None),
            recorded: Mutex::new(Vec::new()),
            fault_times: Mutex::new(Vec::new()),
        }
    }

    /// Whether the load goes on.
    pub fn running(&self) -> bool {
        !self.stop.load(Ordering::SeqCst)
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Records the first real problem and stops the load.
    pub fn fail(&self, what: String) {
        let mut failure = lock(&self.failure);
        if failure.is_none() {
            eprintln!("soak: FAILURE: {what}");
            *failure = Some(what);
        }
        drop(failure);
        self.stop();
    }

    pub fn failure(&self) -> Option<String> {
        lock(&self.failure).clone()
    }

    pub fn count(&self, what: &str) {
        self.add(what, 1);
    }

    pub fn add(&self, what: &str, n: u64) {
        *lock(&self.counters).entry(what.to_owned()).or_default() += n;
    }

    /// Raises counter `what` to `v` when it is below.
    pub fn max(&self, what: &str, v: u64) {
        let mut counters = lock(&self.counters);
        let slot = counters.entry(what.to_owned()).or_default();
        *slot = (*slot).max(v);
    }

    pub fn counter(&self, what: &str) -> u64 {
        lock(&self.counters).get(what).copied().unwrap_or(0)
    }

    pub fn counters(&self) -> BTreeMap<String, u64> {
        lock(&self.counters).clone()
    }

    pub fn ack(&self, ack: Ack) {
        lock(&self.acks).push(ack);
    }

    /// The number of faults so far (a fault ends when the server answers again).
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Whether a fault is under way: connections ending now are its doing.
    pub fn faulting(&self) -> bool {
        self.faulting.load(Ordering::SeqCst)
    }

    pub fn begin_fault(&self) {
        lock(&self.fault_times).push(Instant::now());
        self.faulting.store(true, Ordering::SeqCst);
    }

    pub fn end_fault(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.faulting.store(false, Ordering::SeqCst);
    }

    pub fn quiet(&self) -> bool {
        self.quiet.load(Ordering::SeqCst)
    }

    pub fn set_quiet(&self, on: bool) {
        self.quiet.store(on, Ordering::SeqCst);
    }

    /// The transient threads parked for a measurement.
    pub fn parked(&self) -> BTreeSet<&'static str> {
        lock(&self.parked).clone()
    }

    /// While a measurement window is open, parks thread `name` until it
    /// closes; returns whether it parked (its cycle then starts afresh).
    pub fn park_if_quiet(&self, name: &'static str) -> bool {
        if !self.quiet() {
            return false;
        }
        lock(&self.parked).insert(name);
        while self.quiet() && self.running() {
            std::thread::sleep(Duration::from_millis(20));
        }
        lock(&self.parked).remove(name);
        true
    }

    /// Sleeps `d` (pacing, never a wait for a state), in slices, returning
    /// early with `false` once the load stops.
    pub fn pace(&self, d: Duration) -> bool {
        let until = Instant::now() + d;
        while self.running() {
            let now = Instant::now();
            if now >= until {
                return true;
            }
            std::thread::sleep((until - now).min(Duration::from_millis(50)));
        }
        false
    }

    /// A connection, retried while the server restarts; `None` once the load
    /// stops. Failing to reach the server for `RECONNECT_DEADLINE` fails the soak.
    pub fn connect(&self, what: &str, timeout: Duration) -> Option<Conn> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(10);
        while self.running() {
            match Conn::connect(&self.socket, timeout) {
                Ok(conn) => return Some(conn),
                Err(e) if start.elapsed() > RECONNECT_DEADLINE => {
                    self.fail(format!(
                        "{what}: no connection to the server for {RECONNECT_DEADLINE:?}: {e}"
                    ));
                    return None;
                },
                Err(_) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(200));
                },
            }
        }
        None
    }

    /// The panes of `role` kept live now.
    pub fn live_of(&self, role: Role) -> Vec<LivePane> {
        lock(&self.panes)
            .iter()
            .filter(|p| p.role == role)
            .cloned()
            .collect()
    }

    pub fn live_count(&self) -> usize {
        lock(&self.panes).len()
    }
}
