//! Hibernation of idle agents (docs/restore.md#hibernation): the fake Claude
//! Code, its session reported by its hooks, is stopped by two Ctrl-C after
//! its workspace's idle time and reads `HIBERNATED` with its screen and
//! history kept; a prompt, input or attach wakes it by resuming its exact
//! session (`claude --resume ID`, a script on the server's PATH that starts
//! the fake again and records how it was started); the pane stays hibernated
//! across restarts; and what keeps a pane awake keeps it awake.

use crate::support::agents::{fake, type_line, wait_screen, wait_state};
use crate::support::life::Life;
use crate::support::process::BIN;
use crate::support::tmux::Tmux;
use crate::support::{Client, TestServer, expect_code, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::PathBuf;
use std::time::Duration;

/// Long enough for a hibernation (1 s idle, a check every second, the stop)
/// or a wake (the resume and the agent's prompt) on a loaded machine.
const LONG: Duration = Duration::from_secs(30);

/// Puts a `claude` on the server's PATH that resumes the fake agent: it logs
/// its arguments to `resumes.log` and runs the fake with the session it was
/// asked to resume. Returns the log's path.
fn resumable_claude(life: &mut Life) -> PathBuf {
    resumable_claude_with(life, "")
}

/// The same, the resumed fake started with the shell lines `setup` first.
fn resumable_claude_with(life: &mut Life, setup: &str) -> PathBuf {
    let bin = life.env.root().join("fake-bin");
    let log = life.env.root().join("resumes.log");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{log}'\nexport SIGNALTTY_BIN='{BIN}'\n{setup}\n\
         export SIGNALTTY_FAKE_SESSION=\"$2\"\nexec bash '{fake}'\n",
        log = log.display(),
        fake = fake("fake-claude"),
    );
    let written =
        std::fs::create_dir_all(&bin).and_then(|()| std::fs::write(bin.join("claude"), script));
    if let Err(e) = written {
        panic!("cannot write the resuming claude: {e}");
    }
    crate::support::process::set_mode(&bin.join("claude"), 0o755);
    let path = std::env::var("PATH").unwrap_or_default();
    life.env
        .set_var("PATH", format!("{}:{path}", bin.display()));
    log
}

fn workspace(c: &mut Client, life: &Life, name: &str) -> String {
    let ws = c.call_ok(
        "workspace.create",
        json!({"name": name, "cwd": life.env.root()}),
    );
    str_field(&ws["workspace"], "id").to_owned()
}

/// A fake Claude with session `session`, idle at its prompt.
fn idle_claude(c: &mut Client, ws: &str, session: &str) -> String {
    let tab = c.call_ok("tab.create", json!({"workspace_id": ws}));
    let pane = c.call_ok(
        "pane.spawn",
        json!({
            "workspace_id": ws,
            "tab_id": tab["tab"]["id"],
            "argv": ["bash", fake("fake-claude")],
            "env": {"SIGNALTTY_BIN": BIN, "SIGNALTTY_FAKE_SESSION": session},
        }),
    );
    let pane = str_field(&pane["pane"], "id").to_owned();
    wait_state(c, &pane, "idle");
    pane
}

/// A turn: a prompt, then the agent's answer; the answer is seen, so the
/// pane is `done` with no attention.
fn turn(c: &mut Client, pane: &str, answer: &str) {
    type_line(c, pane, "prompt first question");
    wait_state(c, pane, "working");
    type_line(c, pane, &format!("stop {answer}"));
    wait_state(c, pane, "done");
    c.call_ok("pane.mark_seen", json!({"pane_id": pane}));
}

fn pane(c: &mut Client, id: &str) -> Value {
    c.call_ok("pane.get", json!({"pane_id": id}))["pane"].clone()
}

#[track_caller]
fn wait_restore_state(c: &mut Client, id: &str, state: &str) -> Value {
    wait_until(&format!("{id} to read {state}"), LONG, || {
        let p = pane(c, id);
        (p["restore_state"] == state).then_some(p)
    })
}

fn set_hibernate(c: &mut Client, ws: &str, after_s: u64) -> Value {
    c.call_ok(
        "workspace.set_hibernate",
        json!({"workspace_id": ws, "after_s": after_s}),
    )
}

fn tail(c: &mut Client, id: &str) -> String {
    let r = c.call_ok(
        "pane.read",
        json!({"pane_id": id, "mode": "tail", "lines": 200}),
    );
    str_field(&r, "text").to_owned()
}

fn resumes(log: &PathBuf) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// The journaled events named `names` of `pane`, replayed from seq 0.
fn journaled(c: &mut Client, names: &[&str], pane: &str) -> Vec<Value> {
    let reply = c.call_ok("subscribe", json!({"from_seq": 0, "events": names}));
    let returned = reply["replay"]["returned"].as_u64().unwrap_or(0);
    let frames: Vec<_> = (0..returned).map(|_| c.next_event()).collect();
    frames
        .into_iter()
        .filter(|f| f.payload["pane_id"] == pane || f.payload["pane"]["id"] == pane)
        .map(|f| json!({"event": f.event, "payload": f.payload}))
        .collect()
}

#[test]
fn set_hibernate_turns_it_on_and_off_and_refuses_bad_params() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = c.call_ok("workspace.create", json!({"name": "hib"}));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    // Nothing set: the server's default applies, and nothing is said.
    assert!(ws_get(&mut c, &ws).get("hibernate_after_s").is_none());
    let set = c.call_ok(
        "workspace.set_hibernate",
        json!({"workspace_id": ws, "after_s": 90}),
    );
    assert_eq!(set["workspace"]["hibernate_after_s"], 90, "{set}");
    assert_eq!(ws_get(&mut c, &ws)["hibernate_after_s"], 90);
    let off = c.call_ok(
        "workspace.set_hibernate",
        json!({"workspace_id": ws, "after_s": 0}),
    );
    assert_eq!(off["workspace"]["hibernate_after_s"], 0, "{off}");
    for bad in [
        json!({"workspace_id": ws}),
        json!({"workspace_id": ws, "after_s": -1}),
        json!({"workspace_id": ws, "after_s": "30s"}),
        json!({"workspace_id": ws, "after_s": 7 * 86_400 + 1}),
    ] {
        expect_code(c.call("workspace.set_hibernate", bad), ErrorCode::BadParams);
    }
    expect_code(
        c.call(
            "workspace.set_hibernate",
            json!({"workspace_id": "ws_nope", "after_s": 30}),
        ),
        ErrorCode::NoSuchWorkspace,
    );
    // The CLI: seconds, simple durations and off; --json passes the result.
    let handle = str_field(&ws_get(&mut c, &ws), "handle").to_owned();
    for (arg, secs) in [
        ("30s", 30),
        ("5m", 300),
        ("1h", 3600),
        ("90", 90),
        ("off", 0),
    ] {
        let out = server.cli(&["workspace", "hibernate", &handle, arg]);
        assert!(out.status.success(), "{arg}: {out:?}");
        assert_eq!(ws_get(&mut c, &ws)["hibernate_after_s"], secs, "{arg}");
    }
    let out = server.cli(&["--json", "workspace", "hibernate", &handle, "2m"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(v["workspace"]["hibernate_after_s"], 120, "{v}");
    let out = server.cli(&["workspace", "hibernate", &handle, "soon"]);
    assert!(!out.status.success(), "{out:?}");
}

fn ws_get(c: &mut Client, ws: &str) -> Value {
    c.call_ok("workspace.get", json!({"workspace_id": ws}))["workspace"].clone()
}

#[test]
fn an_idle_agent_hibernates_keeps_its_screen_and_a_prompt_wakes_its_exact_session() {
    let mut life = Life::new(&[]);
    let log = resumable_claude(&mut life);
    life.start();
    let mut c = life.client();
    let ws = workspace(&mut c, &life, "hib");
    let p = idle_claude(&mut c, &ws, "sess-hib-1");
    turn(&mut c, &p, "the-first-answer");
    set_hibernate(&mut c, &ws, 1);
    let hibernated = wait_restore_state(&mut c, &p, "HIBERNATED");
    // No process, the agent state kept, the record says when and why.
    assert_eq!(hibernated["live"]["state"], "exited", "{hibernated}");
    assert_eq!(hibernated["lifecycle"], "done", "{hibernated}");
    assert_eq!(hibernated["hibernation"]["after_s"], 1, "{hibernated}");
    let reason = str_field(&hibernated["hibernation"], "reason");
    assert!(reason.contains("session sess-hib-1"), "{reason}");
    assert!(hibernated["hibernation"]["at"].is_string(), "{hibernated}");
    // The workspace's panes and `signaltty pane list` say it too.
    let got = c.call_ok("workspace.get", json!({"workspace_id": ws}));
    let listed = got["panes"]
        .as_array()
        .and_then(|ps| ps.iter().find(|x| x["id"] == p.as_str()))
        .cloned()
        .unwrap_or_default();
    assert_eq!(listed["restore_state"], "HIBERNATED", "{got}");
    let out = life.env.cli(&["pane", "list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains(p.as_str())).unwrap_or("");
    assert!(line.contains("[hibernated]"), "{text}");
    // The screen and the history are still there.
    assert!(tail(&mut c, &p).contains("the-first-answer"));
    // `explain` says hibernated, when and why.
    let why = c.call_ok("pane.explain", json!({"pane_id": p}));
    assert_eq!(why["hibernation"]["state"], "hibernated", "{why}");
    assert_eq!(why["hibernation"]["at"], hibernated["hibernation"]["at"]);
    assert!(str_field(&why["hibernation"], "reason").contains("no viewer"));
    let out = life.env.cli(&["explain", &p]);
    let text = String::from_utf8_lossy(&out.stdout);
    let at = str_field(&hibernated["hibernation"], "at");
    assert!(
        text.contains(&format!("hibernation hibernated at {at}: done for 1 s")),
        "{text}"
    );
    // A prompt wakes it: the exact session is resumed, the prompt reaches
    // the agent once it is at its prompt, and its activity answers.
    assert_eq!(resumes(&log), "");
    let r = c.call_ok(
        "pane.submit",
        json!({"pane_id": p, "text": "prompt after-the-wake"}),
    );
    assert_eq!(r["outcome"], "working", "{r}");
    assert_eq!(resumes(&log).trim(), "--resume sess-hib-1");
    wait_screen(&mut c, &p, "Thinking");
    let woke = pane(&mut c, &p);
    assert_eq!(woke["restore_state"], "LIVE", "{woke}");
    assert!(woke.get("hibernation").is_none(), "{woke}");
    // Both are journaled: a subscriber replaying from seq 0 sees them, the
    // wake before the resumed pane's creation.
    let events = journaled(
        &mut c,
        &["pane.hibernated", "pane.woke", "pane.created"],
        &p,
    );
    let names: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(
        names,
        [
            "pane.created",
            "pane.hibernated",
            "pane.woke",
            "pane.created"
        ],
        "{events:?}"
    );
    assert_eq!(events[1]["payload"]["pane"]["restore_state"], "HIBERNATED");
    assert_eq!(events[2]["payload"]["by"], "submit");
    assert_eq!(events[3]["payload"]["resumed"], true);
}

#[test]
fn what_keeps_a_pane_awake_keeps_it_awake_while_the_config_default_hibernates_the_rest() {
    let mut life = Life::new(&[]);
    resumable_claude(&mut life);
    life.env.set_var("SIGNALTTY_HIBERNATE_AFTER_S", "1");
    life.start();
    let mut c = life.client();
    let ws = workspace(&mut c, &life, "default");
    let off = workspace(&mut c, &life, "never");
    set_hibernate(&mut c, &off, 0);
    // A viewer is attached (a terminal: a watch does not count).
    let viewed = idle_claude(&mut c, &ws, "sess-viewed");
    let mut viewer = life.client();
    viewer.call_ok("pane.attach", json!({"pane_id": viewed}));
    let watched = idle_claude(&mut c, &ws, "sess-watched");
    let mut watcher = life.client();
    watcher.call_ok("pane.attach", json!({"pane_id": watched, "watch": true}));
    // Blocked on a permission question.
    let blocked = idle_claude(&mut c, &ws, "sess-blocked");
    type_line(&mut c, &blocked, "permission Bash");
    wait_state(&mut c, &blocked, "blocked");
    // Typed input without its Enter.
    let typing = idle_claude(&mut c, &ws, "sess-typing");
    let data = base64_of("half a thought");
    c.call_ok("pane.input", json!({"pane_id": typing, "data_b64": data}));
    // No session: a plain program.
    let tab = c.call_ok("tab.create", json!({"workspace_id": ws}));
    let plain = c.call_ok(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": ["cat"]}),
    );
    let plain = str_field(&plain["pane"], "id").to_owned();
    // Its workspace turned it off.
    let opted_out = idle_claude(&mut c, &off, "sess-opted-out");
    // The control, started last: the config default hibernates it.
    let control = idle_claude(&mut c, &ws, "sess-control");
    let got = wait_restore_state(&mut c, &control, "HIBERNATED");
    assert_eq!(got["hibernation"]["after_s"], 1, "{got}");
    // A watch keeps nothing awake, and does not wake it either.
    wait_restore_state(&mut c, &watched, "HIBERNATED");
    // Every other pane was quiet longer than the control, and still runs.
    for (id, why) in [
        (&viewed, "a viewer is attached"),
        (&blocked, "blocked"),
        (&typing, "typed input waits for its Enter"),
        (&plain, "no session"),
        (&opted_out, "does not hibernate"),
    ] {
        let p = pane(&mut c, id);
        assert_eq!(p["restore_state"], "LIVE", "{why}: {p}");
        let explained = c.call_ok("pane.explain", json!({"pane_id": id}));
        let h = &explained["hibernation"];
        assert!(
            ["never", "off"].contains(&h["state"].as_str().unwrap_or("")),
            "{why}: {explained}"
        );
        assert!(str_field(h, "reason").contains(why), "{why}: {h}");
    }
    // The Enter sends the typed text: nothing keeps that one awake now.
    type_line(&mut c, &typing, "");
    wait_restore_state(&mut c, &typing, "HIBERNATED");
    drop((viewer, watcher));
}

#[test]
fn a_hibernated_pane_stays_hibernated_across_restarts_and_input_or_attach_wakes_it() {
    let mut life = Life::new(&[]);
    let log = resumable_claude(&mut life);
    life.start();
    let p = {
        let mut c = life.client();
        let ws = workspace(&mut c, &life, "restart");
        let p = idle_claude(&mut c, &ws, "sess-restart");
        turn(&mut c, &p, "before-the-restarts");
        // Auto-resume is on too: it never starts a hibernated pane.
        c.call_ok(
            "workspace.set_auto_resume",
            json!({"workspace_id": ws, "auto_resume": true}),
        );
        set_hibernate(&mut c, &ws, 1);
        wait_restore_state(&mut c, &p, "HIBERNATED");
        p
    };
    life.kill9();
    life.start();
    {
        let mut c = life.client();
        let got = pane(&mut c, &p);
        assert_eq!(got["restore_state"], "HIBERNATED", "{got}");
        assert_eq!(got["hibernation"]["after_s"], 1, "{got}");
        assert!(tail(&mut c, &p).contains("before-the-restarts"));
        let status = c.call_ok("server.status", json!({}));
        assert_eq!(status["restore"]["resumable"], 0, "{status}");
    }
    life.stop();
    life.start();
    let mut c = life.client();
    assert_eq!(pane(&mut c, &p)["restore_state"], "HIBERNATED");
    assert_eq!(resumes(&log), "", "nothing was resumed by a start");
    // Input wakes it and reaches the agent once it is ready.
    let r = c.call_ok(
        "pane.input",
        json!({"pane_id": p, "data_b64": base64_of("prompt woken by input\r")}),
    );
    assert!(r["written"].as_u64().unwrap_or(0) > 0, "{r}");
    wait_state(&mut c, &p, "working");
    assert_eq!(resumes(&log).trim(), "--resume sess-restart");
    // Back to sleep, then an attach wakes it.
    type_line(&mut c, &p, "stop second-answer");
    wait_state(&mut c, &p, "done");
    c.call_ok("pane.mark_seen", json!({"pane_id": p}));
    wait_restore_state(&mut c, &p, "HIBERNATED");
    let mut viewer = life.client();
    let attached = viewer.call_ok("pane.attach", json!({"pane_id": p}));
    assert_eq!(attached["restore_state"], "LIVE", "{attached}");
    wait_state(&mut c, &p, "idle");
    assert_eq!(resumes(&log).lines().count(), 2, "{}", resumes(&log));
    let woke: Vec<String> = journaled(&mut c, &["pane.woke"], &p)
        .iter()
        .map(|e| e["payload"]["by"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(woke, ["input", "attach"]);
    drop(viewer);
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// The board (in tmux, read with `capture-pane`), open while the agent goes
/// to sleep, shows it with its crescent and its tag; its preview, a watch,
/// leaves it asleep; Enter attaches and wakes it.
#[test]
fn the_board_shows_a_hibernated_agent_and_enter_wakes_it() {
    let mut life = Life::new(&[]);
    let log = resumable_claude(&mut life);
    life.start();
    let mut c = life.client();
    let ws = workspace(&mut c, &life, "board");
    let p = idle_claude(&mut c, &ws, "sess-board");
    c.call_ok("pane.rename", json!({"pane_id": p, "name": "sleepy-agent"}));
    turn(&mut c, &p, "done-for-now");
    // The board is open when the agent goes to sleep: the event redraws it.
    let tmux = Tmux::start(&life.env, &["board", "--bell=false"], 110, 32);
    tmux.wait_text("sleepy-agent");
    set_hibernate(&mut c, &ws, 1);
    wait_restore_state(&mut c, &p, "HIBERNATED");
    let (screen, _) = tmux.wait_for("the hibernated agent's line", LONG, |s| {
        let line = s.lines().find(|l| l.contains("sleepy-agent")).unwrap_or("");
        line.contains('☾') && line.contains("HIBERNATED")
    });
    let line = screen
        .lines()
        .find(|l| l.contains("sleepy-agent"))
        .unwrap_or("");
    assert!(line.trim_start().starts_with('☾'), "{line}");
    // The preview watches it without waking it.
    assert_eq!(pane(&mut c, &p)["restore_state"], "HIBERNATED");
    assert_eq!(resumes(&log), "");
    tmux.keys(&["Enter"]);
    let woke = wait_restore_state(&mut c, &p, "LIVE");
    assert_eq!(woke["live"]["state"], "live", "{woke}");
    assert_eq!(resumes(&log).trim(), "--resume sess-board");
}

/// A woken agent's prompt waits for its screen to be still (docs/restore.md#waking-up).
/// An input box that asked for bracketed paste reads keys, so a moment of
/// stillness is enough; one that did not ask gets the whole quiet time or,
/// when its screen never stops moving, the idle time at most (3 s). Both
/// woken agents here redraw a status line every 200 ms.
#[test]
fn a_woken_agent_that_asked_for_bracketed_paste_is_typed_into_without_the_long_wait() {
    let mut life = Life::new(&[]);
    resumable_claude_with(
        &mut life,
        "export SIGNALTTY_FAKE_TICK=1\ncase \"$2\" in *paste*) export SIGNALTTY_FAKE_BRACKETED=1;; esac",
    );
    life.start();
    let mut c = life.client();
    let ws = workspace(&mut c, &life, "hib");
    let with_paste = idle_claude(&mut c, &ws, "sess-paste");
    let without = idle_claude(&mut c, &ws, "sess-keys");
    for p in [&with_paste, &without] {
        turn(&mut c, p, "answered");
    }
    set_hibernate(&mut c, &ws, 1);
    for p in [&with_paste, &without] {
        wait_restore_state(&mut c, p, "HIBERNATED");
    }
    set_hibernate(&mut c, &ws, 0);
    let _ = c.stream().set_read_timeout(Some(LONG));
    let mut woken = |p: &str| {
        let began = std::time::Instant::now();
        let r = c.call_ok(
            "pane.submit",
            json!({"pane_id": p, "text": "prompt after-the-wake", "submit_delay_ms": 0}),
        );
        assert_eq!(r["outcome"], "working", "{r}");
        began.elapsed()
    };
    let fast = woken(&with_paste);
    let slow = woken(&without);
    // No prompt goes in before the idle time at most when the box never
    // asked: a lower bound, whatever the machine's load.
    assert!(slow >= Duration::from_millis(2900), "{slow:?}");
    // The box that asked is typed into well before it.
    assert!(
        fast < Duration::from_millis(2900),
        "{fast:?} (the other: {slow:?})"
    );
    for p in [&with_paste, &without] {
        wait_screen(&mut c, p, "Thinking");
    }
}

/// A task's worker is never hibernated while the task waits on it
/// (docs/restore.md#hibernation): the worker, a fake Claude with a session
/// that took its first prompt and finished a turn, sits `done` and seen in
/// the task's workspace beside another such agent; the workspace hibernates
/// after 1 s, the other agent goes, and the worker stays, `explain` saying
/// why.
#[test]
fn a_tasks_worker_stays_awake_while_the_task_waits_on_it() {
    let mut life = Life::new(&[]);
    resumable_claude(&mut life);
    life.start();
    let mut c = life.client();
    let repo = life.env.root().join("repo");
    crate::support::git::init_repo(&repo, "README", "hello\n");
    let started = c.call_ok(
        "task.start",
        json!({
            "repo": repo.to_string_lossy(),
            // The prompt's last line is the objective: the fake's command
            // for a prompt, so it takes it as Claude would.
            "contract": {"objective": "prompt the task's turn"},
            "argv": ["env", format!("SIGNALTTY_BIN={BIN}"), "SIGNALTTY_FAKE_SESSION=sess-task",
                     "bash", fake("fake-claude")],
            "stall_timeout_s": 60,
        }),
    );
    let task = str_field(&started["task"], "id").to_owned();
    let worker = str_field(&started["pane"], "id").to_owned();
    let ws = str_field(&started["pane"], "workspace_id").to_owned();
    // The first prompt is typed once the worker is idle and taken; the
    // worker finishes its turn and the task goes on waiting for its report.
    wait_until("the task working", LONG, || {
        let t = c.call_ok("task.get", json!({"task_id": task}));
        (t["task"]["state"] == "working").then_some(())
    });
    type_line(&mut c, &worker, "stop the-task-answer");
    wait_state(&mut c, &worker, "done");
    c.call_ok("pane.mark_seen", json!({"pane_id": worker}));
    let other = idle_claude(&mut c, &ws, "sess-other");
    turn(&mut c, &other, "answered");
    set_hibernate(&mut c, &ws, 1);
    // The check that hibernates the other agent saw the worker too.
    wait_restore_state(&mut c, &other, "HIBERNATED");
    let kept = pane(&mut c, &worker);
    assert_eq!(kept["restore_state"], "LIVE", "{kept}");
    assert_eq!(kept["lifecycle"], "done", "{kept}");
    assert_eq!(kept["agent"]["agent_session_id"], "sess-task", "{kept}");
    let why = c.call_ok("pane.explain", json!({"pane_id": worker}));
    assert_eq!(why["hibernation"]["state"], "never", "{why}");
    assert_eq!(
        why["hibernation"]["reason"], "a task is waiting on it",
        "{why}"
    );
}

/// An in-place upgrade carries a hibernated pane over as it is
/// (docs/upgrade.md): no process to hand over, its record, screen and
/// session kept, and a prompt wakes it under the upgraded server.
#[test]
fn an_upgrade_keeps_a_hibernated_pane_asleep_and_a_prompt_still_wakes_it() {
    let mut life = Life::new(&[]);
    let log = resumable_claude(&mut life);
    life.start();
    let mut c = life.client();
    let ws = workspace(&mut c, &life, "hib");
    let p = idle_claude(&mut c, &ws, "sess-up");
    turn(&mut c, &p, "before-the-upgrade");
    set_hibernate(&mut c, &ws, 1);
    let asleep = wait_restore_state(&mut c, &p, "HIBERNATED");
    set_hibernate(&mut c, &ws, 0);
    let report = c.call_ok("server.upgrade", json!({}));
    // Its screen is handed over; no process is.
    let handed = report["panes"]
        .as_array()
        .and_then(|ps| ps.iter().find(|x| x["pane_id"] == p.as_str()))
        .cloned()
        .unwrap_or_default();
    assert!(handed["output_offset"].is_u64(), "{report}");
    assert!(handed.get("pid").is_none(), "{report}");
    let status = c.call_ok("server.status", json!({}));
    assert_eq!(status["upgrades"], 1, "{status}");
    let after = pane(&mut c, &p);
    assert_eq!(after["restore_state"], "HIBERNATED", "{after}");
    assert_eq!(after["hibernation"], asleep["hibernation"], "{after}");
    assert_eq!(after["agent"]["agent_session_id"], "sess-up", "{after}");
    assert!(tail(&mut c, &p).contains("before-the-upgrade"));
    assert_eq!(resumes(&log), "");
    let r = c.call_ok(
        "pane.submit",
        json!({"pane_id": p, "text": "prompt after-the-upgrade"}),
    );
    assert_eq!(r["outcome"], "working", "{r}");
    assert_eq!(resumes(&log).trim(), "--resume sess-up");
    assert_eq!(pane(&mut c, &p)["restore_state"], "LIVE");
}
