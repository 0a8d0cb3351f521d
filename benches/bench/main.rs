//! `signaltty-bench`: request latency of the `signaltty/1` socket (`roundtrip`) and,
//! with `--journal`, durable events/s through the journal (`journal`) and fan-out to
//! subscribers (`fanout`), with tmux measured beside them under `--peer-tmux` (see
//! docs/performance.md). It starts its own server (the `signaltty` next to this
//! binary, or `--bin`) on a private temporary directory and stops it when done, or
//! measures the one on `--socket`.

#[path = "../common/mod.rs"]
mod common;
mod fanout;
mod journal;
mod journal_report;
mod probe;
mod roundtrip;
mod wire;

use clap::Parser;
use common::machine;
use common::server::Server;
use common::tempdir::TempDir;
use common::{Res, WHO};
use journal_report::JournalReport;
use probe::Probe;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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

fn run(opts: &Opts) -> Res<()> {
    let bin = common::signaltty_bin(opts.bin.as_deref())?;
    let groups = opts.groups();
    let dir = TempDir::new()?;
    let mut server = None;
    let (socket, server_desc) = match &opts.socket {
        Some(s) => (s.clone(), format!("existing server on {}", s.display())),
        None => {
            let srv = Server::start_with_state(&bin, dir.path(), &[], opts.state_dir.as_deref())?;
            let socket = srv.socket().to_path_buf();
            server = Some(srv);
            (socket, format!("started {} server", bin.display()))
        },
    };
    let progress = |what: &str| {
        if !opts.json {
            eprintln!("{WHO}: {what} ...");
        }
    };

    let results = if groups.contains(&Group::Latency) {
        roundtrip::run(opts, &bin, &socket, &dir, &progress)?
    } else {
        Vec::new()
    };

    let mut journal = None;
    if groups.contains(&Group::Journal) || groups.contains(&Group::Fanout) {
        let mut report = JournalReport {
            probe: Probe::find(&wire::connect(&socket)?).ok(),
            ..JournalReport::default()
        };
        if opts.sync_floor_runs > 0
            && let Some(state) = report.probe.as_ref().and_then(|p| p.state_dir.as_ref())
        {
            // Next to the state directory (in its parent), on the same filesystem.
            progress("fdatasync floor");
            let parent = state.parent().unwrap_or(state);
            report.sync_floor = journal::bench_sync_floor(parent, opts.sync_floor_runs)?;
        }
        if groups.contains(&Group::Journal) {
            let window = Duration::from_secs_f64(opts.journal_secs.max(0.1));
            let warmup = Duration::from_secs_f64(opts.journal_warmup_secs.max(0.0));
            for (i, &producers) in opts.producers.iter().enumerate() {
                if producers == 0 {
                    continue;
                }
                progress(&format!("journal throughput, {producers} producers"));
                report.runs.push(journal::bench_journal(
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
            report.fanout = Some(fanout::bench_fanout(
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
                report.tmux_fanout = Some(fanout::bench_tmux_fanout(
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
        let mut v = roundtrip::to_json(&results, &server_desc, &bin);
        if let Some(j) = &journal {
            v["journal"] = j.json();
        }
        println!("{v:#}");
    } else {
        let mut out = format!(
            "{WHO}: {server_desc}; {}\n",
            machine::one_line(&machine::describe())
        );
        if !results.is_empty() {
            roundtrip::print_table(&mut out, &results);
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
    common::main(|| run(&opts))
}
