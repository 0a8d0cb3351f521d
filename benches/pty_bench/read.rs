//! Read: sequential `pane.read` of 5000 lines (`tail` and `rendered`) from a pane
//! that printed 6000; tmux: `capture-pane -p` of 5000 lines over control mode.

use crate::common::client::Conn;
use crate::common::client::{request_line, str_at};
use crate::common::stats::{Dist, sample};
use crate::common::tempdir::TempDir;
use crate::common::tmux::TmuxControl;
use crate::common::{Context, Res, check_interrupted};
use crate::{Opts, connect, latency_json, new_tmux, start_server};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

const READ_WARMUP: usize = 100;

pub struct ReadResult {
    pub tail: Dist,
    pub rendered: Dist,
    pub reply_bytes: usize,
    pub tmux: Option<Dist>,
    pub tmux_lines: usize,
}

fn bench_read_mode(conn: &mut Conn, pane: &str, mode: &str, n: usize) -> Res<(Dist, usize)> {
    let params = json!({"pane_id": pane, "mode": mode, "lines": 5000});
    let mut bytes = 0;
    let samples = sample(READ_WARMUP, n, |i| {
        let id = format!("r{i}");
        let line = request_line(&id, "pane.read", &params);
        let t = Instant::now();
        conn.round_trip(line.as_bytes())?;
        let dt = t.elapsed();
        // Checked outside the timed span.
        let v: Value = serde_json::from_slice(&conn.buf).ctx(|| "reply".into())?;
        if v.get("id").and_then(Value::as_str) != Some(id.as_str())
            || v.get("ok").and_then(Value::as_bool) != Some(true)
        {
            return Err(format!("unexpected reply: {v}"));
        }
        if i == 0 {
            let text = str_at(&v, &["result", "text"])?;
            let lines: Vec<&str> = text.lines().collect();
            if lines.len() != 5000
                || lines.first() != Some(&"1001")
                || lines.last() != Some(&"6000")
            {
                return Err(format!(
                    "{mode}: expected lines 1001..6000, got {} lines",
                    lines.len()
                ));
            }
            bytes = conn.buf.len();
        }
        Ok(dt)
    })?;
    Ok((Dist::of_durations(samples).unwrap_or(Dist::NAN), bytes))
}

pub fn bench_read(opts: &Opts, bin: &Path, dir: &TempDir, log: &dyn Fn(&str)) -> Res<ReadResult> {
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    conn.call("subscribe", json!({"events": ["pane.exited"]}))?;
    let ws = conn.create_workspace("bench", Some(Path::new("/tmp")))?;
    let tab = conn.create_tab(&ws)?;
    let pane = conn.spawn(&ws, &tab, &["seq", "1", "6000"])?;
    conn.wait_event("pane.exited", |p| {
        p.get("pane_id").and_then(Value::as_str) == Some(&pane)
    })?;
    // A connection that is not subscribed: nothing but replies on it.
    let mut conn = connect(&server)?;
    log("read: tail");
    let (tail, reply_bytes) = bench_read_mode(&mut conn, &pane, "tail", opts.reads)?;
    log("read: rendered");
    let (rendered, _) = bench_read_mode(&mut conn, &pane, "rendered", opts.reads)?;
    drop(conn);
    drop(server);
    let (tmux, tmux_lines) = if opts.no_tmux {
        (None, 0)
    } else {
        log("read: tmux capture-pane");
        let (l, lines) = read_tmux(dir, opts.reads)?;
        (Some(l), lines)
    };
    Ok(ReadResult {
        tail,
        rendered,
        reply_bytes,
        tmux,
        tmux_lines,
    })
}

/// tmux: a pane that printed `seq 1 6000` with a history limit that keeps at least
/// 5040 lines (tmux drops 10% of the limit at a time), then `capture-pane -p` of the
/// last 5000 lines (4976 of history + 24 rows) over one control-mode client.
fn read_tmux(dir: &TempDir, n: usize) -> Res<(Dist, usize)> {
    let tmux = new_tmux(dir)?;
    tmux.run(&[
        "set-option",
        "-g",
        "history-limit",
        "5600",
        ";",
        "new-session",
        "-d",
        "-s",
        "r",
        "-x",
        "80",
        "-y",
        "24",
        "seq 1 6000; exec sleep 2147483647",
    ])?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !tmux
        .run(&["capture-pane", "-p", "-t", "r:"])?
        .lines()
        .any(|l| l.trim() == "6000")
    {
        check_interrupted()?;
        if Instant::now() > deadline {
            return Err("tmux: seq 1 6000 did not finish".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut ctl = TmuxControl::start(&tmux, &["attach-session", "-t", "r"])?;
    let line = b"capture-pane -p -t r: -S -4976\n";
    let mut lines = 0;
    let samples = sample(READ_WARMUP, n, |i| {
        let t = Instant::now();
        ctl.send(line)?;
        let (body, count) = ctl.read_block()?;
        let dt = t.elapsed();
        if i == 0 {
            if count < 4990 || !body.lines().any(|l| l.trim() == "6000") {
                return Err(format!("tmux capture-pane returned {count} lines"));
            }
            lines = count;
        }
        Ok(dt)
    })?;
    Ok((Dist::of_durations(samples).unwrap_or(Dist::NAN), lines))
}

impl ReadResult {
    /// The read table.
    pub fn print(&self, o: &mut String) {
        let rd = self;
        let _ = writeln!(
            o,
            "\nread: 5000 lines from a full ring, sequential round trips on one connection (µs)"
        );
        let _ = writeln!(
            o,
            "{:<44} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "request", "n", "mean", "p50", "p90", "p99", "max"
        );
        let mut row = |name: &str, l: &Dist| {
            let _ = writeln!(
                o,
                "{name:<44} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                l.n, l.mean, l.p50, l.p90, l.p99, l.max
            );
        };
        row("signaltty pane.read tail 5000", &rd.tail);
        row("signaltty pane.read rendered 5000", &rd.rendered);
        if let Some(t) = &rd.tmux {
            row(
                &format!("tmux -C capture-pane -p ({} lines)", rd.tmux_lines),
                t,
            );
            let _ = writeln!(
                o,
                "p50 ratio vs tmux: tail {:.2}, rendered {:.2}; reply {} bytes",
                rd.tail.p50 / t.p50,
                rd.rendered.p50 / t.p50,
                rd.reply_bytes
            );
        }
    }

    pub fn json(&self) -> Value {
        let rd = self;
        json!({
            "signaltty_tail": latency_json(&rd.tail),
            "signaltty_rendered": latency_json(&rd.rendered),
            "signaltty_reply_bytes": rd.reply_bytes,
            "tmux_capture": rd.tmux.as_ref().map(latency_json),
            "tmux_lines": rd.tmux_lines,
        })
    }
}
