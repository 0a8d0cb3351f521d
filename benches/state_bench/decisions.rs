//! Decisions: from a `decision.answer` request to the waiting permission reporter
//! (`hook-event --wait`) printing its verdict, beside the journal's fdatasync; then
//! the server's memory and idle CPU with many reporters waiting at once.

use crate::common::client::Conn;
use crate::common::procfs::rss_kb;
use crate::common::server::Server;
use crate::common::stats::sample;
use crate::common::tempdir::TempDir;
use crate::common::{Context, Res, check_interrupted};
use crate::{
    Opts, beyond_sync, connect, hook_event, journal_sync, panes, quiet_cpu, start_server, summary,
    verdict,
};
use serde_json::json;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Stdio};
use std::time::{Duration, Instant};

/// What a permission reporter prints for Allow once
/// (docs/decisions.md#what-the-reporter-prints).
const ALLOW_VERDICT: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;

/// Waiting permission reporters (`hook-event --wait`); killed and reaped on
/// drop, so none outlives the benchmark whatever ends it.
struct Reporters {
    children: Vec<Child>,
    /// Their stderr: a line when a wait ends without an answer, or an error.
    log: PathBuf,
}

impl Reporters {
    fn new(dir: &Path) -> Reporters {
        Reporters {
            children: Vec::new(),
            log: dir.join("reporters.log"),
        }
    }

    /// Starts a reporter for `pane` the way Claude runs its PermissionRequest
    /// hook: the payload on stdin, then stdin closed. Returns its stdout.
    fn spawn(&mut self, bin: &Path, socket: &Path, pane: &str, session: &str) -> Res<ChildStdout> {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .ctx(|| format!("open {}", self.log.display()))?;
        let mut child = hook_event(bin, "PermissionRequest", pane)
            .arg("--wait")
            .env("SIGNALTTY_SOCKET", socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .ctx(|| "spawn the reporter".into())?;
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        self.children.push(child);
        let body = format!(
            r#"{{"session_id":"{session}","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#
        );
        if let Some(mut stdin) = stdin {
            stdin
                .write_all(body.as_bytes())
                .ctx(|| "write the payload".into())?;
        }
        stdout.ok_or_else(|| "the reporter has no stdout".into())
    }

    /// Waits for the latest reporter to exit; it must exit 0.
    fn reap_last(&mut self) -> Res<()> {
        let Some(mut child) = self.children.pop() else {
            return Ok(());
        };
        let status = child.wait().ctx(|| "wait for the reporter".into())?;
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "the reporter exited with {status}; the reporters' stderr:\n{}",
                self.log_text()
            ))
        }
    }

    /// How many are still running.
    fn running(&mut self) -> usize {
        self.children
            .iter_mut()
            .map(|c| matches!(c.try_wait(), Ok(None)))
            .filter(|&waiting| waiting)
            .count()
    }

    fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGKILL and reap every one.
    fn kill_all(&mut self) {
        for mut child in self.children.drain(..) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Reporters {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// Reads the next `decision.created` of `pane` on a subscription; returns the
/// decision's id.
fn decision_created(sub: &mut Conn, pane: &str) -> Res<String> {
    loop {
        let v = sub.read_value()?;
        if v["type"] == "event"
            && v["event"] == "decision.created"
            && v["payload"]["pane_id"] == pane
        {
            return v["payload"]["decision"]["id"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("decision.created without a decision id: {v}"));
        }
    }
}

/// Reads one line of a reporter's stdout, failing when nothing comes within
/// `limit_ms` (a plain blocking read would hang the benchmark for good).
fn read_verdict(stdout: &mut BufReader<ChildStdout>, limit_ms: u16) -> Res<String> {
    use nix::poll::{PollFd, PollFlags, poll};
    use std::os::fd::AsFd;
    if stdout.buffer().is_empty() {
        let mut fds = [PollFd::new(stdout.get_ref().as_fd(), PollFlags::POLLIN)];
        let ready = poll(&mut fds, limit_ms).ctx(|| "poll the reporter's stdout".into())?;
        if ready == 0 {
            return Err(format!("the reporter printed nothing within {limit_ms} ms"));
        }
    }
    let mut line = String::new();
    stdout
        .read_line(&mut line)
        .ctx(|| "read the reporter's stdout".into())?;
    Ok(line)
}

/// Resident set size of `pid`, in bytes.
fn rss_bytes(pid: u32) -> Res<u64> {
    Ok(rss_kb(pid)? * 1024)
}

/// Bytes in decimal megabytes, as the targets state memory.
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Panes of every workspace with a pending decision.
fn pending_decisions(conn: &mut Conn) -> Res<usize> {
    let list = conn.call("workspace.list", json!({}))?;
    let mut pending = 0;
    for w in list["workspaces"].as_array().into_iter().flatten() {
        let got = conn.call("workspace.get", json!({"workspace_id": w["id"]}))?;
        pending += got["panes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| !p["pending_decision"].is_null())
            .count();
    }
    Ok(pending)
}

pub fn bench_decisions(
    bin: &Path,
    tmp: &TempDir,
    opts: &Opts,
    verdicts: &mut Vec<String>,
) -> Res<()> {
    bench_answers(bin, tmp, opts.answers, verdicts)?;
    bench_waiting(bin, tmp, opts.reporters, verdicts)
}

/// Answer → verdict: one pane, one waiting reporter at a time.
fn bench_answers(bin: &Path, tmp: &TempDir, runs: usize, verdicts: &mut Vec<String>) -> Res<()> {
    let (mut server, dir) = start_server(bin, tmp, "decisions", &[])?;
    let mut conn = connect(&server)?;
    let pane = panes(&mut conn, &dir, &["sleep 100000".to_owned()])?.remove(0);
    let mut sub = connect(&server)?;
    sub.call("subscribe", json!({"events": ["decision.created"]}))?;
    println!("decisions: decision.answer written → verdict line read from the waiting reporter");
    let mut reporters = Reporters::new(&dir);
    let samples = sample(20, runs, |_| {
        let mut stdout =
            BufReader::new(reporters.spawn(bin, server.socket(), &pane, "bench-session")?);
        let decision = decision_created(&mut sub, &pane).map_err(|e| {
            format!(
                "waiting for decision.created: {e}; the reporters' stderr:\n{}",
                reporters.log_text()
            )
        })?;
        let started = Instant::now();
        let id = conn.send(
            "decision.answer",
            &json!({"pane_id": pane, "decision_id": decision, "option_id": "once"}),
        )?;
        let line = read_verdict(&mut stdout, 10_000)
            .map_err(|e| format!("{e}; the reporters' stderr:\n{}", reporters.log_text()))?;
        let took = started.elapsed();
        if line.strip_suffix('\n') != Some(ALLOW_VERDICT) {
            return Err(format!(
                "the reporter printed {line:?}, not the allow verdict; the reporters' stderr:\n{}",
                reporters.log_text()
            ));
        }
        loop {
            let v = conn.read_value()?;
            if v["id"] == id.as_str() {
                if v["ok"] != true {
                    return Err(format!("decision.answer failed: {}", v["error"]));
                }
                break;
            }
        }
        reporters.reap_last()?;
        Ok(took)
    })?;
    let (_, p99) = summary("decision.answer → reporter's verdict line", samples);
    let sync_p99 = journal_sync(&dir, runs.max(2000))?;
    verdicts.push(beyond_sync(
        "decisions: answer → reporter verdict, p99 beyond the journal sync < 5 ms",
        5.0,
        p99,
        sync_p99,
    ));
    server.stop();
    Ok(())
}

/// Server CPU over 10 s in which nothing is asked of it, as a share of one core.
fn idle_cpu(server: &Server, what: &str) -> Res<f64> {
    let (used, wall) = quiet_cpu(server, Duration::from_secs(10))?;
    let share = 100.0 * used / wall;
    println!("  idle, {what:<34} {used:.3} s CPU in {wall:.1} s = {share:.3} % of one core");
    Ok(share)
}

/// `a − b` in percentage points, rounded to 0.001 (and never printed "-0.000").
fn points(a: f64, b: f64) -> f64 {
    ((a - b) * 1000.0).round() / 1000.0 + 0.0
}

/// `n` reporters waiting at once, one per pane: the server's memory and idle
/// CPU. For comparison, the same two figures before the reporters: with the
/// plain panes, then with the panes made Claude panes of their sessions (what
/// a reporter's hook makes them, waiting or not).
fn bench_waiting(bin: &Path, tmp: &TempDir, n: usize, verdicts: &mut Vec<String>) -> Res<()> {
    println!("decisions: {n} permission reporters waiting at once, one per `sleep` pane");
    let (mut server, dir) = start_server(bin, tmp, "reporters", &[])?;
    let mut conn = connect(&server)?;
    let ids = panes(&mut conn, &dir, &vec!["sleep 100000".to_owned(); n])?;
    // Let the panes start and the spawn work settle.
    std::thread::sleep(Duration::from_secs(1));
    let plain_rss = rss_bytes(server.pid())?;
    let plain_cpu = idle_cpu(&server, &format!("{n} plain panes"))?;
    for (i, pane) in ids.iter().enumerate() {
        check_interrupted()?;
        let r = conn.call(
            "hook-event",
            json!({"agent": "claude", "event": "UserPromptSubmit", "pane_id": pane,
                   "payload": {"session_id": format!("bench-session-{i}"), "prompt": "ls"}}),
        )?;
        if r["accepted"] != true {
            return Err(format!("UserPromptSubmit on {pane} was dropped: {r}"));
        }
    }
    std::thread::sleep(Duration::from_secs(1));
    let claude_rss = rss_bytes(server.pid())?;
    let claude_cpu = idle_cpu(&server, &format!("{n} working Claude panes"))?;
    let mut sub = connect(&server)?;
    sub.call("subscribe", json!({"events": ["decision.created"]}))?;
    let mut reporters = Reporters::new(&dir);
    // Held open: a reporter that answers would find its reader here.
    let mut outs = Vec::with_capacity(n);
    let started = Instant::now();
    for (i, pane) in ids.iter().enumerate() {
        check_interrupted()?;
        outs.push(reporters.spawn(bin, server.socket(), pane, &format!("bench-session-{i}"))?);
    }
    let mut pending = std::collections::HashSet::new();
    while pending.len() < ids.len() {
        check_interrupted()?;
        let v = sub.read_value().map_err(|e| {
            format!(
                "{e} with {} of {n} decisions pending; the reporters' stderr:\n{}",
                pending.len(),
                reporters.log_text()
            )
        })?;
        if v["type"] == "event" && v["event"] == "decision.created" {
            pending.insert(
                v["payload"]["pane_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
    }
    println!(
        "  {n} decisions pending {:.2} s after the first reporter started",
        started.elapsed().as_secs_f64()
    );
    std::thread::sleep(Duration::from_secs(1));
    let waiting_rss = rss_bytes(server.pid())?;
    let delta = waiting_rss.saturating_sub(plain_rss);
    println!(
        "  server RSS: {:.1} MB with {n} plain panes, {:.1} MB as Claude panes, {:.1} MB with {n} reporters waiting",
        mb(plain_rss),
        mb(claude_rss),
        mb(waiting_rss),
    );
    println!(
        "  reporters waiting − plain panes: +{:.2} MB ({:.1} kB a reporter); − Claude panes: +{:.2} MB",
        mb(delta),
        delta as f64 / 1000.0 / n.max(1) as f64,
        mb(waiting_rss.saturating_sub(claude_rss)),
    );
    let share = idle_cpu(&server, &format!("{n} reporters waiting"))?;
    println!(
        "  waiting − Claude panes: {:+.3} % of one core; Claude − plain panes: {:+.3} %",
        points(share, claude_cpu),
        points(claude_cpu, plain_cpu)
    );
    let running = reporters.running();
    let still = pending_decisions(&mut conn)?;
    println!("  after the idle window: {running} reporters running, {still} decisions pending");
    if running != n || still != n {
        return Err(format!(
            "{running} of {n} reporters still wait and {still} decisions are pending; the reporters' stderr:\n{}",
            reporters.log_text()
        ));
    }
    verdicts.push(verdict(
        &format!("decisions: {n} waiting reporters add < 20 MB RSS"),
        delta < 20 * 1000 * 1000,
        format!("{:.2} MB", mb(delta)),
    ));
    verdicts.push(verdict(
        &format!("decisions: {n} waiting reporters idle < 0.5 % of one core"),
        share < 0.5,
        format!(
            "{share:.3} % ({:+.3} % beyond the same Claude panes without them)",
            points(share, claude_cpu)
        ),
    ));
    reporters.kill_all();
    drop(outs);
    server.stop();
    Ok(())
}
