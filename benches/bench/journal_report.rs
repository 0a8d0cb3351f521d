//! The report of the journal and fan-out scenarios: their tables, the targets they
//! are judged by, and their JSON.

use crate::common::stats::Dist;
use crate::fanout::FanoutRun;
use crate::journal::JournalRun;
use crate::probe::{Probe, Usage};
use serde_json::{Value, json};
use std::fmt::Write as _;

fn dist_json(d: &Option<Dist>) -> Value {
    match d {
        Some(d) => json!({
            "n": d.n, "min": d.min, "mean": d.mean, "p50": d.p50, "p90": d.p90,
            "p99": d.p99, "max": d.max,
        }),
        None => Value::Null,
    }
}

/// Cores kept busy by other processes above which a window's figures are flagged.
const BUSY_MACHINE: f64 = 0.25;

#[derive(Debug, Default)]
pub struct JournalReport {
    pub probe: Option<Probe>,
    pub sync_floor: Option<Dist>,
    pub runs: Vec<JournalRun>,
    pub fanout: Option<FanoutRun>,
    pub tmux_fanout: Option<FanoutRun>,
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

    pub fn print(&self, out: &mut String) {
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

    pub fn json(&self) -> Value {
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
