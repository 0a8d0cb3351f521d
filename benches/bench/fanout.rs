//! Fan-out: publication-to-delivery latency of a producer's renames to many
//! subscribers, and the same with tmux control clients receiving `%window-renamed`.

use crate::common::stats::Dist;
use crate::common::tempdir::TempDir;
use crate::common::tmux::Tmux;
use crate::common::{Context, Res, check_interrupted, spawn_unmasked};
use crate::journal::{join_all, sleep_until};
use crate::probe::{Probe, Usage};
use crate::roundtrip::{TMUX_LABEL, tmux_control};
use crate::wire::{self, check_reply, rename_line};
use serde_json::{Value, json};
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Reads `src` and hands every complete line to `line` with the time (ns since
/// `origin`) at which the read that completed it returned. Stops at EOF or when
/// `line` returns false.
fn read_timed_lines(
    src: &mut impl Read,
    origin: Instant,
    mut line: impl FnMut(u64, &[u8]) -> bool,
) -> Res<()> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = src.read(&mut buf).ctx(|| "read".into())?;
        let t = origin.elapsed().as_nanos() as u64;
        if n == 0 {
            return Ok(());
        }
        let mut start = 0;
        while let Some(off) = buf[start..n].iter().position(|b| *b == b'\n') {
            let end = start + off + 1;
            let more = if partial.is_empty() {
                line(t, &buf[start..end])
            } else {
                partial.extend_from_slice(&buf[start..end]);
                let more = line(t, &partial);
                partial.clear();
                more
            };
            if !more {
                return Ok(());
            }
            start = end;
        }
        partial.extend_from_slice(&buf[start..n]);
    }
}

/// Delivery of a producer's events to many readers.
#[derive(Debug)]
pub struct FanoutRun {
    pub label: String,
    pub readers: usize,
    /// Between the starts of two renames.
    pub interval: Duration,
    /// Measured events (warm-up excluded).
    pub events: usize,
    /// Producer: request sent → its reply received.
    pub rtt: Option<Dist>,
    /// Every (event, reader): reader's receipt − request sent.
    pub raw: Option<Dist>,
    /// Every (event, reader): reader's receipt − producer's reply received.
    pub beyond: Option<Dist>,
    /// Per event: the last reader's receipt − request sent.
    pub last: Option<Dist>,
    /// Share of (event, reader) pairs received before the producer had its reply.
    pub before_reply: f64,
    /// (event, reader) pairs never received.
    pub missing: usize,
    pub usage: Option<Usage>,
}

/// `times[k]` = (sent, replied) ns for event k; `recv[j][k]` = reader j's receipt.
fn fanout_stats(
    label: String,
    interval: Duration,
    warmup: usize,
    times: &[(u64, u64)],
    recv: &[Vec<Option<u64>>],
    usage: Option<Usage>,
) -> FanoutRun {
    let us = |a: u64, b: u64| (a as f64 - b as f64) / 1e3;
    let (mut raw, mut beyond, mut last, mut rtt) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut missing, mut early) = (0, 0usize);
    for (k, &(sent, replied)) in times.iter().enumerate().skip(warmup) {
        rtt.push(us(replied, sent));
        let mut latest: Option<u64> = None;
        for reader in recv {
            match reader.get(k).copied().flatten() {
                Some(t) => {
                    raw.push(us(t, sent));
                    beyond.push(us(t, replied));
                    if t < replied {
                        early += 1;
                    }
                    latest = latest.max(Some(t));
                },
                None => missing += 1,
            }
        }
        if let Some(t) = latest {
            last.push(us(t, sent));
        }
    }
    let pairs = raw.len();
    FanoutRun {
        label,
        interval,
        readers: recv.len(),
        events: times.len().saturating_sub(warmup),
        rtt: Dist::of_micros(rtt),
        raw: Dist::of_micros(raw),
        beyond: Dist::of_micros(beyond),
        last: Dist::of_micros(last),
        before_reply: if pairs > 0 {
            early as f64 / pairs as f64
        } else {
            0.0
        },
        missing,
        usage,
    }
}

const FANOUT_WARMUP: usize = 20;

/// (receipt ns since the origin, line) of each event a subscriber received.
type TimedLines = Vec<(u64, Vec<u8>)>;

/// A subscriber of `workspace.*`: returns (receipt ns, line) of the first `expected`
/// `workspace.updated` events.
fn subscriber(
    socket: &Path,
    expected: usize,
    origin: Instant,
    ready: &std::sync::Barrier,
) -> Res<TimedLines> {
    let setup = wire::open(socket).and_then(|mut c| {
        let result = c.call("subscribe", json!({"events": ["workspace.*"]}))?;
        if result["subscribed"] != json!(true) || !c.buffered().is_empty() {
            return Err(format!("unexpected subscribe reply {result}"));
        }
        Ok(c)
    });
    ready.wait();
    let mut c = setup?;
    let mut got = Vec::with_capacity(expected);
    read_timed_lines(c.stream(), origin, |t, line| {
        // Only the cheapest test here: the reader's CPU delays the other readers.
        if contains(line, b"\"workspace.updated\"") {
            got.push((t, line.to_vec()));
        }
        got.len() < expected
    })?;
    if got.len() < expected {
        return Err(format!(
            "a subscriber received {} of {expected} events",
            got.len()
        ));
    }
    Ok(got)
}

pub fn bench_fanout(
    socket: &Path,
    probe: Option<&Probe>,
    subscribers: usize,
    n: usize,
    interval: Duration,
) -> Res<FanoutRun> {
    let mut producer = wire::open(socket)?;
    let ws = producer.create_workspace("fanout", None)?;
    let total = FANOUT_WARMUP + n;
    let origin = Instant::now();
    let ready = std::sync::Barrier::new(subscribers + 1);
    let (produced, received, usage) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..subscribers)
            .map(|_| scope.spawn(|| subscriber(socket, total, origin, &ready)))
            .collect();
        ready.wait();
        let a = probe.map(Probe::snapshot);
        let ns = |t: Instant| (t - origin).as_nanos() as u64;
        let start = Instant::now();
        let mut times = Vec::with_capacity(total);
        let mut produced = Ok(());
        for k in 0..total {
            if let Err(e) = check_interrupted() {
                produced = Err(e);
                break;
            }
            sleep_until(start + interval * k as u32);
            let id = format!("f{k}");
            let line = rename_line(&id, &ws, format!("fan-{k}"));
            let sent = Instant::now();
            if let Err(e) = producer.round_trip(line.as_bytes()) {
                produced = Err(e);
                break;
            }
            let replied = Instant::now();
            if let Err(e) = check_reply(&producer.buf, &id) {
                produced = Err(e);
                break;
            }
            times.push((ns(sent), ns(replied)));
        }
        let b = probe.map(Probe::snapshot);
        // A failed producer leaves the subscribers waiting: their reads time out.
        let received = join_all(handles, "subscriber");
        let rate = total as f64 / (start.elapsed().as_secs_f64());
        (
            produced.map(|()| times),
            received,
            a.zip(b).map(|(a, b)| Usage::between(&a, &b, rate)),
        )
    });
    let times = produced?;
    let mut recv = Vec::with_capacity(subscribers);
    for r in received {
        let mut mine = vec![None; total];
        for (t, line) in r? {
            let v: Value = serde_json::from_slice(&line).ctx(|| "event line".into())?;
            let k = v["payload"]["workspace"]["name"]
                .as_str()
                .and_then(|name| name.strip_prefix("fan-"))
                .and_then(|k| k.parse::<usize>().ok());
            if let Some(slot) = k.and_then(|k| mine.get_mut(k)) {
                *slot = Some(t);
            }
        }
        recv.push(mine);
    }
    Ok(fanout_stats(
        format!("signaltty: {subscribers} subscribers"),
        interval,
        FANOUT_WARMUP,
        &times,
        &recv,
        usage,
    ))
}

/// The same with tmux: `readers` control clients (`tmux -C attach`) receive
/// `%window-renamed` when the benchmark's own control client runs `rename-window`.
pub fn bench_tmux_fanout(
    dir: &TempDir,
    readers: usize,
    n: usize,
    interval: Duration,
) -> Res<FanoutRun> {
    let tmux = Tmux::new(dir, TMUX_LABEL)?;
    let mut control = tmux_control(&tmux)?;
    control.send(b"display-message -p '#{session_id} #{window_id}'\n")?;
    let (ids, _) = control.read_block()?;
    let mut words = ids.split_whitespace();
    let (Some(session), Some(window)) = (words.next(), words.next()) else {
        return Err(format!("tmux: no session and window id in {ids:?}"));
    };
    let (session, window) = (session.to_owned(), window.to_owned());
    let total = FANOUT_WARMUP + n;
    let last_name = format!("fan-{}", total - 1);
    let origin = Instant::now();
    let mut clients = Vec::with_capacity(readers);
    let mut stdins = Vec::with_capacity(readers);
    let mut stdouts = Vec::with_capacity(readers);
    let spawned = (|| -> Res<()> {
        for _ in 0..readers {
            let mut child = spawn_unmasked(
                tmux.command()
                    .args(["-C", "attach-session", "-t", &session])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null()),
            )
            .ctx(|| "tmux -C attach".into())?;
            stdins.push(child.stdin.take());
            stdouts.push(child.stdout.take());
            clients.push(child);
        }
        Ok(())
    })();
    let attached = std::sync::atomic::AtomicUsize::new(0);
    let (produced, received) = std::thread::scope(|scope| {
        let handles: Vec<_> = stdouts
            .into_iter()
            .map(|out| {
                let (attached, last_name) = (&attached, &last_name);
                scope.spawn(move || -> Res<Vec<(u64, usize)>> {
                    let Some(mut out) = out else {
                        return Err("tmux client: no stdout".into());
                    };
                    let mut seen_any = false;
                    let mut got = Vec::with_capacity(total);
                    read_timed_lines(&mut out, origin, |t, line| {
                        let Some(rest) = line.strip_prefix(b"%window-renamed ") else {
                            return true;
                        };
                        if !seen_any {
                            seen_any = true;
                            attached.fetch_add(1, Ordering::Relaxed);
                        }
                        let text = String::from_utf8_lossy(rest);
                        let name = text.split_whitespace().nth(1).unwrap_or("");
                        if let Some(k) = name.strip_prefix("fan-").and_then(|k| k.parse().ok()) {
                            got.push((t, k));
                        }
                        name != last_name
                    })?;
                    Ok(got)
                })
            })
            .collect();
        let produced = spawned.and_then(|()| {
            // Rename until every client has shown a notification: they are attached.
            let mut i = 0;
            while attached.load(Ordering::Relaxed) < readers {
                check_interrupted()?;
                if i == 500 {
                    return Err("tmux control clients did not attach within 10 s".into());
                }
                control.send(format!("rename-window -t {window} ready-{i}\n").as_bytes())?;
                control.read_block()?;
                std::thread::sleep(Duration::from_millis(20));
                i += 1;
            }
            let ns = |t: Instant| (t - origin).as_nanos() as u64;
            let start = Instant::now();
            let mut times = Vec::with_capacity(total);
            for k in 0..total {
                check_interrupted()?;
                sleep_until(start + interval * k as u32);
                let line = format!("rename-window -t {window} fan-{k}\n");
                let sent = Instant::now();
                control.send(line.as_bytes())?;
                control.read_block()?;
                times.push((ns(sent), ns(Instant::now())));
            }
            Ok(times)
        });
        // Give the readers time to see the last rename, then detach every client
        // (EOF on its stdin) so that a reader still waiting sees EOF.
        let deadline = Instant::now() + Duration::from_secs(5);
        while handles.iter().any(|h| !h.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        stdins.clear();
        let received = join_all(handles, "tmux reader");
        (produced, received)
    });
    for mut c in clients {
        let _ = c.kill();
        let _ = c.wait();
    }
    drop(control);
    drop(tmux);
    let times = produced?;
    let mut recv = Vec::with_capacity(readers);
    for r in received {
        let mut mine = vec![None; total];
        for (t, k) in r? {
            if let Some(slot) = mine.get_mut(k) {
                *slot = Some(t);
            }
        }
        recv.push(mine);
    }
    Ok(fanout_stats(
        format!("tmux -C: {readers} control clients, %window-renamed"),
        interval,
        FANOUT_WARMUP,
        &times,
        &recv,
        None,
    ))
}
