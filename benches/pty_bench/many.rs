//! Many: whether a pane answers as quickly with a thousand idle panes beside it
//! as with ten. One server; `cat` panes, each in its own tab. With 10 panes, then
//! with `--many-panes`: sequential `pane.read` (tail, 10 lines) of the first ten
//! panes in turn, and an input round trip (`pane.input` of a marker line, then
//! `pane.read` in a tight loop until `cat` printed it back). No tmux peer: the
//! question is signaltty against itself.

use crate::common::client::Conn;
use crate::common::client::{request_line, str_at};
use crate::common::stats::{Dist, sample};
use crate::common::tempdir::TempDir;
use crate::common::{Context, Res};
use crate::{Opts, connect, latency_json, start_server};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

const WARMUP: usize = 50;
/// The panes whose reads and echoes are timed.
const SAMPLED: usize = 10;

pub struct Row {
    pub panes: usize,
    /// Seconds to start the panes added for this row.
    pub spawn_s: f64,
    pub read: Dist,
    pub echo: Dist,
}

pub struct ManyResult {
    pub rows: Vec<Row>,
}

fn timed_read(conn: &mut Conn, pane: &str, id: &str) -> Res<Duration> {
    let params = json!({"pane_id": pane, "mode": "tail", "lines": 10});
    let line = request_line(id, "pane.read", &params);
    let t = Instant::now();
    conn.round_trip(line.as_bytes())?;
    Ok(t.elapsed())
}

fn timed_echo(conn: &mut Conn, pane: &str, i: usize) -> Res<Duration> {
    let marker = format!("m{i:08}");
    let data = crate::common::b64::encode(format!("{marker}\r").as_bytes());
    let t = Instant::now();
    conn.call("pane.input", json!({"pane_id": pane, "data_b64": data}))?;
    loop {
        let v = conn.call(
            "pane.read",
            json!({"pane_id": pane, "mode": "tail", "lines": 4}),
        )?;
        // The terminal's echo, then cat's copy.
        if str_at(&v, &["text"])?.matches(marker.as_str()).count() >= 2 {
            return Ok(t.elapsed());
        }
        if t.elapsed() > Duration::from_secs(10) {
            return Err(format!("{pane} did not print {marker} back"));
        }
    }
}

/// How long the panes are left before the sampling.
const IDLE: Duration = Duration::from_secs(6);

pub fn bench_many(opts: &Opts, bin: &Path, dir: &TempDir, log: &dyn Fn(&str)) -> Res<ManyResult> {
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    let ws = conn.create_workspace("many", Some(Path::new("/tmp")))?;
    let mut panes: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for target in [SAMPLED, opts.many_panes.max(SAMPLED)] {
        log(&format!("many: {target} panes"));
        let t = Instant::now();
        while panes.len() < target {
            let tab = conn.create_tab(&ws)?;
            panes.push(conn.spawn(&ws, &tab, &["cat"])?);
        }
        let spawn_s = t.elapsed().as_secs_f64();
        // Idle panes: the burst's own work (the snapshots of the new panes,
        // the first process scan) ends before the sampling starts; sampled
        // 1 s after a thousand spawns, the echo's p99 read 1.1-1.7 ms
        // instead of 0.5-0.8.
        std::thread::sleep(IDLE);
        let n = opts.reads.min(2000);
        let reads = sample(WARMUP, n, |i| {
            timed_read(&mut conn, &panes[i % SAMPLED], &format!("r{target}-{i}"))
        })?;
        let echoes = sample(WARMUP / 5, n / 4, |i| {
            timed_echo(&mut conn, &panes[i % SAMPLED], target * 100_000 + i)
        })?;
        let status = conn.call("server.status", json!({}))?;
        if status.get("live_panes").and_then(Value::as_u64) != Some(target as u64) {
            return Err(format!("expected {target} live panes: {status}"))
                .ctx(|| "server.status".into());
        }
        rows.push(Row {
            panes: target,
            spawn_s,
            read: Dist::of_durations(reads).unwrap_or(Dist::NAN),
            echo: Dist::of_durations(echoes).unwrap_or(Dist::NAN),
        });
    }
    Ok(ManyResult { rows })
}

impl ManyResult {
    pub fn print(&self, o: &mut String) {
        let _ = writeln!(
            o,
            "\nmany: idle cat panes; pane.read tail 10 and input round trip (pane.input, then \
             pane.read until cat printed the line back) over the first {SAMPLED} panes, µs"
        );
        let _ = writeln!(
            o,
            "{:>6} {:>9} | {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8}",
            "panes", "spawn s", "read p50", "p99", "max", "echo p50", "p99", "max"
        );
        for r in &self.rows {
            let _ = writeln!(
                o,
                "{:>6} {:>9.1} | {:>8.0} {:>8.0} {:>8.0} | {:>8.0} {:>8.0} {:>8.0}",
                r.panes,
                r.spawn_s,
                r.read.p50,
                r.read.p99,
                r.read.max,
                r.echo.p50,
                r.echo.p99,
                r.echo.max
            );
        }
    }

    pub fn json(&self) -> Value {
        self.rows
            .iter()
            .map(|r| {
                json!({"panes": r.panes, "spawn_s": r.spawn_s, "read": latency_json(&r.read),
                       "echo": latency_json(&r.echo)})
            })
            .collect()
    }
}
