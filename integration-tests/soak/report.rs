//! What the soak reports: the server's logs read back, and the figures of
//! the run as text, printed at the end and written to
//! `SIGNALTTY_SOAK_REPORT` when it is set.

use crate::measure::{self, Trace, Window};
use crate::shared::{Ack, Shared};
use crate::support::life::Life;
use crate::{Fault, FaultDone, Plan, verify};
use std::fmt::Write as _;

/// The sum of the counters named `prefix` and a reason.
pub fn cut_count(sh: &Shared, prefix: &str) -> u64 {
    sh.counters()
        .iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .map(|(_, n)| n)
        .sum()
}

/// What the server logs say.
pub struct Logs {
    lives: usize,
    pub panics: usize,
    errors: usize,
    warnings: usize,
    disconnects: usize,
    first_errors: Vec<String>,
}

pub fn server_logs(life: &Life) -> Logs {
    let mut logs = Logs {
        lives: 0,
        panics: 0,
        errors: 0,
        warnings: 0,
        disconnects: 0,
        first_errors: Vec::new(),
    };
    for n in 1.. {
        let Ok(text) = std::fs::read_to_string(life.env.root().join(format!("server-{n}.stderr")))
        else {
            break;
        };
        logs.lives += 1;
        for line in text.lines() {
            if line.contains("panicked") {
                logs.panics += 1;
            }
            if line.contains(" ERROR ") {
                logs.errors += 1;
                if logs.first_errors.len() < 5 {
                    logs.first_errors.push(line.to_owned());
                }
            }
            if line.contains(" WARN ") {
                logs.warnings += 1;
            }
            if line.contains(": disconnecting: ") {
                logs.disconnects += 1;
            }
        }
    }
    logs
}

#[allow(clippy::too_many_arguments)]
pub fn report(
    plan: &Plan,
    load_secs: f64,
    sh: &Shared,
    windows: &[Window],
    trace: &Trace,
    slope: Option<f64>,
    faults: &[FaultDone],
    journal: Option<&verify::Journal>,
    acks: &[Ack],
    logs: &Logs,
    left: &str,
    problems: &[String],
) -> String {
    let mut r = String::new();
    let c = sh.counters();
    let n = |k: &str| c.get(k).copied().unwrap_or(0);
    let _ = writeln!(
        r,
        "=== the soak: {} s planned, seed {} ===",
        plan.secs, plan.seed
    );
    let _ = writeln!(r, "load ran {load_secs:.0} s");
    for w in windows {
        let _ = writeln!(r, "  {}", measure::line(w));
    }
    if let Some(kb) = slope {
        let _ = writeln!(
            r,
            "  RSS trend in the last life between the windows: {kb:+.0} kB/min"
        );
    }
    for f in faults {
        let _ = writeln!(
            r,
            "  fault at {:>5} s: {:?}, {} ms {}; board back after {} ms",
            f.at_s, f.kind, f.took_ms, f.report, f.board_ms
        );
    }
    let upgrades = faults.iter().filter(|f| f.kind == Fault::Upgrade).count();
    let _ = writeln!(
        r,
        "upgrades {upgrades}, restarts after SIGKILL {}",
        faults.len() - upgrades
    );
    if let Some(j) = journal {
        let _ = writeln!(
            r,
            "events journaled {} (replay from seq 0, complete)",
            j.seqs.len()
        );
        let names: Vec<String> = j.by_name.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(r, "  {}", names.join(", "));
    }
    let mut kinds: std::collections::BTreeMap<&str, u64> = Default::default();
    for a in acks {
        let kind = match a {
            Ack::WorkspaceCreated(_) => "workspace.create",
            Ack::WorkspaceRenamed { .. } => "workspace.rename",
            Ack::TabCreated(_) => "tab.create",
            Ack::PaneCreated { .. } => "pane.spawn",
            Ack::PaneClosed(_) => "pane.close",
            Ack::TabClosed { .. } => "tab.close",
            Ack::Answered { .. } => "decision.answer",
            Ack::Hook { .. } => "hook-event",
        };
        *kinds.entry(kind).or_default() += 1;
    }
    let _ = writeln!(
        r,
        "requests acknowledged and found journaled as their event: {} ({})",
        acks.len(),
        kinds
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let hooks = n("hooks sent direct") + n("hooks sent cli");
    let _ = writeln!(
        r,
        "hook events sent {hooks} ({:.1}/s), accepted {}",
        hooks as f64 / load_secs,
        n("hooks accepted")
    );
    let _ = writeln!(
        r,
        "subscribers cut by the server: never-readers {}, full readers {}, the recorder {}; the server logged {} disconnects",
        cut_count(sh, "never-readers cut"),
        cut_count(sh, "full readers cut"),
        cut_count(sh, "recorder cut"),
        logs.disconnects
    );
    let _ = writeln!(r, "questions left to time out, how they ended: {left}");
    let _ = writeln!(
        r,
        "server lives {}, log: {} warnings, {} errors, {} panics",
        logs.lives, logs.warnings, logs.errors, logs.panics
    );
    for e in &logs.first_errors {
        let _ = writeln!(r, "  {e}");
    }
    let _ = writeln!(
        r,
        "the server every 5 s (shown every {} s):",
        if plan.secs > 300 { 30 } else { 5 }
    );
    for l in trace.lines(if plan.secs > 300 { 30 } else { 5 }) {
        let _ = writeln!(r, "  {l}");
    }
    let _ = writeln!(r, "counters:");
    for (k, v) in &c {
        let _ = writeln!(r, "  {k}: {v}");
    }
    let _ = writeln!(r, "problems: {}", problems.len());
    for p in problems {
        let _ = writeln!(r, "  {p}");
    }
    r
}
