//! Spawn: N sequential `pane.spawn` of bash until every screen shows a prompt; tmux:
//! N `new-window` in one invocation until every pane's `capture-pane` shows one.

use crate::common::Res;
use crate::common::stats::{Dist, millis};
use crate::common::tempdir::TempDir;
use crate::prompt::{BASH, BASH_SHELL, PROMPT_LIMIT, wait_prompts};
use crate::{connect, latency_json, opt, start_server, tmux_keep};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

#[derive(Debug, Clone, Copy)]
pub struct Spawn {
    /// The requests (or the tmux invocation) alone.
    pub requests_ms: f64,
    /// Until every pane showed its prompt.
    pub total_ms: f64,
    /// signaltty: the `tab.create` calls made beforehand, not in `total_ms`.
    pub tabs_ms: Option<f64>,
    /// signaltty: each `pane.spawn` round trip.
    pub each: Option<Dist>,
}

pub fn signaltty(bin: &Path, dir: &TempDir, panes: usize) -> Res<Spawn> {
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    let ws = conn.create_workspace("bench", Some(Path::new("/tmp")))?;
    let t = Instant::now();
    let mut tabs = Vec::with_capacity(panes);
    for _ in 0..panes {
        tabs.push(conn.create_tab(&ws)?);
    }
    let tabs_ms = millis(t.elapsed());
    let t = Instant::now();
    let mut ids = Vec::with_capacity(panes);
    let mut each = Vec::with_capacity(panes);
    for tab in &tabs {
        let t1 = Instant::now();
        ids.push(conn.spawn(&ws, tab, BASH)?);
        each.push(t1.elapsed());
    }
    let requests_ms = millis(t.elapsed());
    wait_prompts(&mut conn, &ids)?;
    let total_ms = millis(t.elapsed());
    Ok(Spawn {
        requests_ms,
        total_ms,
        tabs_ms: Some(tabs_ms),
        each: Some(Dist::of_durations(each).unwrap_or(Dist::NAN)),
    })
}

pub fn tmux(dir: &TempDir, panes: usize) -> Res<Spawn> {
    let tmux = tmux_keep(dir)?;
    let commands = vec![BASH_SHELL.to_owned(); panes];
    let t = Instant::now();
    let ids = tmux.new_windows("keep", &commands)?;
    let requests_ms = millis(t.elapsed());
    tmux.wait_nonblank(&ids, PROMPT_LIMIT)?;
    let total_ms = millis(t.elapsed());
    Ok(Spawn {
        requests_ms,
        total_ms,
        tabs_ms: None,
        each: None,
    })
}

/// The spawn table of `runs` (signaltty, tmux).
pub fn print(runs: &[(Spawn, Option<Spawn>)], panes: usize, o: &mut String) {
    let _ = writeln!(
        o,
        "\nspawn: {panes} bash panes, ms from the first request until every prompt shows"
    );
    let _ = writeln!(
        o,
        "{:<4} {:>9} {:>9} {:>13} {:>10} | {:>9} {:>10} | {:>6}",
        "run",
        "ours tabs",
        "ours reqs",
        "spawn p50/max",
        "ours total",
        "tmux cmd",
        "tmux total",
        "ratio"
    );
    for (i, (s, t)) in runs.iter().enumerate() {
        let each = s.each.map_or("-".into(), |l| {
            format!("{:.2}/{:.2}", l.p50 / 1e3, l.max / 1e3)
        });
        let _ = writeln!(
            o,
            "{:<4} {:>9} {:>9.1} {each:>13} {:>10.1} | {:>9} {:>10} | {:>6}",
            i + 1,
            opt(s.tabs_ms, 1),
            s.requests_ms,
            s.total_ms,
            opt(t.map(|t| t.requests_ms), 1),
            opt(t.map(|t| t.total_ms), 1),
            opt(t.map(|t| s.total_ms / t.total_ms), 2),
        );
    }
    let _ = writeln!(
        o,
        "(tabs: the {panes} tab.create calls made before the timer; reqs: the {panes} sequential \
         pane.spawn round trips; spawn p50/max: one round trip, ms; total: until every prompt \
         showed; ratio: signaltty total / tmux total)"
    );
}

fn spawn_json(s: &Spawn) -> Value {
    json!({ "requests_ms": s.requests_ms, "total_ms": s.total_ms, "tabs_ms": s.tabs_ms,
            "each_spawn": s.each.as_ref().map(latency_json) })
}

pub fn json(runs: &[(Spawn, Option<Spawn>)]) -> Value {
    let runs: Vec<Value> = runs
        .iter()
        .map(|(s, t)| json!({ "signaltty": spawn_json(s), "tmux": t.as_ref().map(spawn_json) }))
        .collect();
    json!({ "runs": runs })
}
