//! Viewer: what a connection attached with `pane.attach` receives, the path from a
//! pane's PTY to its viewers. Throughput: a pane `cat`s a generated file of base64
//! lines while one attached connection reads `pty.data` to the file's last byte.
//! Echo: `pane.input` of a marker to a `cat` pane, on a second connection, until the
//! marker comes back in `pty.data` on the attached one; idle, then while producer
//! connections publish `notify` events (each one journaled, fdatasync included) as
//! fast as their replies come (or at `--viewer-rate`), beside the fdatasync floor.
//! tmux: a `tmux -C` client reading `%output`, input by `send-keys -l` on another,
//! and `set-option` round trips at the rate signaltty's producers reached as the load.

use crate::common::b64;
use crate::common::client::{Conn, request_line};
use crate::common::fsync::fdatasync_samples;
use crate::common::procfs::cpu_seconds;
use crate::common::server::Server;
use crate::common::stats::{Dist, median, sample};
use crate::common::tempdir::TempDir;
use crate::common::tmux::{Tmux, TmuxControl};
use crate::common::{Context, Res, check_interrupted};
use crate::ingest::Rng;
use crate::{Opts, latency_json, opt, start_server, tmux_keep};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Characters of a line of the generated file (plus its `\n`).
const LINE_COLS: u64 = 100;
/// Untimed echoes before the timed ones.
const ECHO_WARMUP: usize = 50;
/// How long a viewer, an input connection or a producer waits for a line.
const LINE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the producers get to complete their first calls.
const LOAD_START_LIMIT: Duration = Duration::from_secs(10);
/// What a pane of the throughput runs does: wait for the gate, print the file, stay.
const FLOOD_SHELL: &str = "read x < '{fifo}'; cat '{file}'; exec sleep 2147483647";

/// The generated file: `lines` lines of `LINE_COLS` base64 characters.
#[derive(Debug, Clone, Copy)]
struct FloodFile {
    lines: u64,
}

impl FloodFile {
    fn file_bytes(self) -> u64 {
        self.lines * (LINE_COLS + 1)
    }

    /// What comes out of the PTY: ONLCR makes every `\n` `\r\n`.
    fn pty_bytes(self) -> u64 {
        self.lines * (LINE_COLS + 2)
    }
}

/// Writes whole lines of random base64 characters, at least `target` bytes.
fn generate_file(path: &Path, target: u64) -> Res<FloodFile> {
    let lines = target.div_ceil(LINE_COLS + 1).max(1);
    let file = fs::File::create(path).ctx(|| format!("cannot create {}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut line = [b'\n'; LINE_COLS as usize + 1];
    for _ in 0..lines {
        for ten in line[..LINE_COLS as usize].chunks_mut(10) {
            let mut r = rng.next();
            for c in ten {
                *c = b64::ALPHABET[(r & 63) as usize];
                r >>= 6;
            }
        }
        w.write_all(&line)
            .ctx(|| format!("write {}", path.display()))?;
    }
    w.flush().ctx(|| format!("write {}", path.display()))?;
    Ok(FloodFile { lines })
}

/// The FIFO a throughput pane waits on, so that the viewer is attached before the
/// first byte and both servers start on the same signal.
struct Gate {
    fifo: PathBuf,
}

impl Gate {
    fn new(dir: &TempDir) -> Res<Gate> {
        let fifo = dir.path().join("viewer-gate");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU)
            .ctx(|| format!("mkfifo {}", fifo.display()))?;
        Ok(Gate { fifo })
    }

    /// The pane's shell command for `file`.
    fn shell(&self, file: &Path) -> String {
        FLOOD_SHELL
            .replace("{fifo}", &self.fifo.to_string_lossy())
            .replace("{file}", &file.to_string_lossy())
    }

    /// Opens the FIFO for writing once the pane's shell waits on it.
    fn open(&self) -> Res<fs::File> {
        let deadline = Instant::now() + LINE_TIMEOUT;
        loop {
            check_interrupted()?;
            match fs::OpenOptions::new()
                .write(true)
                .custom_flags(nix::libc::O_NONBLOCK)
                .open(&self.fifo)
            {
                Ok(f) => return Ok(f),
                Err(e) if e.raw_os_error() == Some(nix::libc::ENXIO) => {
                    if Instant::now() > deadline {
                        return Err("the flood pane never opened its gate".into());
                    }
                    std::thread::sleep(Duration::from_millis(1));
                },
                Err(e) => return Err(format!("open {}: {e}", self.fifo.display())),
            }
        }
    }
}

/// Lets the pane's shell go on to `cat`.
fn release(mut gate: fs::File) -> Res<()> {
    gate.write_all(b"\n").ctx(|| "write the gate".into())
}

/// One throughput run at one viewer.
#[derive(Debug, Clone, Default)]
pub struct FloodRun {
    /// Gate released → the viewer's last byte.
    pub secs: f64,
    /// Gate released → the viewer's first byte.
    pub first_ms: f64,
    /// `pty.data` events (`%output` lines) that carried the bytes.
    pub chunks: u64,
    /// Bytes the viewer read from its socket (pipe): the lines, framing included.
    pub wire_bytes: u64,
    /// The server's CPU during the run.
    pub cpu_s: f64,
    /// This process's CPU during the run: the viewer's reading and parsing.
    pub reader_cpu_s: f64,
    /// Why the viewer lost its stream (a slow-reader disconnect), with how far it got.
    pub failed: Option<String>,
}

impl FloodRun {
    fn mbps(&self, bytes: u64) -> Option<f64> {
        self.failed
            .is_none()
            .then(|| bytes as f64 / 1e6 / self.secs)
    }
}

#[derive(Debug, Clone, Default)]
pub struct FloodPair {
    pub signaltty: FloodRun,
    pub tmux: Option<FloodRun>,
    pub signaltty_first: bool,
}

/// A connection whose reads give up after `LINE_TIMEOUT`.
fn short_conn(server: &Server) -> Res<Conn> {
    Conn::connect(server.socket(), LINE_TIMEOUT, 256 * 1024)
}

/// The `output_offset` and `data_b64` of a `pty.data` event of `pane`.
fn pty_chunk<'a>(v: &'a Value, pane: &str) -> Option<(u64, &'a str)> {
    if v.get("event").and_then(Value::as_str) != Some("pty.data") {
        return None;
    }
    let p = v.get("payload")?;
    if p.get("pane_id").and_then(Value::as_str) != Some(pane) {
        return None;
    }
    Some((
        p.get("output_offset")?.as_u64()?,
        p.get("data_b64")?.as_str()?,
    ))
}

/// The error of a failed response (a slow-reader disconnect is one, id `?`).
fn failure(v: &Value) -> Option<String> {
    (v.get("ok").and_then(Value::as_bool) == Some(false)).then(|| {
        v.get("error")
            .map_or_else(|| v.to_string(), ToString::to_string)
    })
}

/// `cat` of the file in a fresh tab's pane, one connection attached before the gate
/// opens; until `output_offset` reaches the attach offset plus the PTY bytes.
fn flood_signaltty(
    server: &Server,
    conn: &mut Conn,
    ws: &str,
    gate: &Gate,
    file: &Path,
    flood: FloodFile,
) -> Res<FloodRun> {
    let tab = conn.create_tab(ws)?;
    let shell = gate.shell(file);
    let pane = conn.spawn(ws, &tab, &["sh", "-c", &shell])?;
    let mut viewer = short_conn(server)?;
    let attached = viewer.call("pane.attach", json!({"pane_id": pane}))?;
    let start = attached
        .get("output_offset")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("pane.attach returned no output_offset: {attached}"))?;
    let end = start + flood.pty_bytes();
    let fifo = gate.open()?;
    let cpu0 = cpu_seconds(server.pid())?;
    let reader0 = cpu_seconds(std::process::id())?;
    let t0 = Instant::now();
    release(fifo)?;
    let mut run = FloodRun::default();
    let mut covered = start;
    let mut first = None;
    while covered < end {
        check_interrupted()?;
        viewer.read_raw()?;
        run.wire_bytes += viewer.buf.len() as u64;
        let v: Value =
            serde_json::from_slice(&viewer.buf).ctx(|| "a line that is not JSON".into())?;
        if let Some(e) = failure(&v) {
            run.failed = Some(format!(
                "disconnected after {} of {} bytes: {e}",
                covered - start,
                end - start
            ));
            break;
        }
        let Some((offset, data)) = pty_chunk(&v, &pane) else {
            continue;
        };
        first.get_or_insert_with(|| t0.elapsed());
        run.chunks += 1;
        let chunk_start = offset.saturating_sub(b64::decoded_len(data) as u64);
        if chunk_start > covered {
            return Err(format!(
                "pty.data skipped bytes {covered}..{chunk_start} of pane {pane}"
            ));
        }
        covered = covered.max(offset);
    }
    run.secs = t0.elapsed().as_secs_f64();
    run.cpu_s = cpu_seconds(server.pid())? - cpu0;
    run.reader_cpu_s = cpu_seconds(std::process::id())? - reader0;
    run.first_ms = first.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
    if run.failed.is_none() && covered != end {
        return Err(format!(
            "the viewer got {} bytes, {} more than the file",
            covered - start,
            covered - end
        ));
    }
    drop(viewer);
    conn.call("pane.close", json!({"pane_id": pane}))?;
    conn.call("tab.close", json!({"tab_id": tab}))?;
    Ok(run)
}

/// The pane id and the (escaped) data of a `%output %ID DATA` line.
fn tmux_output(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = line.strip_prefix(b"%output ")?;
    let space = rest.iter().position(|&b| b == b' ')?;
    let data = &rest[space + 1..];
    Some((&rest[..space], data.strip_suffix(b"\n").unwrap_or(data)))
}

/// How many bytes `%output` data stands for: every byte below a space and every `\`
/// is sent as `\ooo`.
fn tmux_output_len(data: &[u8]) -> u64 {
    let escapes = data.iter().filter(|&&b| b == b'\\').count();
    (data.len() - 3 * escapes) as u64
}

/// Appends the bytes `%output` data stands for to `out`.
fn tmux_unescape(data: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\\' && data.len() - i >= 4 {
            let v = data[i + 1..i + 4]
                .iter()
                .fold(0u32, |v, &d| v * 8 + u32::from(d.wrapping_sub(b'0') & 7));
            out.push(v as u8);
            i += 4;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
}

/// tmux: the same shell in a fresh 80 × 24 session, one control client attached to
/// it before the gate opens; until its `%output` of the pane adds up to the PTY
/// bytes.
fn flood_tmux(
    tmux: &Tmux,
    pid: u32,
    gate: &Gate,
    file: &Path,
    flood: FloodFile,
    round: usize,
) -> Res<FloodRun> {
    let session = format!("flood{round}");
    let shell = gate.shell(file);
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "80",
        "-y",
        "24",
        &shell,
    ])?;
    let target = format!("{session}:");
    let pane = tmux
        .run(&["display-message", "-p", "-t", &target, "#{pane_id}"])?
        .trim()
        .to_owned();
    let mut ctl = TmuxControl::start(tmux, &["attach-session", "-t", &session])?;
    let size = ctl.command(
        &format!("display-message -p -t {pane} '#{{pane_width}}x#{{pane_height}}'\n"),
        1,
    )?;
    if size.trim() != "80x24" {
        return Err(format!("the tmux pane is {}, not 80x24", size.trim()));
    }
    let want = flood.pty_bytes();
    let fifo = gate.open()?;
    let cpu0 = cpu_seconds(pid)?;
    let reader0 = cpu_seconds(std::process::id())?;
    let t0 = Instant::now();
    release(fifo)?;
    let mut run = FloodRun::default();
    let mut got = 0;
    let mut first = None;
    while got < want {
        check_interrupted()?;
        let line = ctl.read_line()?;
        run.wire_bytes += line.len() as u64;
        if line.starts_with(b"%exit") {
            let why = String::from_utf8_lossy(line).trim_end().to_owned();
            run.failed = Some(format!("{why} after {got} of {want} bytes"));
            break;
        }
        let Some((id, data)) = tmux_output(line) else {
            continue;
        };
        if id != pane.as_bytes() {
            continue;
        }
        first.get_or_insert_with(|| t0.elapsed());
        run.chunks += 1;
        got += tmux_output_len(data);
    }
    run.secs = t0.elapsed().as_secs_f64();
    run.cpu_s = cpu_seconds(pid)? - cpu0;
    run.reader_cpu_s = cpu_seconds(std::process::id())? - reader0;
    run.first_ms = first.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
    if run.failed.is_none() && got != want {
        return Err(format!("tmux sent {got} bytes of output, not {want}"));
    }
    drop(ctl);
    tmux.run(&["kill-session", "-t", &session])?;
    Ok(run)
}

/// The state-event load beside an echo measurement.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub producers: usize,
    /// Calls completed while the timed echoes ran.
    pub calls: u64,
    pub secs: f64,
}

impl Load {
    pub fn per_sec(&self) -> f64 {
        self.calls as f64 / self.secs
    }
}

/// An echo latency distribution, with the load it ran under.
#[derive(Debug, Clone, Copy)]
pub struct Echo {
    pub lat: Dist,
    pub load: Option<Load>,
}

/// How often `needle` occurs in `haystack`.
fn occurrences(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// The i-th marker: unique, and no marker contains another.
fn marker(i: usize) -> String {
    format!("<{i:08}>")
}

/// Runs `measure` while `producers` threads run `produce(k, stop, calls)`, which
/// counts its completed calls in `calls` and returns once `stop` is set. Returns what
/// `measure` returned and the load over its timed part: from its first call of the
/// function it is given (`mark`) to its end.
fn under_load<T>(
    producers: usize,
    produce: impl Fn(usize, &AtomicBool, &AtomicU64) -> Res<()> + Sync,
    measure: impl FnOnce(&dyn Fn()) -> Res<T>,
) -> Res<(T, Option<Load>)> {
    let stop = AtomicBool::new(false);
    let calls = AtomicU64::new(0);
    let mark: std::sync::Mutex<Option<(u64, Instant)>> = std::sync::Mutex::new(None);
    let mark_now = || {
        if let Ok(mut m) = mark.lock()
            && m.is_none()
        {
            *m = Some((calls.load(Ordering::Relaxed), Instant::now()));
        }
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..producers)
            .map(|k| {
                let (stop, calls, produce) = (&stop, &calls, &produce);
                s.spawn(move || produce(k, stop, calls))
            })
            .collect();
        let measured = (|| {
            let deadline = Instant::now() + LOAD_START_LIMIT;
            while calls.load(Ordering::Relaxed) < 10 * producers as u64 {
                check_interrupted()?;
                if Instant::now() > deadline {
                    return Err("the producers made no progress".to_owned());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            measure(&mark_now)
        })();
        let end = (calls.load(Ordering::Relaxed), Instant::now());
        stop.store(true, Ordering::Relaxed);
        let mut failed = None;
        for w in workers {
            let result = w
                .join()
                .unwrap_or_else(|_| Err("a producer thread panicked".into()));
            if let Err(e) = result {
                failed.get_or_insert(format!("producer: {e}"));
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        let value = measured?;
        let load = match mark.lock().ok().and_then(|m| *m) {
            Some((c0, t0)) if producers > 0 => Some(Load {
                producers,
                calls: end.0 - c0,
                secs: (end.1 - t0).as_secs_f64(),
            }),
            _ => None,
        };
        Ok((value, load))
    })
}

/// One signaltty echo: `pane.input` of marker + CR on `input` → the first `pty.data`
/// on `viewer` in which the marker is complete. Then, untimed, `cat`'s copy of the
/// line and the input's reply.
fn echo_signaltty_once(viewer: &mut Conn, input: &mut Conn, pane: &str, i: usize) -> Res<Duration> {
    let marker = marker(i);
    let id = format!("e{i}");
    let data = b64::encode(format!("{marker}\r").as_bytes());
    let line = request_line(
        &id,
        "pane.input",
        &json!({"pane_id": pane, "data_b64": data}),
    );
    let mut seen = Vec::with_capacity(64);
    let mut took = None;
    let t = Instant::now();
    input.write(line.as_bytes())?;
    // The line discipline's echo first, then cat's copy of the line.
    while occurrences(&seen, marker.as_bytes()) < 2 {
        viewer.read_raw()?;
        let at = t.elapsed();
        let v: Value =
            serde_json::from_slice(&viewer.buf).ctx(|| "a line that is not JSON".into())?;
        if let Some(e) = failure(&v) {
            return Err(format!("the viewer was disconnected: {e}"));
        }
        if let Some((_, data)) = pty_chunk(&v, pane) {
            b64::decode_into(data, &mut seen)?;
            if took.is_none() && occurrences(&seen, marker.as_bytes()) > 0 {
                took = Some(at);
            }
        }
    }
    input.wait_reply(&id, "pane.input")?;
    took.ok_or_else(|| "no echo".into())
}

/// Spaces one producer's calls so that `producers` of them make `rate` calls a
/// second together; no spacing without a rate.
struct Pace {
    start: Instant,
    every: Option<Duration>,
    calls: u32,
}

impl Pace {
    fn new(rate: Option<f64>, producers: usize) -> Pace {
        Pace {
            start: Instant::now(),
            every: rate
                .filter(|r| r.is_finite() && *r > 0.0)
                .map(|r| Duration::from_secs_f64(producers as f64 / r)),
            calls: 0,
        }
    }

    /// Sleeps until the next call is due; returns its number (from 1).
    fn next(&mut self) -> u32 {
        self.calls += 1;
        if let Some(every) = self.every {
            let due = self.start + every * self.calls;
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        self.calls
    }
}

/// A producer: `notify` on its own pane, one call at a time, until `stop`.
fn notify_producer(
    socket: &Path,
    pane: &str,
    mut pace: Pace,
    stop: &AtomicBool,
    calls: &AtomicU64,
) -> Res<()> {
    let mut c = Conn::connect(socket, LINE_TIMEOUT, 64 * 1024)?;
    let body = "The build finished; 3 tests failed in the parser module. ".repeat(3);
    while !stop.load(Ordering::Relaxed) {
        check_interrupted()?;
        let i = pace.next();
        c.call(
            "notify",
            json!({"pane_id": pane, "title": format!("load {i}"), "body": body, "severity": "info"}),
        )?;
        calls.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// signaltty echo latency on a `cat` pane, with `producers` notify producers (none:
/// idle) that together make at most `rate` calls a second when given.
fn echo_signaltty(
    server: &Server,
    conn: &mut Conn,
    ws: &str,
    n: usize,
    producers: usize,
    rate: Option<f64>,
) -> Res<Echo> {
    let tab = conn.create_tab(ws)?;
    let pane = conn.spawn(ws, &tab, &["cat"])?;
    let mut viewer = short_conn(server)?;
    viewer.call("pane.attach", json!({"pane_id": pane}))?;
    let mut input = short_conn(server)?;
    let mut load_tabs = Vec::new();
    let mut load_panes = Vec::new();
    for _ in 0..producers {
        let t = conn.create_tab(ws)?;
        load_panes.push(conn.spawn(ws, &t, &["sleep", "2147483647"])?);
        load_tabs.push(t);
    }
    let socket = server.socket();
    let (samples, load) = under_load(
        producers,
        |k, stop, calls| {
            let pace = Pace::new(rate, producers);
            notify_producer(socket, &load_panes[k], pace, stop, calls)
        },
        |mark| {
            sample(ECHO_WARMUP, n, |i| {
                if i == ECHO_WARMUP {
                    mark();
                }
                echo_signaltty_once(&mut viewer, &mut input, &pane, i)
            })
        },
    )?;
    drop(viewer);
    drop(input);
    for t in load_tabs.iter().chain([&tab]) {
        conn.call("tab.close", json!({"tab_id": t}))?;
    }
    Ok(Echo {
        lat: Dist::of_durations(samples).unwrap_or(Dist::NAN),
        load,
    })
}

/// One tmux echo: `send-keys -l MARKER ; send-keys Enter` on `input` → the first
/// `%output` of the pane on `viewer` in which the marker is complete.
fn echo_tmux_once(
    viewer: &mut TmuxControl,
    input: &mut TmuxControl,
    pane: &str,
    i: usize,
) -> Res<Duration> {
    let marker = marker(i);
    let line = format!("send-keys -t {pane} -l '{marker}' ; send-keys -t {pane} Enter\n");
    let mut seen = Vec::with_capacity(64);
    let mut took = None;
    let t = Instant::now();
    input.send(line.as_bytes())?;
    while occurrences(&seen, marker.as_bytes()) < 2 {
        let line = viewer.read_line()?;
        let at = t.elapsed();
        if line.starts_with(b"%exit") {
            return Err("the tmux viewer exited".into());
        }
        if let Some((id, data)) = tmux_output(line)
            && id == pane.as_bytes()
        {
            tmux_unescape(data, &mut seen);
            if took.is_none() && occurrences(&seen, marker.as_bytes()) > 0 {
                took = Some(at);
            }
        }
    }
    // The replies to the two commands.
    input.read_block()?;
    input.read_block()?;
    took.ok_or_else(|| "no echo".into())
}

/// A tmux producer: `set-option -p` of a user option on its own pane over its own
/// control client, one at a time, until `stop`.
fn set_option_producer(
    tmux: &Tmux,
    pane: &str,
    mut pace: Pace,
    stop: &AtomicBool,
    calls: &AtomicU64,
) -> Res<()> {
    let mut c = TmuxControl::start(tmux, &["attach-session", "-t", "keep"])?;
    while !stop.load(Ordering::Relaxed) {
        check_interrupted()?;
        let i = pace.next();
        c.command(&format!("set-option -p -t {pane} @bench 'load {i}'\n"), 1)?;
        calls.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// tmux echo latency on a `cat` pane in its own 80 × 24 session, viewed by one
/// control client and typed into by another, with `producers` set-option producers
/// that together make at most `rate` calls a second when given.
fn echo_tmux(dir: &TempDir, n: usize, producers: usize, rate: Option<f64>) -> Res<Echo> {
    let tmux = tmux_keep(dir)?;
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "echo",
        "-x",
        "80",
        "-y",
        "24",
        "cat",
    ])?;
    let pane = tmux
        .run(&["display-message", "-p", "-t", "echo:", "#{pane_id}"])?
        .trim()
        .to_owned();
    let load_panes = if producers > 0 {
        tmux.new_windows("keep", &vec!["sleep 2147483647".to_owned(); producers])?
    } else {
        Vec::new()
    };
    let mut viewer = TmuxControl::start(&tmux, &["attach-session", "-t", "echo"])?;
    let mut input = TmuxControl::start(&tmux, &["attach-session", "-t", "keep"])?;
    let (samples, load) = under_load(
        producers,
        |k, stop, calls| {
            let pace = Pace::new(rate, producers);
            set_option_producer(&tmux, &load_panes[k], pace, stop, calls)
        },
        |mark| {
            sample(ECHO_WARMUP, n, |i| {
                if i == ECHO_WARMUP {
                    mark();
                }
                echo_tmux_once(&mut viewer, &mut input, &pane, i)
            })
        },
    )?;
    Ok(Echo {
        lat: Dist::of_durations(samples).unwrap_or(Dist::NAN),
        load,
    })
}

pub struct ViewerResult {
    flood: FloodFile,
    pub pairs: Vec<FloodPair>,
    pub echo: Echo,
    pub echo_loaded: Option<Echo>,
    pub tmux_echo: Option<Echo>,
    pub tmux_echo_loaded: Option<Echo>,
    /// A 600-byte append + fdatasync on the journal's filesystem, idle: the floor of
    /// a journaled event's latency.
    pub sync: Dist,
}

pub fn bench_viewer(
    opts: &Opts,
    bin: &Path,
    dir: &TempDir,
    log: &dyn Fn(&str),
) -> Res<ViewerResult> {
    if opts.viewer_samples == 0 {
        return Err("--viewer-samples must be at least 1".into());
    }
    let file = dir.path().join("viewer.txt");
    log(&format!("viewer: generating {} MB", opts.viewer_mb));
    let flood = generate_file(&file, opts.viewer_mb * 1_000_000)?;
    let gate = Gate::new(dir)?;
    let server = start_server(bin, dir)?;
    let mut conn = crate::connect(&server)?;
    let ws = conn.create_workspace("bench", Some(Path::new("/tmp")))?;
    let tmux = if opts.no_tmux {
        None
    } else {
        let t = tmux_keep(dir)?;
        let pid = t.server_pid()?;
        Some((t, pid))
    };
    // Warm the page cache (not reported).
    fs::read(&file).ctx(|| format!("read {}", file.display()))?;
    let mut pairs = Vec::new();
    for round in 0..opts.iterations {
        check_interrupted()?;
        let mut pair = FloodPair {
            signaltty_first: round % 2 == 0,
            ..Default::default()
        };
        for step in 0..2 {
            if (step == 0) == pair.signaltty_first {
                log(&format!("viewer throughput {}: signaltty", round + 1));
                pair.signaltty = flood_signaltty(&server, &mut conn, &ws, &gate, &file, flood)?;
            } else if let Some((t, pid)) = &tmux {
                log(&format!("viewer throughput {}: tmux", round + 1));
                pair.tmux = Some(flood_tmux(t, *pid, &gate, &file, flood, round)?);
            }
        }
        pairs.push(pair);
    }
    drop(tmux);
    let _ = fs::remove_file(&file);
    let n = opts.viewer_samples;
    let p = opts.viewer_producers;
    let rate = (opts.viewer_rate > 0.0).then_some(opts.viewer_rate);
    log("viewer echo: signaltty idle");
    let echo = echo_signaltty(&server, &mut conn, &ws, n, 0, None)?;
    let echo_loaded = if p > 0 {
        log(&format!("viewer echo: signaltty, {p} notify producers"));
        Some(echo_signaltty(&server, &mut conn, &ws, n, p, rate)?)
    } else {
        None
    };
    drop(conn);
    drop(server);
    log("viewer: fdatasync floor");
    let sync = fdatasync_samples(&dir.path().join("viewer-sync-probe"), 600, ECHO_WARMUP, n)?;
    let (tmux_echo, tmux_echo_loaded) = if opts.no_tmux {
        (None, None)
    } else {
        log("viewer echo: tmux idle");
        let idle = echo_tmux(dir, n, 0, None)?;
        let loaded = if p > 0 {
            // At the rate the signaltty producers reached, so that both servers
            // handle as many state changes a second.
            let rate = echo_loaded.and_then(|e| e.load).map(|l| l.per_sec());
            log(&format!("viewer echo: tmux, {p} set-option producers"));
            Some(echo_tmux(dir, n, p, rate)?)
        } else {
            None
        };
        (Some(idle), loaded)
    };
    Ok(ViewerResult {
        flood,
        pairs,
        echo,
        echo_loaded,
        tmux_echo,
        tmux_echo_loaded,
        sync: Dist::of_durations(sync).unwrap_or(Dist::NAN),
    })
}

fn flood_json(r: &FloodRun, bytes: u64) -> Value {
    json!({
        "s": r.secs,
        "mb_s": r.mbps(bytes),
        "first_byte_ms": r.first_ms,
        "chunks": r.chunks,
        "wire_bytes": r.wire_bytes,
        "server_cpu_s": r.cpu_s,
        "reader_cpu_s": r.reader_cpu_s,
        "failed": r.failed,
    })
}

fn echo_json(e: &Echo) -> Value {
    json!({
        "latency": latency_json(&e.lat),
        "load": e.load.map(|l| json!({
            "producers": l.producers, "calls": l.calls, "s": l.secs, "per_s": l.per_sec(),
        })),
    })
}

impl ViewerResult {
    fn ratio(&self, p: &FloodPair) -> Option<f64> {
        let b = self.flood.pty_bytes();
        let ours = p.signaltty.mbps(b)?;
        Some(ours / p.tmux.as_ref()?.mbps(b)?)
    }

    /// The viewer tables.
    pub fn print(&self, o: &mut String) {
        let b = self.flood.pty_bytes();
        let _ = writeln!(
            o,
            "\nviewer throughput: a pane `cat`s {:.1} MB of base64 ({} lines of {LINE_COLS} columns, \
             80 × 24), one attached viewer; MB/s of the {:.1} MB the PTY delivers (ONLCR included)",
            self.flood.file_bytes() as f64 / 1e6,
            self.flood.lines,
            b as f64 / 1e6
        );
        let _ = writeln!(
            o,
            "{:<4} {:>5} | {:>9} {:>6} {:>8} {:>13} {:>5} {:>6} | {:>6} {:>6} {:>8} {:>13} {:>5} {:>6} | {:>5}",
            "pair",
            "first",
            "signaltty",
            "s",
            "first ms",
            "pty.data",
            "CPU s",
            "reader",
            "tmux",
            "s",
            "first ms",
            "%output",
            "CPU s",
            "reader",
            "ratio"
        );
        let chunks = |r: &FloodRun| {
            format!(
                "{} × {:.1}k",
                r.chunks,
                b as f64 / r.chunks.max(1) as f64 / 1024.0
            )
        };
        for (i, p) in self.pairs.iter().enumerate() {
            let t = p.tmux.as_ref();
            let _ = writeln!(
                o,
                "{:<4} {:>5} | {:>9} {:>6.3} {:>8.1} {:>13} {:>5.2} {:>6.2} | {:>6} {:>6} {:>8} {:>13} {:>5} {:>6} | {:>5}",
                i + 1,
                if p.signaltty_first { "ours" } else { "tmux" },
                opt(p.signaltty.mbps(b), 1),
                p.signaltty.secs,
                p.signaltty.first_ms,
                chunks(&p.signaltty),
                p.signaltty.cpu_s,
                p.signaltty.reader_cpu_s,
                opt(t.and_then(|r| r.mbps(b)), 1),
                opt(t.map(|r| r.secs), 3),
                opt(t.map(|r| r.first_ms), 1),
                t.map_or_else(|| "-".into(), chunks),
                opt(t.map(|r| r.cpu_s), 2),
                opt(t.map(|r| r.reader_cpu_s), 2),
                opt(self.ratio(p), 2),
            );
            for (who, r) in [("signaltty", Some(&p.signaltty)), ("tmux", t)] {
                if let Some(why) = r.and_then(|r| r.failed.as_ref()) {
                    let _ = writeln!(o, "     {who} viewer lost its stream: {why}");
                }
            }
        }
        let _ = writeln!(
            o,
            "(s: gate opened → the viewer's last byte; first ms: → its first byte; pty.data / \
             %output: lines the viewer read × mean KiB of PTY bytes; CPU s: the server process; \
             reader: this benchmark reading as the viewer, CPU s; ratio: signaltty MB/s / tmux MB/s)"
        );
        let _ = writeln!(
            o,
            "median: signaltty {} MB/s, tmux {} MB/s, ratio {}",
            opt(
                Some(median(
                    self.pairs.iter().filter_map(|p| p.signaltty.mbps(b))
                )),
                1
            ),
            opt(
                Some(median(
                    self.pairs
                        .iter()
                        .filter_map(|p| p.tmux.as_ref().and_then(|t| t.mbps(b)))
                )),
                1
            ),
            opt(
                Some(median(self.pairs.iter().filter_map(|p| self.ratio(p)))),
                2
            ),
        );

        let _ = writeln!(
            o,
            "\nviewer echo: `pane.input` of a marker + CR to a `cat` pane → the first `pty.data` \
             holding it at an attached viewer; tmux: `send-keys -l` + `Enter` over `tmux -C` → \
             `%output` at another control client (µs)"
        );
        let _ = writeln!(
            o,
            "{:<52} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "measurement", "n", "mean", "p50", "p90", "p99", "max"
        );
        let mut row = |name: String, l: &Dist| {
            let _ = writeln!(
                o,
                "{name:<52} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                l.n, l.mean, l.p50, l.p90, l.p99, l.max
            );
        };
        let loaded = |who: &str, what: &str, e: &Echo| match e.load {
            Some(l) => format!(
                "{who}, {} {what} producers: {:.0}/s",
                l.producers,
                l.per_sec()
            ),
            None => who.to_owned(),
        };
        row("signaltty idle".into(), &self.echo.lat);
        if let Some(e) = &self.echo_loaded {
            row(loaded("signaltty", "notify", e), &e.lat);
        }
        if let Some(e) = &self.tmux_echo {
            row("tmux idle".into(), &e.lat);
        }
        if let Some(e) = &self.tmux_echo_loaded {
            row(loaded("tmux", "set-option -p", e), &e.lat);
        }
        row(
            "600-byte append + fdatasync, same filesystem".into(),
            &self.sync,
        );
        let p50 = |e: Option<&Echo>| e.map(|e| e.lat.p50);
        let _ = writeln!(
            o,
            "(load: calls completed per second while the timed echoes ran, each producer on its \
             own connection and pane, one call in flight, paced by --viewer-rate if given; tmux's \
             paced to the rate signaltty's reached)"
        );
        let _ = writeln!(
            o,
            "p50: loaded / idle signaltty {}, tmux {}; signaltty / tmux idle {}, loaded {}",
            opt(
                p50(self.echo_loaded.as_ref()).map(|l| l / self.echo.lat.p50),
                2
            ),
            opt(
                p50(self.tmux_echo_loaded.as_ref())
                    .zip(p50(self.tmux_echo.as_ref()))
                    .map(|(l, i)| l / i),
                2
            ),
            opt(
                p50(self.tmux_echo.as_ref()).map(|t| self.echo.lat.p50 / t),
                2
            ),
            opt(
                p50(self.echo_loaded.as_ref())
                    .zip(p50(self.tmux_echo_loaded.as_ref()))
                    .map(|(s, t)| s / t),
                2
            ),
        );
    }

    pub fn json(&self) -> Value {
        let b = self.flood.pty_bytes();
        let pairs: Vec<Value> = self
            .pairs
            .iter()
            .map(|p| {
                json!({
                    "signaltty_first": p.signaltty_first,
                    "signaltty": flood_json(&p.signaltty, b),
                    "tmux": p.tmux.as_ref().map(|t| flood_json(t, b)),
                    "ratio": self.ratio(p),
                })
            })
            .collect();
        json!({
            "file_bytes": self.flood.file_bytes(),
            "file_lines": self.flood.lines,
            "pty_bytes": b,
            "pairs": pairs,
            "median_ratio": median(self.pairs.iter().filter_map(|p| self.ratio(p))),
            "echo_idle": echo_json(&self.echo),
            "echo_loaded": self.echo_loaded.as_ref().map(echo_json),
            "tmux_echo_idle": self.tmux_echo.as_ref().map(echo_json),
            "tmux_echo_loaded": self.tmux_echo_loaded.as_ref().map(echo_json),
            "fdatasync": latency_json(&self.sync),
        })
    }
}
