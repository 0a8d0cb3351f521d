//! Decisions end to end (`decision.answer`, `hook-event` waiting mode,
//! `pane.submit`: docs/methods.md#decisions, docs/decisions.md): fake Claude
//! and Codex agents whose PermissionRequest hook runs the real waiting reporter
//! (`signaltty hook-event --wait`), answered from another client or the CLI.
//! Whatever ends a wait but an answer, the reporter prints nothing.

use crate::support::agents::{spawn_fake_with, type_line, wait_screen, wait_state, workspace};
use crate::support::client::Client;
use crate::support::{TestServer, err, ok, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use signaltty_protocol::state::native_verdict_line;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

const LONG: Duration = Duration::from_secs(20);

/// A fake agent whose reporter writes under its own directory.
struct Agent {
    pane: String,
    dir: PathBuf,
}

impl Agent {
    fn start(c: &mut Client, server: &TestServer, ws: &str, kind: &str, extra: Value) -> Agent {
        let dir = server.env().root().join(format!("agent-{}", rand_suffix()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        let mut env = json!({"SIGNALTTY_FAKE_DIR": dir.to_string_lossy()});
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                env[k] = v;
            }
        }
        let pane = spawn_fake_with(c, ws, kind, env);
        wait_state(c, &pane, "idle");
        Agent { pane, dir }
    }

    /// Types `ask TOOL` and waits until the question is pending.
    fn ask(&self, c: &mut Client, tool: &str) -> Value {
        type_line(c, &self.pane, &format!("ask {tool}"));
        pending(c, &self.pane)
    }

    /// The stdout of the `n`th reporter, once it has exited.
    fn verdict(&self, n: u32) -> String {
        let path = self.dir.join(format!("verdict.{n}"));
        wait_until("the reporter to finish", LONG, || {
            std::fs::read_to_string(&path).ok()
        })
    }

    fn reporter_pid(&self, n: u32) -> i32 {
        let path = self.dir.join(format!("reporter.{n}.pid"));
        let text = wait_until("the reporter's pid", LONG, || {
            std::fs::read_to_string(&path)
                .ok()
                .filter(|t| t.ends_with('\n'))
        });
        text.trim()
            .parse()
            .unwrap_or_else(|e| panic!("pid {text:?}: {e}"))
    }
}

/// A server with one fake agent of `kind` (idle), and a client.
fn one_agent(kind: &str, env: Value) -> (TestServer, Client, Agent) {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "decisions");
    let agent = Agent::start(&mut c, &server, &ws, kind, env);
    (server, c, agent)
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn pane_of(c: &mut Client, pane: &str) -> Value {
    ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone()
}

/// Waits until the pane has a pending decision and returns it.
fn pending(c: &mut Client, pane: &str) -> Value {
    wait_until("a pending decision", LONG, || {
        let p = pane_of(c, pane);
        (!p["pending_decision"].is_null()).then(|| p["pending_decision"].clone())
    })
}

fn answer(
    c: &mut Client,
    pane: &str,
    decision: &str,
    option: &str,
) -> signaltty_protocol::Response {
    c.call(
        "decision.answer",
        json!({"pane_id": pane, "decision_id": decision, "option_id": option}),
    )
}

/// The next `decision.*` event of `pane` on a subscription.
fn next_decision_event(sub: &mut Client, pane: &str) -> (String, Value) {
    loop {
        let e = sub.next_event();
        if e.event.starts_with("decision.") && e.payload["pane_id"] == pane {
            return (e.event, e.payload);
        }
    }
}

/// docs/decisions.md#answering-a-native-decision: Claude asks, a person allows
/// once from the CLI, the reporter prints the allow verdict, and the pane goes
/// back to work; a second answer finds nothing.
#[test]
fn claude_allow_once_reaches_the_reporter_and_the_pane_works_again() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call(
        "subscribe",
        json!({"events": ["decision.*", "agent.*", "attention.*"]}),
    ));
    let ws = workspace(&mut c, &server, "decisions");
    let agent = Agent::start(&mut c, &server, &ws, "fake-claude", json!({}));
    type_line(&mut c, &agent.pane, "prompt tidy up");
    wait_state(&mut c, &agent.pane, "working");

    let d = agent.ask(&mut c, "Bash");
    let id = str_field(&d, "id").to_owned();
    assert!(id.starts_with("permission_") && id.len() == 11 + 32, "{id}");
    assert_eq!(d["answerable"], true);
    assert_eq!(
        d["options"],
        json!([{"id": "once", "label": "Allow once"}, {"id": "deny", "label": "Deny"}])
    );
    assert!(str_field(&d, "prompt").starts_with("Allow Bash?\n"), "{d}");
    let p = pane_of(&mut c, &agent.pane);
    assert_eq!(
        (p["lifecycle"].as_str(), p["attention"].as_str()),
        (Some("blocked"), Some("permission_required"))
    );

    // The CLI lists it, then answers it by option id.
    let listed = server.cli(&["decisions"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains(&id) && text.contains("Allow Bash?") && text.contains("1) Allow once [once]"),
        "{text}"
    );
    let out = server.cli(&["answer", &agent.pane, "once"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    assert_eq!(agent.verdict(1), format!("{}\n", native_verdict_line(true)));
    wait_screen(&mut c, &agent.pane, "reporter 1 exit 0");
    let p = pane_of(&mut c, &agent.pane);
    assert_eq!(
        (p["lifecycle"].as_str(), p["attention"].as_str()),
        (Some("working"), Some("none"))
    );
    assert!(p["pending_decision"].is_null());

    // The events: created, then consumed before delivery, then the pane works.
    let (name, created) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(
        (name.as_str(), created["prev"].clone()),
        ("decision.created", Value::Null)
    );
    let (name, answered) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(name, "decision.answered");
    assert_eq!(
        (
            answered["decision_id"].as_str(),
            answered["option_id"].as_str()
        ),
        (Some(id.as_str()), Some("once"))
    );
    let mut rest = Vec::new();
    while !rest.iter().any(|n: &String| n == "agent.working") {
        let e = sub.next_event();
        if e.payload["pane_id"] == agent.pane.as_str() {
            rest.push(match e.event.as_str() {
                "attention.cleared" => format!("cleared:{}", str_field(&e.payload, "reason")),
                other => other.to_owned(),
            });
        }
    }
    assert_eq!(rest, ["cleared:decision_answer", "agent.working"]);

    let again = err(answer(&mut c, &agent.pane, &id, "once"));
    assert_eq!(again.code, ErrorCode::NoSuchDecision);
}

/// Codex's reporter gets the deny verdict; a `permission_` decision only takes
/// `once` or `deny`.
#[test]
fn codex_deny_reaches_the_reporter_and_other_options_are_refused() {
    let (_server, mut c, agent) = one_agent("fake-codex", json!({}));
    let d = agent.ask(&mut c, "shell");
    let id = str_field(&d, "id").to_owned();
    let always = err(answer(&mut c, &agent.pane, &id, "always"));
    assert_eq!(
        always.code,
        ErrorCode::BadParams,
        "no permanent policy exists"
    );
    let wrong = err(answer(&mut c, &agent.pane, "permission_0", "once"));
    assert_eq!(wrong.code, ErrorCode::NoSuchDecision);
    let done = ok(answer(&mut c, &agent.pane, &id, "deny"));
    assert_eq!(done["answered"], true);
    assert_eq!(
        agent.verdict(1),
        format!("{}\n", native_verdict_line(false))
    );
    assert_eq!(done["lifecycle"], "working");
}

/// A short wait ends with no verdict: the reporter prints nothing, the decision
/// is cleared `native_cancelled`, and a late answer is refused.
#[test]
fn a_timed_out_reporter_prints_nothing_and_its_decision_is_cleared() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["decision.*"]})));
    let ws = workspace(&mut c, &server, "decisions");
    let agent = Agent::start(
        &mut c,
        &server,
        &ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_WAIT_TIMEOUT": "1"}),
    );
    let d = agent.ask(&mut c, "Bash");
    let id = str_field(&d, "id").to_owned();
    assert_eq!(agent.verdict(1), "", "a timeout never means Allow");
    wait_screen(&mut c, &agent.pane, "reporter 1 exit 0");
    let err_text = std::fs::read_to_string(agent.dir.join("reporter.1.err")).unwrap_or_default();
    assert!(err_text.contains("timeout"), "{err_text}");
    let (_, created) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(created["decision"]["id"], id.as_str());
    let (name, cleared) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(
        (name.as_str(), cleared["reason"].as_str()),
        ("decision.cleared", Some("native_cancelled"))
    );
    let late = err(answer(&mut c, &agent.pane, &id, "once"));
    assert_eq!(late.code, ErrorCode::NoSuchDecision);
    // The agent still asks in its terminal.
    let p = pane_of(&mut c, &agent.pane);
    assert_eq!(p["lifecycle"], "blocked");
}

/// A reporter killed while it waits: the decision is cleared, a later answer
/// refused.
#[test]
fn a_killed_reporter_clears_its_decision() {
    let (_server, mut c, agent) = one_agent("fake-claude", json!({}));
    let d = agent.ask(&mut c, "Bash");
    let id = str_field(&d, "id").to_owned();
    let pid = agent.reporter_pid(1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap_or_else(|e| panic!("kill reporter: {e}"));
    wait_until("the decision to be cleared", LONG, || {
        pane_of(&mut c, &agent.pane)["pending_decision"]
            .is_null()
            .then_some(())
    });
    let late = err(answer(&mut c, &agent.pane, &id, "once"));
    assert_eq!(late.code, ErrorCode::NoSuchDecision);
    assert_eq!(agent.verdict(1), "");
}

/// The agent's session changed while the reporter waited: the route no longer
/// fits, the reporter gets no verdict and the answer is refused.
#[test]
fn an_answer_after_the_session_changed_is_refused() {
    let (_server, mut c, agent) = one_agent("fake-claude", json!({}));
    let d = agent.ask(&mut c, "Bash");
    let id = str_field(&d, "id").to_owned();
    ok(c.call(
        "report-session",
        json!({"pane_id": agent.pane, "agent_session_id": "another-session"}),
    ));
    let refused = err(answer(&mut c, &agent.pane, &id, "once"));
    assert_eq!(refused.code, ErrorCode::NoSuchDecision);
    assert_eq!(agent.verdict(1), "", "a stale route never delivers");
    let err_text = std::fs::read_to_string(agent.dir.join("reporter.1.err")).unwrap_or_default();
    assert!(err_text.contains("moved_on"), "{err_text}");
}

/// Two panes ask at once; each answer reaches only its own reporter.
#[test]
fn two_panes_asking_at_once_are_answered_independently() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "decisions");
    let a = Agent::start(
        &mut c,
        &server,
        &ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_SESSION": "sess-a"}),
    );
    let b = Agent::start(
        &mut c,
        &server,
        &ws,
        "fake-codex",
        json!({"SIGNALTTY_FAKE_SESSION": "sess-b"}),
    );
    let da = a.ask(&mut c, "Bash");
    let db = b.ask(&mut c, "shell");
    assert_ne!(da["id"], db["id"]);
    // An answer names its pane: the other pane's id is not pending there.
    let crossed = err(answer(&mut c, &a.pane, str_field(&db, "id"), "once"));
    assert_eq!(crossed.code, ErrorCode::NoSuchDecision);
    ok(answer(&mut c, &b.pane, str_field(&db, "id"), "deny"));
    ok(answer(&mut c, &a.pane, str_field(&da, "id"), "once"));
    assert_eq!(a.verdict(1), format!("{}\n", native_verdict_line(true)));
    assert_eq!(b.verdict(1), format!("{}\n", native_verdict_line(false)));
}

/// Many clients answer one decision at the same moment: exactly one succeeds
/// and the reporter prints exactly one verdict.
#[test]
fn concurrent_answers_deliver_exactly_one_verdict() {
    let (server, mut c, agent) = one_agent("fake-claude", json!({}));
    let d = agent.ask(&mut c, "Bash");
    let id = str_field(&d, "id").to_owned();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(16));
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let mut client = server.client();
            let (pane, id, barrier) = (agent.pane.clone(), id.clone(), barrier.clone());
            std::thread::spawn(move || {
                let option = if i % 2 == 0 { "once" } else { "deny" };
                barrier.wait();
                answer(&mut client, &pane, &id, option)
            })
        })
        .collect();
    let mut succeeded = Vec::new();
    for t in threads {
        let r = t
            .join()
            .unwrap_or_else(|_| panic!("answer thread panicked"));
        if r.ok {
            succeeded.push(ok(r));
        } else {
            let e = err(r);
            assert_eq!(e.code, ErrorCode::NoSuchDecision, "{}", e.message);
        }
    }
    assert_eq!(succeeded.len(), 1, "{succeeded:?}");
    let verdict = agent.verdict(1);
    assert_eq!(verdict.lines().count(), 1, "{verdict}");
    assert!(
        verdict == format!("{}\n", native_verdict_line(true))
            || verdict == format!("{}\n", native_verdict_line(false)),
        "{verdict}"
    );
}

/// The reporter run by hand against a pane, its stdout captured.
fn reporter(
    server: &TestServer,
    pane: &str,
    payload: &Value,
    timeout: Option<u64>,
) -> std::process::Child {
    let mut args = vec![
        "hook-event",
        "--agent",
        "claude",
        "--event",
        "PermissionRequest",
        "--wait",
        "--pane",
        pane,
    ];
    let t = timeout.map(|t| t.to_string());
    if let Some(t) = &t {
        args.extend(["--wait-timeout", t]);
    }
    let mut cmd = server.env().command(&args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("reporter: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write as _;
        stdin
            .write_all(payload.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("payload: {e}"));
    }
    child
}

fn claude_payload(session: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "PermissionRequest", "tool_name": "Write", "tool_input": {"file_path": "a.txt"}})
}

/// The server dies while the reporter waits: the reporter prints nothing and
/// exits without a blocking code (the provider keeps its own prompt).
#[test]
fn a_reporter_whose_server_dies_prints_nothing() {
    let mut server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "decisions");
    let agent = Agent::start(&mut c, &server, &ws, "fake-claude", json!({}));
    let child = reporter(
        &server,
        &agent.pane,
        &claude_payload("5b0c6a52-claude-session"),
        None,
    );
    pending(&mut c, &agent.pane);
    server.process().signal(nix::sys::signal::Signal::SIGKILL);
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("reporter: {e}"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_ne!(out.status.code(), Some(2), "exit 2 would block the tool");
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}

/// A server stopping gracefully answers the waiting reporter `cancelled:
/// "shutdown"`; it prints nothing.
#[test]
fn a_graceful_shutdown_cancels_the_wait_with_shutdown() {
    let (server, mut c, agent) = one_agent("fake-claude", json!({}));
    let mut waiting = server.client();
    let id = waiting.send(
        "hook-event",
        json!({"agent": "claude", "event": "PermissionRequest", "pane_id": agent.pane,
               "payload": claude_payload("5b0c6a52-claude-session"), "wait_for_answer": true}),
    );
    pending(&mut c, &agent.pane);
    ok(c.call("server.shutdown", json!({"force": true})));
    let r = waiting.read_response();
    assert_eq!(r.id, id);
    let v = ok(r);
    assert_eq!(v["native_verdict"], Value::Null);
    assert_eq!(v["cancelled"], "shutdown");
}

/// The waiting mode's checks, in the order of docs/methods.md#hook-event.
#[test]
fn waiting_hook_events_are_validated() {
    let (server, mut c, agent) = one_agent("fake-claude", json!({}));
    let good = claude_payload("5b0c6a52-claude-session");
    let call = |c: &mut Client, extra: Value| {
        let mut p = json!({"agent": "claude", "event": "PermissionRequest", "pane_id": agent.pane,
                           "payload": good, "wait_for_answer": true});
        if let (Value::Object(p), Value::Object(extra)) = (&mut p, extra) {
            for (k, v) in extra {
                if v.is_null() {
                    p.remove(&k);
                } else {
                    p.insert(k, v);
                }
            }
        }
        let mut fresh = Client::connect(server.socket_path());
        let _ = c;
        err(fresh.call("hook-event", p))
    };
    for (extra, code) in [
        (json!({"event": "Stop"}), ErrorCode::BadParams),
        (
            json!({"decision": {"id": "d", "prompt": "p", "options": [{"id": "a", "label": "A"}]}}),
            ErrorCode::BadParams,
        ),
        (json!({"wait_timeout_s": 0}), ErrorCode::BadParams),
        (json!({"wait_timeout_s": 121}), ErrorCode::BadParams),
        (json!({"severity": "loud"}), ErrorCode::BadParams),
        (json!({"agent": "opencode"}), ErrorCode::BadParams),
        (json!({"payload": {}}), ErrorCode::BadParams),
        (
            json!({"payload": {"session_id": "s", "tool_name": "Bash", "tool_input": null}}),
            ErrorCode::BadParams,
        ),
        (
            json!({"payload": {"session_id": "", "tool_name": "Bash", "tool_input": {}}}),
            ErrorCode::BadParams,
        ),
        (json!({"pane_id": null}), ErrorCode::BadParams),
        (json!({"pane_id": "pane_nope"}), ErrorCode::NoSuchPane),
    ] {
        let e = call(&mut c, extra.clone());
        assert_eq!(e.code, code, "{extra}: {}", e.message);
    }
    type_line(&mut c, &agent.pane, "end");
    wait_state(&mut c, &agent.pane, "exited");
    let e = call(&mut c, json!({}));
    assert_eq!(e.code, ErrorCode::PaneExited);
}

/// An ordinary (non-waiting) PermissionRequest sets a read-only decision:
/// there is nobody to deliver an answer to.
#[test]
fn an_ordinary_permission_request_is_read_only() {
    let (_server, mut c, agent) = one_agent("fake-claude", json!({}));
    type_line(&mut c, &agent.pane, "permission Bash");
    let d = pending(&mut c, &agent.pane);
    assert_eq!(d["answerable"], false);
    let e = err(answer(&mut c, &agent.pane, str_field(&d, "id"), "once"));
    assert_eq!(e.code, ErrorCode::NoSuchDecision);
    // A prompt submitted in the terminal clears it.
    type_line(&mut c, &agent.pane, "prompt go on");
    wait_until("the decision to be cleared", LONG, || {
        pane_of(&mut c, &agent.pane)["pending_decision"]
            .is_null()
            .then_some(())
    });
}

/// A structured decision on Codex is answered over its terminal channel: the
/// option's number and a newline are typed into the pane.
#[test]
fn a_codex_decision_is_answered_by_typing_the_options_number() {
    let (server, mut c, agent) = one_agent("fake-codex", json!({}));
    let decision = json!({"id": "d-merge", "prompt": "Merge the branch?", "options": [
        {"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}, {"id": "later", "label": "Later"}]});
    ok(c.call(
        "hook-event",
        json!({"agent": "codex", "event": "PermissionRequest", "pane_id": agent.pane,
               "payload": {"session_id": "019a2b3c-codex-thread"}, "decision": decision}),
    ));
    let d = pending(&mut c, &agent.pane);
    assert_eq!(d["answerable"], true);
    assert_eq!(
        err(answer(&mut c, &agent.pane, "d-merge", "maybe")).code,
        ErrorCode::BadParams
    );
    // By number from the CLI: the third option.
    let out = server.cli(&["answer", &agent.pane, "3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let screen = wait_screen(&mut c, &agent.pane, "3");
    assert!(
        str_field(&screen, "matched_line")
            .trim_end()
            .ends_with("> 3"),
        "{screen}"
    );
    let p = pane_of(&mut c, &agent.pane);
    assert_eq!(p["lifecycle"], "working");
    assert!(p["pending_decision"].is_null());
}

/// Claude has no terminal channel: a structured decision there is answered in
/// the terminal, and the decision is kept.
#[test]
fn a_decision_without_an_answer_channel_says_answer_in_the_terminal() {
    let (server, mut c, agent) = one_agent("fake-claude", json!({}));
    ok(c.call(
        "hook-event",
        json!({"agent": "claude", "event": "Notification", "pane_id": agent.pane,
               "payload": {"notification_type": "question"},
               "decision": {"id": "q1", "prompt": "Which file?", "options": [{"id": "a", "label": "a.rs"}]}}),
    ));
    let d = pending(&mut c, &agent.pane);
    assert_eq!(d["answerable"], false);
    let e = err(answer(&mut c, &agent.pane, "q1", "a"));
    assert_eq!(e.code, ErrorCode::BadParams);
    assert!(
        e.message.contains("answer in the terminal"),
        "{}",
        e.message
    );
    assert_eq!(pane_of(&mut c, &agent.pane)["pending_decision"]["id"], "q1");
    // mark_seen keeps a pending decision's attention.
    ok(c.call("pane.mark_seen", json!({"pane_id": agent.pane})));
    assert_eq!(pane_of(&mut c, &agent.pane)["attention"], "input_required");
    // `attention` lists questions first, with their options.
    let out = server.cli(&["attention"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Which file?") && text.contains("1) a.rs [a]"),
        "{text}"
    );
}

/// A pane that exits with a question pending drops it (`pane_exited`).
#[test]
fn an_exit_clears_the_pending_decision() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["decision.*"]})));
    let ws = workspace(&mut c, &server, "decisions");
    let agent = Agent::start(&mut c, &server, &ws, "fake-codex", json!({}));
    type_line(&mut c, &agent.pane, "permission shell");
    let d = pending(&mut c, &agent.pane);
    type_line(&mut c, &agent.pane, "end");
    next_decision_event(&mut sub, &agent.pane);
    let (name, cleared) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(name, "decision.cleared");
    assert_eq!(
        (cleared["decision_id"].clone(), cleared["reason"].as_str()),
        (d["id"].clone(), Some("pane_exited"))
    );
    let e = err(answer(&mut c, &agent.pane, str_field(&d, "id"), "once"));
    assert_eq!(e.code, ErrorCode::PaneExited);
}

fn submit(c: &mut Client, pane: &str, text: &str, extra: Value) -> signaltty_protocol::Response {
    let mut p = json!({"pane_id": pane, "text": text});
    if let (Value::Object(p), Value::Object(extra)) = (&mut p, extra) {
        p.extend(extra);
    }
    c.call("pane.submit", p)
}

/// `pane.submit` into an idle agent: the paste and Enter arrive, the agent
/// starts working, and the gate reports the transition.
#[test]
fn submit_sends_a_prompt_and_waits_for_the_agent_to_take_it() {
    let (_server, mut c, agent) = one_agent("fake-claude", json!({}));
    let r = ok(submit(
        &mut c,
        &agent.pane,
        "prompt write the tests",
        json!({"submit_delay_ms": 50}),
    ));
    assert_eq!(r["submitted"], true);
    assert_eq!(r["outcome"], "working");
    assert!(r["transition_seq"].as_u64().unwrap_or(0) > 0, "{r}");
    // Working now: another prompt is refused before anything is written.
    let busy = err(submit(&mut c, &agent.pane, "prompt more", json!({})));
    assert_eq!(busy.code, ErrorCode::AgentBusy);
    for bad in ["", "a\u{1b}[201~b"] {
        let e = err(submit(&mut c, &agent.pane, bad, json!({})));
        assert_eq!(e.code, ErrorCode::BadParams, "{bad:?}");
    }
    let big = "x".repeat(32 * 1024 + 1);
    assert_eq!(
        err(submit(&mut c, &agent.pane, &big, json!({}))).code,
        ErrorCode::BadParams
    );
}

/// A process that has not said what it is cannot take a prompt.
#[test]
fn submit_refuses_an_unknown_pane_state_as_not_ready() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "decisions");
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": ["sleep", "600"]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    let e = err(submit(&mut c, &pane, "hello", json!({})));
    assert_eq!(e.code, ErrorCode::AgentNotReady);
    assert_eq!(
        err(submit(&mut c, "pane_nope", "hello", json!({}))).code,
        ErrorCode::NoSuchPane
    );
}

/// A decision that arrives between the paste and the delayed Enter stops the
/// Enter: `AGENT_BUSY` at stage `delayed_enter`, the paste delivered.
#[test]
fn submit_withholds_enter_when_a_decision_arrives_after_the_paste() {
    let (server, mut c, agent) = one_agent("fake-claude", json!({}));
    let mut submitter = server.client();
    let id = submitter.send(
        "pane.submit",
        json!({"pane_id": agent.pane, "text": "prompt ship it", "submit_delay_ms": 3000}),
    );
    // The paste is echoed by the terminal: it has been delivered.
    wait_screen(&mut c, &agent.pane, "ship it");
    ok(c.call(
        "hook-event",
        json!({"agent": "claude", "event": "PermissionRequest", "pane_id": agent.pane,
               "payload": claude_payload("5b0c6a52-claude-session")}),
    ));
    let r = submitter.read_response();
    assert_eq!(r.id, id);
    let e = err(r);
    assert_eq!(e.code, ErrorCode::AgentBusy);
    assert_eq!(
        e.details,
        Some(json!({"stage": "delayed_enter", "paste_delivered": true}))
    );
    // No Enter was sent: the agent never saw the prompt.
    assert_eq!(pane_of(&mut c, &agent.pane)["lifecycle"], "blocked");
}

/// An agent that does not take the prompt: one Enter retry halfway, then
/// `TIMEOUT` at stage `activity_gate`.
#[test]
fn submit_retries_enter_once_then_times_out_at_the_activity_gate() {
    let (_server, mut c, agent) = one_agent("fake-claude", json!({}));
    let e = err(submit(
        &mut c,
        &agent.pane,
        "nothing to do",
        json!({"submit_delay_ms": 10, "stall_timeout_s": 2}),
    ));
    assert_eq!(e.code, ErrorCode::Timeout);
    assert_eq!(e.details, Some(json!({"stage": "activity_gate"})));
    // The retry reached the untouched input box as an empty line.
    wait_screen(&mut c, &agent.pane, "(empty line)");
}

/// A question without a decision (`input_required`) takes a prompt as its answer.
#[test]
fn submit_answers_a_plain_question() {
    let (_server, mut c, agent) = one_agent("fake-claude", json!({}));
    ok(c.call(
        "hook-event",
        json!({"agent": "claude", "event": "Notification", "pane_id": agent.pane,
               "payload": {"session_id": "5b0c6a52-claude-session", "notification_type": "elicitation_dialog"}}),
    ));
    let p = pane_of(&mut c, &agent.pane);
    assert_eq!(
        (p["lifecycle"].as_str(), p["attention"].as_str()),
        (Some("blocked"), Some("input_required"))
    );
    let r = ok(submit(
        &mut c,
        &agent.pane,
        "prompt use the staging database",
        json!({"submit_delay_ms": 20}),
    ));
    assert_eq!(r["outcome"], "working");
    assert_eq!(r["attention"], "none");
}

/// docs/decisions.md#what-a-decision-is: a supersede is one `decision.created`
/// with `prev`; the old id is no longer answerable. A second waiting request on
/// the same pane moves the first reporter on.
#[test]
fn a_superseded_decision_cannot_be_answered() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["decision.*"]})));
    let ws = workspace(&mut c, &server, "decisions");
    let agent = Agent::start(&mut c, &server, &ws, "fake-codex", json!({}));
    let ask = |c: &mut Client, id: &str| {
        ok(c.call(
            "hook-event",
            json!({"agent": "codex", "event": "PermissionRequest", "pane_id": agent.pane,
                   "payload": {"session_id": "019a2b3c-codex-thread"},
                   "decision": {"id": id, "prompt": "Go?", "options": [{"id": "y", "label": "Yes"}]}}),
        ))
    };
    ask(&mut c, "d1");
    ask(&mut c, "d2");
    let (_, first) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(first["prev"], Value::Null);
    let (name, second) = next_decision_event(&mut sub, &agent.pane);
    assert_eq!(
        (name.as_str(), second["prev"].as_str()),
        ("decision.created", Some("d1"))
    );
    assert_eq!(
        err(answer(&mut c, &agent.pane, "d1", "y")).code,
        ErrorCode::NoSuchDecision
    );

    // Native: a newer waiting request supersedes the first; its reporter gets
    // nothing and the new one is answered.
    let payload =
        json!({"session_id": "019a2b3c-codex-thread", "tool_name": "shell", "tool_input": {}});
    let mut first_reporter = server.client();
    first_reporter.send(
        "hook-event",
        json!({"agent": "codex", "event": "PermissionRequest", "pane_id": agent.pane,
               "payload": payload, "wait_for_answer": true}),
    );
    let (_, created) = wait_until("the first native decision", LONG, || {
        let (name, p) = next_decision_event(&mut sub, &agent.pane);
        (name == "decision.created").then_some((name, p))
    });
    let old = str_field(&created["decision"], "id").to_owned();
    let mut second_reporter = server.client();
    second_reporter.send(
        "hook-event",
        json!({"agent": "codex", "event": "PermissionRequest", "pane_id": agent.pane,
               "payload": payload, "wait_for_answer": true}),
    );
    let moved = ok(first_reporter.read_response());
    assert_eq!(
        (moved["native_verdict"].clone(), moved["cancelled"].as_str()),
        (Value::Null, Some("moved_on"))
    );
    assert_eq!(
        err(answer(&mut c, &agent.pane, &old, "once")).code,
        ErrorCode::NoSuchDecision
    );
    let current = wait_until("the newer decision", LONG, || {
        let d = pending(&mut c, &agent.pane);
        (d["id"] != old.as_str()).then_some(d)
    });
    ok(answer(
        &mut c,
        &agent.pane,
        str_field(&current, "id"),
        "once",
    ));
    let answered = ok(second_reporter.read_response());
    assert_eq!(
        answered["native_verdict"]["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
}

/// docs/decisions.md#typed-answers: a typed answer that cannot be delivered
/// leaves the pane blocked and clears the decision (`pane_exited`); the error
/// says why.
#[test]
fn a_typed_answer_that_cannot_be_written_keeps_the_pane_blocked() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["decision.*"]})));
    let ws = workspace(&mut c, &server, "decisions");
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    // A program that never reads its terminal: its input queue fills up.
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"],
               "argv": ["sh", "-c", "stty raw -echo; echo ready; exec sleep 600"]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    wait_screen(&mut c, &pane, "ready");
    ok(c.call(
        "hook-event",
        json!({"agent": "codex", "event": "PermissionRequest", "pane_id": pane,
               "payload": {"session_id": "s-typed"},
               "decision": {"id": "d1", "prompt": "Go?", "options": [{"id": "y", "label": "Yes"}]}}),
    ));
    let filler = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        vec![b'x'; 700_000],
    );
    let full = err(c.call("pane.input", json!({"pane_id": pane, "data_b64": filler})));
    assert_eq!(full.code, ErrorCode::Timeout);
    let e = err(answer(&mut c, &pane, "d1", "y"));
    assert!(
        matches!(e.code, ErrorCode::IoError | ErrorCode::PaneExited),
        "{e:?}"
    );
    let mut names = Vec::new();
    while names.len() < 3 {
        let (name, p) = next_decision_event(&mut sub, &pane);
        names.push(format!("{name}:{}", p["reason"].as_str().unwrap_or("")));
    }
    assert_eq!(
        names,
        [
            "decision.created:",
            "decision.answered:",
            "decision.cleared:pane_exited"
        ]
    );
    let p = pane_of(&mut c, &pane);
    assert_eq!(
        p["lifecycle"], "blocked",
        "the person answers in the terminal"
    );
    assert!(p["pending_decision"].is_null());
    assert_eq!(
        err(answer(&mut c, &pane, "d1", "y")).code,
        ErrorCode::NoSuchDecision
    );
}
