//! The soak's readers: the recorder (one subscription from seq 0 for the
//! whole run, resumed after every fault, that must see every event once and
//! in order), full readers (a replay from seq 0, read whole), vanishers
//! (read a little, then go), never-readers (subscribe and never read: the
//! server must cut them) and attach sessions (`pane.attach`, `pty.data`
//! followed by offset, then a detach or a hang-up).

use super::conn::{Conn, End, Next, result};
use super::hooks::Asked;
use super::panes::text;
use super::rng::Rng;
use super::shared::{Shared, lock};
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// The threads that stop their cycles for a measurement window.
pub const TRANSIENT: [&str; 5] = [
    "churner",
    "full reader",
    "vanisher",
    "never-reader",
    "attacher",
];

/// The parts of a line a reader checks, parsed without building the payload.
#[derive(Deserialize)]
struct Lite {
    #[serde(rename = "type")]
    kind: Option<String>,
    seq: Option<u64>,
    id: Option<String>,
    error: Option<Value>,
}

fn lite(line: &str) -> Result<Lite, End> {
    serde_json::from_str(line).map_err(|e| End::Garbage(format!("{e}: {line}")))
}

/// Whether a connection that ended since `epoch` was ended by a fault.
fn by_fault(sh: &Shared, epoch: u64) -> bool {
    sh.faulting() || sh.epoch() != epoch
}

/// A cut's last line: `RATE_LIMITED` with `slow_reader` or `lagged`, and
/// `resume_from_seq` the last seq written before it (`last`).
fn check_cut(sh: &Shared, who: &str, error: &Value, last: u64) -> String {
    let reason = text(&error["details"]["reason"]);
    let fine = error["code"] == "RATE_LIMITED"
        && matches!(reason.as_str(), "slow_reader" | "lagged")
        && (last == 0 || error["details"]["resume_from_seq"] == last);
    if !fine {
        sh.fail(format!(
            "{who}: a last line that does not say why or where to resume (last seq {last}): {error}"
        ));
    }
    reason
}

/// The one subscription that sees the whole run: from seq 0, resumed with
/// `from_seq` after every fault, every replay `complete`, every seq above
/// the one before. It hands each answerable question to the decider.
pub fn recorder(sh: Arc<Shared>, questions: Sender<Asked>) {
    let mut last = 0u64;
    let mut seqs: Vec<u64> = Vec::new();
    let mut conn: Option<(Conn, u64)> = None;
    while sh.running() {
        let Some((c, epoch)) = conn.as_mut() else {
            let epoch = sh.epoch();
            let Some(mut c) = sh.connect("recorder", Duration::from_secs(2)) else {
                break;
            };
            match c.call("subscribe", json!({"from_seq": last})) {
                Ok(r) => match result(r) {
                    Ok(v) if v["replay"]["status"] == "complete" => {
                        sh.count("recorder subscriptions");
                        conn = Some((c, epoch));
                    },
                    Ok(v) => sh.fail(format!("the recorder's replay from {last}: {v}")),
                    Err(code) => sh.fail(format!("the recorder's subscribe: {code}")),
                },
                Err(e) if e.is_garbage() => sh.fail(format!("recorder: {e:?}")),
                Err(_) => {},
            }
            continue;
        };
        match c.next() {
            Ok(Next::Event(e)) => {
                if e.seq <= last {
                    sh.fail(format!(
                        "the recorder got seq {} ({}) after {last}",
                        e.seq, e.event
                    ));
                }
                last = e.seq;
                seqs.push(e.seq);
                sh.head.store(last, std::sync::atomic::Ordering::SeqCst);
                if e.event == "decision.created" && e.payload["decision"]["answerable"] == true {
                    let _ = questions.send(Asked {
                        pane: text(&e.payload["pane_id"]),
                        decision: text(&e.payload["decision"]["id"]),
                    });
                }
            },
            Ok(Next::Response(r)) if r.id != "?" => {
                sh.fail(format!(
                    "the recorder got a reply it did not ask for: {r:?}"
                ));
            },
            Ok(Next::Response(r)) => {
                let error = serde_json::to_value(&r.error).unwrap_or_default();
                let reason = check_cut(&sh, "the recorder", &error, last);
                sh.count(&format!("recorder cut {reason}"));
                conn = None;
            },
            Err(End::Timeout) => {},
            Err(End::Garbage(g)) => sh.fail(format!("recorder: {g}")),
            Err(end) => {
                if !by_fault(&sh, *epoch) {
                    sh.fail(format!(
                        "the recorder's subscription ended outside a fault: {end:?}"
                    ));
                }
                conn = None;
            },
        }
    }
    *lock(&sh.recorded) = seqs;
}

/// Every so often a replay from seq 0, read whole: `complete`, as many
/// events as it says, every seq above the one before, none past `through`.
pub fn full_reader(sh: Arc<Shared>) {
    while sh.pace(sh.full_replay_every) {
        if sh.park_if_quiet("full reader") {
            continue;
        }
        let epoch = sh.epoch();
        match full_replay(&sh) {
            Ok(n) => {
                sh.count("full replays read");
                sh.add("events read by full replays", n);
            },
            Err(End::Garbage(g)) => sh.fail(format!("full reader: {g}")),
            Err(_) if sh.quiet() || !sh.running() => sh.count("full replays left unfinished"),
            Err(_) if by_fault(&sh, epoch) => sh.count("full replays ended by a fault"),
            Err(e) => sh.fail(format!("a full replay ended outside a fault: {e:?}")),
        }
    }
    sh.park_if_quiet("full reader");
}

fn full_replay(sh: &Shared) -> Result<u64, End> {
    let Some(mut c) = sh.connect("full reader", Duration::from_secs(60)) else {
        return Ok(0);
    };
    let reply = result(c.call("subscribe", json!({"from_seq": 0}))?);
    let reply = match reply {
        Ok(v) if v["replay"]["status"] == "complete" => v,
        other => {
            sh.fail(format!("a replay from seq 0: {other:?}"));
            return Ok(0);
        },
    };
    let returned = reply["replay"]["returned"].as_u64().unwrap_or(0);
    let through = reply["replay"]["through"].as_u64().unwrap_or(0);
    let mut last = 0;
    for i in 0..returned {
        if !sh.running() || sh.quiet() {
            return Err(End::Timeout);
        }
        let line = lite(&c.read_line()?)?;
        let seq = line.seq.unwrap_or(0);
        if line.kind.as_deref() != Some("event") {
            let error = line.error.unwrap_or_default();
            let reason = check_cut(sh, "a full reader", &error, last);
            sh.count(&format!("full readers cut {reason}"));
            return Ok(i);
        }
        if seq <= last || seq > through {
            sh.fail(format!(
                "a replay from 0 gave seq {seq} after {last} (through {through})"
            ));
        }
        last = seq;
    }
    // Then a second of live events, which continue above `through`.
    let until = Instant::now() + Duration::from_secs(1);
    read_rising(sh, &mut c, "a full reader", last, until, false)?;
    Ok(returned)
}

/// Reads events until `until` (or a measurement window, when `quiet_ends`),
/// each seq above the one before, starting above `last`; returns the last.
fn read_rising(
    sh: &Shared,
    c: &mut Conn,
    who: &str,
    mut last: u64,
    until: Instant,
    quiet_ends: bool,
) -> Result<u64, End> {
    c.set_timeout(Duration::from_millis(200));
    while Instant::now() < until && !(quiet_ends && sh.quiet()) {
        match c.read_line() {
            Ok(line) => {
                let seq = lite(&line)?.seq.unwrap_or(0);
                if seq <= last {
                    sh.fail(format!("{who} got seq {seq} after {last}"));
                }
                last = seq;
            },
            Err(End::Timeout) => {},
            Err(e) => return Err(e),
        }
    }
    Ok(last)
}

/// Subscribes (live, or from a recent seq), reads for a moment, hangs up.
pub fn vanisher(sh: Arc<Shared>) {
    let mut rng = Rng::new(sh.seed, 7);
    while sh.pace(rng.millis(500, 3000)) {
        if sh.park_if_quiet("vanisher") {
            continue;
        }
        let epoch = sh.epoch();
        let Some(mut c) = sh.connect("vanisher", Duration::from_secs(30)) else {
            break;
        };
        let head = sh.head.load(std::sync::atomic::Ordering::SeqCst);
        let params = if rng.chance(0.5) {
            json!({})
        } else {
            json!({"from_seq": head.saturating_sub(rng.below(3000))})
        };
        let read_for = rng.millis(100, 3000);
        let outcome = (|| -> Result<(), End> {
            let v = match result(c.call("subscribe", params.clone())?) {
                Ok(v) => v,
                Err(code) => {
                    sh.fail(format!("a vanisher's subscribe {params}: {code}"));
                    return Ok(());
                },
            };
            if params.get("from_seq").is_some() && v["replay"]["status"] != "complete" {
                sh.fail(format!("a vanisher's replay {params}: {v}"));
            }
            read_rising(
                &sh,
                &mut c,
                "a vanisher",
                0,
                Instant::now() + read_for,
                true,
            )?;
            Ok(())
        })();
        match outcome {
            Ok(()) => sh.count("vanishers"),
            Err(End::Garbage(g)) => sh.fail(format!("vanisher: {g}")),
            Err(_) if by_fault(&sh, epoch) => sh.count("vanishers ended by a fault"),
            Err(e) => sh.fail(format!("a vanisher's stream ended outside a fault: {e:?}")),
        }
    }
    sh.park_if_quiet("vanisher");
}

/// How long a subscriber that never reads may stay connected: far more than
/// filling 4096 events or 4 MiB takes at the soak's rate.
const CUT_DEADLINE: Duration = Duration::from_secs(300);

/// Subscribes (from seq 0 or live) and never reads; the server must cut it.
/// Once it has, reads what reached the socket: the reply, events in order,
/// and the last line saying why, when it got that far. A measurement window
/// waits for the cycle under way to end, so that every window finds the
/// memory a cut subscriber leaves behind, not one still filling.
pub fn never_reader(sh: Arc<Shared>) {
    let mut rng = Rng::new(sh.seed, 8);
    while sh.pace(rng.millis(500, 3000)) {
        if sh.park_if_quiet("never-reader") {
            continue;
        }
        let epoch = sh.epoch();
        let Some(mut c) = sh.connect("never-reader", Duration::from_secs(2)) else {
            break;
        };
        let params = if rng.chance(0.5) {
            json!({"from_seq": 0})
        } else {
            json!({})
        };
        let Ok(id) = c.send("subscribe", params) else {
            continue;
        };
        sh.count("never-readers");
        let start = Instant::now();
        loop {
            if !sh.running() {
                return;
            }
            if c.closed_by_peer() {
                if by_fault(&sh, epoch) {
                    sh.count("never-readers ended by a fault");
                } else {
                    let reason = read_after_cut(&sh, &mut c, &id);
                    sh.count(&format!("never-readers cut {reason}"));
                    sh.max(
                        "never-reader longest before its cut ms",
                        start.elapsed().as_millis() as u64,
                    );
                }
                break;
            }
            if start.elapsed() > CUT_DEADLINE {
                sh.fail(format!(
                    "a subscriber that never reads was not cut within {CUT_DEADLINE:?}"
                ));
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    sh.park_if_quiet("never-reader");
}

fn read_after_cut(sh: &Shared, c: &mut Conn, id: &str) -> String {
    let mut last = 0;
    let mut replied = false;
    loop {
        let line = match c.read_line() {
            Ok(line) => line,
            Err(End::Eof | End::Fragment(_)) => return "without its last line".to_owned(),
            Err(e) => {
                sh.fail(format!("reading a cut subscriber: {e:?}"));
                return String::new();
            },
        };
        let l = match lite(&line) {
            Ok(l) => l,
            Err(e) => {
                sh.fail(format!("a cut subscriber: {e:?}"));
                return String::new();
            },
        };
        match (l.kind.as_deref(), l.id.as_deref()) {
            (Some("event"), _) => {
                let seq = l.seq.unwrap_or(0);
                if !replied || seq <= last {
                    sh.fail(format!("a never-reader got seq {seq} after {last}"));
                }
                last = seq;
            },
            (_, Some(reply)) if reply == id && !replied => replied = true,
            (_, Some("?")) => {
                let error = l.error.unwrap_or_default();
                return check_cut(sh, "a never-reader", &error, last);
            },
            _ => {
                sh.fail(format!("a never-reader read {line}"));
                return String::new();
            },
        }
    }
}

/// Attach sessions: a live pane's `pty.data` followed for a few seconds,
/// each chunk continuing the offset of the one before, then `pane.detach`
/// or a hang-up.
pub fn attacher(sh: Arc<Shared>) {
    let mut rng = Rng::new(sh.seed, 9);
    while sh.pace(rng.millis(300, 1500)) {
        if sh.park_if_quiet("attacher") {
            continue;
        }
        let panes = lock(&sh.panes).clone();
        if panes.is_empty() {
            continue;
        }
        let pane = panes[rng.index(panes.len())].id.clone();
        let epoch = sh.epoch();
        let Some(mut c) = sh.connect("attacher", Duration::from_secs(30)) else {
            break;
        };
        let session = rng.millis(1000, 4000);
        let detach = rng.chance(0.5);
        let params = json!({"pane_id": pane, "mark_seen": rng.chance(0.5)});
        match attach_session(&sh, &mut c, &pane, params, session, detach) {
            Ok(bytes) => {
                sh.count("attach sessions");
                sh.add("attached bytes", bytes);
            },
            Err(End::Garbage(g)) => sh.fail(format!("attacher: {g}")),
            Err(_) if by_fault(&sh, epoch) => sh.count("attach sessions ended by a fault"),
            // The churner closed the pane meanwhile: its viewers go with it.
            Err(_) if !lock(&sh.panes).iter().any(|p| p.id == pane) => {
                sh.count("attach sessions ended by a close");
            },
            Err(e) => sh.fail(format!("an attach session of {pane} ended: {e:?}")),
        }
    }
    sh.park_if_quiet("attacher");
}

fn attach_session(
    sh: &Shared,
    c: &mut Conn,
    pane: &str,
    params: Value,
    session: Duration,
    detach: bool,
) -> Result<u64, End> {
    let attached = match result(c.call("pane.attach", params)?) {
        Ok(v) => v,
        Err(code) => {
            sh.count(&format!("pane.attach refused {code}"));
            return Ok(0);
        },
    };
    // Short reads from now on, so the session ends on time when the pane is quiet.
    c.set_timeout(Duration::from_millis(300));
    let mut covered = attached["output_offset"].as_u64().unwrap_or(0);
    let mut bytes = 0;
    let until = Instant::now() + session;
    let mut detach_id = None;
    loop {
        if detach_id.is_none() && (Instant::now() >= until || sh.quiet() || !sh.running()) {
            if !detach {
                return Ok(bytes);
            }
            detach_id = Some(c.send("pane.detach", json!({"pane_id": pane}))?);
        }
        let line = match c.next() {
            Ok(line) => line,
            Err(End::Timeout) => continue,
            Err(e) => return Err(e),
        };
        match line {
            Next::Event(e) if e.event == "pty.data" && e.payload["pane_id"] == pane => {
                let data = base64::engine::general_purpose::STANDARD
                    .decode(e.payload["data_b64"].as_str().unwrap_or_default())
                    .map_err(|err| End::Garbage(format!("pty.data is not base64: {err}")))?;
                let end = e.payload["output_offset"].as_u64().unwrap_or(0);
                let start = end.saturating_sub(data.len() as u64);
                if start != covered {
                    sh.fail(format!(
                        "the viewer of {pane} expected output from {covered}, got {start}..{end}"
                    ));
                }
                covered = end;
                bytes += data.len() as u64;
            },
            Next::Event(e) => {
                return Err(End::Garbage(format!("a viewer got {}", e.event)));
            },
            Next::Response(r) if Some(&r.id) == detach_id.as_ref() => {
                match result(r) {
                    Ok(_) => sh.count("detaches"),
                    Err(code) => sh.count(&format!("pane.detach refused {code}")),
                }
                return Ok(bytes);
            },
            Next::Response(r) => {
                return Err(End::Garbage(format!("a viewer got {r:?}")));
            },
        }
    }
}
