//! Spinners: N panes each redrawing one status line ten times a second, as a
//! working agent's spinner does; the server's CPU (percent of one core) and RSS
//! over a quiet window, and tmux's with N windows running the same loop.
//!
//! The loop is bash's own: `read -t 0.1` on the terminal times out after 100 ms
//! without forking, so the children cost as little as they can and the figure
//! is the terminal server's.

use crate::common::procfs::{cpu_seconds, rss_kb};
use crate::common::tempdir::TempDir;
use crate::common::{Res, check_interrupted};
use crate::{connect, new_tmux, start_server};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// One spinner pane's loop, written to a script file: tmux takes its windows'
/// commands on one command line, which 200 inline loops overflow.
const SPINNER: &str = "s='|/-\\'; i=0\nwhile :; do\n  printf '\\r%s working on it, step %d ' \"${s:i%4:1}\" $i\n  i=$((i+1))\n  read -rs -t 0.1 -n 1\ndone\n";

/// Writes the spinner script into a fresh directory of `dir`; returns its path.
fn script(dir: &TempDir) -> Res<String> {
    let path = dir.fresh("spinner")?.join("spin.sh");
    std::fs::write(&path, SPINNER).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

/// How long the spinners run before the window opens.
const WARMUP: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy)]
pub struct Spin {
    pub panes: usize,
    /// Percent of one core over the window.
    pub cpu_pct: f64,
    pub rss_kb: u64,
}

/// The server's CPU over `window` while `panes` spinners run.
pub fn signaltty(bin: &Path, dir: &TempDir, panes: usize, window: Duration) -> Res<Spin> {
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    let ws = conn.create_workspace("spin", Some(Path::new("/tmp")))?;
    let script = script(dir)?;
    let argv = ["bash", "--norc", "--noprofile", script.as_str()];
    for _ in 0..panes {
        check_interrupted()?;
        let tab = conn.create_tab(&ws)?;
        conn.spawn(&ws, &tab, &argv)?;
    }
    measure(server.pid(), panes, window)
}

/// The tmux server's CPU over `window` while `panes` windows spin.
pub fn tmux(dir: &TempDir, panes: usize, window: Duration) -> Res<Spin> {
    let tmux = new_tmux(dir)?;
    let command = format!("bash --norc --noprofile {}", script(dir)?);
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "spin",
        "-x",
        "80",
        "-y",
        "24",
        &command,
    ])?;
    tmux.new_windows("spin", &vec![command.clone(); panes - 1])?;
    measure(tmux.server_pid()?, panes, window)
}

fn measure(pid: u32, panes: usize, window: Duration) -> Res<Spin> {
    std::thread::sleep(WARMUP);
    let (cpu0, t0) = (cpu_seconds(pid)?, Instant::now());
    std::thread::sleep(window);
    let (cpu1, t1) = (cpu_seconds(pid)?, Instant::now());
    Ok(Spin {
        panes,
        cpu_pct: 100.0 * (cpu1 - cpu0) / (t1 - t0).as_secs_f64(),
        rss_kb: rss_kb(pid)?,
    })
}

/// The spinner table: (signaltty, tmux) per run and pane count.
pub fn print(runs: &[(Spin, Option<Spin>)], o: &mut String) {
    let _ = writeln!(
        o,
        "\nspinner: server CPU (% of a core) and RSS with N panes redrawing a line every 100 ms"
    );
    let _ = writeln!(
        o,
        "{:>6} {:>10} {:>10} | {:>10} {:>10} | {:>9} {:>9}",
        "panes", "ours cpu%", "ours kB", "tmux cpu%", "tmux kB", "cpu ratio", "rss ratio"
    );
    for (s, t) in runs {
        let (tc, tr, cr, rr) = match t {
            Some(t) => (
                format!("{:.2}", t.cpu_pct),
                t.rss_kb.to_string(),
                format!("{:.2}", s.cpu_pct / t.cpu_pct),
                format!("{:.2}", s.rss_kb as f64 / t.rss_kb as f64),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let _ = writeln!(
            o,
            "{:>6} {:>10.2} {:>10} | {tc:>10} {tr:>10} | {cr:>9} {rr:>9}",
            s.panes, s.cpu_pct, s.rss_kb
        );
    }
}

fn spin_json(s: &Spin) -> Value {
    json!({ "panes": s.panes, "cpu_pct": s.cpu_pct, "rss_kb": s.rss_kb })
}

pub fn json(runs: &[(Spin, Option<Spin>)]) -> Value {
    let runs: Vec<Value> = runs
        .iter()
        .map(|(s, t)| json!({ "signaltty": spin_json(s), "tmux": t.as_ref().map(spin_json) }))
        .collect();
    json!({ "runs": runs })
}
