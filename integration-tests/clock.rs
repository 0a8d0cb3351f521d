//! Wall-clock steps (docs/reliability.md#the-clock): the real server runs
//! under libfaketime, which offsets what `CLOCK_REALTIME` (and so
//! `SystemTime::now`, and every timestamp the server writes) returns by the
//! contents of a file, re-read on every call, while the monotonic clock is
//! left alone. With panes in every timed state (a quiet working agent, a
//! silent task worker, a permission reporter waiting with a deadline, a task
//! waiting for its worker to be ready, an unread turn end), the clock jumps
//! three hours forward, then six back. Nothing may change for the jumps, and
//! each timeout must still fire once its time has passed on the monotonic
//! clock, never before. It needs libfaketime (`.ci/run` installs it) and
//! fails, saying so, without it: a skipped proof is no proof.

use crate::support::agents::{spawn_fake_with, type_line, wait_screen, wait_state};
use crate::support::git::init_repo;
use crate::support::process::BIN;
use crate::support::{Client, DEADLINE, TestEnv, TestServer, ok, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::Timestamp;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Every timeout of the test: the silent-worker watchdog, the reporter's
/// wait and the task's ready wait.
const TIMEOUT: Duration = Duration::from_secs(6);
/// How long each jump is watched for a change that should not happen.
const WINDOW: Duration = Duration::from_millis(750);
/// The jump, in seconds.
const JUMP: i64 = 3 * 3600;
/// How far a jumped timestamp may be from the expected one (the test's own
/// steps take time).
const SLACK_MS: i64 = 60_000;

/// Where Debian and a `make install` put the thread-safe libfaketime.
pub(crate) fn libfaketime() -> Option<PathBuf> {
    let mut found = Vec::new();
    for dir in ["/usr/lib", "/usr/local/lib", "/usr/lib64"] {
        found.push(PathBuf::from(dir).join("faketime/libfaketimeMT.so.1"));
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                found.push(entry.path().join("faketime/libfaketimeMT.so.1"));
            }
        }
    }
    found.into_iter().find(|p| p.is_file())
}

/// Offsets the server's wall clock by `secs` from now on: the file is
/// replaced whole, so a reader never sees half of it.
pub(crate) fn set_offset(file: &Path, secs: i64) {
    let tmp = file.with_extension("tmp");
    std::fs::write(&tmp, format!("{secs:+}\n")).unwrap_or_else(|e| panic!("offset file: {e}"));
    std::fs::rename(&tmp, file).unwrap_or_else(|e| panic!("offset file: {e}"));
}

/// The test's own wall clock, which libfaketime does not touch.
fn real_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Every event line the server sends a subscriber, with the instant it came.
fn subscribe(socket: &Path) -> mpsc::Receiver<(Instant, Value)> {
    let stream = UnixStream::connect(socket).unwrap_or_else(|e| panic!("connect: {e}"));
    let mut writer = stream.try_clone().unwrap_or_else(|e| panic!("clone: {e}"));
    let line = crate::support::request_line("sub", "subscribe", json!({}));
    writer
        .write_all(line.as_bytes())
        .unwrap_or_else(|e| panic!("subscribe: {e}"));
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    reader
        .read_line(&mut first)
        .unwrap_or_else(|e| panic!("subscribe reply: {e}"));
    assert!(first.contains("\"ok\":true"), "{first}");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _keep = writer;
        for line in reader.lines() {
            let Ok(line) = line else { break };
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if tx.send((Instant::now(), value)).is_err() {
                break;
            }
        }
    });
    rx
}

/// What a jump must not change: each pane's and task's state, and the
/// unread notifications.
fn snapshot(c: &mut Client, panes: &[String], tasks: &[String]) -> Vec<Value> {
    let mut seen = Vec::new();
    for pane in panes {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone();
        seen.push(json!([
            pane,
            p["lifecycle"],
            p["attention"],
            p["pending_decision"]["id"],
            p["last_activity_at"]
        ]));
    }
    for task in tasks {
        let t = ok(c.call("task.get", json!({"task_id": task})))["task"].clone();
        seen.push(json!([task, t["state"], t["status_reason"]]));
    }
    let unread = ok(c.call("notification.list", json!({"unread_only": true})));
    seen.push(unread["notifications"].clone());
    seen
}

/// What the jumps must leave alone, and until when no timer may fire.
struct Watch {
    panes: Vec<String>,
    tasks: Vec<String>,
    before: Vec<Value>,
    quiet_until: Instant,
}

impl Watch {
    /// Watches the state for `WINDOW`: it must stay as it was.
    fn stays(&self, c: &mut Client, what: &str) {
        let until = Instant::now() + WINDOW;
        while Instant::now() < until {
            assert!(
                Instant::now() < self.quiet_until,
                "the test ran too slowly for its timers to be still pending: raise TIMEOUT"
            );
            let now = snapshot(c, &self.panes, &self.tasks);
            let changed: Vec<_> = now
                .iter()
                .zip(&self.before)
                .filter(|(now, before)| now != before)
                .collect();
            assert!(changed.is_empty(), "the state changed {what}: {changed:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Renames the probe workspace and returns how far the server's wall clock
/// is from the test's, in milliseconds.
fn server_offset_ms(c: &mut Client, probe: &str, name: &str) -> i64 {
    let before = real_ms();
    let ws = ok(c.call(
        "workspace.rename",
        json!({"workspace_id": probe, "name": name}),
    ));
    let at = Timestamp(str_field(&ws["workspace"], "updated_at").to_owned());
    at.unix_millis().unwrap_or_else(|| panic!("{at}")) - before
}

/// Starts a task whose worker is the fake worker in `mode`.
fn start_worker(c: &mut Client, repo: &Path, mode: &str, extra: Value) -> (String, String) {
    let argv = json!([
        "bash",
        crate::support::agents::fake("fake-worker"),
        BIN,
        mode
    ]);
    let mut params = json!({
        "repo": repo.to_string_lossy(),
        "contract": {"objective": "nothing to do"},
        "agent": "claude",
        "argv": argv,
        "submit_delay_ms": 100,
    });
    for (k, v) in extra.as_object().into_iter().flatten() {
        params[k] = v.clone();
    }
    let reply = ok(c.call("task.start", params));
    (
        str_field(&reply["task"], "id").to_owned(),
        str_field(&reply["pane"], "id").to_owned(),
    )
}

fn task_of(c: &mut Client, id: &str) -> Value {
    ok(c.call("task.get", json!({"task_id": id})))["task"].clone()
}

/// One timeout under watch: what it is about, when it could start at the
/// earliest, and the event that says it fired.
struct Timed {
    what: &'static str,
    ids: Vec<String>,
    started: Instant,
    fired: Box<dyn Fn(&Value) -> bool>,
    fired_at: Option<Instant>,
}

/// A server whose wall clock follows the offset in the file it returns.
fn faked_server(lib: &Path) -> (TestServer, PathBuf) {
    let env = TestEnv::new();
    let offset = env.root().join("faketime.rc");
    set_offset(&offset, 0);
    let socket = env.default_socket();
    let timeout_s = TIMEOUT.as_secs().to_string();
    let mut cmd = env.command(&["server", "--worker-silent-timeout", &timeout_s]);
    // Only CLOCK_REALTIME moves; the panes never see the library (the
    // server drops LD_PRELOAD from their environment).
    cmd.env("LD_PRELOAD", lib)
        .env("FAKETIME_TIMESTAMP_FILE", &offset)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("NO_FAKE_STAT", "1");
    (TestServer::start_with_command(env, cmd, socket), offset)
}

/// The panes and tasks in their timed and untimed states.
struct Scene {
    /// The agents' workspace, a git checkout.
    ws: String,
    /// A workspace renamed to read the server's wall clock.
    probe: String,
    /// A fake Claude whose turn ended: `done`, `unread`, a notification.
    unread: String,
    /// A fake Claude working quietly, and since when (at the latest).
    quiet: String,
    quiet_since: Instant,
    /// A fake Claude whose waiting permission reporter has a deadline.
    asker: String,
    timed: Vec<Timed>,
    panes: Vec<String>,
    tasks: Vec<String>,
}

/// A fake Claude in `ws`, idle.
fn claude(c: &mut Client, root: &Path, ws: &str, session: &str, wait_s: Option<u64>) -> String {
    let mut env = json!({"SIGNALTTY_FAKE_SESSION": session, "SIGNALTTY_FAKE_DIR": root});
    if let Some(s) = wait_s {
        env["SIGNALTTY_FAKE_WAIT_TIMEOUT"] = json!(s.to_string());
    }
    let pane = spawn_fake_with(c, ws, "fake-claude", env);
    wait_state(c, &pane, "idle");
    pane
}

fn set_up(c: &mut Client, root: &Path) -> Scene {
    let repo = root.join("repo");
    init_repo(&repo, "README", "hello\n");
    let create = |c: &mut Client, name: &str, cwd: &Path| {
        let ws = ok(c.call(
            "workspace.create",
            json!({"name": name, "cwd": cwd.to_string_lossy()}),
        ));
        str_field(&ws["workspace"], "id").to_owned()
    };
    let ws = create(c, "agents", &repo);
    let probe = create(c, "probe", root);
    let unread = claude(c, root, &ws, "s-unread", None);
    type_line(c, &unread, "prompt write the tests");
    wait_state(c, &unread, "working");
    type_line(c, &unread, "stop All 12 tests pass.");
    wait_state(c, &unread, "unread");
    let quiet = claude(c, root, &ws, "s-quiet", None);
    let asker = claude(c, root, &ws, "s-asker", Some(TIMEOUT.as_secs()));
    type_line(c, &quiet, "prompt think hard");
    wait_state(c, &quiet, "working");
    let quiet_since = Instant::now();

    // The timers, each started after the instant it is measured from.
    let ready_started = Instant::now();
    let (ready, ready_pane) = start_worker(
        c,
        &repo,
        "never-ready",
        json!({"ready_timeout_s": TIMEOUT.as_secs(), "agent": null}),
    );
    let silent_started = Instant::now();
    let (silent, silent_pane) = start_worker(c, &repo, "normal", json!({}));
    wait_until("the worker to work", DEADLINE, || {
        (task_of(c, &silent)["state"] == "working").then_some(())
    });
    let ask_started = Instant::now();
    type_line(c, &asker, "ask Bash");
    let decision = wait_until("the question", DEADLINE, || {
        let p = ok(c.call("pane.get", json!({"pane_id": asker})))["pane"].clone();
        p["pending_decision"]["id"].as_str().map(str::to_owned)
    });
    wait_state(c, &asker, "permission_required");

    // The turns the agents started are recorded before the watch begins.
    wait_until("the quiet agent's turn", DEADLINE, || {
        (turn_pane(c, &ws).as_deref() == Some(quiet.as_str())).then_some(())
    });
    let p = ok(c.call("pane.get", json!({"pane_id": silent_pane})))["pane"].clone();
    let worker_ws = str_field(&p, "workspace_id").to_owned();
    wait_until("the worker's turn", DEADLINE, || {
        (turn_pane(c, &worker_ws).as_deref() == Some(silent_pane.as_str())).then_some(())
    });

    let task_is = |id: &str, check: fn(&Value) -> bool| {
        let id = id.to_owned();
        Box::new(move |e: &Value| {
            e["event"] == "task.updated" && e["payload"]["task"]["id"] == id.as_str() && {
                check(&e["payload"]["task"])
            }
        }) as Box<dyn Fn(&Value) -> bool>
    };
    let timed = vec![
        Timed {
            what: "the silent-worker watchdog",
            ids: vec![silent.clone(), silent_pane.clone()],
            started: silent_started,
            fired: task_is(&silent, |t| t["status_reason"]["reason"] == "worker_silent"),
            fired_at: None,
        },
        Timed {
            what: "the ready wait",
            ids: vec![ready.clone(), ready_pane.clone()],
            started: ready_started,
            fired: task_is(&ready, |t| {
                t["state"] == "failed" && t["status_reason"]["stage"] == "ready_timeout"
            }),
            fired_at: None,
        },
        Timed {
            what: "the reporter's wait",
            ids: vec![asker.clone()],
            started: ask_started,
            fired: Box::new(move |e| {
                e["event"] == "decision.cleared"
                    && e["payload"]["decision_id"] == decision.as_str()
                    && e["payload"]["reason"] == "native_cancelled"
            }),
            fired_at: None,
        },
    ];
    let panes = vec![
        unread.clone(),
        quiet.clone(),
        asker.clone(),
        silent_pane,
        ready_pane,
    ];
    Scene {
        ws,
        probe,
        unread,
        quiet,
        quiet_since,
        asker,
        timed,
        panes,
        tasks: vec![silent, ready],
    }
}

/// The pane of a workspace's latest turn.
fn turn_pane(c: &mut Client, ws: &str) -> Option<String> {
    let diff = ok(c.call(
        "workspace.diff",
        json!({"workspace_id": ws, "scope": "turn"}),
    ));
    diff["turn"]["pane_id"].as_str().map(str::to_owned)
}

/// Reads events until every timer has fired: none before its time, none
/// later than a generous deadline, and nothing at all from `untimed`.
fn await_timers(events: &mpsc::Receiver<(Instant, Value)>, timed: &mut [Timed], untimed: &[&str]) {
    let deadline = Instant::now() + TIMEOUT + DEADLINE;
    while timed.iter().any(|t| t.fired_at.is_none()) {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok((at, event)) = events.recv_timeout(left) else {
            let missing: Vec<_> = timed
                .iter()
                .filter(|t| t.fired_at.is_none())
                .map(|t| t.what)
                .collect();
            panic!(
                "{} did not fire within {:?} of its start",
                missing.join(", "),
                TIMEOUT + DEADLINE
            );
        };
        // Every event of a pane or a task names it.
        let text = event["payload"].to_string();
        if untimed.iter().any(|id| text.contains(id)) {
            panic!("a pane with no timer changed: {event}");
        }
        let Some(t) = timed
            .iter_mut()
            .find(|t| t.ids.iter().any(|id| text.contains(id.as_str())))
        else {
            continue;
        };
        assert!(
            at >= t.started + TIMEOUT,
            "{} fired {:?} after its start, before its {TIMEOUT:?}: {event}",
            t.what,
            at - t.started
        );
        if (t.fired)(&event) {
            t.fired_at = Some(at);
        }
    }
}

/// The unread notifications of `pane` in a snapshot.
fn unread_of(seen: &[Value], pane: &str) -> Vec<Value> {
    let list = seen
        .last()
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    list.into_iter().filter(|n| n["pane_id"] == pane).collect()
}

#[test]
fn a_wall_clock_jump_forward_or_back_changes_no_state_and_every_timeout_fires_on_time() {
    let Some(lib) = libfaketime() else {
        panic!("libfaketime is not installed: `apt-get install libfaketime` (.ci/run installs it)");
    };
    let (server, offset) = faked_server(&lib);
    let mut c = server.client();
    let root = server.env().root().to_owned();
    let mut scene = set_up(&mut c, &root);
    let offset_now = server_offset_ms(&mut c, &scene.probe, "probe-start");
    assert!(
        offset_now.abs() < SLACK_MS,
        "{offset_now} ms before any jump"
    );
    let events = subscribe(server.socket_path());
    let earliest = scene.timed.iter().map(|t| t.started).min();
    let watch = Watch {
        before: snapshot(&mut c, &scene.panes, &scene.tasks),
        panes: scene.panes.clone(),
        tasks: scene.tasks.clone(),
        quiet_until: earliest.unwrap_or_else(Instant::now) + TIMEOUT,
    };

    // Three hours forward: the server's clock moved, its state did not.
    set_offset(&offset, JUMP);
    let ahead = server_offset_ms(&mut c, &scene.probe, "probe-ahead");
    assert!(
        (ahead - JUMP * 1000).abs() < SLACK_MS,
        "the server's clock is {ahead} ms off, not {JUMP} s: libfaketime did not take"
    );
    watch.stays(&mut c, "after a jump forward");
    // Six hours back: three behind the real time.
    set_offset(&offset, -JUMP);
    let behind = server_offset_ms(&mut c, &scene.probe, "probe-behind");
    assert!(
        (behind + JUMP * 1000).abs() < SLACK_MS,
        "the server's clock is {behind} ms off, not -{JUMP} s"
    );
    watch.stays(&mut c, "after a jump back");

    // With the clock still three hours behind, every timeout fires once its
    // time has passed, and nothing else moves.
    let untimed = [scene.unread.as_str(), scene.quiet.as_str()];
    await_timers(&events, &mut scene.timed, &untimed);
    let untimed = [scene.unread.clone(), scene.quiet.clone()];
    let after = snapshot(&mut c, &untimed, &[]);
    assert_eq!(after[..2], watch.before[..2], "the untimed panes changed");
    let still = unread_of(&after, &scene.unread);
    assert!(!still.is_empty(), "{after:?}");
    assert_eq!(still, unread_of(&watch.before, &scene.unread));

    // The quiet agent's turn ends: its run is measured on the monotonic
    // clock, not as three hours less than nothing.
    type_line(&mut c, &scene.quiet, "stop done thinking");
    wait_state(&mut c, &scene.quiet, "done");
    let ran = scene.quiet_since.elapsed().as_secs();
    let p = ok(c.call("pane.get", json!({"pane_id": scene.quiet})))["pane"].clone();
    let last_run = p["last_run_secs"].as_u64().unwrap_or(u64::MAX);
    assert!(
        ran.saturating_sub(2) <= last_run && last_run <= ran + 2,
        "ran {ran} s, recorded {p}"
    );
    // A new turn, started with the clock behind the last one's, is the
    // workspace's turn from now on, and shows the server's wall clock.
    type_line(&mut c, &scene.unread, "prompt once more");
    wait_state(&mut c, &scene.unread, "working");
    wait_until("the new turn's baseline", DEADLINE, || {
        (turn_pane(&mut c, &scene.ws).as_deref() == Some(scene.unread.as_str())).then_some(())
    });
    let diff = ok(c.call(
        "workspace.diff",
        json!({"workspace_id": scene.ws, "scope": "turn"}),
    ));
    let started_at = Timestamp(str_field(&diff["turn"], "started_at").to_owned());
    let shown = started_at.unix_millis().unwrap_or(0) - real_ms();
    assert!((shown + JUMP * 1000).abs() < SLACK_MS, "{diff}");
    wait_screen(&mut c, &scene.asker, "reporter 1 exit");
}
