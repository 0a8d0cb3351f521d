//! `signaltty-bench`: request-latency benchmark of the `signaltty/1` socket.
//!
//! Scenarios (see docs/performance.md for what each one means and the targets):
//!
//! 1. `persistent`: sequential `server.status` round trips on one connection.
//! 2. `conn-per-request`: connect, send one request, read its reply, close.
//! 3. `cli`: whole-process time of `signaltty --socket P status`.
//! 4. `pipelined`: batches of requests written back to back, then all replies read.
//!
//! plus a process-spawn floor (`/bin/true`) and, with `--peer-tmux`, the same
//! measurements against tmux control mode (`tmux -C`) and the `tmux` CLI.
//!
//! By default the benchmark starts its own server (the `signaltty` binary next to
//! this one, or `--bin`) on a private temporary directory, and stops it with SIGTERM
//! when done; `--socket` measures a server that is already running instead.
//!
//! Uses std plus the root package's dependencies only (clap, serde_json, nix,
//! signaltty-protocol).

use clap::Parser;
use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use nix::unistd::Pid;
use serde_json::{Value, json};
use signaltty_protocol::{Method, Request};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Measure request round trips against a signaltty server (and optionally tmux).
#[derive(Debug, Parser)]
#[command(name = "signaltty-bench")]
struct Opts {
    /// The signaltty binary to start and to time as a CLI (default: `signaltty`
    /// next to this executable, i.e. target/release/signaltty).
    #[arg(long, value_name = "PATH")]
    bin: Option<PathBuf>,
    /// Measure the server already listening on this socket instead of starting one.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Round trips on one persistent connection (also used for tmux control mode).
    #[arg(long, default_value_t = 20_000)]
    requests: usize,
    /// Connections for the connection-per-request scenario.
    #[arg(long, default_value_t = 5_000)]
    connections: usize,
    /// Whole-process runs of `signaltty status` (and of the tmux CLI and /bin/true).
    #[arg(long, default_value_t = 300)]
    cli_runs: usize,
    /// Requests per batch in the pipelined scenario.
    #[arg(long, default_value_t = 1_000)]
    pipeline_depth: usize,
    /// Batches in the pipelined scenario (0 skips it).
    #[arg(long, default_value_t = 50)]
    pipeline_rounds: usize,
    /// Also measure tmux control mode and the tmux CLI on a private tmux server.
    #[arg(long)]
    peer_tmux: bool,
    /// The tmux command timed in the peer scenarios.
    #[arg(long, default_value = "display-message -p x")]
    tmux_command: String,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

type Res<T> = Result<T, String>;

/// Adds context to an I/O error.
trait Context<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Res<T>;
}

impl<T, E: std::fmt::Display> Context<T> for Result<T, E> {
    fn ctx(self, what: impl FnOnce() -> String) -> Res<T> {
        self.map_err(|e| format!("{}: {e}", what()))
    }
}

/// Set by the signal thread on SIGINT/SIGTERM; every measuring loop checks it so that
/// an interrupted run still stops its server and removes its temporary directory.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn check_interrupted() -> Res<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

/// SIGINT and SIGTERM: blocked in every thread and collected by the signal thread.
fn caught_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    set.add(Signal::SIGTERM);
    set
}

/// Blocks SIGINT and SIGTERM in this thread (and so in every thread spawned later) and
/// waits for them on a dedicated thread (no signal handler, hence no `unsafe`).
fn catch_signals() -> Res<()> {
    let set = caught_signals();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None).ctx(|| "sigprocmask".into())?;
    std::thread::spawn(move || {
        while set.wait().is_ok() {
            INTERRUPTED.store(true, Ordering::Relaxed);
        }
    });
    Ok(())
}

/// Spawns a long-lived child with SIGINT and SIGTERM unblocked. std's `Command` (Rust
/// 1.95, posix_spawn path) passes the parent thread's signal mask on to the child, so
/// without this the server would ignore our SIGTERM and tmux would inherit the mask.
/// The short-lived timed children keep the mask: unblocking around each of them would
/// add two syscalls to every measured spawn.
fn spawn_unmasked(cmd: &mut Command) -> std::io::Result<Child> {
    let set = caught_signals();
    pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&set), None)?;
    let child = cmd.spawn();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None)?;
    child
}

// ---------------------------------------------------------------------------------
// Statistics

/// One scenario's result.
#[derive(Debug)]
struct Summary {
    key: &'static str,
    label: String,
    /// Measured operations (warm-up excluded).
    n: usize,
    /// Operations per second over the whole measured loop.
    per_sec: f64,
    /// Latency percentiles in µs; `None` for throughput-only scenarios.
    lat: Option<Latency>,
}

#[derive(Debug, Clone, Copy)]
struct Latency {
    min: f64,
    mean: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    p999: f64,
    max: f64,
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Nearest-rank percentile of sorted samples.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn summarize(
    key: &'static str,
    label: String,
    mut samples: Vec<Duration>,
    total: Duration,
) -> Summary {
    samples.sort_unstable();
    let n = samples.len();
    let sum: Duration = samples.iter().sum();
    let lat = (n > 0).then(|| Latency {
        min: micros(samples[0]),
        mean: micros(sum) / n as f64,
        p50: micros(percentile(&samples, 0.50)),
        p90: micros(percentile(&samples, 0.90)),
        p99: micros(percentile(&samples, 0.99)),
        p999: micros(percentile(&samples, 0.999)),
        max: micros(samples[n - 1]),
    });
    Summary {
        key,
        label,
        n,
        per_sec: n as f64 / total.as_secs_f64(),
        lat,
    }
}

// ---------------------------------------------------------------------------------
// A private temporary directory and the server we start in it

/// A 0700 directory under $TMPDIR, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Res<TempDir> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path =
            std::env::temp_dir().join(format!("signaltty-bench-{}-{nanos:x}", std::process::id()));
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .ctx(|| format!("cannot create {}", path.display()))?;
        Ok(TempDir(path))
    }

    /// Creates a 0700 subdirectory.
    fn subdir(&self, name: &str) -> Res<PathBuf> {
        let path = self.0.join(name);
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .ctx(|| format!("cannot create {}", path.display()))?;
        Ok(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.0) {
            eprintln!("signaltty-bench: cannot remove {}: {e}", self.0.display());
        }
    }
}

/// A `signaltty server` child, stopped with SIGTERM (then SIGKILL) on drop.
struct Server {
    child: Child,
    log: PathBuf,
}

impl Server {
    fn start(bin: &Path, dir: &TempDir) -> Res<(Server, PathBuf)> {
        let run = dir.subdir("run")?;
        let state = dir.subdir("state")?;
        let home = dir.subdir("home")?;
        let log = dir.0.join("server.log");
        let log_file = fs::File::create(&log).ctx(|| format!("cannot create {}", log.display()))?;
        let socket = run.join("signaltty").join("signaltty.sock");
        let child = spawn_unmasked(
            Command::new(bin)
                .arg("server")
                .env("XDG_RUNTIME_DIR", &run)
                .env("XDG_STATE_HOME", &state)
                .env("HOME", &home)
                .env_remove("SIGNALTTY_SOCKET")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log_file),
        )
        .ctx(|| format!("cannot start {} server", bin.display()))?;
        let mut server = Server { child, log };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            check_interrupted()?;
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "the server exited early ({status}); its log:\n{}",
                    server.log_text()
                ));
            }
            if one_request(&socket, "ready").is_ok() {
                return Ok((server, socket));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the server did not answer on {} within 10 s; its log:\n{}",
                    socket.display(),
                    server.log_text()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, then wait up to 10 s, then SIGKILL. Returns the exit status text.
    fn stop(&mut self) -> String {
        if let Ok(Some(status)) = self.child.try_wait() {
            return format!("already exited ({status})");
        }
        let pid = Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                },
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return "did not stop within 10 s of SIGTERM; killed".into();
                },
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let how = self.stop();
        if !how.contains("exit status: 0") {
            eprintln!("signaltty-bench: server stopped: {how}");
        }
    }
}

// ---------------------------------------------------------------------------------
// The signaltty wire

/// `server.status` request line, newline included.
fn status_line(id: &str) -> String {
    let mut line = Request::new(id, Method::ServerStatus(Default::default())).to_line();
    line.push('\n');
    line
}

/// Checks that `reply` is the successful response to request `id`.
fn check_reply(reply: &[u8], id: &str) -> Res<()> {
    let text = String::from_utf8_lossy(reply);
    let id_field = format!("\"id\":\"{id}\"");
    if text.contains(&id_field) && text.contains("\"ok\":true") {
        Ok(())
    } else {
        Err(format!(
            "unexpected reply to request {id}: {}",
            text.trim_end()
        ))
    }
}

/// Reads one line (through `\n`) from an unbuffered stream into `buf`.
fn read_line_raw(stream: &mut UnixStream, buf: &mut Vec<u8>) -> Res<()> {
    buf.clear();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).ctx(|| "read".into())?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if chunk[..n].contains(&b'\n') {
            return Ok(());
        }
    }
}

fn connect(socket: &Path) -> Res<UnixStream> {
    let s = UnixStream::connect(socket).ctx(|| format!("connect {}", socket.display()))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .ctx(|| "set_read_timeout".into())?;
    Ok(s)
}

/// Connect, one `server.status`, read the reply, close.
fn one_request(socket: &Path, id: &str) -> Res<()> {
    let mut s = connect(socket)?;
    s.write_all(status_line(id).as_bytes())
        .ctx(|| "write".into())?;
    let mut buf = Vec::new();
    read_line_raw(&mut s, &mut buf)?;
    check_reply(&buf, id)
}

/// Scenario 1: sequential round trips on one connection.
fn bench_persistent(socket: &Path, warmup: usize, n: usize) -> Res<Summary> {
    let stream = connect(socket)?;
    let mut writer = stream.try_clone().ctx(|| "socket".into())?;
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    let mut buf = Vec::with_capacity(512);
    let mut samples = Vec::with_capacity(n);
    let mut total = Duration::ZERO;
    for i in 0..warmup + n {
        check_interrupted()?;
        let id = i.to_string();
        let line = status_line(&id);
        let t = Instant::now();
        writer.write_all(line.as_bytes()).ctx(|| "write".into())?;
        buf.clear();
        let got = reader.read_until(b'\n', &mut buf).ctx(|| "read".into())?;
        let dt = t.elapsed();
        if got == 0 {
            return Err("the server closed the connection".into());
        }
        check_reply(&buf, &id)?;
        if i >= warmup {
            samples.push(dt);
            total += dt;
        }
    }
    Ok(summarize(
        "persistent",
        "signaltty: server.status, one persistent connection".into(),
        samples,
        total,
    ))
}

/// Scenario 2: a new connection per request (connect + write + read reply).
fn bench_conn_per_request(socket: &Path, warmup: usize, n: usize) -> Res<Summary> {
    let mut buf = Vec::with_capacity(512);
    let mut samples = Vec::with_capacity(n);
    let mut total = Duration::ZERO;
    for i in 0..warmup + n {
        check_interrupted()?;
        let id = i.to_string();
        let line = status_line(&id);
        let t = Instant::now();
        let mut s = UnixStream::connect(socket).ctx(|| "connect".into())?;
        s.write_all(line.as_bytes()).ctx(|| "write".into())?;
        read_line_raw(&mut s, &mut buf)?;
        let dt = t.elapsed();
        drop(s);
        check_reply(&buf, &id)?;
        if i >= warmup {
            samples.push(dt);
            total += dt;
        }
    }
    Ok(summarize(
        "conn_per_request",
        "signaltty: server.status, one connection per request".into(),
        samples,
        total,
    ))
}

/// Scenario 4: `rounds` batches of `depth` requests written in one go (from a second
/// thread) while this thread reads the replies. Throughput only.
fn bench_pipelined(socket: &Path, depth: usize, warmup: usize, rounds: usize) -> Res<Summary> {
    let stream = connect(socket)?;
    let mut writer = stream.try_clone().ctx(|| "socket".into())?;
    let mut reader = BufReader::with_capacity(256 * 1024, stream);
    let batches: Vec<(String, Vec<String>)> = (0..warmup + rounds)
        .map(|r| {
            let ids: Vec<String> = (0..depth).map(|k| format!("p{r}-{k}")).collect();
            let text = ids.iter().map(|id| status_line(id)).collect::<String>();
            (text, ids)
        })
        .collect();
    let mut buf = Vec::with_capacity(512);
    let mut total = Duration::ZERO;
    for (r, (text, ids)) in batches.iter().enumerate() {
        check_interrupted()?;
        let t = Instant::now();
        std::thread::scope(|scope| -> Res<()> {
            let w = scope.spawn(|| writer.write_all(text.as_bytes()));
            for id in ids {
                buf.clear();
                let got = reader.read_until(b'\n', &mut buf).ctx(|| "read".into())?;
                if got == 0 {
                    return Err("the server closed the connection".into());
                }
                check_reply(&buf, id)?;
            }
            match w.join() {
                Ok(res) => res.ctx(|| "write".into()),
                Err(_) => Err("the writer thread panicked".into()),
            }
        })?;
        if r >= warmup {
            total += t.elapsed();
        }
    }
    let mut s = summarize(
        "pipelined",
        format!("signaltty: server.status, pipelined {depth} at a time"),
        Vec::new(),
        total,
    );
    s.n = depth * rounds;
    s.per_sec = s.n as f64 / total.as_secs_f64();
    Ok(s)
}

/// Whole-process time of a command (spawn → exit), stdout and stderr to /dev/null.
fn bench_process(
    key: &'static str,
    label: String,
    mut make: impl FnMut() -> Command,
    warmup: usize,
    n: usize,
) -> Res<Summary> {
    let mut samples = Vec::with_capacity(n);
    let mut total = Duration::ZERO;
    for i in 0..warmup + n {
        check_interrupted()?;
        let mut cmd = make();
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let t = Instant::now();
        let status = cmd.status().ctx(|| format!("cannot run {cmd:?}"))?;
        let dt = t.elapsed();
        if !status.success() {
            return Err(format!("{cmd:?} failed: {status}"));
        }
        if i >= warmup {
            samples.push(dt);
            total += dt;
        }
    }
    Ok(summarize(key, label, samples, total))
}

// ---------------------------------------------------------------------------------
// The tmux peer

/// A private tmux server (own TMUX_TMPDIR, no config file) with one control-mode
/// client attached; the server is killed on drop.
struct Tmux {
    tmpdir: PathBuf,
    client: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    buf: Vec<u8>,
}

const TMUX_LABEL: &str = "signaltty-bench";

impl Tmux {
    fn command(tmpdir: &Path) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.env("TMUX_TMPDIR", tmpdir).env_remove("TMUX").args([
            "-f",
            "/dev/null",
            "-L",
            TMUX_LABEL,
        ]);
        cmd
    }

    fn start(dir: &TempDir) -> Res<Tmux> {
        let tmpdir = dir.subdir("tmux")?;
        let mut client = spawn_unmasked(
            Tmux::command(&tmpdir)
                // The pane runs a silent program so no %output interleaves.
                .args(["-C", "new-session", "-x", "80", "-y", "24", "sleep 2147483647"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        )
        .ctx(|| "cannot run tmux (apt-get install -y tmux)".into())?;
        let (Some(stdin), Some(stdout)) = (client.stdin.take(), client.stdout.take()) else {
            return Err("tmux: no pipes".into());
        };
        let mut tmux = Tmux {
            tmpdir,
            client,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            buf: Vec::with_capacity(512),
        };
        // Skip the reply to new-session and the start-up notifications: send a marker
        // and read until the block that carries it.
        let marker = "signaltty-bench-ready";
        tmux.send(format!("display-message -p {marker}\n").as_bytes())?;
        loop {
            let block = tmux.read_block()?;
            if block.contains(marker) {
                return Ok(tmux);
            }
        }
    }

    fn send(&mut self, line: &[u8]) -> Res<()> {
        match &mut self.stdin {
            Some(w) => w.write_all(line).ctx(|| "write to tmux".into()),
            None => Err("tmux stdin closed".into()),
        }
    }

    /// Reads through the next `%begin` … `%end` block and returns its body. A
    /// `%error` block is an error. Notifications between blocks are skipped.
    fn read_block(&mut self) -> Res<String> {
        let mut body = String::new();
        let mut inside = false;
        loop {
            self.buf.clear();
            let n = self
                .stdout
                .read_until(b'\n', &mut self.buf)
                .ctx(|| "read from tmux".into())?;
            if n == 0 {
                return Err("tmux control client exited".into());
            }
            let line = &self.buf[..];
            if !inside {
                inside = line.starts_with(b"%begin ");
            } else if line.starts_with(b"%end ") {
                return Ok(body);
            } else if line.starts_with(b"%error ") {
                return Err(format!("tmux command failed: {}", body.trim_end()));
            } else {
                body.push_str(&String::from_utf8_lossy(line));
            }
        }
    }

    /// Sequential round trips of `command` on the control connection.
    fn bench(&mut self, command: &str, warmup: usize, n: usize) -> Res<Summary> {
        let line = format!("{command}\n");
        let mut samples = Vec::with_capacity(n);
        let mut total = Duration::ZERO;
        for i in 0..warmup + n {
            check_interrupted()?;
            let t = Instant::now();
            self.send(line.as_bytes())?;
            self.read_block()?;
            let dt = t.elapsed();
            if i >= warmup {
                samples.push(dt);
                total += dt;
            }
        }
        Ok(summarize(
            "tmux_control",
            format!("tmux -C: `{command}`, one control connection"),
            samples,
            total,
        ))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // Closing stdin detaches the control client; then kill the private server.
        self.stdin = None;
        let _ = Tmux::command(&self.tmpdir)
            .arg("kill-server")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.client.kill();
        let _ = self.client.wait();
    }
}

// ---------------------------------------------------------------------------------
// Report

struct Target {
    what: &'static str,
    key: &'static str,
    metric: &'static str,
    limit_us: f64,
}

const TARGETS: &[Target] = &[
    Target {
        what: "one persistent connection: p50 <= 50 µs",
        key: "persistent",
        metric: "p50",
        limit_us: 50.0,
    },
    Target {
        what: "one persistent connection: p99 <= 1 ms",
        key: "persistent",
        metric: "p99",
        limit_us: 1000.0,
    },
    Target {
        what: "a connection per request: p99 <= 1 ms",
        key: "conn_per_request",
        metric: "p99",
        limit_us: 1000.0,
    },
    Target {
        what: "`signaltty status` whole process: p50 < 5 ms",
        key: "cli",
        metric: "p50",
        limit_us: 5000.0,
    },
];

fn metric(lat: &Latency, name: &str) -> f64 {
    match name {
        "p50" => lat.p50,
        "p90" => lat.p90,
        "p99" => lat.p99,
        "max" => lat.max,
        _ => f64::NAN,
    }
}

fn find<'a>(results: &'a [Summary], key: &str) -> Option<&'a Summary> {
    results.iter().find(|s| s.key == key)
}

/// (target, measured µs, pass)
fn evaluate(results: &[Summary]) -> Vec<(&'static Target, Option<f64>, bool)> {
    TARGETS
        .iter()
        .map(|t| {
            let v = find(results, t.key)
                .and_then(|s| s.lat.as_ref())
                .map(|l| metric(l, t.metric));
            let pass = v.is_some_and(|v| v <= t.limit_us);
            (t, v, pass)
        })
        .collect()
}

/// (what, signaltty value, tmux value, signaltty/tmux)
fn ratios(results: &[Summary]) -> Vec<(String, f64, f64, f64)> {
    let mut out = Vec::new();
    let pairs = [
        ("persistent", "tmux_control", "one connection"),
        ("cli", "tmux_cli", "whole process"),
    ];
    for (ours, theirs, what) in pairs {
        let (Some(a), Some(b)) = (find(results, ours), find(results, theirs)) else {
            continue;
        };
        if let (Some(la), Some(lb)) = (&a.lat, &b.lat) {
            out.push((format!("{what} p50 µs"), la.p50, lb.p50, la.p50 / lb.p50));
            out.push((format!("{what} p99 µs"), la.p99, lb.p99, la.p99 / lb.p99));
        }
        out.push((
            format!("{what} ops/s"),
            a.per_sec,
            b.per_sec,
            a.per_sec / b.per_sec,
        ));
    }
    out
}

fn machine() -> Value {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_default();
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    // Online CPUs, and those this process may run on (fewer under `taskset`).
    let online = fs::read_to_string("/proc/cpuinfo")
        .map(|t| t.lines().filter(|l| l.starts_with("processor")).count())
        .unwrap_or(0);
    let usable = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    json!({ "cpus_online": online, "cpus_usable": usable, "cpu": cpu, "kernel": kernel })
}

fn print_table(results: &[Summary], header: &str) {
    let mut out = String::new();
    let _ = writeln!(out, "{header}");
    let _ = writeln!(
        out,
        "{:<58} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "scenario", "n", "ops/s", "mean µs", "p50 µs", "p90 µs", "p99 µs", "max µs"
    );
    for s in results {
        let _ = write!(out, "{:<58} {:>7} {:>10.0}", s.label, s.n, s.per_sec);
        match &s.lat {
            Some(l) => {
                let _ = writeln!(
                    out,
                    " {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                    l.mean, l.p50, l.p90, l.p99, l.max
                );
            },
            None => {
                let _ = writeln!(
                    out,
                    " {:>9} {:>9} {:>9} {:>9} {:>9}",
                    "-", "-", "-", "-", "-"
                );
            },
        }
    }
    let _ = writeln!(
        out,
        "(ops/s = n / sum of the measured latencies, i.e. 1 / mean; pipelined: n / wall time)"
    );
    let _ = writeln!(out, "\ntargets:");
    for (t, v, pass) in evaluate(results) {
        let v = v.map_or("not measured".to_owned(), |v| format!("{v:.1} µs"));
        let verdict = if pass { "PASS" } else { "FAIL" };
        let _ = writeln!(out, "  {verdict}  {:<48} measured {v}", t.what);
    }
    let r = ratios(results);
    if !r.is_empty() {
        let _ = writeln!(out, "\nsignaltty / tmux:");
        for (what, a, b, ratio) in r {
            let _ = writeln!(
                out,
                "  {what:<24} signaltty {a:>10.1}   tmux {b:>10.1}   ratio {ratio:.2}"
            );
        }
    }
    print!("{out}");
}

fn to_json(results: &[Summary], server: &str, bin: &Path) -> Value {
    let scenarios: Vec<Value> = results
        .iter()
        .map(|s| {
            let mut v = json!({
                "scenario": s.key,
                "label": s.label,
                "n": s.n,
                "ops_per_s": s.per_sec,
            });
            if let Some(l) = &s.lat {
                v["latency_us"] = json!({
                    "min": l.min, "mean": l.mean, "p50": l.p50, "p90": l.p90,
                    "p99": l.p99, "p99_9": l.p999, "max": l.max,
                });
            }
            v
        })
        .collect();
    let targets: Vec<Value> = evaluate(results)
        .into_iter()
        .map(|(t, v, pass)| {
            json!({
                "target": t.what, "scenario": t.key, "metric": t.metric,
                "limit_us": t.limit_us, "measured_us": v, "pass": pass,
            })
        })
        .collect();
    let ratios: Vec<Value> = ratios(results)
        .into_iter()
        .map(|(what, a, b, r)| json!({ "what": what, "signaltty": a, "tmux": b, "ratio": r }))
        .collect();
    json!({
        "machine": machine(),
        "bin": bin.display().to_string(),
        "server": server,
        "scenarios": scenarios,
        "targets": targets,
        "signaltty_over_tmux": ratios,
    })
}

// ---------------------------------------------------------------------------------

fn default_bin() -> Res<PathBuf> {
    let exe = std::env::current_exe().ctx(|| "cannot find this executable".into())?;
    let dir = exe
        .parent()
        .ok_or_else(|| "this executable has no directory".to_owned())?;
    Ok(dir.join("signaltty"))
}

fn run(opts: &Opts) -> Res<()> {
    let bin = match &opts.bin {
        Some(b) => b.clone(),
        None => default_bin()?,
    };
    if !bin.is_file() {
        return Err(format!(
            "{} not found: run `cargo build --release` first or pass --bin",
            bin.display()
        ));
    }
    let dir = TempDir::new()?;
    let mut server = None;
    let (socket, server_desc) = match &opts.socket {
        Some(s) => (s.clone(), format!("existing server on {}", s.display())),
        None => {
            let (srv, socket) = Server::start(&bin, &dir)?;
            server = Some(srv);
            (socket, format!("started {} server", bin.display()))
        },
    };
    let progress = |what: &str| {
        if !opts.json {
            eprintln!("signaltty-bench: {what} ...");
        }
    };
    let mut results = Vec::new();

    progress("persistent connection");
    results.push(bench_persistent(&socket, 2_000, opts.requests)?);
    progress("connection per request");
    results.push(bench_conn_per_request(&socket, 500, opts.connections)?);
    if opts.pipeline_rounds > 0 && opts.pipeline_depth > 0 {
        progress("pipelined");
        results.push(bench_pipelined(
            &socket,
            opts.pipeline_depth,
            2,
            opts.pipeline_rounds,
        )?);
    }
    progress("`signaltty status` processes");
    let cli_warmup = 20;
    results.push(bench_process(
        "cli",
        "signaltty: `signaltty --socket P status`, whole process".into(),
        || {
            let mut c = Command::new(&bin);
            c.arg("--socket").arg(&socket).arg("status");
            c
        },
        cli_warmup,
        opts.cli_runs,
    )?);
    progress("/bin/true processes");
    results.push(bench_process(
        "spawn_floor",
        "floor: `/bin/true`, whole process".into(),
        || Command::new("/bin/true"),
        cli_warmup,
        opts.cli_runs,
    )?);

    if opts.peer_tmux {
        progress("tmux control mode");
        let mut tmux = Tmux::start(&dir)?;
        results.push(tmux.bench(&opts.tmux_command, 2_000, opts.requests)?);
        progress("tmux CLI processes");
        let tmpdir = tmux.tmpdir.clone();
        let words: Vec<&str> = opts.tmux_command.split_whitespace().collect();
        results.push(bench_process(
            "tmux_cli",
            format!("tmux: `tmux {}`, whole process", opts.tmux_command),
            || {
                let mut c = Tmux::command(&tmpdir);
                c.args(&words);
                c
            },
            cli_warmup,
            opts.cli_runs,
        )?);
        drop(tmux);
    }

    // Stop our server (SIGTERM, wait) before printing; the temp dir goes last.
    drop(server);
    if opts.json {
        println!("{:#}", to_json(&results, &server_desc, &bin));
    } else {
        let m = machine();
        let header = format!(
            "signaltty-bench: {server_desc}; {} of {} CPUs ({}), kernel {}",
            m["cpus_usable"],
            m["cpus_online"],
            m["cpu"].as_str().unwrap_or(""),
            m["kernel"].as_str().unwrap_or("")
        );
        print_table(&results, &header);
    }
    Ok(())
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    if let Err(e) = catch_signals() {
        eprintln!("signaltty-bench: {e}");
        return ExitCode::FAILURE;
    }
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("signaltty-bench: {e}");
            ExitCode::FAILURE
        },
    }
}
