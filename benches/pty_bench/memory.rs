//! Memory: server RSS with one idle bash pane and with N, and the difference per
//! pane; the tmux server with 1 and N windows running bash.

use crate::common::procfs::rss_kb;
use crate::common::tempdir::TempDir;
use crate::common::{Res, check_interrupted};
use crate::prompt::{BASH, BASH_SHELL, PROMPT_LIMIT, SETTLE, wait_prompts};
use crate::{connect, new_tmux, start_server};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// How long the panes are left before the RSS with all of them is read
/// (both servers): idle means after the burst's own work ended, and the
/// server's snapshot of the new panes (every 2 s while something changes)
/// is taken and written meanwhile.
const IDLE: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy)]
pub struct Memory {
    pub rss0_kb: Option<u64>,
    pub rss1_kb: u64,
    pub rss_n_kb: u64,
    pub per_pane_kb: f64,
}

pub fn signaltty(bin: &Path, dir: &TempDir, panes: usize) -> Res<Memory> {
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    let ws = conn.create_workspace("bench", Some(Path::new("/tmp")))?;
    std::thread::sleep(SETTLE);
    let rss0 = rss_kb(server.pid())?;
    let tab = conn.create_tab(&ws)?;
    let first = conn.spawn(&ws, &tab, BASH)?;
    wait_prompts(&mut conn, std::slice::from_ref(&first))?;
    std::thread::sleep(SETTLE);
    let rss1 = rss_kb(server.pid())?;
    let mut ids = Vec::new();
    for _ in 1..panes {
        check_interrupted()?;
        let tab = conn.create_tab(&ws)?;
        ids.push(conn.spawn(&ws, &tab, BASH)?);
    }
    wait_prompts(&mut conn, &ids)?;
    std::thread::sleep(IDLE);
    let rss_n = rss_kb(server.pid())?;
    let status = conn.call("server.status", json!({}))?;
    if status.get("live_panes").and_then(Value::as_u64) != Some(panes as u64) {
        return Err(format!("expected {panes} live panes: {status}"));
    }
    Ok(Memory {
        rss0_kb: Some(rss0),
        rss1_kb: rss1,
        rss_n_kb: rss_n,
        per_pane_kb: (rss_n as f64 - rss1 as f64) / (panes as f64 - 1.0),
    })
}

pub fn tmux(dir: &TempDir, panes: usize) -> Res<Memory> {
    let tmux = new_tmux(dir)?;
    let first = tmux.run(&[
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-s",
        "m",
        "-x",
        "80",
        "-y",
        "24",
        BASH_SHELL,
    ])?;
    tmux.wait_nonblank(&[first.trim().to_owned()], PROMPT_LIMIT)?;
    let pid = tmux.server_pid()?;
    std::thread::sleep(SETTLE);
    let rss1 = rss_kb(pid)?;
    let ids = tmux.new_windows("m", &vec![BASH_SHELL.to_owned(); panes - 1])?;
    tmux.wait_nonblank(&ids, PROMPT_LIMIT)?;
    std::thread::sleep(IDLE);
    let rss_n = rss_kb(pid)?;
    Ok(Memory {
        rss0_kb: None,
        rss1_kb: rss1,
        rss_n_kb: rss_n,
        per_pane_kb: (rss_n as f64 - rss1 as f64) / (panes as f64 - 1.0),
    })
}

/// The memory table of `runs` (signaltty, tmux).
pub fn print(runs: &[(Memory, Option<Memory>)], panes: usize, o: &mut String) {
    let _ = writeln!(
        o,
        "\nmemory: server RSS (kB = KiB) with 1 and {panes} idle bash panes"
    );
    let _ = writeln!(
        o,
        "{:<5} {:>10} {:>10} {:>10} {:>12} | {:>10} {:>10} {:>12} {:>7}",
        "run",
        "ours 0",
        "ours 1",
        "ours N",
        "ours kB/pane",
        "tmux 1",
        "tmux N",
        "tmux kB/pane",
        "ratio"
    );
    for (i, (m, t)) in runs.iter().enumerate() {
        let (t1, tn, tp, ratio) = match t {
            Some(t) => (
                t.rss1_kb.to_string(),
                t.rss_n_kb.to_string(),
                format!("{:.1}", t.per_pane_kb),
                format!("{:.2}", m.per_pane_kb / t.per_pane_kb),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let _ = writeln!(
            o,
            "{:<5} {:>10} {:>10} {:>10} {:>12.1} | {t1:>10} {tn:>10} {tp:>12} {ratio:>7}",
            i + 1,
            m.rss0_kb.map_or("-".into(), |v| v.to_string()),
            m.rss1_kb,
            m.rss_n_kb,
            m.per_pane_kb,
        );
    }
}

fn memory_json(m: &Memory) -> Value {
    json!({ "rss0_kb": m.rss0_kb, "rss1_kb": m.rss1_kb, "rss_n_kb": m.rss_n_kb,
            "per_pane_kb": m.per_pane_kb })
}

pub fn json(runs: &[(Memory, Option<Memory>)]) -> Value {
    let runs: Vec<Value> = runs
        .iter()
        .map(|(m, t)| json!({ "signaltty": memory_json(m), "tmux": t.as_ref().map(memory_json) }))
        .collect();
    json!({ "runs": runs })
}
