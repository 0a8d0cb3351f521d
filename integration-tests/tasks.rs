//! Tasks through the real server (docs/tasks.md): `task.start` into real git
//! repositories in temporary directories, the cap, idempotency, a worker
//! reporting through `signaltty report`, the worker's death, cancel, and a
//! restart failing what was still running.

use crate::support::git::{git, init_repo};
use crate::support::life::Life;
use crate::support::process::BIN;
use crate::support::{Client, DEADLINE, TestServer, expect_code, ok, str_field, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};

/// A repository with one commit on `main`, under the test's temp dir.
pub(crate) fn repo(root: &Path) -> PathBuf {
    let r = root.join("repo");
    init_repo(&r, "README", "hello\n");
    r
}

/// Sends a Claude hook for `pane` as its agent would.
fn claude_hook(server: &TestServer, pane: &str, event: &str, payload: &[u8]) {
    let args = [
        "hook-event",
        "--agent",
        "claude",
        "--event",
        event,
        "--pane",
        pane,
    ];
    let out = server.cli_with_stdin(&args, payload);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A worker that prints its task id and waits.
pub(crate) fn waiting_worker() -> Value {
    json!(["sh", "-c", "echo task=$SIGNALTTY_TASK; exec cat"])
}

pub(crate) fn start(c: &mut Client, repo: &Path, extra: Value) -> Value {
    let mut params = json!({
        "repo": repo.to_string_lossy(),
        "contract": {"objective": "Write the file the test asks for"},
        "argv": waiting_worker(),
    });
    for (k, v) in extra.as_object().into_iter().flatten() {
        params[k] = v.clone();
    }
    ok(c.call("task.start", params))
}

pub(crate) fn task_get(c: &mut Client, id: &str) -> Value {
    ok(c.call("task.get", json!({"task_id": id})))["task"].clone()
}

pub(crate) fn wait_task_state(c: &mut Client, id: &str, state: &str) -> Value {
    wait_until(&format!("task {id} to be {state}"), DEADLINE, || {
        let t = task_get(c, id);
        (t["state"] == state).then_some(t)
    })
}

pub(crate) fn worktrees(repo: &Path) -> usize {
    git(repo, &["worktree", "list", "--porcelain"])
        .lines()
        .filter(|l| l.starts_with("worktree "))
        .count()
}

/// A task starts pending with its checkout, branch, workspace and worker;
/// the worker sees `$SIGNALTTY_TASK` and reports through `signaltty report`.
#[test]
fn a_started_task_has_its_checkout_and_worker_and_a_report_completes_it() {
    let server = TestServer::start();
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["task.*"]})));
    let repo = repo(server.env().root());
    let reply = start(&mut c, &repo, json!({"label": "writer"}));
    let task = &reply["task"];
    let id = str_field(task, "id").to_owned();
    assert!(id.starts_with("task_"), "{task}");
    assert_eq!(task["state"], "pending", "{task}");
    assert!(str_field(task, "context_id").starts_with("tctx_"));
    let short = &id[id.len() - 8..];
    assert_eq!(task["branch"], format!("signaltty/writer-{short}"));
    assert_eq!(task["base_sha"], git(&repo, &["rev-parse", "HEAD"]));
    assert_eq!(task["target_branch"], "main");
    assert_eq!(task["preexisting_branch"], false);
    assert_eq!(task["label"], "writer");
    let path = PathBuf::from(str_field(task, "worktree_path"));
    let data = server.env().home().join(".local/share/signaltty/worktrees");
    assert!(
        path.starts_with(&data),
        "{} under {}",
        path.display(),
        data.display()
    );
    assert_eq!(
        git(&path, &["branch", "--show-current"]),
        str_field(task, "branch")
    );
    // The worker pane runs in the checkout, tagged with the task.
    let pane = &reply["pane"];
    assert_eq!(pane["task_id"], id.as_str(), "{pane}");
    assert_eq!(pane["cwd"], path.to_string_lossy().as_ref());
    assert_eq!(task["pane_id"], pane["id"]);
    assert!(task["worker_pid"].is_u64(), "{task}");
    let pane_id = str_field(pane, "id").to_owned();
    ok(c.call(
        "pane.wait_for_output",
        json!({"pane_id": pane_id, "match": format!("task={id}"), "mode": "screen", "timeout_s": 10}),
    ));
    // Its workspace is rooted at the checkout and named after the label.
    let ws = ok(c.call(
        "workspace.get",
        json!({"workspace_id": pane["workspace_id"]}),
    ));
    assert_eq!(ws["workspace"]["cwd"], path.to_string_lossy().as_ref());
    assert_eq!(ws["workspace"]["name"], "writer");

    // The worker reports (as `signaltty report` inside it would).
    let out = std::process::Command::new(BIN)
        .args([
            "report",
            "--status",
            "completed",
            "--summary",
            "wrote it",
            "--json",
        ])
        .env("SIGNALTTY_TASK", &id)
        .env("XDG_RUNTIME_DIR", server.env().runtime_dir())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let done = task_get(&mut c, &id);
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["result"]["summary"], "wrote it");
    // A terminal task takes no second report.
    let again = c.call(
        "task.report",
        json!({"task_id": id, "status": "failed", "summary": "no"}),
    );
    expect_code(again, ErrorCode::BadParams);
    // The subscriber saw the whole story, in order.
    let names: Vec<String> = (0..4).map(|_| sub.next_event().event).collect();
    assert_eq!(
        names,
        [
            "task.created",
            "task.updated",
            "task.result",
            "task.updated"
        ]
    );
}

/// docs/tasks.md#the-parallel-task-cap: over the cap → RATE_LIMITED with
/// details, nothing on disk; a canceled task frees its slot.
#[test]
fn a_start_over_the_cap_is_refused_with_details_and_leaves_nothing_on_disk() {
    let env = crate::support::TestEnv::new();
    let socket = env.default_socket();
    let server = TestServer::start_with_args(env, &["server", "--max-tasks", "2"], socket);
    let mut c = server.client();
    let repo = repo(server.env().root());
    let a = start(&mut c, &repo, json!({}));
    start(&mut c, &repo, json!({}));
    let refused = c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": "x"},
               "argv": waiting_worker(), "queue": false}),
    );
    let e = expect_code(refused, ErrorCode::RateLimited);
    assert_eq!(
        e.details,
        Some(json!({"active_tasks": 2, "max_parallel_tasks": 2}))
    );
    assert_eq!(worktrees(&repo), 3, "main and two tasks");
    let listed = ok(c.call("task.list", json!({})));
    assert_eq!(listed["tasks"].as_array().map(Vec::len), Some(2));
    // Cancel one: canceled, its worker stopped, its checkout kept.
    let id = str_field(&a["task"], "id").to_owned();
    let canceled = ok(c.call("task.cancel", json!({"task_id": id})));
    assert_eq!(canceled["task"]["state"], "canceled");
    let pane = str_field(&a["pane"], "id").to_owned();
    ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "exited", "timeout_s": 10}),
    ));
    assert_eq!(
        task_get(&mut c, &id)["state"],
        "canceled",
        "the exit does not fail it"
    );
    assert!(Path::new(str_field(&a["task"], "worktree_path")).is_dir());
    expect_code(
        c.call("task.cancel", json!({"task_id": id})),
        ErrorCode::BadParams,
    );
    start(&mut c, &repo, json!({}));
}

/// docs/tasks.md#the-contract, docs/tasks.md#the-start-steps-in-order: bad
/// params refused, no task, no checkout.
#[test]
fn bad_starts_are_refused_with_no_task_and_nothing_on_disk() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let r = repo.to_string_lossy().into_owned();
    let base = |extra: Value| {
        let mut p = json!({"repo": r, "contract": {"objective": "x"}, "argv": ["cat"]});
        for (k, v) in extra.as_object().into_iter().flatten() {
            p[k] = v.clone();
        }
        p
    };
    let cases = [
        json!({"repo": "relative/repo"}),
        json!({"contract": {"objective": "   "}}),
        json!({"contract": {"objective": "x".repeat(32 * 1024 + 1)}}),
        json!({"argv": null}),
        json!({"argv": []}),
        json!({"argv": null, "agent": "no-such-agent"}),
        json!({"argv": null, "agent": "generic"}),
        json!({"base_ref": "-x"}),
        json!({"base_ref": "no-such-ref"}),
        json!({"branch": "-x"}),
        json!({"branch": "refs/heads/main"}),
        json!({"branch": "@{-1}"}),
        json!({"path": "relative/path"}),
        json!({"repo": server.env().root().join("nothing-here").to_string_lossy()}),
    ];
    for extra in cases {
        let mut p = base(extra.clone());
        if p["argv"].is_null() {
            p.as_object_mut().map(|o| o.remove("argv"));
        }
        let e = expect_code(c.call("task.start", p), ErrorCode::BadParams);
        assert!(!e.message.is_empty(), "{extra}");
    }
    // An empty repository has no base.
    let empty = server.env().root().join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    git(&empty, &["init", "-q"]);
    let mut p = base(json!({}));
    p["repo"] = json!(empty.to_string_lossy());
    expect_code(c.call("task.start", p), ErrorCode::BadParams);
    // Exactly 32 KiB is accepted.
    start(
        &mut c,
        &repo,
        json!({"contract": {"objective": "x".repeat(32 * 1024)}}),
    );
    let listed = ok(c.call("task.list", json!({})));
    assert_eq!(
        listed["tasks"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );
    assert_eq!(worktrees(&repo), 2);
}

/// docs/tasks.md#repeated-starts: the same key gives one task, also
/// concurrently and after a restart.
#[test]
fn one_client_request_id_makes_one_task_even_concurrently_and_across_a_restart() {
    let mut life = Life::new(&[]);
    life.start();
    let repo = repo(life.env.root());
    let params = json!({
        "repo": repo.to_string_lossy(), "contract": {"objective": "x"},
        "argv": waiting_worker(), "client_request_id": "req-1",
    });
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let mut c = life.client();
            let p = params.clone();
            std::thread::spawn(move || ok(c.call("task.start", p)))
        })
        .collect();
    let ids: Vec<String> = threads
        .into_iter()
        .map(|t| t.join().unwrap_or_else(|_| panic!("a start panicked")))
        .map(|r| str_field(&r["task"], "id").to_owned())
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    let mut c = life.client();
    assert_eq!(
        ok(c.call("task.list", json!({})))["tasks"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert_eq!(worktrees(&repo), 2);
    drop(c);
    life.kill9();
    life.start();
    let mut c = life.client();
    // The restart fails the task as the server starts (it was pending).
    wait_task_state(&mut c, &ids[0], "failed");
    let again = ok(c.call("task.start", params));
    assert_eq!(str_field(&again["task"], "id"), ids[0]);
    // The restart failed it (it was pending); the key still names it.
    assert_eq!(again["task"]["state"], "failed");
    assert_eq!(again["task"]["status_reason"], json!({"stage": "restart"}));
}

/// docs/tasks.md#after-a-restart: a restart fails non-terminal tasks with
/// `{stage: restart}` and leaves completed ones and their checkouts intact.
#[test]
fn a_restart_fails_running_tasks_and_keeps_completed_ones() {
    let mut life = Life::new(&[]);
    life.start();
    let repo = repo(life.env.root());
    let mut c = life.client();
    let running = start(&mut c, &repo, json!({}));
    let finished = start(&mut c, &repo, json!({}));
    let running = str_field(&running["task"], "id").to_owned();
    let done_id = str_field(&finished["task"], "id").to_owned();
    ok(c.call(
        "task.report",
        json!({"task_id": done_id, "status": "completed", "summary": "ok"}),
    ));
    drop(c);
    life.stop();
    life.start();
    let mut c = life.client();
    let failed = wait_task_state(&mut c, &running, "failed");
    assert_eq!(failed["status_reason"], json!({"stage": "restart"}));
    let kept = task_get(&mut c, &done_id);
    assert_eq!(kept["state"], "completed");
    assert_eq!(kept["result"]["summary"], "ok");
    assert!(Path::new(str_field(&kept, "worktree_path")).is_dir());
}

/// docs/tasks.md#when-a-start-fails: a spawn that fails after the checkout
/// exists leaves a failed task `{stage: spawn}`, the error's details naming it,
/// and the checkout kept and unlocked.
#[test]
fn a_spawn_failure_after_the_checkout_persists_a_failed_task_and_unlocks_the_checkout() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let r = c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": "x"},
               "argv": [server.env().root().join("no-such-program").to_string_lossy()]}),
    );
    let e = r
        .error
        .clone()
        .unwrap_or_else(|| panic!("the start succeeded: {r:?}"));
    let details = e
        .details
        .clone()
        .unwrap_or_else(|| panic!("no details: {e:?}"));
    assert_eq!(details["stage"], "spawn", "{e:?}");
    let id = str_field(&details, "task_id").to_owned();
    let task = task_get(&mut c, &id);
    assert_eq!(task["state"], "failed");
    assert_eq!(task["status_reason"]["stage"], "spawn");
    assert!(task["status_reason"]["error"].is_string());
    let path = str_field(&task, "worktree_path");
    assert!(Path::new(path).is_dir(), "kept for inspection");
    let list = git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("locked"), "unlocked: {list}");
}

/// docs/tasks.md#when-the-worker-dies: the worker's exit fails a working task
/// once.
#[test]
fn the_workers_exit_fails_its_task_once_with_the_exit_code() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let reply = start(
        &mut c,
        &repo,
        json!({"argv": ["sh", "-c", "read line; exit 3"]}),
    );
    let id = str_field(&reply["task"], "id").to_owned();
    let pane = str_field(&reply["pane"], "id").to_owned();
    let data = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "go\n");
    ok(c.call("pane.input", json!({"pane_id": pane, "data_b64": data})));
    let failed = wait_task_state(&mut c, &id, "failed");
    assert_eq!(
        failed["status_reason"],
        json!({"reason": "pane_exited", "exit_code": 3})
    );
    // Closing the tombstone afterwards changes nothing.
    ok(c.call("pane.close", json!({"pane_id": pane})));
    let after = task_get(&mut c, &id);
    assert_eq!(after["status_reason"], failed["status_reason"]);
    expect_code(
        c.call("task.get", json!({"task_id": "task_nope"})),
        ErrorCode::NoSuchTask,
    );
}

// ---- the first prompt (docs/tasks.md#the-first-prompt) ----------------------

/// A task whose worker is the fake worker in `mode`, with `objective`.
fn start_worker(
    c: &mut Client,
    repo: &Path,
    mode: &str,
    objective: &str,
    extra: Value,
) -> (String, String) {
    let argv = json!([
        "bash",
        crate::support::agents::fake("fake-worker"),
        BIN,
        mode
    ]);
    let mut params = json!({
        "repo": repo.to_string_lossy(),
        "contract": {"objective": objective, "acceptance_criteria": ["the file exists"]},
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

/// The server waits for the worker, types the composed prompt and Enter; the
/// worker commits a file and reports: completed, the commit on its branch.
#[test]
fn the_server_gives_a_ready_worker_its_prompt_and_the_worker_reports() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let (id, pane) = start_worker(&mut c, &repo, "normal", "commit: out.txt", json!({}));
    let done = wait_task_state(&mut c, &id, "completed");
    assert_eq!(done["result"]["summary"], "committed out.txt");
    let screen = ok(c.call(
        "pane.read",
        json!({"pane_id": pane, "mode": "tail", "lines": 100}),
    ));
    let text = str_field(&screen, "text");
    assert!(
        text.contains("got the task") && text.contains("objective: commit: out.txt"),
        "{text}"
    );
    let path = PathBuf::from(str_field(&done, "worktree_path"));
    assert_eq!(git(&path, &["log", "-1", "--format=%s"]), "add out.txt");
    // The base is unchanged: the work is on the task's branch only.
    assert!(!repo.join("out.txt").exists());
}

/// A turn that ends without a report needs input; a follow-up prompt that
/// the worker takes resumes the task, and its report completes it.
#[test]
fn a_turn_without_a_report_needs_input_until_a_follow_up_prompt() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let (id, pane) = start_worker(&mut c, &repo, "normal", "stop", json!({}));
    let waiting = wait_task_state(&mut c, &id, "input_required");
    assert_eq!(
        waiting["status_reason"],
        json!({"reason": "turn_ended_without_report", "last_message": "finished without a report"})
    );
    ok(c.call(
        "pane.submit",
        json!({"pane_id": pane, "text": "report: done after all", "submit_delay_ms": 50}),
    ));
    let done = wait_task_state(&mut c, &id, "completed");
    assert_eq!(done["result"]["summary"], "done after all");
}

/// A worker that takes the prompt without showing it: after the activity
/// gate the task waits `submit_unconfirmed`, and the worker's next turn
/// resumes it.
#[test]
fn an_unconfirmed_first_prompt_parks_the_task_and_the_next_turn_resumes_it() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let (id, pane) = start_worker(
        &mut c,
        &repo,
        "silent",
        "nothing",
        json!({"stall_timeout_s": 1}),
    );
    let parked = wait_task_state(&mut c, &id, "input_required");
    assert_eq!(
        parked["status_reason"],
        json!({"reason": "submit_unconfirmed", "stage": "activity_gate"})
    );
    claude_hook(
        &server,
        &pane,
        "UserPromptSubmit",
        br#"{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"x"}"#,
    );
    let resumed = wait_task_state(&mut c, &id, "working");
    assert!(resumed["status_reason"].is_null(), "{resumed}");
}

/// A worker that never gets ready fails the task with its screen's last
/// lines; meanwhile a prompt typed into the pending task's pane is refused.
#[test]
fn a_worker_that_is_never_ready_fails_with_its_screen_and_refuses_other_prompts() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    // No agent named: a generic pane that no screen rule reads, and the
    // worker sends no hook, so it stays `unknown`.
    let (id, pane) = start_worker(
        &mut c,
        &repo,
        "never-ready",
        "x",
        json!({"ready_timeout_s": 2, "agent": null}),
    );
    let refused = c.call("pane.submit", json!({"pane_id": pane, "text": "hello"}));
    expect_code(refused, ErrorCode::AgentNotReady);
    let failed = wait_task_state(&mut c, &id, "failed");
    assert_eq!(
        failed["status_reason"]["stage"], "ready_timeout",
        "{failed}"
    );
    assert!(
        str_field(&failed["status_reason"], "screen_tail").contains("fake worker ready"),
        "{failed}"
    );
}

/// A decision on the worker's pane needs input; only an answer resumes it.
#[test]
fn a_decision_on_the_worker_needs_input_and_its_answer_resumes_the_task() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let (id, pane) = start_worker(&mut c, &repo, "normal", "ask", json!({}));
    let asked = wait_task_state(&mut c, &id, "input_required");
    assert_eq!(
        asked["status_reason"]["reason"], "decision_required",
        "{asked}"
    );
    let decision = str_field(&asked["status_reason"], "decision_id").to_owned();
    ok(c.call(
        "decision.answer",
        json!({"pane_id": pane, "decision_id": decision, "option_id": "once"}),
    ));
    let resumed = wait_task_state(&mut c, &id, "working");
    assert!(resumed["status_reason"].is_null(), "{resumed}");
}

/// docs/tasks.md#waiting-for-tasks: `task.wait`'s checks, an empty context at
/// once, the default `settled`, and EOF cancelling the waiter.
#[test]
fn task_wait_checks_its_params_settles_and_ends_with_its_connection() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    for bad in [
        json!({}),
        json!({"task_id": "task_x", "context_id": "tctx_x"}),
        json!({"task_id": "task_x", "until": "done"}),
        json!({"task_id": "task_x", "until": []}),
        json!({"task_id": "task_x", "until": [1]}),
    ] {
        expect_code(c.call("task.wait", bad.clone()), ErrorCode::BadParams);
    }
    expect_code(
        c.call("task.wait", json!({"task_id": "task_nope"})),
        ErrorCode::NoSuchTask,
    );
    let empty = ok(c.call("task.wait", json!({"context_id": "tctx_none"})));
    assert_eq!(empty, json!({"satisfied": true, "tasks": []}));
    // The default `settled` returns on input_required.
    let (id, _pane) = start_worker(&mut c, &repo, "normal", "stop", json!({}));
    let settled = ok(c.call("task.wait", json!({"task_id": id, "timeout_s": 20})));
    assert_eq!(settled["tasks"][0]["state"], "input_required", "{settled}");
    // A context wait until terminal times out while the task still waits.
    let ctx = str_field(&settled["tasks"][0], "context_id").to_owned();
    let timed = c.call(
        "task.wait",
        json!({"context_id": ctx, "until": "terminal", "timeout_s": 1}),
    );
    expect_code(timed, ErrorCode::Timeout);
    // A waiter whose client goes away stops: the server stays fine.
    let mut gone = server.client();
    let line = json!({"protocol": "signaltty/1", "id": "w", "method": "task.wait",
                      "params": {"task_id": id, "until": "completed"}});
    gone.send_raw(format!("{line}\n").as_bytes());
    drop(gone);
    ok(c.call(
        "task.report",
        json!({"task_id": id, "status": "completed", "summary": "ok"}),
    ));
    let done = ok(c.call(
        "task.wait",
        json!({"task_id": id, "until": ["terminal"], "timeout_s": 10}),
    ));
    assert_eq!(done["tasks"][0]["state"], "completed");
}

/// docs/tasks.md#the-silent-worker-watchdog: the watchdog fires after its
/// timeout, and never with 0.
#[test]
fn a_silent_worker_needs_input_after_the_timeout_and_never_with_zero() {
    for (timeout, fires) in [("1", true), ("0", false)] {
        let env = crate::support::TestEnv::new();
        let socket = env.default_socket();
        let args = ["server", "--worker-silent-timeout", timeout];
        let server = TestServer::start_with_args(env, &args, socket);
        let mut c = server.client();
        let repo = repo(server.env().root());
        let (id, _) = start_worker(&mut c, &repo, "normal", "nothing to do", json!({}));
        wait_task_state(&mut c, &id, "working");
        let waited = c.call(
            "task.wait",
            json!({"task_id": id, "until": "input_required", "timeout_s": 3}),
        );
        if fires {
            let t = ok(waited);
            assert_eq!(
                t["tasks"][0]["status_reason"],
                json!({"reason": "worker_silent", "timeout_s": 1})
            );
        } else {
            expect_code(waited, ErrorCode::Timeout);
            assert_eq!(task_get(&mut c, &id)["state"], "working");
        }
    }
}

/// Cancel closes the worker: the task `canceled`, the pane's question and
/// attention cleared (`task_closed`), its decision dropped, the pane exited
/// but kept as a tombstone.
#[test]
fn cancel_stops_the_worker_and_clears_what_it_was_asking() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let (id, pane) = start_worker(&mut c, &repo, "normal", "ask", json!({}));
    wait_task_state(&mut c, &id, "input_required");
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert!(p["pane"]["pending_decision"].is_object(), "{p}");
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["attention.cleared"]})));
    let canceled = ok(c.call("task.cancel", json!({"task_id": id})));
    assert_eq!(canceled["task"]["state"], "canceled");
    let cleared = sub.next_event();
    assert_eq!(
        cleared.payload["reason"], "task_closed",
        "{:?}",
        cleared.payload
    );
    ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "exited", "timeout_s": 10}),
    ));
    let p = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert!(p["pane"]["pending_decision"].is_null(), "{p}");
    assert_eq!(p["pane"]["attention"], "none", "{p}");
    assert_eq!(task_get(&mut c, &id)["state"], "canceled");
}

/// The issue's cap test: eight starts at once with the cap at 4 make four
/// tasks; the other four are refused `RATE_LIMITED` with nothing on disk.
#[test]
fn eight_starts_at_once_with_a_cap_of_four_and_no_queue_make_four_tasks() {
    let env = crate::support::TestEnv::new();
    let socket = env.default_socket();
    let server = TestServer::start_with_args(env, &["server", "--max-tasks", "4"], socket);
    let repo = repo(server.env().root());
    let starts: Vec<_> = (0..8)
        .map(|_| {
            let mut c = server.client();
            let p = json!({"repo": repo.to_string_lossy(), "contract": {"objective": "x"},
                           "argv": waiting_worker(), "queue": false});
            std::thread::spawn(move || c.call("task.start", p))
        })
        .collect();
    let replies: Vec<_> = starts
        .into_iter()
        .map(|t| t.join().unwrap_or_else(|_| panic!("a start panicked")))
        .collect();
    let started = replies.iter().filter(|r| r.ok).count();
    let refused = replies
        .iter()
        .filter(|r| {
            r.error
                .as_ref()
                .is_some_and(|e| e.code == ErrorCode::RateLimited)
        })
        .count();
    assert_eq!((started, refused), (4, 4), "{replies:?}");
    let mut c = server.client();
    let listed = ok(c.call("task.list", json!({})));
    assert_eq!(listed["tasks"].as_array().map(Vec::len), Some(4));
    assert_eq!(worktrees(&repo), 5, "main and four checkouts");
}

/// docs/tasks.md#what-the-delivery-leads-to: an idle that follows the submit (a
/// late session start) is not a turn end: the task stays `working`.
#[test]
fn an_idle_after_the_first_prompt_is_not_a_turn_end() {
    let server = TestServer::start();
    let mut c = server.client();
    let repo = repo(server.env().root());
    let (id, pane) = start_worker(&mut c, &repo, "normal", "nothing to do", json!({}));
    wait_task_state(&mut c, &id, "working");
    claude_hook(
        &server,
        &pane,
        "SessionStart",
        br#"{"session_id":"late","hook_event_name":"SessionStart","source":"startup"}"#,
    );
    let idle = ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "idle", "timeout_s": 10}),
    ));
    assert_eq!(idle["lifecycle"], "idle", "{idle}");
    // The task's state as of after the idle event: a wait that must time out.
    let waited = c.call(
        "task.wait",
        json!({"task_id": id, "until": "settled", "timeout_s": 1}),
    );
    expect_code(waited, ErrorCode::Timeout);
    assert_eq!(task_get(&mut c, &id)["state"], "working");
}
