//! `signaltty-pty-bench`: what a pane costs (ingest, memory, spawn and read) and what
//! its viewer receives (viewer), one module each, with tmux measured in the same run
//! (see docs/performance-pty.md). Its servers and private tmux servers run on a
//! temporary directory and are stopped and removed at the end, also on Ctrl-C/SIGTERM.

#[path = "../common/mod.rs"]
mod common;
mod ingest;
mod many;
mod memory;
mod prompt;
mod read;
mod spawn;
mod spinner;
mod viewer;

use clap::{Parser, ValueEnum};
use common::client::Conn;
use common::server::Server;
use common::stats::{Dist, median};
use common::tempdir::TempDir;
use common::tmux::Tmux;
use common::{Res, WHO, check_interrupted, machine, run_output};
use ingest::IngestResult;
use memory::Memory;
use read::ReadResult;
use serde_json::{Value, json};
use spawn::Spawn;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;
use viewer::ViewerResult;

/// PTY benchmarks of signaltty, with tmux measured in the same run.
#[derive(Debug, Parser)]
#[command(name = "signaltty-pty-bench")]
struct Opts {
    /// The signaltty binary to start (default: `signaltty` next to this executable,
    /// i.e. target/release/signaltty).
    #[arg(long, value_name = "PATH")]
    bin: Option<PathBuf>,
    /// Run only these scenarios (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Scenario>,
    /// Repetitions of the ingest pairs, of the memory and spawn runs and of the viewer
    /// throughput pairs.
    #[arg(long, default_value_t = 3)]
    iterations: usize,
    /// Size of the generated ingest file, in MB (10^6 bytes).
    #[arg(long, default_value_t = 100)]
    ingest_mb: u64,
    /// Panes (and tmux windows) in the memory and spawn scenarios.
    #[arg(long, default_value_t = 50)]
    panes: usize,
    /// Timed `pane.read` requests per mode (and tmux `capture-pane` round trips).
    #[arg(long, default_value_t = 2000)]
    reads: usize,
    /// Size of the viewer scenario's generated file of base64 lines, in MB (10^6 bytes).
    #[arg(long, default_value_t = 64)]
    viewer_mb: u64,
    /// Timed keystroke echoes per viewer latency measurement.
    #[arg(long, default_value_t = 1000)]
    viewer_samples: usize,
    /// Producer connections (tmux: control clients) publishing state events during
    /// the loaded echo measurement; 0 skips it.
    #[arg(long, default_value_t = 4)]
    viewer_producers: usize,
    /// The calls a second the producers make together at most (0: as many as they
    /// can, one call in flight each). Fix it to compare two binaries at one load.
    #[arg(long, default_value_t = 0.0)]
    viewer_rate: f64,
    /// Idle panes of the `many` scenario's second measurement.
    #[arg(long, default_value_t = 1000)]
    many_panes: usize,
    /// Pane counts of the spinner scenario (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "50,200")]
    spinner_panes: Vec<usize>,
    /// Seconds of the spinner scenario's measured window.
    #[arg(long, default_value_t = 10)]
    spinner_secs: u64,
    /// Skip the tmux peer measurements.
    #[arg(long)]
    no_tmux: bool,
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scenario {
    Ingest,
    Memory,
    Spawn,
    Read,
    Viewer,
    Spinner,
    /// Not in the default run: `--only many`.
    Many,
}

/// The tmux server label of the peer measurements.
const TMUX_LABEL: &str = "ptybench";

/// A connection to `server`. Generous timeout: the ingest scenario waits on it for
/// the whole transfer.
fn connect(server: &Server) -> Res<Conn> {
    Conn::connect(server.socket(), Duration::from_secs(600), 256 * 1024)
}

/// A signaltty server on a fresh directory of `dir`.
fn start_server(bin: &Path, dir: &TempDir) -> Res<Server> {
    Server::start(bin, &dir.fresh("server")?, &[])
}

/// A private tmux server.
fn new_tmux(dir: &TempDir) -> Res<Tmux> {
    Tmux::new(dir, TMUX_LABEL)
}

/// A private tmux server with a session `keep` whose pane runs a silent program.
fn tmux_keep(dir: &TempDir) -> Res<Tmux> {
    let tmux = new_tmux(dir)?;
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "keep",
        "-x",
        "80",
        "-y",
        "24",
        "sleep 2147483647",
    ])?;
    Ok(tmux)
}

fn latency_json(l: &Dist) -> Value {
    json!({ "n": l.n, "mean_us": l.mean, "p50_us": l.p50, "p90_us": l.p90,
            "p99_us": l.p99, "max_us": l.max })
}

/// `v` with `digits` decimals, or `-` when absent or NaN.
fn opt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(v) if !v.is_nan() => format!("{v:.digits$}"),
        _ => "-".into(),
    }
}

// ---------------------------------------------------------------------------------
// Report

#[derive(Default)]
struct Results {
    ingest: Option<IngestResult>,
    memory: Vec<(Memory, Option<Memory>)>,
    spawn: Vec<(Spawn, Option<Spawn>)>,
    read: Option<ReadResult>,
    viewer: Option<ViewerResult>,
    spinner: Vec<(spinner::Spin, Option<spinner::Spin>)>,
    many: Option<many::ManyResult>,
}

struct Verdict {
    what: String,
    measured: String,
    pass: Option<bool>,
}

/// The targets of the issue. The memory and spawn targets are stated for 50 panes:
/// with another `--panes` they are reported but not judged.
fn verdicts(r: &Results, panes: usize) -> Vec<Verdict> {
    let judged = panes == 50;
    let mut out = Vec::new();
    if let Some(ing) = &r.ingest {
        let ratio = median(
            ing.pairs
                .iter()
                .filter_map(|p| p.tmux_s.map(|t| t / p.signaltty_s)),
        );
        out.push(Verdict {
            what: "ingest: >= 1.5x tmux (median of the pairs' ratios)".into(),
            measured: format!("{}x", opt(Some(ratio), 2)),
            pass: (!ratio.is_nan()).then_some(ratio >= 1.5),
        });
    }
    if !r.memory.is_empty() {
        let per = median(r.memory.iter().map(|(m, _)| m.per_pane_kb));
        out.push(Verdict {
            what: format!("memory: <= 100 kB per idle bash pane, 1 vs {panes} (median)"),
            measured: format!("{per:.1} kB"),
            pass: judged.then_some(per <= 100.0),
        });
        let one = median(r.memory.iter().map(|(m, _)| m.rss1_kb as f64));
        out.push(Verdict {
            what: "memory: server with one pane < 15 MB (median)".into(),
            measured: format!("{:.2} MB ({one:.0} kB)", one * 1024.0 / 1e6),
            pass: Some(one * 1024.0 < 15e6),
        });
    }
    if !r.spawn.is_empty() {
        let total = median(r.spawn.iter().map(|(s, _)| s.total_ms));
        out.push(Verdict {
            what: format!("spawn: {panes} bash panes to prompts <= 150 ms (median)"),
            measured: format!("{total:.1} ms"),
            pass: judged.then_some(total <= 150.0),
        });
    }
    out
}

fn print_table(r: &Results, header: &str, panes: usize) {
    let mut o = String::new();
    let _ = writeln!(o, "{header}");
    if let Some(ing) = &r.ingest {
        ing.print(&mut o);
    }
    if !r.memory.is_empty() {
        memory::print(&r.memory, panes, &mut o);
    }
    if !r.spawn.is_empty() {
        spawn::print(&r.spawn, panes, &mut o);
    }
    if let Some(rd) = &r.read {
        rd.print(&mut o);
    }
    if let Some(v) = &r.viewer {
        v.print(&mut o);
    }
    if !r.spinner.is_empty() {
        spinner::print(&r.spinner, &mut o);
    }
    if let Some(m) = &r.many {
        m.print(&mut o);
    }
    let v = verdicts(r, panes);
    if !v.is_empty() {
        let _ = writeln!(o, "\ntargets:");
        for t in v {
            let verdict = match t.pass {
                Some(true) => "PASS",
                Some(false) => "FAIL",
                None => "n/a ",
            };
            let _ = writeln!(o, "  {verdict}  {:<52} measured {}", t.what, t.measured);
        }
    }
    print!("{o}");
}

fn to_json(r: &Results, machine: Value, bin: &Path, panes: usize) -> Value {
    let mut out = json!({ "machine": machine, "bin": bin.display().to_string(), "panes": panes });
    if let Some(ing) = &r.ingest {
        out["ingest"] = ing.json();
    }
    if !r.memory.is_empty() {
        out["memory"] = memory::json(&r.memory);
    }
    if !r.spawn.is_empty() {
        out["spawn"] = spawn::json(&r.spawn);
    }
    if let Some(rd) = &r.read {
        out["read"] = rd.json();
    }
    if let Some(v) = &r.viewer {
        out["viewer"] = v.json();
    }
    if !r.spinner.is_empty() {
        out["spinner"] = spinner::json(&r.spinner);
    }
    if let Some(m) = &r.many {
        out["many"] = m.json();
    }
    out["targets"] = verdicts(r, panes)
        .into_iter()
        .map(|v| json!({ "target": v.what, "measured": v.measured, "pass": v.pass }))
        .collect();
    out
}
/// `--iterations` runs of a scenario: signaltty, then tmux unless `--no-tmux`.
fn repeat<T>(
    opts: &Opts,
    log: &dyn Fn(&str),
    name: &str,
    ours: impl Fn() -> Res<T>,
    theirs: impl Fn() -> Res<T>,
) -> Res<Vec<(T, Option<T>)>> {
    let mut runs = Vec::with_capacity(opts.iterations);
    for i in 0..opts.iterations {
        check_interrupted()?;
        log(&format!("{name} {}: signaltty", i + 1));
        let ours = ours()?;
        let theirs = if opts.no_tmux {
            None
        } else {
            log(&format!("{name} {}: tmux", i + 1));
            Some(theirs()?)
        };
        runs.push((ours, theirs));
    }
    Ok(runs)
}

fn run(opts: &Opts) -> Res<()> {
    let bin = common::signaltty_bin(opts.bin.as_deref())?;
    if opts.panes < 2 {
        return Err("--panes must be at least 2".into());
    }
    if opts.iterations == 0 {
        return Err("--iterations must be at least 1".into());
    }
    if !opts.no_tmux && run_output(Command::new("tmux").arg("-V")).is_err() {
        return Err("tmux not found (apt-get install -y tmux, or pass --no-tmux)".into());
    }
    let wanted =
        |s: Scenario| opts.only.contains(&s) || (opts.only.is_empty() && s != Scenario::Many);
    let quiet = opts.json;
    let log = move |what: &str| {
        if !quiet {
            eprintln!("{WHO}: {what} ...");
        }
    };
    let dir = TempDir::new()?;
    let mut results = Results::default();
    let load_before = machine::loadavg();

    if wanted(Scenario::Ingest) {
        results.ingest = Some(ingest::bench_ingest(opts, &bin, &dir, &log)?);
    }
    if wanted(Scenario::Memory) {
        results.memory = repeat(
            opts,
            &log,
            "memory",
            || memory::signaltty(&bin, &dir, opts.panes),
            || memory::tmux(&dir, opts.panes),
        )?;
    }
    if wanted(Scenario::Spawn) {
        results.spawn = repeat(
            opts,
            &log,
            "spawn",
            || spawn::signaltty(&bin, &dir, opts.panes),
            || spawn::tmux(&dir, opts.panes),
        )?;
    }
    if wanted(Scenario::Read) {
        results.read = Some(read::bench_read(opts, &bin, &dir, &log)?);
    }
    if wanted(Scenario::Viewer) {
        results.viewer = Some(viewer::bench_viewer(opts, &bin, &dir, &log)?);
    }
    if wanted(Scenario::Many) {
        results.many = Some(many::bench_many(opts, &bin, &dir, &log)?);
    }
    if wanted(Scenario::Spinner) {
        let window = Duration::from_secs(opts.spinner_secs);
        for &panes in &opts.spinner_panes {
            results.spinner.extend(repeat(
                opts,
                &log,
                &format!("spinner {panes}"),
                || spinner::signaltty(&bin, &dir, panes, window),
                || spinner::tmux(&dir, panes, window),
            )?);
        }
    }

    let mut m = machine::describe();
    m["tmux"] = json!(Tmux::version());
    m["loadavg"] = json!(machine::loadavg());
    m["loadavg_before"] = json!(load_before);
    if opts.json {
        println!("{:#}", to_json(&results, m, &bin, opts.panes));
    } else {
        let header = format!(
            "{WHO}: {}; {}, {}; load average {} before, {} after",
            bin.display(),
            machine::one_line(&m),
            m["tmux"].as_str().unwrap_or(""),
            m["loadavg_before"].as_str().unwrap_or(""),
            m["loadavg"].as_str().unwrap_or("")
        );
        print_table(&results, &header, opts.panes);
    }
    Ok(())
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    common::main(|| run(&opts))
}
