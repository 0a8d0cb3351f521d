//! The request-latency scenarios: `server.status` round trips on one connection, on a
//! connection each, pipelined, and `signaltty status` as a whole process; beside them
//! the `/bin/true` spawn floor and, with `--peer-tmux`, tmux control mode and CLI.

use crate::Opts;
use crate::common::stats::{Dist, sample};
use crate::common::tempdir::TempDir;
use crate::common::tmux::{Tmux, TmuxControl};
use crate::common::{Context, Res, machine};
use crate::wire::{check_reply, connect, read_line_raw, status_line};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One scenario's result.
#[derive(Debug)]
pub struct Summary {
    key: &'static str,
    label: String,
    /// Measured operations (warm-up excluded).
    n: usize,
    /// Operations per second over the whole measured loop.
    per_sec: f64,
    /// Latency percentiles in µs; `None` for throughput-only scenarios.
    lat: Option<Dist>,
}

/// ops/s = n / the sum of the latencies.
fn summarize(key: &'static str, label: String, samples: Vec<Duration>) -> Summary {
    let total: Duration = samples.iter().sum();
    Summary {
        key,
        label,
        n: samples.len(),
        per_sec: samples.len() as f64 / total.as_secs_f64(),
        lat: Dist::of_durations(samples),
    }
}

/// The tmux server label of the peer scenarios.
pub const TMUX_LABEL: &str = "signaltty-bench";

/// Runs the latency group.
pub fn run(
    opts: &Opts,
    bin: &Path,
    socket: &Path,
    dir: &TempDir,
    progress: &dyn Fn(&str),
) -> Res<Vec<Summary>> {
    let mut results = Vec::new();
    progress("persistent connection");
    results.push(bench_persistent(socket, 2_000, opts.requests)?);
    progress("connection per request");
    results.push(bench_conn_per_request(socket, 500, opts.connections)?);
    if opts.pipeline_rounds > 0 && opts.pipeline_depth > 0 {
        progress("pipelined");
        results.push(bench_pipelined(
            socket,
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
            let mut c = Command::new(bin);
            c.arg("--socket").arg(socket).arg("status");
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
        let tmux = Tmux::new(dir, TMUX_LABEL)?;
        // Attached through the CLI runs as well, as tmux is when in use.
        let mut control = tmux_control(&tmux)?;
        results.push(bench_tmux_control(
            &mut control,
            &opts.tmux_command,
            2_000,
            opts.requests,
        )?);
        progress("tmux CLI processes");
        let words: Vec<&str> = opts.tmux_command.split_whitespace().collect();
        results.push(bench_process(
            "tmux_cli",
            format!("tmux: `tmux {}`, whole process", opts.tmux_command),
            || {
                let mut c = tmux.command();
                c.args(&words);
                c
            },
            cli_warmup,
            opts.cli_runs,
        )?);
    }
    Ok(results)
}

/// A control-mode client on a new session whose pane runs a silent program, so no
/// `%output` interleaves with the replies.
pub fn tmux_control(tmux: &Tmux) -> Res<TmuxControl> {
    TmuxControl::start(
        tmux,
        &["new-session", "-x", "80", "-y", "24", "sleep 2147483647"],
    )
}

/// Scenario 1: sequential round trips on one connection.
fn bench_persistent(socket: &Path, warmup: usize, n: usize) -> Res<Summary> {
    let stream = connect(socket)?;
    let mut writer = stream.try_clone().ctx(|| "socket".into())?;
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    let mut buf = Vec::with_capacity(512);
    let samples = sample(warmup, n, |i| {
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
        Ok(dt)
    })?;
    Ok(summarize(
        "persistent",
        "signaltty: server.status, one persistent connection".into(),
        samples,
    ))
}

/// Scenario 2: a new connection per request (connect + write + read reply).
fn bench_conn_per_request(socket: &Path, warmup: usize, n: usize) -> Res<Summary> {
    let mut buf = Vec::with_capacity(512);
    let samples = sample(warmup, n, |i| {
        let id = i.to_string();
        let line = status_line(&id);
        let t = Instant::now();
        let mut s = UnixStream::connect(socket).ctx(|| "connect".into())?;
        s.write_all(line.as_bytes()).ctx(|| "write".into())?;
        read_line_raw(&mut s, &mut buf)?;
        let dt = t.elapsed();
        drop(s);
        check_reply(&buf, &id)?;
        Ok(dt)
    })?;
    Ok(summarize(
        "conn_per_request",
        "signaltty: server.status, one connection per request".into(),
        samples,
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
    let times = sample(warmup, rounds, |r| {
        let (text, ids) = &batches[r];
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
        Ok(t.elapsed())
    })?;
    let total: Duration = times.iter().sum();
    Ok(Summary {
        key: "pipelined",
        label: format!("signaltty: server.status, pipelined {depth} at a time"),
        n: depth * rounds,
        per_sec: (depth * rounds) as f64 / total.as_secs_f64(),
        lat: None,
    })
}

/// Whole-process time of a command (spawn → exit), stdout and stderr to /dev/null.
fn bench_process(
    key: &'static str,
    label: String,
    mut make: impl FnMut() -> Command,
    warmup: usize,
    n: usize,
) -> Res<Summary> {
    let samples = sample(warmup, n, |_| {
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
        Ok(dt)
    })?;
    Ok(summarize(key, label, samples))
}

/// Sequential round trips of `command` on the control connection.
fn bench_tmux_control(
    control: &mut TmuxControl,
    command: &str,
    warmup: usize,
    n: usize,
) -> Res<Summary> {
    let line = format!("{command}\n");
    let samples = sample(warmup, n, |_| {
        let t = Instant::now();
        control.send(line.as_bytes())?;
        control.read_block()?;
        Ok(t.elapsed())
    })?;
    Ok(summarize(
        "tmux_control",
        format!("tmux -C: `{command}`, one control connection"),
        samples,
    ))
}

// The report: the targets, the table and the JSON.

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

fn metric(lat: &Dist, name: &str) -> f64 {
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

pub fn print_table(out: &mut String, results: &[Summary]) {
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

pub fn to_json(results: &[Summary], server: &str, bin: &Path) -> Value {
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
        "machine": machine::describe(),
        "bin": bin.display().to_string(),
        "server": server,
        "scenarios": scenarios,
        "targets": targets,
        "signaltty_over_tmux": ratios,
    })
}
