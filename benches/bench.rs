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
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::socket::sockopt;
use serde_json::{Value, json};
use signaltty_protocol::subscribe::SubscribeParams;
use signaltty_protocol::workspace::{WorkspaceCreateParams, WorkspaceRenameParams};
use signaltty_protocol::{Method, Request, WorkspaceRef};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[path = "common.rs"]
mod common;
use common::{
    Context, Res, ServerDirs, ServerProcess, catch_signals, check_interrupted, spawn_unmasked,
};

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
    /// Scenario groups to run, comma-separated (default: `latency`, or `journal,fanout`
    /// with `--journal`).
    #[arg(long, value_delimiter = ',', value_name = "GROUPS")]
    scenarios: Vec<Group>,
    /// Run the journal throughput and fan-out scenarios (`--scenarios journal,fanout`);
    /// with `--scenarios` as well, adds them to the groups named there.
    #[arg(long)]
    journal: bool,
    /// Concurrent producers (connections renaming their own workspace), one
    /// throughput configuration per number.
    #[arg(long, value_delimiter = ',', default_values_t = [1, 8, 64])]
    producers: Vec<usize>,
    /// Measured seconds per throughput configuration.
    #[arg(long, default_value_t = 2.0)]
    journal_secs: f64,
    /// Warm-up seconds before each throughput configuration's measured window.
    #[arg(long, default_value_t = 0.5)]
    journal_warmup_secs: f64,
    /// Appends + fdatasync timed next to the server's journal (0 skips the floor).
    #[arg(long, default_value_t = 2_000)]
    sync_floor_runs: usize,
    /// Subscriber connections in the fan-out scenario.
    #[arg(long, default_value_t = 100)]
    subscribers: usize,
    /// Measured events in the fan-out scenario (after 20 warm-up events).
    #[arg(long, default_value_t = 500)]
    fanout_events: usize,
    /// Microseconds between the starts of two fan-out renames.
    #[arg(long, default_value_t = 2_000)]
    fanout_interval_us: u64,
    /// Control clients receiving the renames in the tmux fan-out peer (`--peer-tmux`).
    #[arg(long, default_value_t = 10)]
    tmux_clients: usize,
    /// Put the started server's state directory (XDG_STATE_HOME, where the journal
    /// lives) in a fresh directory under DIR, e.g. /dev/shm (tmpfs: not durable).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

/// A group of scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Group {
    /// Request latency: persistent, connection per request, pipelined, CLI.
    Latency,
    /// Durable state events/s for each `--producers` count, and the fdatasync floor.
    Journal,
    /// Publication-to-delivery latency to `--subscribers` subscribers.
    Fanout,
}

impl Opts {
    fn groups(&self) -> Vec<Group> {
        let mut groups = self.scenarios.clone();
        if groups.is_empty() && !self.journal {
            groups.push(Group::Latency);
        }
        if self.journal {
            groups.extend([Group::Journal, Group::Fanout]);
        }
        groups
    }
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

/// A 0700 directory under $TMPDIR (or another parent), removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Res<TempDir> {
        TempDir::new_in(&std::env::temp_dir())
    }

    fn new_in(parent: &Path) -> Res<TempDir> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = parent.join(format!("signaltty-bench-{}-{nanos:x}", std::process::id()));
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
    // Declared before `_state` so the server stops before its state is removed.
    _process: ServerProcess,
    /// A state directory outside `dir` (`--state-dir`), removed after the server stops.
    _state: Option<TempDir>,
}

impl Server {
    /// Starts a server in `dir`; its XDG_STATE_HOME is `dir/state`, or a fresh
    /// directory under `state_parent`.
    fn start(bin: &Path, dir: &TempDir, state_parent: Option<&Path>) -> Res<(Server, PathBuf)> {
        let run = dir.subdir("run")?;
        let outside = state_parent.map(TempDir::new_in).transpose()?;
        let state = match &outside {
            Some(d) => d.0.clone(),
            None => dir.subdir("state")?,
        };
        let home = dir.subdir("home")?;
        let dirs = ServerDirs {
            run: &run,
            state: &state,
            home: &home,
            log: dir.0.join("server.log"),
            cwd: None,
            args: &[],
        };
        let process = ServerProcess::start("signaltty-bench", bin, dirs, |socket| {
            one_request(socket, "ready").is_ok()
        })?;
        let socket = process.socket.clone();
        Ok((
            Server {
                _process: process,
                _state: outside,
            },
            socket,
        ))
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
// Journal throughput and fan-out

/// A distribution of samples in µs. Signed: a subscriber can receive an event
/// before the producer receives its reply, so "receipt − reply" may be negative.
#[derive(Debug, Clone, Copy)]
struct Dist {
    n: usize,
    min: f64,
    mean: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    max: f64,
}

/// Nearest-rank percentiles of `v` (µs).
fn dist(mut v: Vec<f64>) -> Option<Dist> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable_by(f64::total_cmp);
    let n = v.len();
    let at = |p: f64| v[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
    Some(Dist {
        n,
        min: v[0],
        mean: v.iter().sum::<f64>() / n as f64,
        p50: at(0.50),
        p90: at(0.90),
        p99: at(0.99),
        max: v[n - 1],
    })
}

fn dist_json(d: &Option<Dist>) -> Value {
    match d {
        Some(d) => json!({
            "n": d.n, "min": d.min, "mean": d.mean, "p50": d.p50, "p90": d.p90,
            "p99": d.p99, "max": d.max,
        }),
        None => Value::Null,
    }
}

fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// One connection used for one request at a time (it receives nothing else).
struct Client {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
    buf: Vec<u8>,
}

impl Client {
    fn open(socket: &Path) -> Res<Client> {
        let stream = connect(socket)?;
        let reader =
            BufReader::with_capacity(64 * 1024, stream.try_clone().ctx(|| "socket".into())?);
        Ok(Client {
            stream,
            reader,
            buf: Vec::with_capacity(1024),
        })
    }

    /// Writes one request line and reads one reply line into `self.buf`.
    fn round_trip(&mut self, line: &[u8]) -> Res<()> {
        self.stream.write_all(line).ctx(|| "write".into())?;
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .ctx(|| "read".into())?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        Ok(())
    }

    /// A request that must succeed; returns its `result`.
    fn call(&mut self, id: &str, method: Method) -> Res<Value> {
        self.round_trip(request_line(id, method).as_bytes())?;
        check_reply(&self.buf, id)?;
        let v: Value = serde_json::from_slice(&self.buf).ctx(|| "reply".into())?;
        Ok(v["result"].clone())
    }

    /// Creates a workspace; returns its id.
    fn create_workspace(&mut self, name: &str) -> Res<String> {
        let params = WorkspaceCreateParams {
            name: Some(name.to_owned()),
            cwd: None,
        };
        let result = self.call("create", Method::WorkspaceCreate(params))?;
        result["workspace"]["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("workspace.create: no id in {result}"))
    }

    /// The seq of the last published event (`server.status`).
    fn head(&mut self) -> Res<u64> {
        let result = self.call("head", Method::ServerStatus(Default::default()))?;
        result["seq"]
            .as_u64()
            .ok_or_else(|| format!("server.status: no seq in {result}"))
    }
}

fn request_line(id: &str, method: Method) -> String {
    let mut line = Request::new(id, method).to_line();
    line.push('\n');
    line
}

fn rename_line(id: &str, workspace: &str, name: String) -> String {
    request_line(
        id,
        Method::WorkspaceRename(WorkspaceRenameParams {
            workspace_id: WorkspaceRef(workspace.to_owned()),
            name,
        }),
    )
}

/// Reads `src` and hands every complete line to `line` with the time (ns since
/// `origin`) at which the read that completed it returned. Stops at EOF or when
/// `line` returns false.
fn read_timed_lines(
    src: &mut impl Read,
    origin: Instant,
    mut line: impl FnMut(u64, &[u8]) -> bool,
) -> Res<()> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = src.read(&mut buf).ctx(|| "read".into())?;
        let t = origin.elapsed().as_nanos() as u64;
        if n == 0 {
            return Ok(());
        }
        let mut start = 0;
        while let Some(off) = buf[start..n].iter().position(|b| *b == b'\n') {
            let end = start + off + 1;
            let more = if partial.is_empty() {
                line(t, &buf[start..end])
            } else {
                partial.extend_from_slice(&buf[start..end]);
                let more = line(t, &partial);
                partial.clear();
                more
            };
            if !more {
                return Ok(());
            }
            start = end;
        }
        partial.extend_from_slice(&buf[start..n]);
    }
}

// --- What the server and the machine did during a window ---------------------------

/// Where the server keeps its journal, and how to read its resource counters.
#[derive(Debug)]
struct Probe {
    pid: i32,
    /// `/proc/PID/task/TID` of the server's `journal` thread.
    journal_task: Option<PathBuf>,
    /// The directory holding `audit.jsonl`.
    state_dir: Option<PathBuf>,
    /// Filesystem type of the state directory.
    fs: String,
    tmpfs: bool,
    /// `/sys/block/DEV/stat` of the disk under the state directory, and DEV.
    disk_stat: Option<(PathBuf, String)>,
}

impl Probe {
    /// Finds the server at the other end of `stream` (SO_PEERCRED) and its journal.
    fn find(stream: &UnixStream) -> Res<Probe> {
        let cred = nix::sys::socket::getsockopt(stream, sockopt::PeerCredentials)
            .ctx(|| "SO_PEERCRED".into())?;
        let pid = cred.pid();
        let tasks = PathBuf::from(format!("/proc/{pid}/task"));
        let journal_task = fs::read_dir(&tasks).ok().and_then(|entries| {
            entries.flatten().map(|e| e.path()).find(|p| {
                fs::read_to_string(p.join("comm")).is_ok_and(|c| c.trim_end() == "journal")
            })
        });
        let state_dir = fs::read_dir(format!("/proc/{pid}/fd"))
            .ok()
            .and_then(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| fs::read_link(e.path()).ok())
                    .find(|p| p.file_name().is_some_and(|n| n == "audit.jsonl"))
            })
            .and_then(|p| p.parent().map(Path::to_path_buf));
        let (fs, tmpfs) = match &state_dir {
            Some(d) => fs_type(d),
            None => ("unknown".to_owned(), false),
        };
        let disk_stat = state_dir.as_deref().and_then(disk_stat);
        Ok(Probe {
            pid,
            journal_task,
            state_dir,
            fs,
            tmpfs,
            disk_stat,
        })
    }

    fn snapshot(&self) -> Snapshot {
        let tasks = fs::read_dir(format!("/proc/{}/task", self.pid)).ok();
        let server_cpu_ns = tasks.map(|entries| {
            entries
                .flatten()
                .filter_map(|e| schedstat_ns(&e.path()))
                .sum::<u64>()
        });
        let journal = self.journal_task.as_deref();
        Snapshot {
            at: Instant::now(),
            server_cpu_ns,
            journal_cpu_ns: journal.and_then(schedstat_ns),
            flushes: self.disk_stat.as_ref().and_then(|(p, _)| {
                // Field 16 of /sys/block/DEV/stat: flush requests completed.
                let text = fs::read_to_string(p).ok()?;
                text.split_whitespace().nth(15)?.parse().ok()
            }),
            bench_cpu: self_cpu(),
            busy_ns: machine_busy_ns(),
        }
    }
}

fn schedstat_ns(task: &Path) -> Option<u64> {
    let text = fs::read_to_string(task.join("schedstat")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn self_cpu() -> Duration {
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec().max(0) as u64)
            + Duration::from_micros(t.tv_usec().max(0) as u64)
    };
    match getrusage(UsageWho::RUSAGE_SELF) {
        Ok(u) => tv(u.user_time()) + tv(u.system_time()),
        Err(_) => Duration::ZERO,
    }
}

/// The filesystem type name of `dir`, and whether it is tmpfs.
fn fs_type(dir: &Path) -> (String, bool) {
    use nix::sys::statfs::{
        BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, TMPFS_MAGIC, XFS_SUPER_MAGIC,
        statfs,
    };
    let Ok(st) = statfs(dir) else {
        return ("unknown".to_owned(), false);
    };
    let t = st.filesystem_type();
    let name = match t {
        t if t == TMPFS_MAGIC => "tmpfs".to_owned(),
        t if t == EXT4_SUPER_MAGIC => "ext4".to_owned(),
        t if t == XFS_SUPER_MAGIC => "xfs".to_owned(),
        t if t == BTRFS_SUPER_MAGIC => "btrfs".to_owned(),
        t if t == OVERLAYFS_SUPER_MAGIC => "overlayfs".to_owned(),
        t => format!("fs magic {:#x}", t.0),
    };
    (name, t == TMPFS_MAGIC)
}

/// `/sys/block/DEV/stat` of the whole disk holding `dir` (none for tmpfs).
fn disk_stat(dir: &Path) -> Option<(PathBuf, String)> {
    use std::os::unix::fs::MetadataExt;
    let dev = fs::metadata(dir).ok()?.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let mut sys = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    if sys.join("partition").exists() {
        sys = sys.parent()?.to_path_buf();
    }
    let name = sys.file_name()?.to_string_lossy().into_owned();
    let stat = sys.join("stat");
    stat.is_file().then_some((stat, name))
}

#[derive(Debug, Clone, Copy)]
struct Snapshot {
    at: Instant,
    /// Sum over the server's threads of their on-CPU time.
    server_cpu_ns: Option<u64>,
    journal_cpu_ns: Option<u64>,
    /// Flush (cache-flush) requests the state directory's disk completed.
    flushes: Option<u64>,
    /// This benchmark process's CPU time (user + system).
    bench_cpu: Duration,
    /// Busy CPU time of the whole machine (/proc/stat), ns.
    busy_ns: Option<u64>,
}

/// The machine's busy CPU time so far: all /proc/stat "cpu" times but idle and iowait.
fn machine_busy_ns() -> Option<u64> {
    let text = fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let busy: u64 = ticks
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, v)| v)
        .sum();
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .filter(|hz| *hz > 0)
        .unwrap_or(100) as u64;
    Some(busy * (1_000_000_000 / hz))
}

/// Counter deltas over a window, with the events published in it.
#[derive(Debug, Clone, Copy)]
struct Usage {
    secs: f64,
    events: f64,
    server_cpu: Option<f64>,
    journal_cpu: Option<f64>,
    flushes: Option<u64>,
    bench_cpu: f64,
    /// Busy CPU seconds of everything else on the machine (neither the server nor
    /// this benchmark): other load that would distort the figures.
    other_cpu: Option<f64>,
}

impl Usage {
    /// `events_per_s` is the measured rate; the event count in the counter window
    /// is that rate times the window's length.
    fn between(a: &Snapshot, b: &Snapshot, events_per_s: f64) -> Usage {
        let secs = (b.at - a.at).as_secs_f64();
        let d = |x: Option<u64>, y: Option<u64>| Some(y?.saturating_sub(x?));
        let server_cpu = d(a.server_cpu_ns, b.server_cpu_ns).map(|ns| ns as f64 / 1e9);
        let bench_cpu = (b.bench_cpu.saturating_sub(a.bench_cpu)).as_secs_f64();
        let busy = d(a.busy_ns, b.busy_ns).map(|ns| ns as f64 / 1e9);
        Usage {
            secs,
            events: events_per_s * secs,
            server_cpu,
            journal_cpu: d(a.journal_cpu_ns, b.journal_cpu_ns).map(|ns| ns as f64 / 1e9),
            flushes: d(a.flushes, b.flushes),
            bench_cpu,
            other_cpu: busy
                .zip(server_cpu)
                .map(|(busy, server)| (busy - server - bench_cpu).max(0.0)),
        }
    }

    /// Events per disk cache flush: with the journal alone on its disk, events per
    /// fdatasync, i.e. the group-commit batch size.
    fn events_per_flush(&self) -> Option<f64> {
        self.flushes
            .filter(|f| *f > 0)
            .map(|f| self.events / f as f64)
    }

    /// CPU seconds per second.
    fn cores(&self, cpu: Option<f64>) -> Option<f64> {
        cpu.filter(|_| self.secs > 0.0).map(|c| c / self.secs)
    }

    fn flushes_per_event(&self) -> Option<f64> {
        self.flushes
            .filter(|_| self.events > 0.0)
            .map(|f| f as f64 / self.events)
    }

    fn server_us_per_event(&self) -> Option<f64> {
        self.server_cpu
            .filter(|_| self.events > 0.0)
            .map(|s| s * 1e6 / self.events)
    }

    fn bench_us_per_event(&self) -> Option<f64> {
        (self.events > 0.0).then(|| self.bench_cpu * 1e6 / self.events)
    }

    fn json(&self) -> Value {
        json!({
            "window_s": self.secs,
            "events": self.events,
            "server_cpu_s": self.server_cpu,
            "server_cpu_us_per_event": self.server_us_per_event(),
            "journal_thread_cpu_s": self.journal_cpu,
            "disk_flushes": self.flushes,
            "disk_flushes_per_event": self.flushes_per_event(),
            "events_per_disk_flush": self.events_per_flush(),
            "bench_cpu_s": self.bench_cpu,
            "bench_cpu_us_per_event": self.bench_us_per_event(),
            "other_cpu_s": self.other_cpu,
        })
    }
}

// --- fdatasync floor ----------------------------------------------------------------

/// Appends a 400-byte line to a fresh file and fdatasyncs it, `n` times (after 50
/// untimed), in `dir`: what one journal batch costs at least on that filesystem.
fn bench_sync_floor(dir: &Path, n: usize) -> Res<Option<Dist>> {
    let path = dir.join(format!(".signaltty-bench-sync-{}", std::process::id()));
    let mut file = fs::OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(&path)
        .ctx(|| format!("cannot create {}", path.display()))?;
    let mut line = vec![b'x'; 399];
    line.push(b'\n');
    let mut samples = Vec::with_capacity(n);
    let result = (|| -> Res<()> {
        for i in 0..50 + n {
            check_interrupted()?;
            let t = Instant::now();
            file.write_all(&line).ctx(|| "write".into())?;
            file.sync_data().ctx(|| "fdatasync".into())?;
            let dt = t.elapsed();
            if i >= 50 {
                samples.push(micros(dt));
            }
        }
        Ok(())
    })();
    drop(file);
    let removed = fs::remove_file(&path).ctx(|| format!("cannot remove {}", path.display()));
    result?;
    removed?;
    Ok(dist(samples))
}

// --- N producers ----------------------------------------------------------------------

/// One throughput configuration.
#[derive(Debug)]
struct JournalRun {
    producers: usize,
    window: Duration,
    /// Replies received inside the measured window, summed over the producers.
    events: usize,
    per_sec: f64,
    /// Round trips sent and answered inside the window.
    rtt: Option<Dist>,
    /// Renames answered in all (warm-up, window and the tail after it).
    answered: u64,
    /// How far the server's seq moved over the run (must equal `answered`).
    seq_delta: u64,
    usage: Option<Usage>,
}

struct Gates {
    ready: std::sync::Barrier,
    go: std::sync::Barrier,
    start: std::sync::OnceLock<Instant>,
    warmup: Duration,
    window: Duration,
}

#[derive(Default)]
struct ProducerRun {
    samples: Vec<f64>,
    in_window: usize,
    answered: u64,
}

/// One producer: its own connection renaming its own workspace, one request at a time.
fn produce(socket: &Path, name: &str, gates: &Gates) -> Res<ProducerRun> {
    let setup = Client::open(socket).and_then(|mut c| {
        let id = c.create_workspace(name)?;
        Ok((c, id))
    });
    gates.ready.wait();
    gates.go.wait();
    let (mut c, ws) = setup?;
    let start = *gates
        .start
        .get()
        .ok_or_else(|| "no start time".to_owned())?;
    let warm_end = start + gates.warmup;
    let end = warm_end + gates.window;
    let mut out = ProducerRun {
        samples: Vec::with_capacity(65_536),
        ..ProducerRun::default()
    };
    loop {
        let sent = Instant::now();
        if sent >= end {
            return Ok(out);
        }
        if out.answered.is_multiple_of(256) {
            check_interrupted()?;
        }
        let id = format!("r{}", out.answered);
        let line = rename_line(&id, &ws, format!("{name}-{}", out.answered));
        c.round_trip(line.as_bytes())?;
        let replied = Instant::now();
        check_reply(&c.buf, &id)?;
        out.answered += 1;
        if replied >= warm_end && replied <= end {
            out.in_window += 1;
            if sent >= warm_end {
                out.samples.push(micros(replied - sent));
            }
        }
    }
}

fn bench_journal(
    socket: &Path,
    probe: Option<&Probe>,
    producers: usize,
    warmup: Duration,
    window: Duration,
    tag: &str,
) -> Res<JournalRun> {
    let mut control = Client::open(socket)?;
    let gates = Gates {
        ready: std::sync::Barrier::new(producers + 1),
        go: std::sync::Barrier::new(producers + 1),
        start: std::sync::OnceLock::new(),
        warmup,
        window,
    };
    let (runs, seq0, usage) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..producers)
            .map(|p| {
                let gates = &gates;
                let name = format!("{tag}-p{p}");
                scope.spawn(move || produce(socket, &name, gates))
            })
            .collect();
        gates.ready.wait();
        let seq0 = control.head();
        let start = Instant::now();
        let _ = gates.start.set(start);
        gates.go.wait();
        sleep_until(start + warmup);
        let a = probe.map(Probe::snapshot);
        sleep_until(start + warmup + window);
        let b = probe.map(Probe::snapshot);
        let runs: Vec<Res<ProducerRun>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a producer thread panicked".into()))
            })
            .collect();
        (runs, seq0, a.zip(b))
    });
    let seq0 = seq0?;
    let runs = runs.into_iter().collect::<Res<Vec<_>>>()?;
    let seq1 = control.head()?;
    let events: usize = runs.iter().map(|r| r.in_window).sum();
    let answered: u64 = runs.iter().map(|r| r.answered).sum();
    let per_sec = events as f64 / window.as_secs_f64();
    let samples: Vec<f64> = runs.into_iter().flat_map(|r| r.samples).collect();
    Ok(JournalRun {
        producers,
        window,
        events,
        per_sec,
        rtt: dist(samples),
        answered,
        seq_delta: seq1.saturating_sub(seq0),
        usage: usage.map(|(a, b)| Usage::between(&a, &b, per_sec)),
    })
}

// --- Fan-out ----------------------------------------------------------------------------

/// Delivery of a producer's events to many readers.
#[derive(Debug)]
struct FanoutRun {
    label: String,
    readers: usize,
    /// Between the starts of two renames.
    interval: Duration,
    /// Measured events (warm-up excluded).
    events: usize,
    /// Producer: request sent → its reply received.
    rtt: Option<Dist>,
    /// Every (event, reader): reader's receipt − request sent.
    raw: Option<Dist>,
    /// Every (event, reader): reader's receipt − producer's reply received.
    beyond: Option<Dist>,
    /// Per event: the last reader's receipt − request sent.
    last: Option<Dist>,
    /// Share of (event, reader) pairs received before the producer had its reply.
    before_reply: f64,
    /// (event, reader) pairs never received.
    missing: usize,
    usage: Option<Usage>,
}

/// `times[k]` = (sent, replied) ns for event k; `recv[j][k]` = reader j's receipt.
fn fanout_stats(
    label: String,
    interval: Duration,
    warmup: usize,
    times: &[(u64, u64)],
    recv: &[Vec<Option<u64>>],
    usage: Option<Usage>,
) -> FanoutRun {
    let us = |a: u64, b: u64| (a as f64 - b as f64) / 1e3;
    let (mut raw, mut beyond, mut last, mut rtt) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut missing, mut early) = (0, 0usize);
    for (k, &(sent, replied)) in times.iter().enumerate().skip(warmup) {
        rtt.push(us(replied, sent));
        let mut latest: Option<u64> = None;
        for reader in recv {
            match reader.get(k).copied().flatten() {
                Some(t) => {
                    raw.push(us(t, sent));
                    beyond.push(us(t, replied));
                    if t < replied {
                        early += 1;
                    }
                    latest = latest.max(Some(t));
                },
                None => missing += 1,
            }
        }
        if let Some(t) = latest {
            last.push(us(t, sent));
        }
    }
    let pairs = raw.len();
    FanoutRun {
        label,
        interval,
        readers: recv.len(),
        events: times.len().saturating_sub(warmup),
        rtt: dist(rtt),
        raw: dist(raw),
        beyond: dist(beyond),
        last: dist(last),
        before_reply: if pairs > 0 {
            early as f64 / pairs as f64
        } else {
            0.0
        },
        missing,
        usage,
    }
}

const FANOUT_WARMUP: usize = 20;

/// (receipt ns since the origin, line) of each event a subscriber received.
type TimedLines = Vec<(u64, Vec<u8>)>;

/// A subscriber of `workspace.*`: returns (receipt ns, line) of the first `expected`
/// `workspace.updated` events.
fn subscriber(
    socket: &Path,
    expected: usize,
    origin: Instant,
    ready: &std::sync::Barrier,
) -> Res<TimedLines> {
    let setup = Client::open(socket).and_then(|mut c| {
        let params = SubscribeParams {
            events: Some(vec!["workspace.*".to_owned()]),
            ..SubscribeParams::default()
        };
        let result = c.call("s", Method::Subscribe(params))?;
        if result["subscribed"] != json!(true) || !c.reader.buffer().is_empty() {
            return Err(format!("unexpected subscribe reply {result}"));
        }
        Ok(c)
    });
    ready.wait();
    let mut c = setup?;
    let mut got = Vec::with_capacity(expected);
    read_timed_lines(&mut c.stream, origin, |t, line| {
        // Only the cheapest test here: the reader's CPU delays the other readers.
        if contains(line, b"\"workspace.updated\"") {
            got.push((t, line.to_vec()));
        }
        got.len() < expected
    })?;
    if got.len() < expected {
        return Err(format!(
            "a subscriber received {} of {expected} events",
            got.len()
        ));
    }
    Ok(got)
}

fn bench_fanout(
    socket: &Path,
    probe: Option<&Probe>,
    subscribers: usize,
    n: usize,
    interval: Duration,
) -> Res<FanoutRun> {
    let mut producer = Client::open(socket)?;
    let ws = producer.create_workspace("fanout")?;
    let total = FANOUT_WARMUP + n;
    let origin = Instant::now();
    let ready = std::sync::Barrier::new(subscribers + 1);
    let (produced, received, usage) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..subscribers)
            .map(|_| scope.spawn(|| subscriber(socket, total, origin, &ready)))
            .collect();
        ready.wait();
        let a = probe.map(Probe::snapshot);
        let ns = |t: Instant| (t - origin).as_nanos() as u64;
        let start = Instant::now();
        let mut times = Vec::with_capacity(total);
        let mut produced = Ok(());
        for k in 0..total {
            if let Err(e) = check_interrupted() {
                produced = Err(e);
                break;
            }
            sleep_until(start + interval * k as u32);
            let id = format!("f{k}");
            let line = rename_line(&id, &ws, format!("fan-{k}"));
            let sent = Instant::now();
            if let Err(e) = producer.round_trip(line.as_bytes()) {
                produced = Err(e);
                break;
            }
            let replied = Instant::now();
            if let Err(e) = check_reply(&producer.buf, &id) {
                produced = Err(e);
                break;
            }
            times.push((ns(sent), ns(replied)));
        }
        let b = probe.map(Probe::snapshot);
        // A failed producer leaves the subscribers waiting: their reads time out.
        let received: Vec<Res<TimedLines>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a subscriber thread panicked".into()))
            })
            .collect();
        let rate = total as f64 / (start.elapsed().as_secs_f64());
        (
            produced.map(|()| times),
            received,
            a.zip(b).map(|(a, b)| Usage::between(&a, &b, rate)),
        )
    });
    let times = produced?;
    let mut recv = Vec::with_capacity(subscribers);
    for r in received {
        let mut mine = vec![None; total];
        for (t, line) in r? {
            let v: Value = serde_json::from_slice(&line).ctx(|| "event line".into())?;
            let k = v["payload"]["workspace"]["name"]
                .as_str()
                .and_then(|name| name.strip_prefix("fan-"))
                .and_then(|k| k.parse::<usize>().ok());
            if let Some(slot) = k.and_then(|k| mine.get_mut(k)) {
                *slot = Some(t);
            }
        }
        recv.push(mine);
    }
    Ok(fanout_stats(
        format!("signaltty: {subscribers} subscribers"),
        interval,
        FANOUT_WARMUP,
        &times,
        &recv,
        usage,
    ))
}

/// The same with tmux: `readers` control clients (`tmux -C attach`) receive
/// `%window-renamed` when the benchmark's own control client runs `rename-window`.
fn bench_tmux_fanout(
    dir: &TempDir,
    readers: usize,
    n: usize,
    interval: Duration,
) -> Res<FanoutRun> {
    let mut tmux = Tmux::start(dir)?;
    tmux.send(b"display-message -p '#{session_id} #{window_id}'\n")?;
    let ids = tmux.read_block()?;
    let mut words = ids.split_whitespace();
    let (Some(session), Some(window)) = (words.next(), words.next()) else {
        return Err(format!("tmux: no session and window id in {ids:?}"));
    };
    let (session, window) = (session.to_owned(), window.to_owned());
    let total = FANOUT_WARMUP + n;
    let last_name = format!("fan-{}", total - 1);
    let origin = Instant::now();
    let mut clients = Vec::with_capacity(readers);
    let mut stdins = Vec::with_capacity(readers);
    let mut stdouts = Vec::with_capacity(readers);
    let spawned = (|| -> Res<()> {
        for _ in 0..readers {
            let mut child = spawn_unmasked(
                Tmux::command(&tmux.tmpdir)
                    .args(["-C", "attach-session", "-t", &session])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null()),
            )
            .ctx(|| "tmux -C attach".into())?;
            stdins.push(child.stdin.take());
            stdouts.push(child.stdout.take());
            clients.push(child);
        }
        Ok(())
    })();
    let attached = std::sync::atomic::AtomicUsize::new(0);
    let (produced, received) = std::thread::scope(|scope| {
        let handles: Vec<_> = stdouts
            .into_iter()
            .map(|out| {
                let (attached, last_name) = (&attached, &last_name);
                scope.spawn(move || -> Res<Vec<(u64, usize)>> {
                    let Some(mut out) = out else {
                        return Err("tmux client: no stdout".into());
                    };
                    let mut seen_any = false;
                    let mut got = Vec::with_capacity(total);
                    read_timed_lines(&mut out, origin, |t, line| {
                        let Some(rest) = line.strip_prefix(b"%window-renamed ") else {
                            return true;
                        };
                        if !seen_any {
                            seen_any = true;
                            attached.fetch_add(1, Ordering::Relaxed);
                        }
                        let text = String::from_utf8_lossy(rest);
                        let name = text.split_whitespace().nth(1).unwrap_or("");
                        if let Some(k) = name.strip_prefix("fan-").and_then(|k| k.parse().ok()) {
                            got.push((t, k));
                        }
                        name != last_name
                    })?;
                    Ok(got)
                })
            })
            .collect();
        let produced = spawned.and_then(|()| {
            // Rename until every client has shown a notification: they are attached.
            let mut i = 0;
            while attached.load(Ordering::Relaxed) < readers {
                check_interrupted()?;
                if i == 500 {
                    return Err("tmux control clients did not attach within 10 s".into());
                }
                tmux.send(format!("rename-window -t {window} ready-{i}\n").as_bytes())?;
                tmux.read_block()?;
                std::thread::sleep(Duration::from_millis(20));
                i += 1;
            }
            let ns = |t: Instant| (t - origin).as_nanos() as u64;
            let start = Instant::now();
            let mut times = Vec::with_capacity(total);
            for k in 0..total {
                check_interrupted()?;
                sleep_until(start + interval * k as u32);
                let line = format!("rename-window -t {window} fan-{k}\n");
                let sent = Instant::now();
                tmux.send(line.as_bytes())?;
                tmux.read_block()?;
                times.push((ns(sent), ns(Instant::now())));
            }
            Ok(times)
        });
        // Give the readers time to see the last rename, then detach every client
        // (EOF on its stdin) so that a reader still waiting sees EOF.
        let deadline = Instant::now() + Duration::from_secs(5);
        while handles.iter().any(|h| !h.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        stdins.clear();
        let received: Vec<Res<Vec<(u64, usize)>>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a tmux reader thread panicked".into()))
            })
            .collect();
        (produced, received)
    });
    for mut c in clients {
        let _ = c.kill();
        let _ = c.wait();
    }
    drop(tmux);
    let times = produced?;
    let mut recv = Vec::with_capacity(readers);
    for r in received {
        let mut mine = vec![None; total];
        for (t, k) in r? {
            if let Some(slot) = mine.get_mut(k) {
                *slot = Some(t);
            }
        }
        recv.push(mine);
    }
    Ok(fanout_stats(
        format!("tmux -C: {readers} control clients, %window-renamed"),
        interval,
        FANOUT_WARMUP,
        &times,
        &recv,
        None,
    ))
}

// --- The journal report -----------------------------------------------------------------

/// Cores kept busy by other processes above which a window's figures are flagged.
const BUSY_MACHINE: f64 = 0.25;

#[derive(Debug, Default)]
struct JournalReport {
    probe: Option<Probe>,
    sync_floor: Option<Dist>,
    runs: Vec<JournalRun>,
    fanout: Option<FanoutRun>,
    tmux_fanout: Option<FanoutRun>,
}

struct Verdict {
    what: &'static str,
    measured: Option<String>,
    /// `None`: not judged (not measured, or not on a durable disk).
    pass: Option<bool>,
    note: &'static str,
}

impl JournalReport {
    fn tmpfs(&self) -> bool {
        self.probe.as_ref().is_some_and(|p| p.tmpfs)
    }

    fn rate(&self, producers: usize) -> Option<f64> {
        self.runs
            .iter()
            .find(|r| r.producers == producers)
            .map(|r| r.per_sec)
    }

    fn verdicts(&self) -> Vec<Verdict> {
        let durable_note = if self.tmpfs() {
            "not judged: the journal is on tmpfs (not durable)"
        } else {
            ""
        };
        let rate = |producers: usize, what: &'static str, limit: f64| {
            let v = self.rate(producers);
            Verdict {
                what,
                measured: v.map(|v| format!("{v:.0} events/s")),
                pass: v.filter(|_| !self.tmpfs()).map(|v| v >= limit),
                note: durable_note,
            }
        };
        vec![
            rate(64, "64 producers: >= 50 000 durable events/s", 50_000.0),
            rate(1, "1 producer: >= 3 000 durable events/s", 3_000.0),
            self.fanout_verdict(),
        ]
    }

    /// The fan-out target: p99 of (receipt − send) over every (event, subscriber),
    /// less the sync itself (the fdatasync floor's p50) when it was measured.
    fn fanout_verdict(&self) -> Verdict {
        let what = "fan-out to 100 subscribers: p99 beyond the sync < 2 ms";
        let Some((run, raw)) = self.fanout.as_ref().and_then(|f| Some((f, f.raw?))) else {
            return Verdict {
                what,
                measured: None,
                pass: None,
                note: "",
            };
        };
        let sync = self.sync_floor.map(|d| d.p50);
        let beyond = raw.p99 - sync.unwrap_or(0.0);
        let how = match sync {
            Some(sync) => format!(
                "receipt − send p99 {:.1} − fdatasync p50 {sync:.1}",
                raw.p99
            ),
            None => "receipt − send p99, sync not measured so not subtracted".to_owned(),
        };
        Verdict {
            what,
            measured: Some(format!("{beyond:.1} µs ({how})")),
            pass: (run.readers == 100 && run.missing == 0).then_some(beyond < 2_000.0),
            note: if run.readers == 100 {
                ""
            } else {
                "not judged: not 100 subscribers"
            },
        }
    }

    /// The most producers measured over one producer.
    fn group_commit_gain(&self) -> Option<(usize, f64)> {
        let one = self.rate(1)?;
        let most = self.runs.iter().max_by_key(|r| r.producers)?;
        (most.producers > 1 && one > 0.0).then(|| (most.producers, most.per_sec / one))
    }

    fn location(&self) -> String {
        match &self.probe {
            Some(Probe {
                state_dir: Some(dir),
                fs,
                tmpfs,
                disk_stat,
                ..
            }) => {
                let disk = disk_stat
                    .as_ref()
                    .map_or(String::new(), |(_, name)| format!(" on /dev/{name}"));
                let durable = if *tmpfs {
                    "NOT durable on disk: fdatasync does no I/O"
                } else {
                    "durable: fdatasync reaches the disk"
                };
                format!("{} ({fs}{disk} — {durable})", dir.display())
            },
            _ => "unknown (no audit.jsonl open in the server)".to_owned(),
        }
    }

    fn print(&self, out: &mut String) {
        let f = |v: Option<f64>, prec: usize| v.map_or("-".to_owned(), |v| format!("{v:.prec$}"));
        let _ = writeln!(out, "\njournal: {}", self.location());
        if let Some(d) = &self.sync_floor {
            let _ = writeln!(
                out,
                "fdatasync floor (append 400 B + fdatasync, same filesystem, n={}): p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
                d.n, d.p50, d.p99, d.max
            );
        }
        if !self.runs.is_empty() {
            let _ = writeln!(
                out,
                "\n{:>9} {:>8} {:>9} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>6} {:>6} {:>6} {:>6}",
                "producers",
                "events",
                "events/s",
                "p50 µs",
                "p90 µs",
                "p99 µs",
                "max µs",
                "ev/flush",
                "srv µs/ev",
                "srv",
                "jrnl",
                "bench",
                "other"
            );
            for r in &self.runs {
                let l = r.rtt;
                let u = r.usage;
                let cores = |pick: fn(&Usage) -> Option<f64>| u.and_then(|u| u.cores(pick(&u)));
                let _ = writeln!(
                    out,
                    "{:>9} {:>8} {:>9.0} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>6} {:>6} {:>6} {:>6}",
                    r.producers,
                    r.events,
                    r.per_sec,
                    f(l.map(|l| l.p50), 1),
                    f(l.map(|l| l.p90), 1),
                    f(l.map(|l| l.p99), 1),
                    f(l.map(|l| l.max), 1),
                    f(u.and_then(|u| u.events_per_flush()), 2),
                    f(u.and_then(|u| u.server_us_per_event()), 1),
                    f(cores(|u| u.server_cpu), 2),
                    f(cores(|u| u.journal_cpu), 2),
                    f(cores(|u| Some(u.bench_cpu)), 2),
                    f(cores(|u| u.other_cpu), 2),
                );
            }
            let _ = writeln!(
                out,
                "(events/s: renames answered in the {:.1} s window; µs: one rename's round trip, synced before the reply;\n \
                 ev/flush: events per cache flush of the journal's disk (machine-wide counter; one per fdatasync);\n \
                 srv µs/ev: server CPU per event; srv, jrnl (its journal thread), bench, other: CPU cores busy)",
                self.runs.first().map_or(0.0, |r| r.window.as_secs_f64())
            );
            for r in &self.runs {
                if let Some(other) = r.usage.and_then(|u| u.cores(u.other_cpu))
                    && other > BUSY_MACHINE
                {
                    let _ = writeln!(
                        out,
                        "  WARNING: {} producers: other processes kept {other:.2} cores busy: figures distorted",
                        r.producers
                    );
                }
                if r.seq_delta != r.answered {
                    let _ = writeln!(
                        out,
                        "  WARNING: {} producers: {} renames answered but the seq moved by {}",
                        r.producers, r.answered, r.seq_delta
                    );
                }
            }
            if let Some((most, gain)) = self.group_commit_gain() {
                let _ = writeln!(
                    out,
                    "group commit: {most} producers / 1 producer = {gain:.1}× the events/s"
                );
            }
        }
        for (i, run) in [&self.fanout, &self.tmux_fanout]
            .into_iter()
            .flatten()
            .enumerate()
        {
            if i == 0 {
                let _ = writeln!(
                    out,
                    "\n{:<56} {:>9} {:>9} {:>9} {:>9} {:>9}",
                    "fan-out (µs)", "p50", "p90", "p99", "max", "n"
                );
            }
            let _ = writeln!(
                out,
                "{}: {} events, one every {:.1} ms{}",
                run.label,
                run.events,
                run.interval.as_secs_f64() * 1e3,
                if run.missing > 0 {
                    format!(", {} deliveries MISSING", run.missing)
                } else {
                    String::new()
                }
            );
            let rows = [
                ("  producer round trip (send → reply)", run.rtt),
                ("  receipt − send, every (event, reader)", run.raw),
                ("  receipt − reply, every (event, reader)", run.beyond),
                ("  last reader's receipt − send, per event", run.last),
            ];
            for (what, d) in rows {
                if let Some(d) = d {
                    let _ = writeln!(
                        out,
                        "{what:<56} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9}",
                        d.p50, d.p90, d.p99, d.max, d.n
                    );
                }
            }
            let server = run.usage.map_or(String::new(), |u| {
                format!(
                    "; server CPU {} µs per event; cores busy: server {}, bench {}, other {}",
                    f(u.server_us_per_event(), 0),
                    f(u.cores(u.server_cpu), 2),
                    f(u.cores(Some(u.bench_cpu)), 2),
                    f(u.cores(u.other_cpu), 2)
                )
            });
            let _ = writeln!(
                out,
                "  {:.1}% of deliveries arrived before the producer's reply{server}",
                run.before_reply * 100.0
            );
            if let Some(other) = run.usage.and_then(|u| u.cores(u.other_cpu))
                && other > BUSY_MACHINE
            {
                let _ = writeln!(
                    out,
                    "  WARNING: other processes kept {other:.2} cores busy: figures distorted"
                );
            }
        }
        if let (Some(a), Some(b)) = (&self.fanout, &self.tmux_fanout)
            && let (Some(ra), Some(rb)) = (a.raw, b.raw)
        {
            let sync = self.sync_floor.map_or(0.0, |d| d.p50);
            let _ = writeln!(
                out,
                "signaltty ({} subscribers) / tmux ({} clients), receipt − send: p50 {:.2}, p99 {:.2}; \
                 less signaltty's fdatasync p50: p50 {:.2}, p99 {:.2}",
                a.readers,
                b.readers,
                ra.p50 / rb.p50,
                ra.p99 / rb.p99,
                (ra.p50 - sync) / rb.p50,
                (ra.p99 - sync) / rb.p99
            );
        }
        let _ = writeln!(out, "\njournal targets:");
        for v in self.verdicts() {
            let verdict = match v.pass {
                Some(true) => "PASS",
                Some(false) => "FAIL",
                None => "n/a ",
            };
            let measured = v.measured.unwrap_or_else(|| "not measured".into());
            let note = if v.note.is_empty() {
                String::new()
            } else {
                format!(" ({})", v.note)
            };
            let _ = writeln!(out, "  {verdict}  {:<62} measured {measured}{note}", v.what);
        }
    }

    fn json(&self) -> Value {
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|r| {
                json!({
                    "producers": r.producers,
                    "window_s": r.window.as_secs_f64(),
                    "events": r.events,
                    "events_per_s": r.per_sec,
                    "round_trip_us": dist_json(&r.rtt),
                    "renames_answered": r.answered,
                    "seq_delta": r.seq_delta,
                    "usage": r.usage.map(|u| u.json()),
                })
            })
            .collect();
        let fanout = |f: &Option<FanoutRun>| {
            f.as_ref().map(|f| {
                json!({
                    "label": f.label,
                    "readers": f.readers,
                    "interval_us": f.interval.as_secs_f64() * 1e6,
                    "events": f.events,
                    "producer_round_trip_us": dist_json(&f.rtt),
                    "receipt_minus_send_us": dist_json(&f.raw),
                    "receipt_minus_reply_us": dist_json(&f.beyond),
                    "last_reader_minus_send_us": dist_json(&f.last),
                    "share_before_reply": f.before_reply,
                    "missing": f.missing,
                    "usage": f.usage.map(|u| u.json()),
                })
            })
        };
        let targets: Vec<Value> = self
            .verdicts()
            .into_iter()
            .map(|v| json!({ "target": v.what, "measured": v.measured, "pass": v.pass, "note": v.note }))
            .collect();
        json!({
            "state_dir": self.probe.as_ref().and_then(|p| p.state_dir.as_ref()).map(|d| d.display().to_string()),
            "filesystem": self.probe.as_ref().map(|p| p.fs.clone()),
            "tmpfs": self.tmpfs(),
            "disk": self.probe.as_ref().and_then(|p| p.disk_stat.as_ref()).map(|(_, n)| n.clone()),
            "fdatasync_floor_us": dist_json(&self.sync_floor),
            "throughput": runs,
            "group_commit_gain": self.group_commit_gain().map(|(p, g)| json!({ "producers": p, "over_one": g })),
            "fanout": fanout(&self.fanout),
            "tmux_fanout": fanout(&self.tmux_fanout),
            "targets": targets,
        })
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

fn print_table(out: &mut String, results: &[Summary]) {
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
    let groups = opts.groups();
    let dir = TempDir::new()?;
    let mut server = None;
    let (socket, server_desc) = match &opts.socket {
        Some(s) => (s.clone(), format!("existing server on {}", s.display())),
        None => {
            let (srv, socket) = Server::start(&bin, &dir, opts.state_dir.as_deref())?;
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

    if groups.contains(&Group::Latency) {
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
    }

    let mut journal = None;
    if groups.contains(&Group::Journal) || groups.contains(&Group::Fanout) {
        let mut report = JournalReport {
            probe: Probe::find(&connect(&socket)?).ok(),
            ..JournalReport::default()
        };
        if opts.sync_floor_runs > 0
            && let Some(state) = report.probe.as_ref().and_then(|p| p.state_dir.as_ref())
        {
            // Next to the state directory (in its parent), on the same filesystem.
            progress("fdatasync floor");
            let parent = state.parent().unwrap_or(state);
            report.sync_floor = bench_sync_floor(parent, opts.sync_floor_runs)?;
        }
        if groups.contains(&Group::Journal) {
            let window = Duration::from_secs_f64(opts.journal_secs.max(0.1));
            let warmup = Duration::from_secs_f64(opts.journal_warmup_secs.max(0.0));
            for (i, &producers) in opts.producers.iter().enumerate() {
                if producers == 0 {
                    continue;
                }
                progress(&format!("journal throughput, {producers} producers"));
                report.runs.push(bench_journal(
                    &socket,
                    report.probe.as_ref(),
                    producers,
                    warmup,
                    window,
                    &format!("j{i}"),
                )?);
            }
        }
        if groups.contains(&Group::Fanout) && opts.subscribers > 0 && opts.fanout_events > 0 {
            let interval = Duration::from_micros(opts.fanout_interval_us);
            progress(&format!("fan-out to {} subscribers", opts.subscribers));
            report.fanout = Some(bench_fanout(
                &socket,
                report.probe.as_ref(),
                opts.subscribers,
                opts.fanout_events,
                interval,
            )?);
            if opts.peer_tmux && opts.tmux_clients > 0 {
                progress(&format!(
                    "tmux fan-out to {} control clients",
                    opts.tmux_clients
                ));
                report.tmux_fanout = Some(bench_tmux_fanout(
                    &dir,
                    opts.tmux_clients,
                    opts.fanout_events,
                    interval,
                )?);
            }
        }
        journal = Some(report);
    }

    // Stop our server (SIGTERM, wait) before printing; the temp dir goes last.
    drop(server);
    if opts.json {
        let mut v = to_json(&results, &server_desc, &bin);
        if let Some(j) = &journal {
            v["journal"] = j.json();
        }
        println!("{v:#}");
    } else {
        let m = machine();
        let mut out = format!(
            "signaltty-bench: {server_desc}; {} of {} CPUs ({}), kernel {}\n",
            m["cpus_usable"],
            m["cpus_online"],
            m["cpu"].as_str().unwrap_or(""),
            m["kernel"].as_str().unwrap_or("")
        );
        if !results.is_empty() {
            print_table(&mut out, &results);
        }
        if let Some(j) = &journal {
            j.print(&mut out);
        }
        print!("{out}");
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
