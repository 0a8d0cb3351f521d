//! Hooks and decisions: the hook events of the hook panes at a steady rate,
//! each on a fresh connection as a reporter sends it (most written directly,
//! some by the real `signaltty hook-event` CLI); the asker panes' fake Claude
//! asking permissions with the real waiting reporter; and the decider, which
//! answers some of those questions with `decision.answer` and leaves the
//! others to time out.

use super::conn::{Conn, End, result};
use super::panes::{WAIT_TIMEOUT_S, text};
use super::rng::Rng;
use super::shared::{Ack, Left, LivePane, Role, Shared, lock};
use crate::support::process::BIN;
use base64::Engine as _;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// One turn of an agent, as Claude's hooks report it.
const TURN: [&str; 4] = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"];

/// How a hook went.
enum Outcome {
    Accepted,
    Dropped(String),
    Refused(String),
    Unanswered,
}

/// Sends hook events to random hook panes at `per_second`, through the CLI
/// reporter when `cli`.
pub fn hooker(sh: Arc<Shared>, stream: u64, per_second: f64, cli: bool) {
    let mut rng = Rng::new(sh.seed, stream);
    let period = Duration::from_secs_f64(1.0 / per_second);
    let mut turns: HashMap<String, usize> = HashMap::new();
    let mut next = Instant::now();
    while sh.running() {
        let now = Instant::now();
        if next > now && !sh.pace(next - now) {
            break;
        }
        next += period;
        // After an outage the missed ticks are dropped, not sent in a burst.
        if Instant::now() > next + Duration::from_secs(1) {
            next = Instant::now();
        }
        let panes = sh.live_of(Role::Hooks);
        if panes.is_empty() {
            continue;
        }
        let pane = &panes[rng.index(panes.len())];
        let turn = turns.entry(pane.id.clone()).or_default();
        let event = TURN[*turn % TURN.len()];
        *turn += 1;
        let n = sh.hook_n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let body = format!("soak hook {n}");
        let payload = payload(&sh, pane, event, n);
        let via = if cli { "cli" } else { "direct" };
        sh.count(&format!("hooks sent {via}"));
        let outcome = if cli {
            through_cli(&sh, pane, event, &body, &payload)
        } else {
            direct(&sh, pane, event, &body, payload)
        };
        match outcome {
            Outcome::Accepted => {
                sh.count("hooks accepted");
                sh.ack(Ack::Hook {
                    pane: pane.id.clone(),
                    body,
                });
            },
            Outcome::Dropped(reason) => sh.count(&format!("hooks dropped {reason}")),
            Outcome::Refused(code) => sh.count(&format!("hooks refused {code}")),
            Outcome::Unanswered => sh.count("hooks unanswered"),
        }
    }
}

/// The hook's JSON, as Claude gives it to its hooks.
fn payload(sh: &Shared, pane: &LivePane, event: &str, n: u64) -> Value {
    let mut p = json!({
        "session_id": pane.session,
        "cwd": sh.root.to_string_lossy(),
        "hook_event_name": event,
    });
    match event {
        "UserPromptSubmit" => p["prompt"] = json!(format!("soak prompt {n}")),
        "PreToolUse" | "PostToolUse" => {
            p["tool_name"] = json!("Bash");
            p["tool_input"] = json!({"command": format!("make step-{n}")});
        },
        _ => p["last_assistant_message"] = json!(format!("soak turn ends at {n}")),
    }
    p
}

/// One `hook-event` on a connection of its own, as the reporter sends it.
fn direct(sh: &Shared, pane: &LivePane, event: &str, body: &str, payload: Value) -> Outcome {
    let Ok(mut c) = Conn::connect(&sh.socket, Duration::from_secs(30)) else {
        return Outcome::Unanswered;
    };
    let params = json!({
        "agent": "claude",
        "event": event,
        "pane_id": pane.id,
        "client_pid": std::process::id(),
        "payload": payload,
        "message": body,
    });
    match c.call("hook-event", params) {
        Ok(r) => judge(result(r)),
        Err(e) if e.is_garbage() => {
            sh.fail(format!("hook-event: {e:?}"));
            Outcome::Unanswered
        },
        Err(_) => Outcome::Unanswered,
    }
}

fn judge(r: Result<Value, String>) -> Outcome {
    match r {
        Ok(v) if v["accepted"] == true => Outcome::Accepted,
        Ok(v) => Outcome::Dropped(text(&v["reason"])),
        Err(code) => Outcome::Refused(code),
    }
}

/// One hook through the real reporter, `signaltty hook-event --json`, the
/// payload on its stdin.
fn through_cli(sh: &Shared, pane: &LivePane, event: &str, body: &str, payload: &Value) -> Outcome {
    let mut cmd = Command::new(BIN);
    cmd.arg("--socket").arg(&sh.socket);
    cmd.args(["hook-event", "--agent", "claude", "--event", event]);
    cmd.args(["--pane", &pane.id, "--message", body, "--json"]);
    for key in ["SIGNALTTY_PANE", "SIGNALTTY_SOCKET", "SIGNALTTY_TASK"] {
        cmd.env_remove(key);
    }
    cmd.envs(sh.cli_env.iter().map(|(k, v)| (*k, v)));
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            sh.fail(format!("cannot run the hook reporter: {e}"));
            return Outcome::Unanswered;
        },
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload.to_string().as_bytes());
    }
    // The reporter gives up after its own 10 s reply timeout (twice, with
    // its retry after an upgrade's early close); 60 s is far past that.
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < Duration::from_secs(60) => {
                std::thread::sleep(Duration::from_millis(2));
            },
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                sh.fail("a hook reporter ran for more than 60 s".to_owned());
                return Outcome::Unanswered;
            },
        }
    }
    let Ok(out) = child.wait_with_output() else {
        return Outcome::Unanswered;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    match (
        out.status.code(),
        serde_json::from_str::<Value>(stdout.trim()),
    ) {
        (Some(0), Ok(v)) => judge(Ok(v)),
        // No JSON: no server answered (the reporter exits 0 then, so as
        // never to break its agent), or it refused the hook (exit 1).
        (Some(1), _) => Outcome::Refused("cli exit 1".to_owned()),
        _ => Outcome::Unanswered,
    }
}

/// Types `prompt` then `ask Bash` into random asker panes: each ask runs the
/// waiting reporter in the pane. A pane asks again only after its last wait
/// has surely ended.
pub fn asker(sh: Arc<Shared>) {
    let mut rng = Rng::new(sh.seed, 5);
    let mut asked: HashMap<String, Instant> = HashMap::new();
    let mut conn: Option<Conn> = None;
    let gap = Duration::from_secs(WAIT_TIMEOUT_S + 3);
    while sh.pace(rng.millis(300, 1200)) {
        let free: Vec<LivePane> = sh
            .live_of(Role::Asks)
            .into_iter()
            .filter(|p| asked.get(&p.id).is_none_or(|at| at.elapsed() > gap))
            .collect();
        if free.is_empty() {
            continue;
        }
        let pane = &free[rng.index(free.len())];
        if conn.is_none() {
            conn = sh.connect("asker", Duration::from_secs(30));
        }
        let Some(c) = conn.as_mut() else { break };
        let n = sh.counter("asks typed");
        let keys = format!("prompt soak question {n}\nask Bash\n");
        let data = base64::engine::general_purpose::STANDARD.encode(keys);
        match c.call("pane.input", json!({"pane_id": pane.id, "data_b64": data})) {
            Ok(r) => match result(r) {
                Ok(_) => {
                    sh.count("asks typed");
                    asked.insert(pane.id.clone(), Instant::now());
                },
                Err(code) => sh.count(&format!("asks refused {code}")),
            },
            Err(e) if e.is_garbage() => sh.fail(format!("asker: {e:?}")),
            Err(_) => conn = None,
        }
    }
}

/// A question the recorder saw: `decision.created` of an answerable decision.
#[derive(Debug)]
pub struct Asked {
    pub pane: String,
    pub decision: String,
}

/// Answers about two questions in three (Allow once or Deny, after up to
/// 2 s, well inside the reporter's wait) and leaves the rest to time out.
pub fn decider(sh: Arc<Shared>, questions: Receiver<Asked>) {
    let mut rng = Rng::new(sh.seed, 6);
    let mut due: Vec<(Instant, Asked, &'static str)> = Vec::new();
    let mut conn: Option<Conn> = None;
    while sh.running() {
        match questions.recv_timeout(Duration::from_millis(20)) {
            Ok(q) => {
                if rng.chance(0.65) {
                    let option = if rng.chance(0.5) { "once" } else { "deny" };
                    due.push((Instant::now() + rng.millis(50, 2000), q, option));
                } else {
                    sh.count("decisions left to time out");
                    lock(&sh.left).push(Left {
                        pane: q.pane,
                        decision: q.decision,
                        at: Instant::now(),
                    });
                }
            },
            Err(RecvTimeoutError::Timeout) => {},
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let now = Instant::now();
        let Some(i) = due.iter().position(|(at, _, _)| *at <= now) else {
            continue;
        };
        let (_, q, option) = due.swap_remove(i);
        if conn.is_none() {
            conn = sh.connect("decider", Duration::from_secs(30));
        }
        let Some(c) = conn.as_mut() else { break };
        let params = json!({"pane_id": q.pane, "decision_id": q.decision, "option_id": option});
        sh.count("decision.answer sent");
        match c.call("decision.answer", params) {
            Ok(r) => match result(r) {
                Ok(_) => {
                    sh.count("decisions answered");
                    sh.ack(Ack::Answered {
                        pane: q.pane,
                        decision: q.decision,
                        option: option.to_owned(),
                    });
                },
                Err(code) => sh.count(&format!("decision.answer refused {code}")),
            },
            Err(End::Garbage(e)) => sh.fail(format!("decider: {e}")),
            Err(_) => {
                sh.count("decision.answer unanswered");
                conn = None;
            },
        }
    }
}
