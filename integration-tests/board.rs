//! `signaltty board` as a person uses it: the real binary in a tmux window,
//! keys sent with `send-keys`, the screen read with `capture-pane`, against
//! the real server with fake agents.

use crate::support::agents::{fake, spawn_fake_with, type_line, wait_state, workspace};
use crate::support::life::Life;
use crate::support::tmux::Tmux;
use crate::support::{Client, DEADLINE, TestServer, ok, str_field, wait_until};
use serde_json::json;
use signaltty_protocol::state::native_verdict_line;
use std::time::{Duration, Instant};

/// The board's own line: it is on the screen whenever the board is.
const BOARD_HINT: &str = "? keys";

fn board(env: &crate::support::TestEnv) -> Tmux {
    Tmux::start(env, &["board", "--bell=false"], 110, 32)
}

/// A pane the board shows by a name no other text on the screen has.
fn named(c: &mut Client, pane: &str, name: &str) {
    ok(c.call("pane.rename", json!({"pane_id": pane, "name": name})));
}

/// The fake Claude asks for Bash with its waiting reporter: the board shows
/// the question with its options in the queue, `1` answers Allow once, the
/// reporter prints the allow verdict and the pane works again.
#[test]
fn a_question_shows_in_the_queue_and_1_allows_it() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "board");
    let dir = server.env().root().join("agent");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let pane = spawn_fake_with(
        &mut c,
        &ws,
        "fake-claude",
        json!({"SIGNALTTY_FAKE_DIR": dir.to_string_lossy()}),
    );
    named(&mut c, &pane, "asker-one");
    wait_state(&mut c, &pane, "idle");
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["decision.created"]})));
    let tmux = board(server.env());
    tmux.wait_text("asker-one");
    type_line(&mut c, &pane, "prompt tidy up");
    wait_state(&mut c, &pane, "working");
    type_line(&mut c, &pane, "ask Bash");
    let created = sub.next_event();
    let at = Instant::now();
    assert_eq!(created.event, "decision.created");
    let (screen, took) = tmux.wait_for("the question in the queue", DEADLINE, |s| {
        s.contains("Allow Bash?")
    });
    eprintln!(
        "the question was on the board {took:?} after decision.created reached a subscriber (budget 300 ms)"
    );
    let _ = at;
    assert!(
        screen.contains("Allow once") && screen.contains("Deny"),
        "{screen}"
    );
    tmux.keys(&["1"]);
    let verdict = dir.join("verdict.1");
    let printed = wait_until("the reporter's verdict", DEADLINE, || {
        std::fs::read_to_string(&verdict).ok()
    });
    assert_eq!(printed, format!("{}\n", native_verdict_line(true)));
    wait_state(&mut c, &pane, "working");
    tmux.wait_for("the queue to empty", DEADLINE, |s| {
        !s.contains("Allow Bash?")
    });
}

/// Enter attaches full-screen: what is typed reaches the pane; the detach
/// key comes back to the board, not to a shell.
#[test]
fn enter_attaches_and_the_detach_key_comes_back_to_the_board() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "board");
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["cat"], "cols": 100, "rows": 20}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    named(&mut c, &pane, "echo-pane");
    let tmux = board(server.env());
    tmux.wait_text("echo-pane");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the attached pane", DEADLINE, |s| !s.contains(BOARD_HINT));
    tmux.type_text("typed through the board");
    tmux.keys(&["Enter"]);
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "match": "typed through the board", "mode": "screen", "timeout_s": 10}),
    ));
    tmux.wait_text("typed through the board");
    tmux.keys(&["C-\\"]);
    let screen = tmux.wait_text(BOARD_HINT);
    assert!(screen.contains("echo-pane"), "{screen}");
    assert!(!tmux.exited(), "the board is still running");
    // And it still answers keys: q quits.
    tmux.keys(&["q"]);
    tmux.wait_exited();
}

/// How many screen lines name `name`.
fn lines_naming(screen: &str, name: &str) -> usize {
    screen.lines().filter(|l| l.contains(name)).count()
}

/// The server is SIGKILLed under the board: it says it is reconnecting, then
/// shows the restored panes (no row doubled or missing); `r` resumes the
/// RESUMABLE fake agent.
#[test]
fn the_board_reconnects_after_a_restart_and_r_resumes_an_agent() {
    let mut life = Life::new(&[]);
    // A `claude` on PATH that is the fake Claude: its resume command works.
    let bin = life.env.root().join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let claude = bin.join("claude");
    std::fs::write(
        &claude,
        format!("#!/bin/sh\nexec bash {} \"$@\"\n", fake("fake-claude")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    crate::support::process::set_mode(&claude, 0o755);
    let path = std::env::var("PATH").unwrap_or_default();
    life.env
        .set_var("PATH", format!("{}:{path}", bin.display()));
    life.env
        .set_var("SIGNALTTY_BIN", crate::support::process::BIN);
    life.start();
    let mut c = life.client();
    let ws = c.call_ok("workspace.create", json!({"name": "restart"}));
    let ws = str_field(&ws["workspace"], "id").to_owned();
    let plain = c.call_ok("pane.spawn", json!({"workspace_id": ws, "argv": ["cat"]}));
    let plain = str_field(&plain["pane"], "id").to_owned();
    named(&mut c, &plain, "plain-cat");
    let agent = c.call_ok(
        "pane.split",
        json!({"pane_id": plain, "argv": [claude.to_string_lossy()]}),
    );
    let agent = str_field(&agent["pane"], "id").to_owned();
    named(&mut c, &agent, "agent-two");
    wait_until("the agent's session", DEADLINE, || {
        let p = c.call_ok("pane.get", json!({"pane_id": agent}));
        p["pane"]["agent"]["agent_session_id"]
            .is_string()
            .then_some(())
    });
    let tmux = board(&life.env);
    let before = tmux.wait_for("both panes", DEADLINE, |s| {
        s.contains("plain-cat") && s.contains("agent-two")
    });
    let rows = (
        lines_naming(&before.0, "plain-cat"),
        lines_naming(&before.0, "agent-two"),
    );
    drop(c);
    life.kill9();
    tmux.wait_text("reconnecting");
    life.start();
    let (after, _) = tmux.wait_for("the restored panes", Duration::from_secs(20), |s| {
        s.contains("RESUMABLE") && !s.contains("reconnecting")
    });
    assert_eq!(
        (
            lines_naming(&after, "plain-cat"),
            lines_naming(&after, "agent-two")
        ),
        rows,
        "no row doubled or missing:\n{after}"
    );
    // Select the agent (a text filter), then resume it.
    tmux.keys(&["/"]);
    tmux.type_text("agent-two");
    tmux.keys(&["Enter"]);
    tmux.keys(&["r"]);
    let mut c = life.client();
    wait_until("the agent resumed", DEADLINE, || {
        let p = c.call_ok("pane.get", json!({"pane_id": agent}));
        (p["pane"]["restore_state"] == "LIVE" && p["pane"]["live"]["state"] == "live").then_some(())
    });
    tmux.wait_for("the RESUMABLE tag to go", DEADLINE, |s| {
        !s.contains("RESUMABLE")
    });
}

/// `s` types a prompt and submits it to the selected agent; `Tab` jumps to
/// the pane that needs you; `x` asks before it closes a pane.
#[test]
fn s_submits_a_prompt_tab_jumps_to_the_waiting_pane_and_x_asks_before_closing() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "board");
    let first = spawn_fake_with(&mut c, &ws, "fake-claude", json!({}));
    named(&mut c, &first, "first-agent");
    let second = spawn_fake_with(&mut c, &ws, "fake-claude", json!({}));
    named(&mut c, &second, "second-agent");
    wait_state(&mut c, &first, "idle");
    wait_state(&mut c, &second, "idle");
    let tmux = board(server.env());
    tmux.wait_text("second-agent");
    // The second agent finishes a turn: done + unread, it needs a look.
    type_line(&mut c, &second, "prompt go");
    wait_state(&mut c, &second, "working");
    type_line(&mut c, &second, "stop finished the thing");
    wait_state(&mut c, &second, "done");
    tmux.wait_text("finished the thing");
    // Tab selects it (the preview follows the selection).
    tmux.keys(&["Tab"]);
    tmux.wait_text("preview · second-agent");
    // s: a prompt for it, submitted with Enter.
    tmux.keys(&["s"]);
    tmux.wait_text("prompt for second-agent");
    tmux.type_text("prompt from the board");
    tmux.keys(&["Enter"]);
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": second, "match": "prompt from the board", "mode": "screen", "timeout_s": 10}),
    ));
    wait_state(&mut c, &second, "working");
    // x asks first; anything but y keeps the pane.
    tmux.keys(&["x"]);
    tmux.wait_text("close second-agent? y/N");
    tmux.keys(&["n"]);
    tmux.wait_for("the question gone", DEADLINE, |s| !s.contains("y/N"));
    assert!(
        c.call("pane.get", json!({"pane_id": second})).ok,
        "the pane stays"
    );
    tmux.keys(&["x"]);
    tmux.wait_text("close second-agent? y/N");
    tmux.keys(&["y"]);
    wait_until("the pane closed", DEADLINE, || {
        (!c.call("pane.get", json!({"pane_id": second})).ok).then_some(())
    });
    tmux.wait_for("its row gone", DEADLINE, |s| !s.contains("second-agent"));
}

/// The line of `screen` naming `name`, or "" (for the failure message).
fn line_naming<'s>(screen: &'s str, name: &str) -> &'s str {
    screen.lines().find(|l| l.contains(name)).unwrap_or("")
}

/// Codex's "Hooks need review" gate, its real screen replayed into a pane that
/// sends no hook: the board queues it as a question to answer in the terminal
/// (a number key says so), the preview shows the question itself, and once the
/// gate is gone the queue empties and the row's attention with it (withdrawn by
/// the screen, docs/screen-rules.md#withdrawing-a-screen-question).
#[test]
fn a_question_only_the_terminal_shows_is_queued_and_withdrawn_when_it_goes() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "board");
    let screens = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("integration-tests/fixtures/real-screens/codex-0.171.0");
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "agent_hint": "codex", "cols": 120, "rows": 40,
               "argv": ["python3", fake("screen-player"), screens.to_string_lossy()]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    named(&mut c, &pane, "gatekeeper");
    type_line(&mut c, &pane, "idle");
    wait_state(&mut c, &pane, "idle");
    let tmux = board(server.env());
    tmux.wait_text("gatekeeper");

    type_line(&mut c, &pane, "blocked-hook-trust");
    let blocked = wait_state(&mut c, &pane, "blocked");
    assert_eq!(blocked["attention"], "input_required", "{blocked}");
    let (screen, _) = tmux.wait_for("the gate in the queue", DEADLINE, |s| {
        s.contains("1 question waiting") && s.contains("a question on its screen")
    });
    assert!(
        line_naming(&screen, "a question on its screen").contains("answer in the terminal"),
        "{screen}"
    );
    // Its row: blocked (◆), input required (»).
    let row = screen
        .lines()
        .filter(|l| l.contains("gatekeeper"))
        .find(|l| !l.contains("a question on its screen"))
        .unwrap_or_else(|| panic!("no row for the pane:\n{screen}"));
    assert!(row.contains('◆') && row.contains('»'), "{row}");
    // Selected, the preview shows the question itself.
    tmux.keys(&["Tab"]);
    tmux.wait_text("preview · gatekeeper");
    tmux.wait_text("Hooks need review");
    tmux.keys(&["1"]);
    tmux.wait_text("answered in the terminal: Enter attaches");

    // Answered there: the gate goes, the agent's prompt is back.
    type_line(&mut c, &pane, "idle");
    let idle = wait_state(&mut c, &pane, "idle");
    assert_eq!(idle["attention"], "none", "{idle}");
    let (screen, _) = tmux.wait_for("the queue to empty", DEADLINE, |s| {
        !s.contains("question waiting") && !s.contains("Hooks need review")
    });
    let row = line_naming(&screen, "gatekeeper");
    assert!(row.contains('○') && !row.contains('»'), "{row}");
}

/// The tasks view: a task whose fake worker committed a file shows with
/// its state and summary after `t`; `m` asks, `y` merges it through
/// `task.finish`, and the line says merged — the commit is on the target.
#[test]
fn t_shows_the_tasks_and_m_then_y_merges_a_completed_one() {
    use crate::support::git::git;
    use crate::task_finish::{completed_task, repo};
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let task = completed_task(&mut c, &repo, "from-board.txt");
    let id = str_field(&task, "id").to_owned();
    let label = str_field(&task, "label").to_owned();
    let tmux = board(server.env());
    tmux.wait_text(BOARD_HINT);
    tmux.keys(&["t"]);
    let (screen, _) = tmux.wait_for("the task's line", DEADLINE, |s| {
        s.lines().any(|l| {
            l.contains("✓") && l.contains(&label) && l.contains("committed from-board.txt")
        })
    });
    assert!(screen.contains("✓ completed"), "{screen}");
    tmux.keys(&["m"]);
    tmux.wait_text(&format!("merge {label} into main? y/N"));
    tmux.keys(&["y"]);
    let (screen, _) = tmux.wait_for("the task merged", DEADLINE, |s| {
        s.lines()
            .any(|l| l.contains(&label) && l.contains("merged") && l.contains("committed"))
    });
    assert!(screen.contains("merged into main"), "{screen}");
    let got = ok(c.call("task.get", json!({"task_id": id})));
    assert_eq!(got["task"]["disposition"]["outcome"], "merged");
    let sha = str_field(&got["task"]["disposition"], "merged_sha").to_owned();
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), sha);
    assert!(
        repo.join("from-board.txt").is_file(),
        "the commit is on main"
    );
}

/// The conflict radar on the board (docs/board.md#the-tasks-view): two
/// workers' uncommitted edits of one line show as `conflicts 1` on both
/// task lines and as a line naming the other task in the details; a
/// discard clears the mark through the feed.
#[test]
fn t_marks_the_tasks_in_a_collision_and_a_discard_clears_the_mark() {
    use crate::support::git::init_repo;
    use crate::task_conflicts::{conflicts, editing_task};
    let server = TestServer::start();
    let mut c = server.client();
    let repo = server.env().root().join("repo");
    init_repo(&repo, "shared.txt", "base\n");
    let a = editing_task(&mut c, &repo, "alpha");
    let b = editing_task(&mut c, &repo, "beta");
    wait_until("the pair reported", DEADLINE, || {
        (!conflicts(&mut c, &repo).is_empty()).then_some(())
    });
    let label = |id: &str, c: &mut Client| {
        let t = ok(c.call("task.get", json!({"task_id": id})));
        str_field(&t["task"], "label").to_owned()
    };
    let (la, lb) = (label(&a, &mut c), label(&b, &mut c));
    let tmux = board(server.env());
    tmux.wait_text(BOARD_HINT);
    tmux.keys(&["t"]);
    // A task's line in the list: its agent, then its label.
    let row = |s: &str, l: &str| {
        s.lines()
            .find(|line| line.contains(&format!("claude {l}")))
            .map(str::to_owned)
    };
    let (screen, _) = tmux.wait_for("both tasks marked", DEADLINE, |s| {
        [&la, &lb]
            .iter()
            .all(|l| row(s, l).is_some_and(|r| r.contains("conflicts 1")))
    });
    assert!(
        screen.contains("conflicts with task") && screen.contains("shared.txt"),
        "{screen}"
    );
    ok(c.call("task.finish", json!({"task_id": b, "mode": "discard"})));
    tmux.wait_for("the mark gone", DEADLINE, |s| {
        row(s, &la).is_some_and(|r| !r.contains("conflicts"))
    });
}

/// A pane at its usage limit shows its rate-limited marker and the time
/// left to its reset on its line (docs/states.md#usage-limits).
#[test]
fn a_rate_limited_pane_shows_the_time_to_its_reset() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "board");
    let pane = spawn_fake_with(&mut c, &ws, "fake-claude", json!({}));
    named(&mut c, &pane, "limited-one");
    wait_state(&mut c, &pane, "idle");
    let tmux = board(server.env());
    tmux.wait_text("limited-one");
    type_line(&mut c, &pane, "prompt tidy up");
    wait_state(&mut c, &pane, "working");
    type_line(
        &mut c,
        &pane,
        "limit You've hit your session limit · resets in 2h 13m",
    );
    wait_state(&mut c, &pane, "rate_limited");
    // The typed line echoes the same words in the preview: the pane's own
    // row is the one with its marker.
    tmux.wait_for("the countdown on the pane's row", DEADLINE, |s| {
        s.lines()
            .any(|l| l.contains('◷') && l.contains("limited-one") && l.contains("resets in 2h 1"))
    });
}
