//! `signaltty-remote-bench`: what a configured host costs beside this
//! machine's server (docs/performance.md, "Remote hosts"). Run by
//! `benches/remote_bench.sh`, which sets up a real sshd (and, with `RTT_MS`,
//! a network namespace whose loopback delays every packet).
//!
//! It measures, against the host named by `--host` (in this environment's
//! config file) and the local server on its default socket:
//! - whole processes: `signaltty --host NAME status` against `ssh DEST true`
//!   riding the same warm control master, and `signaltty status` locally;
//! - requests on one persistent link: `server.status` round trips over a
//!   channel against the same on the local socket;
//! - an answer: a permission question raised by a waiting reporter, then
//!   `decision.answer` sent and its reply read, over the link and locally.

use serde_json::{Value, json};
use signaltty_model::Env;
use signaltty_model::client::{Client, ConnRead, ConnWrite, Target};
use signaltty_model::remote::{Host, Link, hosts, ssh};
use signaltty_protocol::Method;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

type Res<T> = Result<T, String>;

struct Opts {
    host: String,
    bin: PathBuf,
    runs: usize,
    requests: usize,
    answers: usize,
}

fn opts() -> Res<Opts> {
    let mut o = Opts {
        host: String::new(),
        bin: std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("signaltty"),
        runs: 30,
        requests: 20,
        answers: 20,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--host" => o.host = value()?,
            "--bin" => o.bin = PathBuf::from(value()?),
            "--runs" => o.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--requests" => {
                o.requests = value()?.parse().map_err(|e| format!("--requests: {e}"))?
            },
            "--answers" => o.answers = value()?.parse().map_err(|e| format!("--answers: {e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if o.host.is_empty() {
        return Err("--host NAME is required".into());
    }
    Ok(o)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Median, p90 and the samples' count, in ms.
fn summary(mut s: Vec<Duration>) -> Value {
    s.sort();
    let at = |p: f64| {
        let rank = ((p * s.len() as f64).ceil() as usize).clamp(1, s.len().max(1));
        s.get(rank - 1).copied().map_or(0.0, ms)
    };
    json!({"p50_ms": at(0.5), "p90_ms": at(0.9), "max_ms": at(1.0), "n": s.len()})
}

fn time_process(cmd: &mut Command, runs: usize) -> Res<Vec<Duration>> {
    let mut out = Vec::new();
    for i in 0..runs + 3 {
        let start = Instant::now();
        let status = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        let took = start.elapsed();
        if !status.success() {
            return Err(format!("{cmd:?} failed: {status}"));
        }
        if i >= 3 {
            out.push(took);
        }
    }
    Ok(out)
}

fn channel(link: &Link) -> Res<Client> {
    let (r, w) = link.channel().map_err(|e| e.to_string())?.split();
    Ok(Client::from_halves(
        ConnRead::Channel(r),
        ConnWrite::Channel(w),
    ))
}

/// `{"method": NAME, "params": {...}}` as a typed request.
fn typed(m: &Value) -> Res<Method> {
    let name = m["method"].as_str().ok_or("no method name")?;
    Method::parse(name, m["params"].clone()).map_err(|e| format!("{name}: {e:?}"))
}

fn call(c: &mut Client, method: Value) -> Res<Value> {
    let m = typed(&method)?;
    c.call(m).map_err(|e| format!("{}: {}", e.code, e.message))
}

fn status_trips(c: &mut Client, n: usize) -> Res<Vec<Duration>> {
    let mut out = Vec::new();
    for i in 0..n + 5 {
        let start = Instant::now();
        call(c, json!({"method": "server.status", "params": {}}))?;
        if i >= 5 {
            out.push(start.elapsed());
        }
    }
    Ok(out)
}

/// A pane to ask questions on, made by the CLI (`--host` when remote).
fn question_pane(bin: &std::path::Path, host: Option<&str>) -> Res<String> {
    let mut cmd = Command::new(bin);
    if let Some(h) = host {
        cmd.args(["--host", h]);
    }
    let out = cmd
        .args([
            "--json",
            "new",
            "--name",
            "bench-remote",
            "--",
            "sleep",
            "600",
        ])
        .output()
        .map_err(|e| format!("new: {e}"))?;
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("new: {e}: {}", String::from_utf8_lossy(&out.stderr)))?;
    v["panes"][0]["id"]
        .as_str()
        .or_else(|| v["pane"]["id"].as_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("no pane id in {v}"))
}

/// Raises a question on `pane` with a waiting reporter on `asker`, answers
/// it on `answerer`; the answer's round trip.
fn one_answer(asker: &mut Client, answerer: &mut Client, pane: &str, i: usize) -> Res<Duration> {
    let hook = json!({"method": "hook-event", "params": {
        "agent": "claude", "event": "PermissionRequest", "pane_id": pane, "wait_for_answer": true,
        "payload": {"session_id": "9a7b-bench", "hook_event_name": "PermissionRequest",
                    "tool_name": "Write", "tool_input": {"file_path": format!("f{i}.txt")}}}});
    let hook = typed(&hook)?;
    let id = asker.send(hook).map_err(|e| e.message)?;
    // The question is pending once the pane says so.
    let deadline = Instant::now() + Duration::from_secs(10);
    let decision = loop {
        let got = call(
            answerer,
            json!({"method": "pane.get", "params": {"pane_id": pane}}),
        )?;
        if let Some(id) = got["pane"]["pending_decision"]["id"].as_str() {
            break id.to_owned();
        }
        if Instant::now() > deadline {
            return Err("the question never became pending".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let start = Instant::now();
    call(
        answerer,
        json!({"method": "decision.answer", "params": {"pane_id": pane, "decision_id": decision, "option_id": "once"}}),
    )?;
    let took = start.elapsed();
    // The reporter's reply.
    loop {
        match asker.read_line().map_err(|e| e.message)? {
            Some(line) if line.contains(&format!("\"id\":\"{id}\"")) => break,
            Some(_) => {},
            None => return Err("the reporter's connection closed".into()),
        }
    }
    Ok(took)
}

fn answers(asker: &mut Client, answerer: &mut Client, pane: &str, n: usize) -> Res<Vec<Duration>> {
    let mut out = Vec::new();
    for i in 0..n + 3 {
        let took = one_answer(asker, answerer, pane, i)?;
        if i >= 3 {
            out.push(took);
        }
    }
    let _ = call(
        answerer,
        json!({"method": "pane.close", "params": {"pane_id": pane}}),
    );
    Ok(out)
}

fn run() -> Res<()> {
    let o = opts()?;
    let env = Env::from_process();
    let table = hosts::load(&signaltty_model::settings::file_path(&env));
    let host: Host = table
        .get(&o.host)
        .cloned()
        .ok_or_else(|| format!("no host {} in the config file", o.host))?;
    let local = Target::Socket(env.default_socket());

    // Whole processes, the master warm.
    let warm = time_process(Command::new(&o.bin).args(["--host", &o.host, "status"]), 1)?;
    drop(warm);
    let cli_remote = time_process(
        Command::new(&o.bin).args(["--host", &o.host, "status"]),
        o.runs,
    )?;
    let dir = ssh::control_dir(&env);
    let ssh_true = time_process(
        Command::new("ssh").args(ssh::argv(&host, &dir, false, "true")),
        o.runs,
    )?;
    let cli_local = time_process(Command::new(&o.bin).arg("status"), o.runs)?;

    // One persistent link.
    let link = Link::open(&host, &env).map_err(|e| e.to_string())?;
    let mut remote = channel(&link)?;
    let mut here = Client::open(&local).map_err(|e| e.message)?;
    let status_remote = status_trips(&mut remote, o.requests)?;
    let status_local = status_trips(&mut here, o.requests)?;
    let mut pings = Vec::new();
    for _ in 0..o.requests {
        pings.push(
            link.ping(Duration::from_secs(5))
                .map_err(|e| e.to_string())?,
        );
    }

    // Answers. The waiting reporter of a real question runs on the host,
    // beside its server: its verdict never crosses the answerer's link. Here
    // it asks over a second ssh connection of its own (no control master),
    // so that only the answer and its reply share the answerer's.
    let mut apart = host.clone();
    apart.ssh_options.splice(
        0..0,
        ["ControlMaster=no".to_owned(), "ControlPath=none".to_owned()],
    );
    let asker_link = Link::open(&apart, &env).map_err(|e| e.to_string())?;
    let mut remote_asker = channel(&asker_link)?;
    let pane = question_pane(&o.bin, Some(&o.host))?;
    let answer_remote = answers(&mut remote_asker, &mut remote, &pane, o.answers)?;
    let mut local_asker = Client::open(&local).map_err(|e| e.message)?;
    let pane = question_pane(&o.bin, None)?;
    let answer_local = answers(&mut local_asker, &mut here, &pane, o.answers)?;

    let report = json!({
        "host": o.host,
        "cli": {"remote_status": summary(cli_remote), "ssh_true": summary(ssh_true), "local_status": summary(cli_local)},
        "link": {"ping": summary(pings), "remote_status": summary(status_remote), "local_status": summary(status_local)},
        "answer": {"remote": summary(answer_remote), "local": summary(answer_local)},
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("signaltty-remote-bench: {e}");
            ExitCode::FAILURE
        },
    }
}
