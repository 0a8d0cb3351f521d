//! `signaltty-state-bench`: the state engine's costs (see docs/performance.md,
//! "State engine").
//!
//! 1. `hook`: whole-process time of `signaltty hook-event --agent claude --event
//!    Stop|UserPromptSubmit --pane P` with a 2 KB JSON payload on stdin, as an
//!    agent runs it, alternating so every hook changes the pane's state.
//! 2. `latency`: from writing a `hook-event` request on a persistent connection to
//!    the `agent.*` event it causes arriving at a subscriber; beside it, the
//!    `fdatasync` of a small append in the same state directory (the journal
//!    syncs every event before anyone sees it).
//! 3. `refresh`: server CPU with 100 idle panes (`sh -c "sleep …"`, so the refresh
//!    descends through a shell) while the process refresh runs every second,
//!    against the same server with the refresh every hour; the difference per
//!    refresh, scaled to the real 10-second period, as a share of one core.
//!
//! 4. `screen`: one evaluation of every bundled rule set of an agent against a
//!    50 × 200 screen (in this process, as the pane's tick does it), and server
//!    CPU with 100 idle Claude panes (a look-alike that draws Claude's prompt box
//!    and sleeps) after their screens were classified once.
//!
//! 5. `decisions`: from writing a `decision.answer` request to the waiting
//!    permission reporter process (`hook-event --wait`) having printed its
//!    verdict line, beside the journal's `fdatasync`; then the server's memory
//!    and idle CPU with 200 reporters waiting at once, one per `sleep` pane,
//!    beside the same panes before the reporters (plain, then Claude panes).
//!
//! The benchmark starts its own servers (the `signaltty` next to this binary, or
//! `--bin`) on private directories and removes them at the end.

use clap::{Parser, ValueEnum};
use serde_json::{Value, json};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[path = "common.rs"]
mod common;
use common::{Context, Res, ServerDirs, ServerProcess, catch_signals, check_interrupted};

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

/// A private directory tree, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Res<TempDir> {
        let base =
            std::env::temp_dir().join(format!("signaltty-state-bench-{}", std::process::id()));
        fs::DirBuilder::new()
            .mode(0o700)
            .recursive(true)
            .create(&base)
            .ctx(|| format!("mkdir {}", base.display()))?;
        Ok(TempDir(base))
    }

    fn fresh(&self, name: &str) -> Res<PathBuf> {
        let dir = self.0.join(name);
        for sub in ["run", "state", "home"] {
            fs::DirBuilder::new()
                .mode(0o700)
                .recursive(true)
                .create(dir.join(sub))
                .ctx(|| format!("mkdir {}", dir.display()))?;
        }
        Ok(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A blocking JSON-lines client.
struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next: u64,
}

impl Conn {
    fn connect(socket: &Path) -> Res<Conn> {
        let stream = UnixStream::connect(socket).ctx(|| format!("connect {}", socket.display()))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .ctx(|| "timeout".into())?;
        let writer = stream.try_clone().ctx(|| "clone".into())?;
        Ok(Conn {
            reader: BufReader::new(stream),
            writer,
            next: 0,
        })
    }

    fn send(&mut self, method: &str, params: &Value) -> Res<String> {
        self.next += 1;
        let id = format!("b{}", self.next);
        let line = json!({"protocol": "signaltty/1", "id": id, "method": method, "params": params});
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .ctx(|| "write".into())?;
        Ok(id)
    }

    fn read(&mut self) -> Res<Value> {
        let mut line = String::new();
        let n = self.reader.read_line(&mut line).ctx(|| "read".into())?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        serde_json::from_str(&line).ctx(|| format!("parse {line}"))
    }

    fn call(&mut self, method: &str, params: Value) -> Res<Value> {
        let id = self.send(method, &params)?;
        loop {
            let v = self.read()?;
            if v["id"] == id.as_str() {
                if v["ok"] == true {
                    return Ok(v["result"].clone());
                }
                return Err(format!("{method} failed: {}", v["error"]));
            }
        }
    }
}

fn start_server(bin: &Path, dir: &Path, args: &[&str]) -> Res<ServerProcess> {
    let (run, state, home) = (dir.join("run"), dir.join("state"), dir.join("home"));
    let dirs = ServerDirs {
        run: &run,
        state: &state,
        home: &home,
        log: dir.join("server.log"),
        cwd: Some(dir),
        args,
    };
    ServerProcess::start("signaltty-state-bench", bin, dirs, |socket| {
        UnixStream::connect(socket).is_ok()
    })
}

/// A workspace with one `sleep` pane per entry of `scripts`; returns the pane ids.
fn panes(conn: &mut Conn, dir: &Path, scripts: &[String]) -> Res<Vec<String>> {
    let ws = conn.call("workspace.create", json!({"name": "bench", "cwd": dir}))?;
    let ws = ws["workspace"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut ids = Vec::new();
    for script in scripts {
        let tab = conn.call("tab.create", json!({"workspace_id": ws}))?;
        let pane = conn.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": ["sh", "-c", script]}),
        )?;
        ids.push(pane["pane"]["id"].as_str().unwrap_or_default().to_owned());
    }
    Ok(ids)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(name: &str, mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let (p50, p99) = (percentile(&samples, 50.0), percentile(&samples, 99.0));
    println!(
        "{name:<44} n={:<5} p50 {:>7.3} ms  p90 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        samples.len(),
        ms(p50),
        ms(percentile(&samples, 90.0)),
        ms(p99),
        ms(samples.last().copied().unwrap_or_default())
    );
    (p50, p99)
}

/// A Claude `Stop` payload of about 2 KB.
fn payload() -> String {
    let message = "Fixed the failing test by checking the bound before indexing. ".repeat(28);
    json!({
        "session_id": "5b0c6a52-8f3e-4c1d-9a7b-2e6f0d1c3b4a",
        "transcript_path": "/home/user/.claude/projects/-home-user-proj/5b0c6a52.jsonl",
        "cwd": "/home/user/proj",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": message.trim_end(),
    })
    .to_string()
}

fn bench_hook(bin: &Path, tmp: &TempDir, runs: usize, verdicts: &mut Vec<String>) -> Res<()> {
    let dir = tmp.fresh("hook")?;
    let mut server = start_server(bin, &dir, &[])?;
    let mut conn = Conn::connect(&server.socket)?;
    let pane = panes(&mut conn, &dir, &["sleep 100000".to_owned()])?.remove(0);
    let body = payload();
    println!(
        "hook: `signaltty hook-event` whole process, {} byte payload on stdin",
        body.len()
    );
    let mut samples = Vec::with_capacity(runs);
    for i in 0..runs + 20 {
        check_interrupted()?;
        let event = if i % 2 == 0 {
            "UserPromptSubmit"
        } else {
            "Stop"
        };
        let started = Instant::now();
        let mut child = Command::new(bin)
            .args([
                "hook-event",
                "--agent",
                "claude",
                "--event",
                event,
                "--pane",
                &pane,
            ])
            .env("XDG_RUNTIME_DIR", dir.join("run"))
            .env_remove("SIGNALTTY_SOCKET")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ctx(|| "spawn hook-event".into())?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(body.as_bytes())
                .ctx(|| "write payload".into())?;
        }
        let status = child.wait().ctx(|| "wait hook-event".into())?;
        let took = started.elapsed();
        if !status.success() {
            return Err(format!("hook-event failed: {status}"));
        }
        if i >= 20 {
            samples.push(took);
        }
    }
    let (p50, p99) = summary("hook-event (claude Stop/UserPromptSubmit)", samples);
    verdicts.push(verdict(
        "hook: p50 < 3 ms",
        ms(p50) < 3.0,
        format!("{:.3} ms", ms(p50)),
    ));
    verdicts.push(verdict(
        "hook: p99 < 10 ms",
        ms(p99) < 10.0,
        format!("{:.3} ms", ms(p99)),
    ));
    server.stop();
    Ok(())
}

fn bench_latency(bin: &Path, tmp: &TempDir, runs: usize, verdicts: &mut Vec<String>) -> Res<()> {
    let dir = tmp.fresh("latency")?;
    let mut server = start_server(bin, &dir, &[])?;
    let mut conn = Conn::connect(&server.socket)?;
    let pane = panes(&mut conn, &dir, &["sleep 100000".to_owned()])?.remove(0);
    let mut sub = Conn::connect(&server.socket)?;
    sub.call("subscribe", json!({"events": ["agent.*"]}))?;
    let payload: Value = serde_json::from_str(&payload()).ctx(|| "payload".into())?;
    println!("latency: hook-event request written → agent.* event read by a subscriber");
    let mut samples = Vec::with_capacity(runs);
    for i in 0..runs + 50 {
        check_interrupted()?;
        let event = if i % 2 == 0 {
            "UserPromptSubmit"
        } else {
            "Stop"
        };
        let started = Instant::now();
        let id = conn.send(
            "hook-event",
            &json!({"agent": "claude", "event": event, "pane_id": pane, "payload": payload}),
        )?;
        loop {
            let v = sub.read()?;
            if v["type"] == "event" && v["payload"]["pane_id"] == pane.as_str() {
                break;
            }
        }
        let took = started.elapsed();
        loop {
            if conn.read()?["id"] == id.as_str() {
                break;
            }
        }
        if i >= 50 {
            samples.push(took);
        }
    }
    let (_, p99) = summary("hook → agent.* at a subscriber", samples);
    let sync_p99 = journal_sync(&dir, runs)?;
    let beyond = p99.saturating_sub(sync_p99);
    verdicts.push(verdict(
        "latency: p99 beyond the journal sync < 2 ms",
        ms(beyond) < 2.0,
        format!(
            "{:.3} ms ({:.3} − {:.3})",
            ms(beyond),
            ms(p99),
            ms(sync_p99)
        ),
    ));
    server.stop();
    Ok(())
}

/// The journal's part of a state event: `runs` appends of 600 bytes, each with
/// an fdatasync, in the state directory of the server run in `dir`; returns the
/// p99 (after printing the summary).
fn journal_sync(dir: &Path, runs: usize) -> Res<Duration> {
    let mut syncs = Vec::with_capacity(runs);
    let path = dir.join("state").join("sync-probe");
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .ctx(|| "open probe".into())?;
    let line = [b'x'; 600];
    for _ in 0..runs {
        let started = Instant::now();
        file.write_all(&line).ctx(|| "write probe".into())?;
        file.sync_data().ctx(|| "fdatasync".into())?;
        syncs.push(started.elapsed());
    }
    let (_, sync_p99) = summary("append + fdatasync in the state dir", syncs);
    Ok(sync_p99)
}

/// utime + stime of `pid`, in seconds.
fn cpu_seconds(pid: u32) -> Res<f64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ctx(|| "read stat".into())?;
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
    Ok((ticks(11) + ticks(12)) / 100.0)
}

fn bench_refresh(bin: &Path, tmp: &TempDir, opts: &Opts, verdicts: &mut Vec<String>) -> Res<()> {
    println!(
        "refresh: server CPU over {} s with {} idle `sh -c sleep` panes",
        opts.refresh_secs, opts.panes
    );
    let mut cpu = Vec::new();
    for (name, period_ms) in [
        ("refresh every 1 s", "1000"),
        ("refresh every hour", "3600000"),
    ] {
        let dir = tmp.fresh(&format!("refresh-{period_ms}"))?;
        let mut server = start_server(bin, &dir, &["--process-refresh-ms", period_ms])?;
        let mut conn = Conn::connect(&server.socket)?;
        let scripts: Vec<String> = (0..opts.panes)
            .map(|i| format!("sleep {}; :", 100_000 + i))
            .collect();
        panes(&mut conn, &dir, &scripts)?;
        // Let the shells start and the spawn work settle.
        std::thread::sleep(Duration::from_secs(3));
        let before = cpu_seconds(server.pid())?;
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(opts.refresh_secs) {
            check_interrupted()?;
            std::thread::sleep(Duration::from_millis(200));
        }
        let used = cpu_seconds(server.pid())? - before;
        let wall = started.elapsed().as_secs_f64();
        println!(
            "  {name:<20} {used:.3} s CPU in {wall:.1} s = {:.3} % of one core",
            100.0 * used / wall
        );
        cpu.push(used / wall);
        server.stop();
    }
    // Per refresh: the extra CPU of one-second refreshes, one refresh a second.
    let per_refresh = (cpu[0] - cpu[1]).max(0.0);
    let at_ten = 100.0 * per_refresh / 10.0;
    println!(
        "  one refresh of {} panes ≈ {:.2} ms CPU; at the real 10 s period ≈ {at_ten:.3} % of one core",
        opts.panes,
        per_refresh * 1000.0
    );
    verdicts.push(verdict(
        "refresh: < 1 % of one core with 100 panes",
        at_ten < 1.0,
        format!("{at_ten:.3} %"),
    ));
    Ok(())
}

/// A 50-row, 200-column screen of `kind` in a busy state, with output above.
fn busy_screen(kind: &str) -> String {
    let filler: Vec<String> = (0..40)
        .map(|i| format!("  {i:>3}  src/module_{i}.rs: compiled {} items in the worker pool, nothing to report here", i * 7))
        .collect();
    let rule = "─".repeat(200);
    let tail = match kind {
        "claude" => format!(
            "✻ Cogitating… (12s · ↑ 1.2k tokens · esc to interrupt)\n\n{rule}\n❯ \n{rule}\n  ? for shortcuts"
        ),
        "codex" => "› fix the failing test\n\n• Working (12s • esc to interrupt)\n\n› ".to_owned(),
        _ => "── ⠋ Working ──────────".to_owned(),
    };
    format!("{}\n{tail}", filler.join("\n"))
}

fn bench_screen(bin: &Path, tmp: &TempDir, opts: &Opts, verdicts: &mut Vec<String>) -> Res<()> {
    use signaltty_actors::agents::AgentSet;
    use signaltty_actors::agents::screen::{View, classify};
    use signaltty_protocol::pane::AgentKind;
    println!("screen: one evaluation of an agent's bundled rules against a 50×200 screen");
    let set = AgentSet::bundled_only();
    let mut worst = Duration::ZERO;
    for (name, kind) in [
        ("claude", AgentKind::Claude),
        ("codex", AgentKind::Codex),
        ("pi", AgentKind::Pi),
    ] {
        let (_, rules) = set.rules_for(kind, name);
        // A busy screen (a high rule wins early) and plain output (every rule
        // is tried before the fallback).
        let plain = busy_screen("plain").replace("── ⠋ Working ──────────", "$ ");
        for (what, screen) in [("busy", busy_screen(name)), ("plain", plain)] {
            let mut samples = Vec::with_capacity(2000);
            for _ in 0..2200 {
                let started = Instant::now();
                let view = View::new(&screen, "some title");
                let winner = classify(&rules, &view);
                std::hint::black_box(winner);
                samples.push(started.elapsed());
            }
            samples.drain(..200);
            samples.sort();
            let p50 = percentile(&samples, 50.0);
            let p99 = percentile(&samples, 99.0);
            println!(
                "  {name:<7} {what:<6} {:>2} rules  p50 {:>6.1} µs  p99 {:>6.1} µs",
                rules.len(),
                p50.as_secs_f64() * 1e6,
                p99.as_secs_f64() * 1e6
            );
            worst = worst.max(p50);
        }
    }
    verdicts.push(verdict(
        "screen: an evaluation < 50 µs (50×200, p50)",
        worst < Duration::from_micros(50),
        format!("{:.1} µs (slowest agent)", worst.as_secs_f64() * 1e6),
    ));

    println!(
        "screen: server CPU with {} idle claude panes, screens checked every 500 ms",
        opts.panes
    );
    let dir = tmp.fresh("screen")?;
    let claude = dir.join("claude");
    let rule = "─".repeat(78);
    fs::write(
        &claude,
        format!("#!/bin/sh\nprintf '\\033]0;✳ Claude Code\\007Done.\\r\\n\\r\\n{rule}\\r\\n❯ \\r\\n{rule}\\r\\n'\nexec sleep 100000\n"),
    )
    .ctx(|| "write the look-alike".into())?;
    let mut perms = fs::metadata(&claude).ctx(|| "stat".into())?.permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&claude, perms).ctx(|| "chmod".into())?;
    let mut server = start_server(bin, &dir, &[])?;
    let mut conn = Conn::connect(&server.socket)?;
    let ws = conn.call("workspace.create", json!({"name": "screens", "cwd": dir}))?;
    let ws = ws["workspace"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for _ in 0..opts.panes {
        let tab = conn.call("tab.create", json!({"workspace_id": ws}))?;
        conn.call(
            "pane.spawn",
            json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude]}),
        )?;
    }
    std::thread::sleep(Duration::from_secs(3));
    let before = cpu_seconds(server.pid())?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(opts.refresh_secs) {
        check_interrupted()?;
        std::thread::sleep(Duration::from_millis(200));
    }
    let used = cpu_seconds(server.pid())? - before;
    let share = 100.0 * used / started.elapsed().as_secs_f64();
    println!(
        "  {used:.3} s CPU in {:.1} s = {share:.3} % of one core",
        started.elapsed().as_secs_f64()
    );
    verdicts.push(verdict(
        "screen: 100 idle agent panes < 2 % of one core",
        share < 2.0,
        format!("{share:.3} %"),
    ));
    server.stop();
    Ok(())
}

/// What a permission reporter prints for Allow once (spec/agents.md §7.3).
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
        let mut child = Command::new(bin)
            .args([
                "hook-event",
                "--agent",
                "claude",
                "--event",
                "PermissionRequest",
                "--wait",
                "--pane",
                pane,
            ])
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
        let v = sub.read()?;
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
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ctx(|| "read status".into())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| format!("no VmRSS in /proc/{pid}/status"))
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

fn bench_decisions(bin: &Path, tmp: &TempDir, opts: &Opts, verdicts: &mut Vec<String>) -> Res<()> {
    bench_answers(bin, tmp, opts.answers, verdicts)?;
    bench_waiting(bin, tmp, opts.reporters, verdicts)
}

/// Answer → verdict: one pane, one waiting reporter at a time.
fn bench_answers(bin: &Path, tmp: &TempDir, runs: usize, verdicts: &mut Vec<String>) -> Res<()> {
    let dir = tmp.fresh("decisions")?;
    let mut server = start_server(bin, &dir, &[])?;
    let mut conn = Conn::connect(&server.socket)?;
    let pane = panes(&mut conn, &dir, &["sleep 100000".to_owned()])?.remove(0);
    let mut sub = Conn::connect(&server.socket)?;
    sub.call("subscribe", json!({"events": ["decision.created"]}))?;
    println!("decisions: decision.answer written → verdict line read from the waiting reporter");
    let mut reporters = Reporters::new(&dir);
    let mut samples = Vec::with_capacity(runs);
    for i in 0..runs + 20 {
        check_interrupted()?;
        let mut stdout =
            BufReader::new(reporters.spawn(bin, &server.socket, &pane, "bench-session")?);
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
            let v = conn.read()?;
            if v["id"] == id.as_str() {
                if v["ok"] != true {
                    return Err(format!("decision.answer failed: {}", v["error"]));
                }
                break;
            }
        }
        reporters.reap_last()?;
        if i >= 20 {
            samples.push(took);
        }
    }
    let (_, p99) = summary("decision.answer → reporter's verdict line", samples);
    let sync_p99 = journal_sync(&dir, runs.max(2000))?;
    let beyond = p99.saturating_sub(sync_p99);
    verdicts.push(verdict(
        "decisions: answer → reporter verdict, p99 beyond the journal sync < 5 ms",
        ms(beyond) < 5.0,
        format!(
            "{:.3} ms ({:.3} − {:.3})",
            ms(beyond),
            ms(p99),
            ms(sync_p99)
        ),
    ));
    server.stop();
    Ok(())
}

/// Server CPU over 10 s in which nothing is asked of it, as a share of one core.
fn idle_cpu(server: &ServerProcess, what: &str) -> Res<f64> {
    let before = cpu_seconds(server.pid())?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        check_interrupted()?;
        std::thread::sleep(Duration::from_millis(200));
    }
    let used = cpu_seconds(server.pid())? - before;
    let wall = started.elapsed().as_secs_f64();
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
    let dir = tmp.fresh("reporters")?;
    let mut server = start_server(bin, &dir, &[])?;
    let mut conn = Conn::connect(&server.socket)?;
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
    let mut sub = Conn::connect(&server.socket)?;
    sub.call("subscribe", json!({"events": ["decision.created"]}))?;
    let mut reporters = Reporters::new(&dir);
    // Held open: a reporter that answers would find its reader here.
    let mut outs = Vec::with_capacity(n);
    let started = Instant::now();
    for (i, pane) in ids.iter().enumerate() {
        check_interrupted()?;
        outs.push(reporters.spawn(bin, &server.socket, pane, &format!("bench-session-{i}"))?);
    }
    let mut pending = std::collections::HashSet::new();
    while pending.len() < ids.len() {
        check_interrupted()?;
        let v = sub.read().map_err(|e| {
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

fn verdict(what: &str, pass: bool, measured: String) -> String {
    format!(
        "  {}  {what:<48} measured {measured}",
        if pass { "PASS" } else { "FAIL" }
    )
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    if let Err(e) = catch_signals() {
        eprintln!("signaltty-state-bench: {e}");
        return ExitCode::FAILURE;
    }
    let bin = opts.bin.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.join("signaltty")))
            .unwrap_or_else(|| PathBuf::from("signaltty"))
    });
    let run = |s: Scenario| opts.only.is_empty() || opts.only.contains(&s);
    let result = (|| -> Res<Vec<String>> {
        let tmp = TempDir::new()?;
        let mut verdicts = Vec::new();
        if run(Scenario::Hook) {
            bench_hook(&bin, &tmp, opts.hooks, &mut verdicts)?;
        }
        if run(Scenario::Latency) {
            bench_latency(&bin, &tmp, opts.events, &mut verdicts)?;
        }
        if run(Scenario::Refresh) {
            bench_refresh(&bin, &tmp, &opts, &mut verdicts)?;
        }
        if run(Scenario::Screen) {
            bench_screen(&bin, &tmp, &opts, &mut verdicts)?;
        }
        if run(Scenario::Decisions) {
            bench_decisions(&bin, &tmp, &opts, &mut verdicts)?;
        }
        Ok(verdicts)
    })();
    match result {
        Ok(verdicts) => {
            println!("\ntargets:");
            for v in &verdicts {
                println!("{v}");
            }
            ExitCode::SUCCESS
        },
        Err(e) => {
            eprintln!("signaltty-state-bench: {e}");
            ExitCode::FAILURE
        },
    }
}
