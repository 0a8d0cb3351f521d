//! Journal throughput: durable state events per second with N producers renaming
//! their own workspaces one request at a time, and the fdatasync floor beside it.

use crate::common::fsync::fdatasync_samples;
use crate::common::stats::{Dist, micros};
use crate::common::{Res, check_interrupted};
use crate::probe::{Probe, Usage};
use crate::wire::{self, check_reply, rename_line};
use std::path::Path;
use std::thread::ScopedJoinHandle;
use std::time::{Duration, Instant};

/// Appends a 400-byte line to a fresh file and fdatasyncs it, `n` times (after 50
/// untimed), in `dir`: what one journal batch costs at least on that filesystem.
pub fn bench_sync_floor(dir: &Path, n: usize) -> Res<Option<Dist>> {
    let path = dir.join(format!(".signaltty-bench-sync-{}", std::process::id()));
    let samples = fdatasync_samples(&path, 400, 50, n)?;
    Ok(Dist::of_micros(samples.into_iter().map(micros).collect()))
}

/// Joins scoped threads that each return a result; a panic is an error naming `who`.
pub fn join_all<T>(handles: Vec<ScopedJoinHandle<'_, Res<T>>>, who: &str) -> Vec<Res<T>> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(format!("a {who} thread panicked")))
        })
        .collect()
}

/// Sleeps until `t` (not at all when it has passed).
pub fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

/// One throughput configuration.
#[derive(Debug)]
pub struct JournalRun {
    pub producers: usize,
    pub window: Duration,
    /// Replies received inside the measured window, summed over the producers.
    pub events: usize,
    pub per_sec: f64,
    /// Round trips sent and answered inside the window.
    pub rtt: Option<Dist>,
    /// Renames answered in all (warm-up, window and the tail after it).
    pub answered: u64,
    /// How far the server's seq moved over the run (must equal `answered`).
    pub seq_delta: u64,
    pub usage: Option<Usage>,
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
    let setup = wire::open(socket).and_then(|mut c| {
        let id = c.create_workspace(name, None)?;
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

pub fn bench_journal(
    socket: &Path,
    probe: Option<&Probe>,
    producers: usize,
    warmup: Duration,
    window: Duration,
    tag: &str,
) -> Res<JournalRun> {
    let mut control = wire::open(socket)?;
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
        let seq0 = wire::head(&mut control);
        let start = Instant::now();
        let _ = gates.start.set(start);
        gates.go.wait();
        sleep_until(start + warmup);
        let a = probe.map(Probe::snapshot);
        sleep_until(start + warmup + window);
        let b = probe.map(Probe::snapshot);
        let runs = join_all(handles, "producer");
        (runs, seq0, a.zip(b))
    });
    let seq0 = seq0?;
    let runs = runs.into_iter().collect::<Res<Vec<_>>>()?;
    let seq1 = wire::head(&mut control)?;
    let events: usize = runs.iter().map(|r| r.in_window).sum();
    let answered: u64 = runs.iter().map(|r| r.answered).sum();
    let per_sec = events as f64 / window.as_secs_f64();
    let samples: Vec<f64> = runs.into_iter().flat_map(|r| r.samples).collect();
    Ok(JournalRun {
        producers,
        window,
        events,
        per_sec,
        rtt: Dist::of_micros(samples),
        answered,
        seq_delta: seq1.saturating_sub(seq0),
        usage: usage.map(|(a, b)| Usage::between(&a, &b, per_sec)),
    })
}
