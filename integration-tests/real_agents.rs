//! The truth test: real agent CLIs (installed from npm at pinned versions into a
//! cache outside the clone) in signaltty panes, talking to our scripted model
//! server on loopback, with hooks installed by `signaltty integration install`
//! into an isolated HOME. States are observed through `wait` and the pane's
//! pending decision, never by sleeping.
//!
//! An agent that cannot be installed or started fails its test loudly.

use crate::support::client::Client;
use crate::support::{RawLine, TestEnv, TestServer, ok, str_field, wait_until};
use base64::Engine as _;
use serde_json::{Value, json};
use signaltty_protocol::{EventFrame, ServerLine};
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod grok;
mod hibernate;
mod interrupt;
mod kilo;
mod limits;
mod mcp;
mod qwen;
mod resume;
mod screen_only;
mod subagent;
mod trust;
mod workers;

const LONG: Duration = Duration::from_secs(60);

fn here(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("integration-tests/real_agents")
        .join(rel)
}

/// The agent's executable, installed on first use (a failure fails the test).
fn agent_bin(agent: &str) -> PathBuf {
    let out = Command::new(here("install.sh"))
        .arg(agent)
        .output()
        .unwrap_or_else(|e| panic!("cannot run install.sh: {e}"));
    assert!(
        out.status.success(),
        "cannot install {agent}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// The scripted model server of one test.
struct Model {
    child: Child,
    port: u16,
    script: PathBuf,
    log: PathBuf,
}

impl Model {
    fn start(dir: &Path, script: Value) -> Model {
        let script_path = dir.join("model-script.json");
        let log = dir.join("model-requests.jsonl");
        std::fs::write(&script_path, script.to_string())
            .unwrap_or_else(|e| panic!("model script: {e}"));
        let mut child = Command::new("python3")
            .arg(here("fake_model.py"))
            .args(["--port", "0", "--script"])
            .arg(&script_path)
            .arg("--log")
            .arg(&log)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the fake model: {e}"));
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("the fake model did not say its port: {line:?}"));
        Model {
            child,
            port,
            script: script_path,
            log,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Requests seen so far.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    #[allow(dead_code)]
    fn set(&self, script: Value) {
        std::fs::write(&self.script, script.to_string())
            .unwrap_or_else(|e| panic!("model script: {e}"));
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (up to a minute: real agents start slowly) until a line of the
/// pane's screen contains `text`.
fn wait_screen(c: &mut Client, pane: &str, text: &str) -> Value {
    let _ = c
        .stream()
        .set_read_timeout(Some(LONG + Duration::from_secs(10)));
    let r = c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": text, "mode": "screen", "timeout_s": LONG.as_secs()}),
    );
    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    if !r.ok {
        let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        panic!(
            "waiting for {text:?} on screen: {:?}\nscreen:\n{}",
            r.error,
            str_field(&screen, "text")
        );
    }
    ok(r)
}

/// Submits a prompt with `pane.submit`, as a script driving an agent would:
/// paste, Enter, and the server's activity gate with its one Enter retry (an
/// agent that takes a quick Enter after a paste for part of it gets another).
/// The budget is generous: on a loaded machine a real agent starts slowly.
fn submit(c: &mut Client, pane: &str, text: &str) -> Value {
    let _ = c
        .stream()
        .set_read_timeout(Some(LONG + Duration::from_secs(10)));
    let r = c.call(
        "pane.submit",
        json!({"pane_id": pane, "text": text, "submit_delay_ms": 500, "stall_timeout_s": 40}),
    );
    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    if !r.ok {
        let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        let pane_now = ok(c.call("pane.get", json!({"pane_id": pane})));
        panic!(
            "submitting {text:?}: {:?}\npane: {}\nscreen:\n{}",
            r.error,
            pane_now["pane"],
            str_field(&screen, "text")
        );
    }
    ok(r)
}

/// Waits until an agent can take a prompt: its input box (`hint`, text the
/// agent draws there) is on screen and the pane is `idle`. Some agents report
/// their session start before their input box reads keys (Gemini CLI): a
/// prompt pasted then is echoed by the terminal and lost.
fn wait_ready(c: &mut Client, pane: &str, hint: &str) -> Value {
    wait_screen(c, pane, hint);
    wait_state(c, pane, "idle")
}

/// Waits until the agent's own session report has reached the pane (a screen
/// rule may make a fresh agent `idle` before its first hook).
fn wait_session(c: &mut Client, pane: &str) -> Value {
    crate::support::wait_until("the agent's session report", LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        p["pane"]["agent"]["agent_session_id"]
            .is_string()
            .then_some(p)
    })
}

fn wait_state(c: &mut Client, pane: &str, until: &str) -> Value {
    // A real agent takes its time: this reply may be a minute away.
    let _ = c
        .stream()
        .set_read_timeout(Some(LONG + Duration::from_secs(10)));
    let r = c.call(
        "wait",
        json!({"pane_id": pane, "until": until, "timeout_s": LONG.as_secs()}),
    );
    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    if !r.ok {
        let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        let pane_now = ok(c.call("pane.get", json!({"pane_id": pane})));
        let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
        panic!(
            "waiting for {until}: {:?}\npane: {}\nexplain: {}\nscreen:\n{}",
            r.error,
            pane_now["pane"],
            json!({"hooked": explain["hooked"], "matched": explain["matched"], "classifies": explain["classifies"], "lifecycle": explain["lifecycle"]}),
            str_field(&screen, "text")
        );
    }
    ok(r)
}

/// With `$SIGNALTTY_CAPTURE_SCREENS` set, keeps the pane's screen (and title)
/// as a fixture `<dir>/<agent>/<state>.txt` for the screen-rule tests, after
/// waiting (briefly, softly) for `sign` to be drawn when one is given.
fn capture(c: &mut Client, pane: &str, agent: &str, state: &str, sign: Option<&str>) {
    let Some(dir) = std::env::var_os("SIGNALTTY_CAPTURE_SCREENS") else {
        return;
    };
    let read = |c: &mut Client| {
        let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
        str_field(&screen, "text").to_owned()
    };
    let title_of = |c: &mut Client| {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        p["pane"]["title"].as_str().unwrap_or_default().to_owned()
    };
    // A spinner in the title (braille for Codex and Claude, half circles for
    // newer Claude) or Gemini's "Working…" means the agent has not settled
    // its screen yet.
    let spinning = |t: &str| {
        t.contains("Working…")
            || t.chars().next().is_some_and(|ch| {
                ('\u{2800}'..='\u{28ff}').contains(&ch) || ('\u{25d0}'..='\u{25d3}').contains(&ch)
            })
    };
    let mut text = read(c);
    let mut title = title_of(c);
    for _ in 0..60 {
        let drawn = sign.is_none_or(|s| text.contains(s));
        let settled = !matches!(state, "idle" | "done") || !spinning(&title);
        if drawn && settled {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        text = read(c);
        title = title_of(c);
    }
    let out = PathBuf::from(dir).join(agent);
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        out.join(format!("{state}.txt")),
        format!("# title: {title}\n{text}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Allow once from signaltty for decision `d`: the pane works again, the
/// tool writes out.txt, and the turn ends done + unread.
fn allow_once_and_finish(rig: &Rig, c: &mut Client, pane: &str, d: &Value) {
    let answered = ok(c.call(
        "decision.answer",
        json!({"pane_id": pane, "decision_id": d["id"], "option_id": "once"}),
    ));
    assert_eq!(answered["lifecycle"], "working");
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(c, pane, "done");
    assert_eq!(done["attention"], "unread");
}

fn pending_decision(c: &mut Client, pane: &str) -> Value {
    wait_until("a pending decision", LONG, || {
        let p = ok(c.call("pane.get", json!({"pane_id": pane})));
        let d = p["pane"]["pending_decision"].clone();
        (!d.is_null() && d["answerable"] == true).then_some(d)
    })
}

/// Microseconds since the epoch, the clock of `$SIGNALTTY_HOOK_LOG`.
fn now_us() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

/// A subscriber to every state event, on a thread of its own, noting when
/// each event reached it. It ends with the server.
struct Watch {
    seen: Arc<Mutex<Vec<(u128, EventFrame)>>>,
}

impl Watch {
    fn start(server: &TestServer) -> Watch {
        let mut c = server.client();
        ok(c.call(
            "subscribe",
            json!({"events": ["agent.*", "attention.*", "decision.*"]}),
        ));
        let _ = c.stream().set_read_timeout(None);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        std::thread::spawn(move || {
            while let RawLine::Line(line) = c.read_raw_line() {
                if let Ok(ServerLine::Event(event)) = ServerLine::parse(&line) {
                    let at = now_us();
                    sink.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push((at, event));
                }
            }
        });
        Watch { seen }
    }

    /// The `agent.*` events of `pane` so far: (arrival, name without
    /// `agent.`, source).
    fn lifecycle(&self, pane: &str) -> Vec<(u128, String, String)> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(_, e)| e.event.starts_with("agent.") && e.payload["pane_id"] == pane)
            .map(|(at, e)| {
                let name = e.event.trim_start_matches("agent.").to_owned();
                (*at, name, str_field(&e.payload, "source").to_owned())
            })
            .collect()
    }

    /// Waits until the last `agent.*` event of `pane` the subscriber saw is
    /// `agent.idle` (the reply to a `wait` may overtake the event), and
    /// returns the pane's lifecycle as in `lifecycle`.
    fn until_idle(&self, pane: &str) -> Vec<(u128, String, String)> {
        wait_until("the subscriber to see the pane idle", LONG, || {
            let life = self.lifecycle(pane);
            (life.last().map(|(_, name, _)| name.as_str()) == Some("idle")).then_some(life)
        })
    }

    /// Waits until the subscriber has seen exactly `expected` as the
    /// lifecycle of `pane` from its first `idle` on (the reply to a `wait` may
    /// overtake the event). What came before is the agent starting: Codex's
    /// boot spinner reads `working` when a screen tick catches it.
    ///
    /// Until the agent's first hook, the pane is read from its screen, and
    /// whether a screen tick lands between a submitted prompt and that first
    /// hook is a matter of timing: Codex starts its session (and its hooks)
    /// only at the first prompt, so on a busy machine the screen can see the
    /// turn's spinner first, and the lazy `SessionStart` then reads `idle`
    /// again (session start → `idle`, docs/states.md#master-transition-table).
    /// Those screen readings before the first hook are skipped, and the repeats
    /// the skipping leaves are folded, so the sequence from the hooks on is
    /// checked exactly.
    fn expect_lifecycle(&self, pane: &str, expected: &[&str]) {
        let names = || -> Vec<String> {
            let all = self.lifecycle(pane);
            let ready = all.iter().position(|(_, n, _)| n == "idle").unwrap_or(0);
            let first_hook = all
                .iter()
                .position(|(_, _, source)| source.starts_with("hook:"))
                .unwrap_or(all.len());
            let mut seen: Vec<String> = Vec::new();
            for (i, (_, name, source)) in all.iter().enumerate().skip(ready) {
                let before_hooks = i > ready && i < first_hook && source.starts_with("screen:");
                if before_hooks || seen.last() == Some(name) {
                    continue;
                }
                seen.push(name.clone());
            }
            seen
        };
        let reached = crate::support::poll_until(LONG, || names().len() >= expected.len());
        assert!(
            reached && names() == expected,
            "the subscriber saw {:?}, expected {expected:?}",
            self.lifecycle(pane)
        );
    }
}

impl Watch {
    /// Waits until the subscriber has seen `expected` as the lifecycle of a
    /// pane that sends no hook, from its first `idle` on (repeats folded),
    /// every state from a screen rule. A `working` between `blocked` and
    /// `done` may be missing: when the answered tool and the model's reply
    /// both finish between two screen ticks, the screen shows the question
    /// and then the finished turn (`blocked` → `done`, docs/agents.md).
    fn expect_screen_lifecycle(&self, pane: &str, expected: &[&str]) {
        let names = || -> Vec<String> {
            let all = self.lifecycle(pane);
            let ready = all.iter().position(|(_, n, _)| n == "idle").unwrap_or(0);
            let mut seen: Vec<String> = Vec::new();
            for (_, name, _) in all.iter().skip(ready) {
                if seen.last() != Some(name) {
                    seen.push(name.clone());
                }
            }
            seen
        };
        let quick: Vec<&str> = expected
            .iter()
            .enumerate()
            .filter(|&(i, name)| {
                let between =
                    i > 0 && expected[i - 1] == "blocked" && expected.get(i + 1) == Some(&"done");
                !(between && *name == "working")
            })
            .map(|(_, name)| *name)
            .collect();
        let matches = |seen: &[String]| seen == expected || seen == quick.as_slice();
        let reached = crate::support::poll_until(LONG, || {
            let seen = names();
            matches(&seen) || seen.len() > expected.len()
        });
        let all = self.lifecycle(pane);
        assert!(
            reached && matches(&names()),
            "the subscriber saw {all:?}, expected {expected:?}"
        );
        assert!(
            all.iter()
                .all(|(_, _, source)| source.starts_with("screen:")),
            "{all:?}"
        );
    }
}

/// Enter on a hook-less agent's preselected "allow once": the tool writes
/// `out.txt`, the turn ends `done` + `unread`, and every state of it came
/// from the screen.
fn enter_allows_and_the_turn_ends_done(rig: &Rig, c: &mut Client, pane: &str) {
    press(c, pane, "\r");
    the_tool_runs_and_the_turn_ends_done(rig, c, pane);
}

/// The allowed tool writes `out.txt`, the turn ends `done` + `unread`, and
/// every state of it came from the screen.
fn the_tool_runs_and_the_turn_ends_done(rig: &Rig, c: &mut Client, pane: &str) {
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(c, pane, "done");
    assert_eq!(done["attention"], "unread");
    rig.watch
        .expect_screen_lifecycle(pane, &["idle", "working", "blocked", "working", "done"]);
}

/// An isolated home for one agent, with its model server.
struct Rig {
    server: TestServer,
    home: PathBuf,
    work: PathBuf,
    model: Model,
    watch: Watch,
    hook_log: PathBuf,
}

impl Rig {
    fn new(agent_env: impl FnOnce(&mut TestEnv, &Model, &Path), script: Value) -> Rig {
        let mut env = TestEnv::new();
        let home = env.home();
        let work = home.join("work");
        std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("work dir: {e}"));
        let model = Model::start(env.root(), script);
        // CI runners export CI=true (and CI_*); Gemini CLI then refuses its
        // interactive UI and exits asking for stdin. The agents run as a
        // person would run them, so the markers of a CI job do not reach them.
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if name == "CI" || name.starts_with("CI_") || name == "CONTINUOUS_INTEGRATION" {
                env.remove_var(&key);
            }
        }
        agent_env(&mut env, &model, &home);
        let hook_log = env.root().join("hooks.log");
        env.set_var("SIGNALTTY_HOOK_LOG", &hook_log);
        let server = TestServer::start_in(env);
        let watch = Watch::start(&server);
        Rig {
            server,
            home,
            work,
            model,
            watch,
            hook_log,
        }
    }

    /// Times each hook-driven state event of `pane` from the start of the hook
    /// reporter that caused it (`$SIGNALTTY_HOOK_LOG`) to its arrival at the
    /// subscriber, plus `extra` (a screen-driven event, timed by the test).
    /// Appended as JSON lines to `$SIGNALTTY_LATENCY_OUT`, when set.
    fn record_latency(&self, agent: &str, pane: &str, extra: &[(&str, u128)]) {
        let Some(out) = std::env::var_os("SIGNALTTY_LATENCY_OUT") else {
            return;
        };
        let hooks: Vec<Value> = std::fs::read_to_string(&self.hook_log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|h: &Value| h["pane"] == pane)
            .collect();
        let mut lines = String::new();
        for (at, name, source) in self.watch.lifecycle(pane) {
            let Some(event) = source.strip_prefix(&format!("hook:{agent}:")) else {
                // Not from a hook: noted, untimed.
                let row =
                    json!({"agent": agent, "state": name, "source": source, "latency_us": null});
                lines.push_str(&format!("{row}\n"));
                continue;
            };
            // The latest reporter of that hook that started before the event.
            let start = hooks
                .iter()
                .filter(|h| h["event"] == event)
                .filter_map(|h| h["at_us"].as_u64().map(u128::from))
                .filter(|start| *start <= at)
                .max();
            if let Some(start) = start {
                let row = json!({"agent": agent, "state": name, "source": source, "latency_us": at - start});
                lines.push_str(&format!("{row}\n"));
            }
        }
        for (what, latency_us) in extra {
            let row = json!({"agent": agent, "state": what, "source": "screen", "latency_us": latency_us});
            lines.push_str(&format!("{row}\n"));
        }
        use std::io::Write as _;
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&out)
            .and_then(|mut f| f.write_all(lines.as_bytes()));
        if let Err(e) = written {
            panic!("cannot write {}: {e}", PathBuf::from(out).display());
        }
    }

    fn install_hooks(&self, agent: &str) {
        let home = self.home.to_string_lossy().into_owned();
        let out = self
            .server
            .cli(&["integration", "install", agent, "--home", &home]);
        assert!(
            out.status.success(),
            "integration install {agent}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn spawn(&self, c: &mut Client, argv: Value) -> String {
        let ws = ok(c.call(
            "workspace.create",
            json!({"name": "real", "cwd": self.work.to_string_lossy()}),
        ));
        let r = ok(c.call(
            "pane.spawn",
            json!({"workspace_id": ws["workspace"]["id"], "argv": argv, "cols": 120, "rows": 40}),
        ));
        str_field(&r["pane"], "id").to_owned()
    }

    /// Installs `agent`'s hooks, starts `argv` in a pane and waits until it
    /// can take a prompt (`hint` on screen, the pane `idle`).
    fn ready(&self, agent: &str, argv: Value, hint: &str) -> (Client, String) {
        self.install_hooks(agent);
        let mut c = self.server.client();
        let pane = self.spawn(&mut c, argv);
        wait_ready(&mut c, &pane, hint);
        (c, pane)
    }
}

/// Codex as the suite runs it: pane-local, with hooks trusted.
fn codex_argv() -> Value {
    json!([
        agent_bin("codex"),
        "--no-daemon",
        "--dangerously-bypass-hook-trust"
    ])
}

/// Presses `keys` in the pane, as a person at its terminal would.
fn press(c: &mut Client, pane: &str, keys: &str) {
    let b64 = base64::engine::general_purpose::STANDARD.encode(keys);
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": b64})));
}

fn claude_rig() -> Rig {
    Rig::new(
        |env, model, home| {
            let config = home.join(".claude");
            std::fs::create_dir_all(&config).unwrap_or_else(|e| panic!("{e}"));
            let work = home.join("work");
            // Onboarding, the API-key question and the folder-trust dialog, answered.
            let state = json!({
                "hasCompletedOnboarding": true, "theme": "dark", "numStartups": 1,
                "customApiKeyResponses": {"approved": ["0123456789abcdefghij"], "rejected": []},
                "projects": {work.to_string_lossy(): {
                    "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
                    "allowedTools": []}}
            });
            std::fs::write(config.join(".claude.json"), state.to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            for (k, v) in [
                ("CLAUDE_CONFIG_DIR", config.to_string_lossy().into_owned()),
                ("ANTHROPIC_BASE_URL", model.url()),
                (
                    "ANTHROPIC_API_KEY",
                    "sk-ant-api03-fakefakefake-0123456789abcdefghij".to_owned(),
                ),
                ("ANTHROPIC_MODEL", "claude-sonnet-4-5".to_owned()),
                ("ANTHROPIC_SMALL_FAST_MODEL", "claude-haiku-4-5".to_owned()),
                ("DISABLE_TELEMETRY", "1".to_owned()),
                ("DISABLE_AUTOUPDATER", "1".to_owned()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
                ("DISABLE_ERROR_REPORTING", "1".to_owned()),
            ] {
                env.set_var(k, v);
            }
        },
        json!({"delay": 2.0, "final_delay": 0.3}),
    )
}

/// Deny from signaltty, answered through the agent's waiting hook: blocked
/// with `permission_required`, then the tool never runs and the turn ends.
fn denied_tool_does_not_run(rig: &Rig, agent: &str, argv: Value, hint: &str) {
    let (mut c, pane) = rig.ready(agent, argv, hint);
    submit(&mut c, &pane, "Create out.txt containing hello");
    let d = pending_decision(&mut c, &pane);
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["attention"], "permission_required");
    ok(c.call(
        "decision.answer",
        json!({"pane_id": pane, "decision_id": d["id"], "option_id": "deny"}),
    ));
    // The agent tells the model the tool was denied; the turn then ends.
    wait_state(&mut c, &pane, "done");
    assert!(
        !rig.work.join("out.txt").exists(),
        "a denied tool never runs"
    );
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    rig.record_latency(agent, &pane, &[]);
}

/// A model that fails the turn: the pane ends it failed with error
/// attention, never done, and the tool never runs.
fn model_error_fails_the_pane(rig: &Rig, agent: &str, argv: Value, hint: &str) {
    rig.model.set(json!({"mode": "error"}));
    let (mut c, pane) = rig.ready(agent, argv, hint);
    submit(&mut c, &pane, "Create out.txt containing hello");
    let failed = wait_state(&mut c, &pane, "failed");
    assert_eq!(failed["attention"], "error");
    assert!(!rig.work.join("out.txt").exists());
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "failed"]);
    rig.record_latency(agent, &pane, &[]);
}

/// Claude Code: start → idle, prompt → working, the Bash call's permission →
/// blocked with a native decision, Allow once from signaltty → the tool runs
/// with no keypress, then done + unread.
#[test]
fn claude_asks_permission_and_an_allow_once_from_signaltty_runs_the_tool() {
    let claude = agent_bin("claude");
    let rig = claude_rig();
    let (mut c, pane) = rig.ready("claude", json!([claude]), "? for shortcuts");
    capture(&mut c, &pane, "claude", "idle", None);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "claude", "working", Some("esc to interrupt"));
    let d = pending_decision(&mut c, &pane);
    capture(&mut c, &pane, "claude", "blocked", Some("Do you want"));
    assert!(str_field(&d, "id").starts_with("permission_"), "{d}");
    assert!(str_field(&d, "prompt").starts_with("Allow Bash?"), "{d}");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["lifecycle"], "blocked");
    assert_eq!(p["pane"]["attention"], "permission_required");
    allow_once_and_finish(&rig, &mut c, &pane, &d);
    wait_screen(&mut c, &pane, "done: wrote out.txt");
    capture(&mut c, &pane, "claude", "done", None);
    assert!(
        rig.model
            .requests()
            .iter()
            .any(|r| r["last"] == "tool_result"),
        "the model saw the tool's result"
    );
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    rig.record_latency("claude", &pane, &[]);
}

fn codex_rig() -> Rig {
    codex_rig_with(|_| {})
}

/// `codex_rig`, with `more` set in the server's environment too.
fn codex_rig_with(more: impl FnOnce(&mut TestEnv)) -> Rig {
    Rig::new(
        |env, model, home| {
            more(env);
            let codex_home = home.join(".codex");
            std::fs::create_dir_all(&codex_home).unwrap_or_else(|e| panic!("{e}"));
            let work = home.join("work");
            let config = format!(
                r#"model = "fake-model"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake loopback"
base_url = "{url}/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[projects."{work}"]
trust_level = "trusted"

[features]
hooks = true
"#,
                url = model.url(),
                work = work.display()
            );
            std::fs::write(codex_home.join("config.toml"), config)
                .unwrap_or_else(|e| panic!("{e}"));
            env.set_var("CODEX_HOME", &codex_home);
            env.set_var("FAKE_API_KEY", "sk-fake");
        },
        json!({"delay": 2.0, "final_delay": 0.3}),
    )
}

/// Codex: hooks from our installer (trust bypassed for the test, as a person
/// would trust them in /hooks), the escalated command's permission answered
/// from signaltty, the tool runs, the turn ends.
#[test]
fn codex_asks_permission_and_an_allow_once_from_signaltty_runs_the_tool() {
    let rig = codex_rig();
    // Codex reports its session only at the first prompt: its input box on
    // screen makes the pane idle (a screen rule), so it takes `pane.submit`.
    let (mut c, pane) = rig.ready("codex", codex_argv(), "Ask Codex to do anything");
    capture(&mut c, &pane, "codex", "idle", None);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "codex", "working", Some("esc to interrupt"));
    let d = pending_decision(&mut c, &pane);
    // Codex waits for its PermissionRequest hook before drawing its own
    // prompt: while signaltty holds the question, its screen says working.
    capture(&mut c, &pane, "codex", "hook-running", Some("Running hook"));
    assert!(str_field(&d, "id").starts_with("permission_"), "{d}");
    allow_once_and_finish(&rig, &mut c, &pane, &d);
    capture(&mut c, &pane, "codex", "done", Some("done: wrote out.txt"));
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    rig.record_latency("codex", &pane, &[]);
}

/// Deny from signaltty: Claude does not run the tool.
#[test]
fn claude_denied_from_signaltty_does_not_run_the_tool() {
    let rig = claude_rig();
    let argv = json!([agent_bin("claude")]);
    denied_tool_does_not_run(&rig, "claude", argv, "? for shortcuts");
}

/// Two Claude panes ask at once: each pane's hooks reach its own pane, and each
/// answer reaches its own agent.
#[test]
fn two_claude_panes_are_answered_independently() {
    let claude = agent_bin("claude");
    let rig = claude_rig();
    rig.install_hooks("claude");
    let mut c = rig.server.client();
    let a = rig.spawn(&mut c, json!([claude]));
    let b = rig.spawn(&mut c, json!([claude]));
    wait_ready(&mut c, &a, "? for shortcuts");
    wait_ready(&mut c, &b, "? for shortcuts");
    submit(&mut c, &a, "Create out.txt containing hello");
    submit(&mut c, &b, "Create out.txt containing hello");
    let da = pending_decision(&mut c, &a);
    let db = pending_decision(&mut c, &b);
    assert_ne!(da["id"], db["id"]);
    let session = |c: &mut Client, p: &str| {
        ok(c.call("pane.get", json!({"pane_id": p})))["pane"]["agent"]["agent_session_id"].clone()
    };
    assert_ne!(session(&mut c, &a), session(&mut c, &b));
    ok(c.call(
        "decision.answer",
        json!({"pane_id": b, "decision_id": db["id"], "option_id": "deny"}),
    ));
    ok(c.call(
        "decision.answer",
        json!({"pane_id": a, "decision_id": da["id"], "option_id": "once"}),
    ));
    wait_state(&mut c, &a, "done");
    wait_state(&mut c, &b, "done");
    // Both ran in the same directory: the allowed one wrote the file.
    assert!(rig.work.join("out.txt").exists());
    for p in [&a, &b] {
        rig.watch
            .expect_lifecycle(p, &["idle", "working", "blocked", "working", "done"]);
    }
}

fn pi_rig() -> Rig {
    Rig::new(
        |env, model, home| {
            let dir = home.join(".pi").join("agent");
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
            let models = json!({"providers": {"fake": {
                "baseUrl": format!("{}/v1", model.url()), "api": "openai-completions",
                "apiKey": "sk-fake",
                "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
                "models": [{"id": "fake-model", "name": "Fake Model", "reasoning": false,
                            "contextWindow": 128000, "maxTokens": 4096}]}}});
            std::fs::write(dir.join("models.json"), models.to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            let settings = json!({"defaultProvider": "fake", "defaultModel": "fake-model",
                                  "enableInstallTelemetry": false});
            std::fs::write(dir.join("settings.json"), settings.to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            env.set_var("PI_CODING_AGENT_DIR", &dir);
            env.set_var("PI_OFFLINE", "1");
            env.set_var("PI_SKIP_VERSION_CHECK", "1");
            env.set_var("PI_TELEMETRY", "0");
        },
        json!({"delay": 2.0, "final_delay": 0.3}),
    )
}

/// Pi through signaltty's extension: idle at start, working for the turn (its
/// bash tool runs without asking: Pi has no permission system), then done +
/// unread with the turn's last text.
#[test]
fn pi_reports_its_turn_through_the_extension() {
    let pi = agent_bin("pi");
    let rig = pi_rig();
    rig.install_hooks("pi");
    let mut c = rig.server.client();
    let pane = rig.spawn(&mut c, json!([pi]));
    wait_state(&mut c, &pane, "idle");
    let p = wait_session(&mut c, &pane);
    // Pi's editor is drawn with its footer (model, context use): ready.
    wait_ready(&mut c, &pane, "(auto)");
    capture(&mut c, &pane, "pi", "idle", None);
    assert_eq!(p["pane"]["agent"]["kind"], "pi");
    assert!(p["pane"]["agent"]["agent_session_id"].is_string(), "{p}");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "pi", "working", Some("Working"));
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    capture(&mut c, &pane, "pi", "done", Some("done: wrote out.txt"));
    assert!(rig.work.join("out.txt").exists());
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["last_message"], "done: wrote out.txt");
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "done"]);
    rig.record_latency("pi", &pane, &[]);
}

fn gemini_rig() -> Rig {
    Rig::new(
        |env, model, home| {
            let dir = home.join(".gemini");
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
            let settings = json!({
                "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
                "security": {"auth": {"selectedType": "gemini-api-key"},
                             "folderTrust": {"enabled": false}},
                "model": {"name": "gemini-2.5-flash"}
            });
            std::fs::write(dir.join("settings.json"), settings.to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            env.set_var("GEMINI_API_KEY", "fake-gemini-key");
            env.set_var("GOOGLE_GEMINI_BASE_URL", model.url());
            env.set_var("GEMINI_TELEMETRY_ENABLED", "0");
            env.set_var("COLORTERM", "truecolor");
        },
        json!({"delay": 2.0, "final_delay": 0.3}),
    )
}

/// Gemini CLI through its hooks: idle, working, blocked on its tool
/// permission prompt (answered in the terminal: its hooks cannot answer), the
/// tool runs, done + unread.
#[test]
fn gemini_blocks_on_its_permission_prompt_and_finishes_the_turn() {
    let gemini = agent_bin("gemini");
    let rig = gemini_rig();
    let (mut c, pane) = rig.ready("gemini", json!([gemini]), "Type your message");
    capture(&mut c, &pane, "gemini", "idle", Some("Type your message"));
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    // Gemini's working screen is its braille spinner line ("⠋ Executing
    // Hooks: …" while its BeforeAgent hook and the model run).
    capture(&mut c, &pane, "gemini", "working", Some("Executing Hooks"));
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "permission_required");
    // Allow once is the preselected choice, once the prompt is drawn.
    wait_screen(&mut c, &pane, "Allow once");
    capture(&mut c, &pane, "gemini", "blocked", None);
    press(&mut c, &pane, "\r");
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    capture(&mut c, &pane, "gemini", "done", Some("done: wrote out.txt"));
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    rig.record_latency("gemini", &pane, &[]);
}

fn opencode_rig() -> Rig {
    opencode_family_rig("opencode", "OPENCODE")
}

/// OpenCode, or a descendant keeping its config (Kilo Code): `<name>.json`
/// under `$XDG_CONFIG_HOME/<name>` pointing at the fake model, data and
/// cache in the test's HOME, and the `<PREFIX>_DISABLE_*` switches for
/// updates, model lists, LSP downloads, sharing and default plugins.
fn opencode_family_rig(name: &'static str, prefix: &'static str) -> Rig {
    Rig::new(
        move |env, model, home| {
            let config = env.root().join("config").join(name);
            std::fs::create_dir_all(&config).unwrap_or_else(|e| panic!("{e}"));
            let settings = json!({
                "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake loopback",
                    "options": {"baseURL": format!("{}/v1", model.url()), "apiKey": "sk-fake"},
                    "models": {"fake-model": {"name": "Fake Model", "tool_call": true,
                        "limit": {"context": 128000, "output": 4096}}}}},
                "model": "fake/fake-model", "small_model": "fake/fake-model",
                "autoupdate": false, "share": "disabled",
                "permission": {"bash": "ask", "edit": "ask"}
            });
            std::fs::write(config.join(format!("{name}.json")), settings.to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            for (k, v) in [
                ("XDG_DATA_HOME", home.join(".local/share")),
                ("XDG_CACHE_HOME", home.join(".cache")),
            ] {
                env.set_var(k, v);
            }
            for switch in [
                "AUTOUPDATE",
                "MODELS_FETCH",
                "LSP_DOWNLOAD",
                "SHARE",
                "DEFAULT_PLUGINS",
            ] {
                env.set_var(format!("{prefix}_DISABLE_{switch}"), "1");
            }
        },
        json!({"delay": 2.0, "final_delay": 0.3}),
    )
}

/// OpenCode through signaltty's plugin: working while busy, blocked while its
/// permission is asked (its status stays "busy" then: only permission.asked
/// shows it), working again once allowed in the terminal, done + unread.
#[test]
fn opencode_reports_its_permission_wait_through_the_plugin() {
    let opencode = agent_bin("opencode");
    let rig = opencode_rig();
    let (mut c, pane) = rig.ready("opencode", json!([opencode]), "Ask anything");
    capture(&mut c, &pane, "opencode", "idle", None);
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "working");
    capture(&mut c, &pane, "opencode", "working", Some("esc interrupt"));
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "permission_required");
    // "Allow once" is preselected.
    wait_screen(&mut c, &pane, "Allow once");
    capture(&mut c, &pane, "opencode", "blocked", None);
    press(&mut c, &pane, "\r");
    let out = rig.work.join("out.txt");
    wait_until("the tool to write out.txt", LONG, || {
        out.exists().then_some(())
    });
    let done = wait_state(&mut c, &pane, "done");
    assert_eq!(done["attention"], "unread");
    capture(
        &mut c,
        &pane,
        "opencode",
        "done",
        Some("done: wrote out.txt"),
    );
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(p["pane"]["agent"]["kind"], "opencode");
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    rig.record_latency("opencode", &pane, &[]);
}

/// A model that fails the turn: OpenCode reports session.error through the
/// plugin and the pane is failed with error attention; a later idle does not
/// turn it into success.
#[test]
fn opencode_model_error_fails_the_pane() {
    let rig = opencode_rig();
    let argv = json!([agent_bin("opencode")]);
    model_error_fails_the_pane(&rig, "opencode", argv, "Ask anything");
}

/// Esc at Gemini's permission prompt fires no hook: the screen rules, which
/// saw the question, see it go, and the pane leaves `blocked`.
#[test]
fn gemini_question_dismissed_with_esc_leaves_blocked_by_the_screen() {
    let gemini = agent_bin("gemini");
    let rig = gemini_rig();
    let (mut c, pane) = rig.ready("gemini", json!([gemini]), "Type your message");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "blocked");
    wait_screen(&mut c, &pane, "Allow once");
    let esc_at = now_us();
    press(&mut c, &pane, "\x1b");
    let after = wait_state(&mut c, &pane, "idle");
    assert_eq!(after["attention"], "none");
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert!(
        str_field(&explain["lifecycle"], "source").starts_with("screen:"),
        "{explain}"
    );
    assert!(!rig.work.join("out.txt").exists());
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "idle"]);
    let idle_at = rig
        .watch
        .lifecycle(&pane)
        .last()
        .map_or(0, |(at, _, _)| *at);
    rig.record_latency("gemini", &pane, &[("esc → idle", idle_at - esc_at)]);
}

/// Esc at Claude's permission dialog while signaltty holds the question:
/// Claude gives up its waiting hook (the reporter's route ends and the
/// decision goes), no other hook fires, and the screen rules, which saw the
/// dialog, see it go: the pane leaves `blocked` and nothing is left to answer.
#[test]
fn claude_question_dismissed_with_esc_leaves_blocked() {
    let claude = agent_bin("claude");
    let rig = claude_rig();
    let (mut c, pane) = rig.ready("claude", json!([claude]), "? for shortcuts");
    submit(&mut c, &pane, "Create out.txt containing hello");
    let d = pending_decision(&mut c, &pane);
    wait_screen(&mut c, &pane, "Do you want");
    press(&mut c, &pane, "\x1b");
    let after = wait_state(&mut c, &pane, "idle");
    assert_eq!(after["attention"], "none");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert!(p["pane"]["pending_decision"].is_null(), "{p}");
    let r = c.call(
        "decision.answer",
        json!({"pane_id": pane, "decision_id": d["id"], "option_id": "once"}),
    );
    assert!(!r.ok, "a dismissed question cannot be answered: {r:?}");
    assert!(!rig.work.join("out.txt").exists());
    // The `wait` reply came on another connection than the subscriber's, and
    // may overtake the `agent.idle` event on its way to the subscriber.
    let last_is_idle = || {
        rig.watch
            .lifecycle(&pane)
            .last()
            .is_some_and(|(_, n, _)| n == "idle")
    };
    crate::support::poll_until(LONG, last_is_idle);
    let life = rig.watch.lifecycle(&pane);
    assert_eq!(
        life.last().map(|(_, n, _)| n.as_str()),
        Some("idle"),
        "{life:?}"
    );
}

/// Deny from signaltty reaches Codex through its waiting hook: the tool never
/// runs, the turn ends.
#[test]
fn codex_denied_from_signaltty_does_not_run_the_tool() {
    let rig = codex_rig();
    denied_tool_does_not_run(&rig, "codex", codex_argv(), "Ask Codex to do anything");
}

/// A model that fails Claude's turn: the pane ends the turn failed with error
/// attention, not done.
#[test]
fn claude_model_error_fails_the_pane() {
    let rig = claude_rig();
    let argv = json!([agent_bin("claude")]);
    model_error_fails_the_pane(&rig, "claude", argv, "? for shortcuts");
}

/// Esc in Codex while signaltty holds its permission question: Codex kills
/// the waiting hook and ends the turn, with no hook of its own. The decision
/// goes (`native_cancelled`), the screen takes over, and the pane is idle.
#[test]
fn codex_interrupted_while_its_question_waits_leaves_blocked() {
    let rig = codex_rig();
    let (mut c, pane) = rig.ready("codex", codex_argv(), "Ask Codex to do anything");
    submit(&mut c, &pane, "Create out.txt containing hello");
    pending_decision(&mut c, &pane);
    press(&mut c, &pane, "\x1b");
    let after = wait_state(&mut c, &pane, "idle");
    assert_eq!(after["attention"], "none");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert!(p["pane"]["pending_decision"].is_null(), "{p}");
    assert!(!rig.work.join("out.txt").exists());
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "idle"]);
    // The installed `Interrupt` hook ended the turn, not a screen reading.
    let life = rig.watch.lifecycle(&pane);
    assert_eq!(
        life.last().map(|(_, _, source)| source.as_str()),
        Some("hook:codex:Interrupt"),
        "{life:?}"
    );
}

/// Esc at OpenCode's permission prompt rejects the tool: its plugin reports
/// the reply, so the pane leaves `blocked` by a hook (no screen needed), the
/// tool never runs and the turn ends.
#[test]
fn opencode_question_dismissed_with_esc_leaves_blocked() {
    let rig = opencode_rig();
    let (mut c, pane) = rig.ready("opencode", json!([agent_bin("opencode")]), "Ask anything");
    submit(&mut c, &pane, "Create out.txt containing hello");
    wait_state(&mut c, &pane, "blocked");
    wait_screen(&mut c, &pane, "Allow once");
    press(&mut c, &pane, "\x1b");
    // OpenCode tells the model the tool was rejected; the turn then ends.
    let done = wait_state(&mut c, &pane, "done");
    assert!(!rig.work.join("out.txt").exists());
    // `permission.replied` took the pane out of `blocked`: the question's
    // attention was withdrawn then (issue 16: whoever answered in the agent's
    // own UI needs no reminder), and the turn end raises unread.
    assert_eq!(done["attention"], "unread");
    rig.watch
        .expect_lifecycle(&pane, &["idle", "working", "blocked", "working", "done"]);
    // The turn resumed on the reply: the state after `blocked` came from it.
    let life = rig.watch.lifecycle(&pane);
    let resumed = life
        .iter()
        .skip_while(|(_, n, _)| n != "blocked")
        .nth(1)
        .map(|(_, _, source)| source.as_str());
    assert_eq!(
        resumed,
        Some("hook:opencode:permission.replied"),
        "{life:?}"
    );
}
