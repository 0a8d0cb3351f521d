//! `signaltty-state-bench`: what the state engine costs (hooks, process refresh,
//! screen rules and decisions, one module each; see docs/performance.md, "State
//! engine"). Its servers run on private directories, removed at the end.

#[path = "../common/mod.rs"]
mod common;
mod decisions;
mod hook;
mod refresh;
mod screen;

use clap::{Parser, ValueEnum};
use common::client::Conn;
use common::fsync::fdatasync_samples;
use common::procfs::cpu_seconds;
use common::server::Server;
use common::stats::{millis, percentile};
use common::tempdir::TempDir;
use common::{Res, check_interrupted};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// Benchmarks of the state engine.
#[derive(Debug, Parser)]
#[command(name = "signaltty-state-bench")]
struct Opts {
    /// The signaltty binary (default: `signaltty` next to this executable).
    #[arg(long, value_name = "PATH")]
    bin: Option<PathBuf>,
    /// Run only these scenarios.
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Scenario>,
    /// Timed hook processes.
    #[arg(long, default_value_t = 1000)]
    hooks: usize,
    /// Timed hook → event round trips.
    #[arg(long, default_value_t = 2000)]
    events: usize,
    /// Panes in the refresh scenario.
    #[arg(long, default_value_t = 100)]
    panes: usize,
    /// Seconds each refresh measurement lasts.
    #[arg(long, default_value_t = 20)]
    refresh_secs: u64,
    /// Timed decision answers (after 20 warm-up answers).
    #[arg(long, default_value_t = 200)]
    answers: usize,
    /// Permission reporters waiting at once, one per pane.
    #[arg(long, default_value_t = 200)]
    reporters: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scenario {
    Hook,
    Latency,
    Refresh,
    Screen,
    Decisions,
}

/// A server on a fresh directory `name-N` of `tmp`; returns it and the directory.
fn start_server(bin: &Path, tmp: &TempDir, name: &str, args: &[&str]) -> Res<(Server, PathBuf)> {
    let dir = tmp.fresh(name)?;
    Ok((Server::start(bin, &dir, args)?, dir))
}

fn connect(server: &Server) -> Res<Conn> {
    Conn::connect(server.socket(), Duration::from_secs(30), 64 * 1024)
}

/// A workspace with one `sleep` pane per entry of `scripts` (`sh -c SCRIPT`, so a
/// refresh descends through a shell); returns the pane ids.
fn panes(conn: &mut Conn, dir: &Path, scripts: &[String]) -> Res<Vec<String>> {
    let ws = conn.create_workspace("bench", Some(dir))?;
    let mut ids = Vec::new();
    for script in scripts {
        let tab = conn.create_tab(&ws)?;
        ids.push(conn.spawn(&ws, &tab, &["sh", "-c", script])?);
    }
    Ok(ids)
}

/// `signaltty hook-event` for a Claude `event` of `pane`, as Claude runs its hooks.
fn hook_event(bin: &Path, event: &str, pane: &str) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args([
        "hook-event",
        "--agent",
        "claude",
        "--event",
        event,
        "--pane",
        pane,
    ]);
    cmd
}

/// Prints the p50, p90, p99 and max of `samples` in ms; returns the p50 and p99.
fn summary(name: &str, mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let (p50, p99) = (percentile(&samples, 0.50), percentile(&samples, 0.99));
    println!(
        "{name:<44} n={:<5} p50 {:>7.3} ms  p90 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        samples.len(),
        millis(p50),
        millis(percentile(&samples, 0.90)),
        millis(p99),
        millis(samples.last().copied().unwrap_or_default())
    );
    (p50, p99)
}

/// The journal's part of a state event: `runs` appends of 600 bytes, each with
/// an fdatasync, in the state directory of the server run in `dir`; returns the
/// p99 (after printing the summary).
fn journal_sync(dir: &Path, runs: usize) -> Res<Duration> {
    let syncs = fdatasync_samples(&dir.join("state").join("sync-probe"), 600, 0, runs)?;
    let (_, sync_p99) = summary("append + fdatasync in the state dir", syncs);
    Ok(sync_p99)
}

/// CPU seconds the server used over `window`, in which nothing is asked of it, and
/// the wall seconds that took.
fn quiet_cpu(server: &Server, window: Duration) -> Res<(f64, f64)> {
    let before = cpu_seconds(server.pid())?;
    let started = Instant::now();
    while started.elapsed() < window {
        check_interrupted()?;
        std::thread::sleep(Duration::from_millis(200));
    }
    let used = cpu_seconds(server.pid())? - before;
    Ok((used, started.elapsed().as_secs_f64()))
}

/// The verdict on a p99 less the journal's fdatasync p99, against `limit_ms`.
fn beyond_sync(what: &str, limit_ms: f64, p99: Duration, sync_p99: Duration) -> String {
    let beyond = p99.saturating_sub(sync_p99);
    verdict(
        what,
        millis(beyond) < limit_ms,
        format!(
            "{:.3} ms ({:.3} − {:.3})",
            millis(beyond),
            millis(p99),
            millis(sync_p99)
        ),
    )
}

fn verdict(what: &str, pass: bool, measured: String) -> String {
    format!(
        "  {}  {what:<48} measured {measured}",
        if pass { "PASS" } else { "FAIL" }
    )
}

fn run(opts: &Opts) -> Res<()> {
    let bin = common::signaltty_bin(opts.bin.as_deref())?;
    let wanted = |s: Scenario| opts.only.is_empty() || opts.only.contains(&s);
    let tmp = TempDir::new()?;
    let mut verdicts = Vec::new();
    if wanted(Scenario::Hook) {
        hook::bench_hook(&bin, &tmp, opts.hooks, &mut verdicts)?;
    }
    if wanted(Scenario::Latency) {
        hook::bench_latency(&bin, &tmp, opts.events, &mut verdicts)?;
    }
    if wanted(Scenario::Refresh) {
        refresh::bench_refresh(&bin, &tmp, opts, &mut verdicts)?;
    }
    if wanted(Scenario::Screen) {
        screen::bench_screen(&bin, &tmp, opts, &mut verdicts)?;
    }
    if wanted(Scenario::Decisions) {
        decisions::bench_decisions(&bin, &tmp, opts, &mut verdicts)?;
    }
    println!("\ntargets:");
    for v in &verdicts {
        println!("{v}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    common::main(|| run(&opts))
}
