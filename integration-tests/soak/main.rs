//! The soak (docs/reliability.md#the-soak): a compressed week against the
//! real server. Fake agents come and go (20 to 30 live, about 100 started by
//! the churn) and print; hook events arrive at 50/s; subscribers connect and
//! vanish, some reading everything from seq 0, some never reading (the
//! server must cut them); permission questions are answered or left to time
//! out; panes are attached and detached; the board runs in tmux throughout;
//! the server is upgraded in place 5 times and SIGKILLed and restarted 5
//! times at seeded-random moments. Then: `journal verify` finds nothing, a
//! replay from seq 0 is complete and rising, every acknowledged request is
//! journaled as its event, and the server holds no more memory, threads,
//! descriptors or zombies at the end than after its warm-up.
//!
//! `SIGNALTTY_SOAK_SECS` sets the length (default 180), `SIGNALTTY_SOAK_SEED`
//! the seed (default 27), `SIGNALTTY_SOAK_UPGRADES` and `SIGNALTTY_SOAK_KILLS`
//! the faults (default 5 each), `SIGNALTTY_SOAK_REPORT` a file the figures
//! are also written to; `benches/soak.sh` runs it for 30 minutes.
//!
//! It is a test binary of its own, so that `cargo test` runs it after the
//! end-to-end tests rather than beside them: the soak loads both cores, and
//! its measurements and their deadlines should see only its own load.

// The end-to-end tests' harness; the soak uses part of it.
#[allow(unused_imports)]
#[path = "../support/mod.rs"]
mod support;

mod conn;
mod hooks;
mod measure;
mod panes;
mod report;
mod rng;
mod shared;
mod streams;
mod verify;

use crate::support::life::Life;
use crate::support::tmux::Tmux;
use crate::support::{poll_until, zombie_children};
use conn::{Conn, result};
use measure::{Trace, Window};
use panes::text;
use rng::Rng;
use serde_json::{Value, json};
use shared::{Ack, Shared, lock};
use std::fmt::Write as _;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How many panes are live at each measurement (and about how many between).
const TARGET_PANES: usize = 25;
/// Hook events a second: four direct streams and two through the CLI
/// reporter, 50 in all (each stream waits for its reply, as a reporter does).
const DIRECT_HOOKS_PER_S: f64 = 11.25;
const CLI_HOOKS_PER_S: f64 = 2.5;
/// The board's window.
const BOARD_COLS: u16 = 160;
const BOARD_ROWS: u16 = 50;

/// The run's shape, from the environment.
struct Plan {
    secs: u64,
    seed: u64,
    /// Load before the first window, and after the baseline before the end.
    warmup: Duration,
    /// Load in the last server life before the baseline: at least as many
    /// churn steps as there are live panes, so that most of the panes the
    /// life began with (imported by an upgrade, or all new after a restart)
    /// have been replaced. The 30-minute run's RSS rose for six minutes into
    /// its last life and then stayed flat for ten
    /// (docs/reliability.md#the-soak).
    settled: Duration,
    /// Between two churn steps: a hundred steps a run.
    churn_every: Duration,
    /// The faults happen between these offsets from the start of the load.
    faults_from: Duration,
    faults_until: Duration,
    /// In-place upgrades and SIGKILLs (5 each; other counts to look into a
    /// finding, e.g. none to watch one server life).
    upgrades: usize,
    kills: usize,
}

impl Plan {
    /// How much the RSS may grow from the baseline to the end. A run long
    /// enough for its last life to reach steady state (the 30-minute run's
    /// RSS rose for six minutes into that life, then stayed flat) gets 5 %.
    /// A shorter one (the suite's 3 minutes) takes its baseline about 75 s
    /// into the last life, while the allocator still warms up: there the
    /// tuned glibc was seen at +4.7 % and +5.1 % with nothing leaking, so
    /// it gets 10 %, which still fails every leak the soak has found (the
    /// untuned allocator's +13.5 %).
    fn rss_percent(&self) -> u64 {
        if self.secs >= 900 { 5 } else { 10 }
    }

    fn from_env() -> Plan {
        let number = |key: &str, default: u64| match std::env::var(key) {
            Ok(v) => v
                .parse()
                .unwrap_or_else(|e| panic!("{key}={v:?} is not a number: {e}")),
            Err(_) => default,
        };
        let secs = number("SIGNALTTY_SOAK_SECS", 180).max(120);
        let warmup = Duration::from_secs((secs / 10).max(30));
        let window = measure::SETTLE + measure::SAMPLING;
        let churn_every = Duration::from_secs_f64((secs as f64 / 100.0).max(1.0));
        let turnover = churn_every * TARGET_PANES as u32;
        Plan {
            secs,
            seed: number("SIGNALTTY_SOAK_SEED", 27),
            warmup,
            settled: warmup.max(turnover + Duration::from_secs(30)),
            churn_every,
            faults_from: warmup + window,
            faults_until: Duration::from_secs(secs * 45 / 100),
            upgrades: number("SIGNALTTY_SOAK_UPGRADES", 5) as usize,
            kills: number("SIGNALTTY_SOAK_KILLS", 5) as usize,
        }
    }
}

/// The load's threads; stopped and joined however the test ends.
struct Load {
    sh: Arc<Shared>,
    threads: Vec<(&'static str, JoinHandle<()>)>,
}

impl Load {
    fn spawn(&mut self, name: &'static str, f: impl FnOnce(Arc<Shared>) + Send + 'static) {
        let sh = Arc::clone(&self.sh);
        let handle = std::thread::Builder::new()
            .name(format!("soak {name}"))
            .spawn(move || f(sh))
            .unwrap_or_else(|e| panic!("cannot start the {name} thread: {e}"));
        self.threads.push((name, handle));
    }

    /// Stops the load; returns the threads that panicked.
    fn stop(&mut self) -> Vec<&'static str> {
        self.sh.stop();
        let mut panicked = Vec::new();
        for (name, handle) in self.threads.drain(..) {
            if handle.join().is_err() {
                panicked.push(name);
            }
        }
        panicked
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop();
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    Upgrade,
    Kill,
}

/// What one fault took.
struct FaultDone {
    kind: Fault,
    at_s: u64,
    /// Until the server answered again (kill) or the upgrade was answered.
    took_ms: u128,
    /// The upgrade's own report: handover time, panes handed over.
    report: String,
    /// Until the board showed the marker renamed after it.
    board_ms: u128,
}

#[test]
fn a_compressed_week_of_load_and_faults_loses_nothing_and_leaks_nothing() {
    let plan = Plan::from_env();
    let test_began = Instant::now();
    let phase = |what: &str| eprintln!("soak: {:>5} s {what}", test_began.elapsed().as_secs());
    let mut life = Life::new(&[]);
    // The journal must not rotate: the replay from seq 0 is to be complete
    // at the end (rotation is tested in journal.rs).
    let config = life.env.root().join("config/signaltty");
    std::fs::create_dir_all(&config).unwrap_or_else(|e| panic!("{}: {e}", config.display()));
    std::fs::write(
        config.join("config.toml"),
        "[journal]\nrotate_bytes = 1099511627776\n",
    )
    .unwrap_or_else(|e| panic!("config.toml: {e}"));
    life.start();
    let socket = life.socket();
    let root = life.env.root().to_owned();

    // The marker: a workspace (with one `cat`) that is renamed after every
    // fault, so the board shows it is connected again.
    let mut setup =
        Conn::connect(&socket, Duration::from_secs(60)).unwrap_or_else(|e| panic!("connect: {e}"));
    let mut acks = Vec::new();
    let mut created = |c: &mut Conn, name: &str| -> String {
        let v = call(c, "workspace.create", json!({"name": name, "cwd": root}));
        let id = text(&v["workspace"]["id"]);
        acks.push(Ack::WorkspaceCreated(id.clone()));
        id
    };
    let marker = created(&mut setup, "mark");
    let workspaces: Vec<String> = (1..=4)
        .map(|i| created(&mut setup, &format!("work-{i}")))
        .collect();
    let cat = call(
        &mut setup,
        "pane.spawn",
        json!({"workspace_id": marker, "argv": ["cat"]}),
    );
    drop(setup);
    let cli_env = vec![
        ("XDG_RUNTIME_DIR", life.env.runtime_dir()),
        ("XDG_STATE_HOME", life.env.state_home()),
        ("XDG_CONFIG_HOME", root.join("config")),
        ("HOME", life.env.home()),
    ];
    let full_replay_every = Duration::from_secs((plan.secs / 30).max(15));
    let sh = Arc::new(Shared::new(
        socket.clone(),
        root.clone(),
        cli_env,
        plan.seed,
        workspaces,
        TARGET_PANES,
        plan.churn_every,
        full_replay_every,
    ));
    for ack in acks {
        sh.ack(ack);
    }
    sh.ack(Ack::PaneCreated {
        pane: text(&cat["pane"]["id"]),
        tab: text(&cat["pane"]["tab_id"]),
    });

    let board = Tmux::start(
        &life.env,
        &["board", "--bell=false"],
        BOARD_COLS,
        BOARD_ROWS,
    );
    let mut load = Load {
        sh: Arc::clone(&sh),
        threads: Vec::new(),
    };
    let (questions, asked) = std::sync::mpsc::channel();
    load.spawn("recorder", move |sh| streams::recorder(sh, questions));
    load.spawn("decider", move |sh| hooks::decider(sh, asked));
    load.spawn("churner", panes::churner);
    let filled = poll_until(Duration::from_secs(180), || {
        sh.live_count() >= TARGET_PANES || !sh.running()
    });
    assert!(
        filled && sh.running(),
        "the churner did not start {TARGET_PANES} panes: {:?}",
        sh.failure()
    );
    for (name, stream) in [
        ("hooker 1", 11),
        ("hooker 2", 12),
        ("hooker 3", 13),
        ("hooker 4", 14),
    ] {
        load.spawn(name, move |sh| {
            hooks::hooker(sh, stream, DIRECT_HOOKS_PER_S, false)
        });
    }
    for (name, stream) in [("cli hooker 1", 15), ("cli hooker 2", 16)] {
        load.spawn(name, move |sh| {
            hooks::hooker(sh, stream, CLI_HOOKS_PER_S, true)
        });
    }
    load.spawn("asker", hooks::asker);
    load.spawn("attacher", streams::attacher);
    load.spawn("full reader", streams::full_reader);
    load.spawn("vanisher", streams::vanisher);
    load.spawn("never-reader", streams::never_reader);
    board_shows(&board, "mark", "the board at the start");
    phase("the panes are live and the board is up; the load begins");

    // The timeline: warm-up, a window, the faults, the last life's warm-up,
    // the baseline window, the load until the end, the end window.
    let began = Instant::now();
    let at = |d: Duration| began + d;
    let mut windows: Vec<Window> = Vec::new();
    let mut trace = Trace::new(began, Duration::from_secs(5));
    let mut faults: Vec<FaultDone> = Vec::new();
    let mut rng = Rng::new(plan.seed, 2);
    let mut kinds: Vec<Fault> = [
        vec![Fault::Upgrade; plan.upgrades],
        vec![Fault::Kill; plan.kills],
    ]
    .concat();
    for i in (1..kinds.len()).rev() {
        kinds.swap(i, rng.index(i + 1));
    }
    let span = (plan.faults_until.saturating_sub(plan.faults_from)).as_millis() as u64;
    let mut offsets: Vec<u64> = kinds.iter().map(|_| rng.below(span.max(1))).collect();
    offsets.sort_unstable();

    idle(&sh, &mut life, &mut trace, at(plan.warmup));
    windows.extend(measure::window(&sh, life.pid(), "first warm-up", began));
    for (k, (kind, offset)) in kinds.iter().zip(&offsets).enumerate() {
        let when = at(plan.faults_from + Duration::from_millis(*offset));
        idle(
            &sh,
            &mut life,
            &mut trace,
            when.max(Instant::now() + Duration::from_secs(2)),
        );
        if !sh.running() {
            break;
        }
        faults.push(fault(*kind, k + 1, &sh, &mut life, &board, &marker, began));
    }
    let last_life = Instant::now();
    idle(&sh, &mut life, &mut trace, last_life + plan.settled);
    windows.extend(measure::window(&sh, life.pid(), "baseline", began));
    let end_window = measure::SETTLE + measure::SAMPLING;
    let end_at = at(Duration::from_secs(plan.secs).saturating_sub(end_window))
        .max(Instant::now() + plan.warmup);
    idle(&sh, &mut life, &mut trace, end_at);
    windows.extend(measure::window(&sh, life.pid(), "end", began));
    let load_secs = began.elapsed().as_secs_f64();
    let panicked = load.stop();
    phase("the load stopped; the checks begin");

    // The checks.
    let mut problems: Vec<String> = Vec::new();
    if let Some(f) = sh.failure() {
        problems.push(format!("during the load: {f}"));
    }
    if !panicked.is_empty() {
        problems.push(format!("threads that panicked: {panicked:?}"));
    }
    let pid = life.pid();
    let reaped = poll_until(Duration::from_secs(30), || zombie_children(pid).is_empty());
    if !reaped {
        problems.push(format!("zombie children left: {:?}", zombie_children(pid)));
    }
    // With the load gone, the blocking pool empties (an idle thread leaves
    // after 10 s; the 10 s /proc scan may keep one): a blocking call that
    // never returned would keep its thread.
    let drained = poll_until(Duration::from_secs(60), || measure::pool_threads(pid) <= 2);
    if !drained {
        problems.push(format!(
            "the blocking pool kept {} threads a minute after the load stopped",
            measure::pool_threads(pid)
        ));
    }
    phase("the pool drained; the replay from seq 0");
    let journal = match verify::replay_from_zero(&socket) {
        Ok(j) => Some(j),
        Err(e) => {
            problems.push(e);
            None
        },
    };
    let acks = lock(&sh.acks).clone();
    let recorded = lock(&sh.recorded).clone();
    let left = lock(&sh.left).clone();
    let fault_times = lock(&sh.fault_times).clone();
    let stopped_at = Instant::now();
    let mut left_report = String::new();
    if let Some(j) = &journal {
        // Nothing here fills the disk: a gap record would be events lost.
        if let Some(n) = j.by_name.get("journal.gap") {
            problems.push(format!("the journal records {n} gap(s)"));
        }
        let missing = verify::missing_acks(&acks, j);
        if !missing.is_empty() {
            problems.push(format!(
                "{} of {} acknowledged requests are not journaled as their event, e.g. {:?}",
                missing.len(),
                acks.len(),
                &missing[..missing.len().min(10)]
            ));
        }
        if j.seqs.get(..recorded.len()) != Some(&recorded[..]) {
            let differ = recorded
                .iter()
                .zip(&j.seqs)
                .position(|(a, b)| a != b)
                .unwrap_or(recorded.len().min(j.seqs.len()));
            problems.push(format!(
                "the recorder read {} events, the replay has {}; they differ from event {differ}",
                recorded.len(),
                j.seqs.len()
            ));
        }
        let wait = Duration::from_secs(panes::WAIT_TIMEOUT_S + 10);
        let ends = verify::left_ends(&left, j, |l| {
            stopped_at.duration_since(l.at) < wait
                || fault_times
                    .iter()
                    .any(|f| *f + Duration::from_secs(1) >= l.at && *f < l.at + wait)
        });
        if !ends.open.is_empty() {
            problems.push(format!(
                "questions left to time out that never ended: {:?}",
                ends.open
            ));
        }
        if ends.timed_out == 0 {
            problems.push("no question timed out".to_owned());
        }
        let _ = write!(left_report, "{ends:?}");
    }
    if sh.counter("decisions answered") == 0 {
        problems.push("no question was answered".to_owned());
    }
    let cut = report::cut_count(&sh, "never-readers cut");
    if cut == 0 {
        problems.push("no subscriber that never reads was cut".to_owned());
    }
    let mut slope = None;
    if let [.., base, end] = &windows[..]
        && windows.len() == 3
    {
        problems.extend(measure::compare(base, end, plan.rss_percent()));
        slope = trace.rss_slope(end.life, base.at_s, end.at_s);
    }
    if windows.len() != 3 {
        problems.push(format!("{} windows measured, 3 planned", windows.len()));
    }
    phase("the server stops");
    drop(board);
    life.stop();
    phase("journal verify");
    let verified = life.env.cli(&["journal", "verify"]);
    let verify_text = String::from_utf8_lossy(&verified.stdout).into_owned();
    if !verified.status.success() || !verify_text.contains("ok: no problems found") {
        problems.push(format!(
            "journal verify: {}\n{verify_text}{}",
            verified.status,
            String::from_utf8_lossy(&verified.stderr)
        ));
    }
    let on_disk = verify::file_seqs(&life.state());
    if let (Some(j), Ok(files)) = (&journal, &on_disk)
        && files.get(..j.seqs.len()) != Some(&j.seqs[..])
    {
        problems.push(format!(
            "the journal files hold {} records, the replay {}: not the same seqs",
            files.len(),
            j.seqs.len()
        ));
    }
    if let Err(e) = &on_disk {
        problems.push(e.clone());
    }
    let logs = report::server_logs(&life);
    if logs.panics > 0 {
        problems.push(format!("the server logged {} panic(s)", logs.panics));
    }

    phase("the report");
    let report = report::report(
        &plan,
        load_secs,
        &sh,
        &windows,
        &trace,
        slope,
        &faults,
        journal.as_ref(),
        &acks,
        &logs,
        &left_report,
        &problems,
    );
    eprintln!("{report}");
    if let Ok(path) = std::env::var("SIGNALTTY_SOAK_REPORT") {
        std::fs::write(&path, &report).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    assert!(
        problems.is_empty(),
        "the soak found problems:\n{problems:#?}"
    );
}

/// A call that must succeed (setup).
#[track_caller]
fn call(c: &mut Conn, method: &str, params: Value) -> Value {
    match c.call(method, params.clone()).map(result) {
        Ok(Ok(v)) => v,
        other => panic!("{method} {params}: {other:?}"),
    }
}

/// Lets the load run until `until`, watching that the server still runs
/// and tracing its figures.
fn idle(sh: &Shared, life: &mut Life, trace: &mut Trace, until: Instant) {
    while sh.running() && Instant::now() < until {
        trace.tick(sh, life.pid());
        if let Some(status) = life.running().try_status() {
            let stderr = life.running().stderr();
            sh.fail(format!(
                "the server exited by itself ({status}); its stderr ends:\n{}",
                tail(&stderr, 3000)
            ));
        }
        sh.pace(Duration::from_millis(200).min(until.saturating_duration_since(Instant::now())));
    }
}

fn tail(text: &str, bytes: usize) -> &str {
    let mut from = text.len().saturating_sub(bytes);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    &text[from..]
}

/// One fault, then the marker renamed and the board waited for.
fn fault(
    kind: Fault,
    k: usize,
    sh: &Shared,
    life: &mut Life,
    board: &Tmux,
    marker: &str,
    began: Instant,
) -> FaultDone {
    let at_s = began.elapsed().as_secs();
    eprintln!("soak: fault {k} at {at_s} s: {kind:?}");
    sh.begin_fault();
    let start = Instant::now();
    let mut report = String::new();
    match kind {
        Fault::Upgrade => {
            let pid = life.pid();
            let mut c = Conn::connect(&life.socket(), Duration::from_secs(120))
                .unwrap_or_else(|e| panic!("connect for the upgrade: {e}"));
            let r = call(&mut c, "server.upgrade", json!({}));
            assert_eq!(r["pid"], pid, "the upgrade kept the pid: {r}");
            assert!(r.get("fallback").is_none(), "upgrade {k} fell back: {r}");
            let handed = r["panes"].as_array().map_or(0, Vec::len);
            let _ = write!(
                report,
                "took_ms {} longest_unread_ms {} panes {handed}",
                r["took_ms"], r["longest_unread_ms"]
            );
            if r.get("problems")
                .is_some_and(|p| p.as_array().is_some_and(|a| !a.is_empty()))
            {
                sh.fail(format!("upgrade {k} reported problems: {}", r["problems"]));
            }
        },
        Fault::Kill => {
            // The panes die with the server: nobody sends them hooks meanwhile.
            lock(&sh.panes).clear();
            life.kill9();
            if let Err(e) = life.try_start() {
                panic!("the restart after SIGKILL {k}: {e}");
            }
        },
    }
    let took_ms = start.elapsed().as_millis();
    sh.end_fault();
    let name = format!("mark-{k}");
    let mut c = Conn::connect(&life.socket(), Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("connect after fault {k}: {e}"));
    let v = call(
        &mut c,
        "workspace.rename",
        json!({"workspace_id": marker, "name": name}),
    );
    sh.ack(Ack::WorkspaceRenamed {
        id: text(&v["workspace"]["id"]),
        name: name.clone(),
    });
    let board_ms = board_shows(board, &name, &format!("the board after fault {k}"));
    FaultDone {
        kind,
        at_s,
        took_ms,
        report,
        board_ms,
    }
}

/// Waits until the board, connected, shows `text`; returns how long it took.
fn board_shows(board: &Tmux, text: &str, what: &str) -> u128 {
    let start = Instant::now();
    board.wait_for(what, Duration::from_secs(90), |s| {
        s.contains(text) && !s.contains("reconnecting")
    });
    assert!(!board.exited(), "{what}: the board exited");
    start.elapsed().as_millis()
}
