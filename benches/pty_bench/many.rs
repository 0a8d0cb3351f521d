//! Many panes: the server with 10 idle bash panes, then with N (1000 by
//! default): its RSS, threads and descriptors, what each pane added, and the
//! latency of `pane.read`, `pane.get` and `server.status` at both sizes, so a
//! thousand panes can be seen to cost their memory and nothing else.

use crate::common::client::{Conn, request_line};
use crate::common::procfs::{proc_status_kb, rss_kb};
use crate::common::stats::{Dist, sample};
use crate::common::tempdir::TempDir;
use crate::common::{Res, check_interrupted};
use crate::prompt::{BASH, SETTLE, wait_prompts};
use crate::{connect, latency_json, opt, start_server};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// Panes of the small measurement.
const FEW: usize = 10;
const WARMUP: usize = 50;

/// The server at one size.
pub struct Size {
    pub panes: usize,
    pub rss_kb: u64,
    pub threads: u64,
    pub fds: usize,
    pub read: Dist,
    pub get: Dist,
    pub status: Dist,
}

pub struct ManyResult {
    pub rss0_kb: u64,
    pub few: Size,
    pub many: Size,
    /// Seconds to spawn the panes between the two sizes and see their prompts.
    pub spawn_s: f64,
}

/// `n` timed calls of `method`, the params for call `i` from `params`.
fn latency(conn: &mut Conn, method: &str, n: usize, params: impl Fn(usize) -> Value) -> Res<Dist> {
    let samples = sample(WARMUP, n, |i| {
        let id = format!("m{i}");
        let line = request_line(&id, method, &params(i));
        let t = Instant::now();
        conn.round_trip(line.as_bytes())?;
        let dt = t.elapsed();
        let v: Value = serde_json::from_slice(&conn.buf).map_err(|e| format!("reply: {e}"))?;
        if v.get("ok").and_then(Value::as_bool) != Some(true) {
            return Err(format!("{method} failed: {v}"));
        }
        Ok(dt)
    })?;
    Ok(Dist::of_durations(samples).unwrap_or(Dist::NAN))
}

fn measure(conn: &mut Conn, pid: u32, panes: &[String], n: usize) -> Res<Size> {
    std::thread::sleep(SETTLE);
    let pick = |i: usize| json!({ "pane_id": panes[(i * 7919) % panes.len()] });
    let read = latency(conn, "pane.read", n, |i| {
        let mut p = pick(i);
        p["mode"] = json!("screen");
        p
    })?;
    let get = latency(conn, "pane.get", n, pick)?;
    let status = latency(conn, "server.status", n, |_| json!({}))?;
    Ok(Size {
        panes: panes.len(),
        rss_kb: rss_kb(pid)?,
        threads: proc_status_kb(pid, "Threads")?,
        fds: std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map_err(|e| format!("/proc/{pid}/fd: {e}"))?
            .count(),
        read,
        get,
        status,
    })
}

pub fn bench_many(bin: &Path, dir: &TempDir, panes: usize, reads: usize) -> Res<ManyResult> {
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    let ws = conn.create_workspace("many", Some(Path::new("/tmp")))?;
    std::thread::sleep(SETTLE);
    let rss0 = rss_kb(server.pid())?;
    let mut ids = Vec::with_capacity(panes);
    for _ in 0..FEW {
        let tab = conn.create_tab(&ws)?;
        ids.push(conn.spawn(&ws, &tab, BASH)?);
    }
    wait_prompts(&mut conn, &ids)?;
    let few = measure(&mut conn, server.pid(), &ids, reads)?;
    let t = Instant::now();
    let mut more = Vec::with_capacity(panes - FEW);
    for _ in FEW..panes {
        check_interrupted()?;
        let tab = conn.create_tab(&ws)?;
        more.push(conn.spawn(&ws, &tab, BASH)?);
    }
    wait_prompts(&mut conn, &more)?;
    let spawn_s = t.elapsed().as_secs_f64();
    ids.extend(more);
    let many = measure(&mut conn, server.pid(), &ids, reads)?;
    Ok(ManyResult {
        rss0_kb: rss0,
        few,
        many,
        spawn_s,
    })
}

impl ManyResult {
    /// Server RSS per pane between the two sizes, in kB.
    pub fn per_pane_kb(&self) -> f64 {
        (self.many.rss_kb as f64 - self.few.rss_kb as f64)
            / (self.many.panes as f64 - self.few.panes as f64)
    }

    pub fn print(&self, o: &mut String) {
        let _ = writeln!(
            o,
            "\nmany: the server with {} and {} idle bash panes (one per tab); latencies in µs",
            self.few.panes, self.many.panes
        );
        let _ = writeln!(
            o,
            "{:>6} {:>9} {:>8} {:>6} | {:>16} {:>16} {:>16}",
            "panes", "RSS kB", "threads", "fds", "read p50/p99", "get p50/p99", "status p50/p99"
        );
        for s in [&self.few, &self.many] {
            let pair = |d: &Dist| format!("{}/{}", opt(Some(d.p50), 0), opt(Some(d.p99), 0));
            let _ = writeln!(
                o,
                "{:>6} {:>9} {:>8} {:>6} | {:>16} {:>16} {:>16}",
                s.panes,
                s.rss_kb,
                s.threads,
                s.fds,
                pair(&s.read),
                pair(&s.get),
                pair(&s.status)
            );
        }
        let _ = writeln!(
            o,
            "no panes: {} kB; {:.1} kB per pane between the two sizes; {} panes spawned to prompts in {:.1} s",
            self.rss0_kb,
            self.per_pane_kb(),
            self.many.panes - self.few.panes,
            self.spawn_s
        );
    }

    pub fn json(&self) -> Value {
        let size = |s: &Size| {
            json!({ "panes": s.panes, "rss_kb": s.rss_kb, "threads": s.threads, "fds": s.fds,
                    "read": latency_json(&s.read), "get": latency_json(&s.get),
                    "status": latency_json(&s.status) })
        };
        json!({ "rss0_kb": self.rss0_kb, "few": size(&self.few), "many": size(&self.many),
                "per_pane_kb": self.per_pane_kb(), "spawn_s": self.spawn_s })
    }
}
