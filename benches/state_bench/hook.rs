//! Hooks: whole-process time of `signaltty hook-event` as an agent runs it, and from
//! a `hook-event` request to the `agent.*` event it causes at a subscriber, beside the
//! journal's fdatasync.

use crate::common::stats::{millis, sample};
use crate::common::tempdir::TempDir;
use crate::common::{Context, Res};
use crate::{
    beyond_sync, connect, hook_event, journal_sync, panes, start_server, summary, verdict,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

/// A Claude `Stop` payload of about 2 KB.
pub fn payload() -> String {
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

/// Every hook changes the pane's state: a turn starts, then ends.
fn turn_event(i: usize) -> &'static str {
    if i.is_multiple_of(2) {
        "UserPromptSubmit"
    } else {
        "Stop"
    }
}

pub fn bench_hook(bin: &Path, tmp: &TempDir, runs: usize, verdicts: &mut Vec<String>) -> Res<()> {
    let (mut server, dir) = start_server(bin, tmp, "hook", &[])?;
    let mut conn = connect(&server)?;
    let pane = panes(&mut conn, &dir, &["sleep 100000".to_owned()])?.remove(0);
    let body = payload();
    println!(
        "hook: `signaltty hook-event` whole process, {} byte payload on stdin",
        body.len()
    );
    let samples = sample(20, runs, |i| {
        let started = Instant::now();
        let mut child = hook_event(bin, turn_event(i), &pane)
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
        Ok(took)
    })?;
    let (p50, p99) = summary("hook-event (claude Stop/UserPromptSubmit)", samples);
    verdicts.push(verdict(
        "hook: p50 < 3 ms",
        millis(p50) < 3.0,
        format!("{:.3} ms", millis(p50)),
    ));
    verdicts.push(verdict(
        "hook: p99 < 10 ms",
        millis(p99) < 10.0,
        format!("{:.3} ms", millis(p99)),
    ));
    server.stop();
    Ok(())
}

pub fn bench_latency(
    bin: &Path,
    tmp: &TempDir,
    runs: usize,
    verdicts: &mut Vec<String>,
) -> Res<()> {
    let (mut server, dir) = start_server(bin, tmp, "latency", &[])?;
    let mut conn = connect(&server)?;
    let pane = panes(&mut conn, &dir, &["sleep 100000".to_owned()])?.remove(0);
    let mut sub = connect(&server)?;
    sub.call("subscribe", json!({"events": ["agent.*"]}))?;
    let payload: Value = serde_json::from_str(&payload()).ctx(|| "payload".into())?;
    println!("latency: hook-event request written → agent.* event read by a subscriber");
    let samples = sample(50, runs, |i| {
        let started = Instant::now();
        let id = conn.send(
            "hook-event",
            &json!({"agent": "claude", "event": turn_event(i), "pane_id": pane, "payload": payload}),
        )?;
        loop {
            let v = sub.read_value()?;
            if v["type"] == "event" && v["payload"]["pane_id"] == pane.as_str() {
                break;
            }
        }
        let took = started.elapsed();
        loop {
            if conn.read_value()?["id"] == id.as_str() {
                break;
            }
        }
        Ok(took)
    })?;
    let (_, p99) = summary("hook → agent.* at a subscriber", samples);
    let sync_p99 = journal_sync(&dir, runs)?;
    verdicts.push(beyond_sync(
        "latency: p99 beyond the journal sync < 2 ms",
        2.0,
        p99,
        sync_p99,
    ));
    server.stop();
    Ok(())
}
