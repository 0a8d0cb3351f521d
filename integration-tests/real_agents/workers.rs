//! Real agents as task workers (issue 17 item 9): Claude Code and Codex
//! started by `task.start` in a worktree of a real repository, given the
//! composed prompt by the server, asking permission for their shell commands
//! (answered with `decision.answer`), committing a file, reporting through
//! `signaltty report` (the test binary, reading `$SIGNALTTY_TASK` from the
//! pane's environment), and merged by `task.finish`.
//!
//! The fake model scripts the turn as `steps`: one shell call writing and
//! committing `work.txt`, one running `signaltty report`, then the final
//! text. Both calls ask (Claude asks for every Bash call; Codex's are
//! escalated: a commit in a worktree writes the repository's `.git`, outside
//! its sandbox's writable roots), so the task needs input twice.

use super::{LONG, Rig, agent_bin, claude_rig, codex_argv, codex_rig};
use crate::support::git::{git, init_repo};
use crate::support::process::BIN;
use crate::support::{Client, ok, str_field, wait_until};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

const SUMMARY: &str = "wrote and committed work.txt";

/// The rig's work directory made a repository: one commit on `main`. The
/// agents already trust it; the task's checkout is cut from it.
fn make_repo(rig: &Rig) -> PathBuf {
    init_repo(&rig.work, "README", "hello\n");
    rig.work.clone()
}

/// Where the server cuts task checkouts
/// (docs/worktrees.md#where-task-checkouts-live), under the rig's HOME.
fn worktrees_dir(rig: &Rig) -> PathBuf {
    rig.home.join(".local/share/signaltty/worktrees")
}

/// The fake model's turn: commit, report, final text.
fn script() -> Value {
    let bin = BIN.replace('\'', r"'\''");
    json!({
        "steps": [
            {"command": "printf 'written by the worker\\n' > work.txt && git add work.txt && git commit -q -m 'Add work.txt'",
             "escalate": true},
            {"command": format!("'{bin}' report --status completed --summary '{SUMMARY}'"),
             "escalate": true}
        ],
        "final": "done: committed and reported",
        "delay": 1.0,
        "final_delay": 0.3
    })
}

fn task_get(c: &mut Client, id: &str) -> Value {
    ok(c.call("task.get", json!({"task_id": id})))["task"].clone()
}

fn task_wait(c: &mut Client, id: &str, until: &str) -> Value {
    let _ = c
        .stream()
        .set_read_timeout(Some(LONG + Duration::from_secs(10)));
    let r = c.call(
        "task.wait",
        json!({"task_id": id, "until": until, "timeout_s": LONG.as_secs()}),
    );
    let _ = c.stream().set_read_timeout(Some(crate::support::DEADLINE));
    if !r.ok {
        let t = task_get(c, id);
        let screen = ok(c.call(
            "pane.read",
            json!({"pane_id": t["pane_id"], "mode": "screen"}),
        ));
        panic!(
            "waiting for task {id} to be {until}: {:?}\ntask: {t}\nscreen:\n{}",
            r.error,
            str_field(&screen, "text")
        );
    }
    ok(r)["tasks"][0].clone()
}

/// Starts `argv` as `agent`'s worker on the rig's repository, answers every
/// permission it asks with Allow once while the task waits for it, and
/// checks the result, the diff and the merge.
fn worker_commits_reports_and_merges(rig: &Rig, agent: &str, argv: Value) {
    let repo = make_repo(rig);
    rig.install_hooks(agent);
    let mut c = rig.server.client();
    let reply = ok(c.call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "agent": agent, "argv": argv, "label": "worker",
               "contract": {"objective": "Write work.txt, commit it, and report."},
               "ready_timeout_s": LONG.as_secs(), "stall_timeout_s": 40, "submit_delay_ms": 500}),
    ));
    let id = str_field(&reply["task"], "id").to_owned();
    let pane = str_field(&reply["pane"], "id").to_owned();
    let path = PathBuf::from(str_field(&reply["task"], "worktree_path"));
    let branch = str_field(&reply["task"], "branch").to_owned();
    assert!(path.starts_with(worktrees_dir(rig)), "{}", path.display());

    // Each shell call asks: the task needs input, the decision is answered
    // from signaltty, the task works again.
    let mut answered = 0;
    let task = loop {
        let t = task_wait(&mut c, &id, "settled");
        if t["state"] != "input_required" {
            break t;
        }
        let reason = &t["status_reason"];
        if reason["reason"] != "decision_required" {
            let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
            panic!("{t}\nscreen:\n{}", str_field(&screen, "text"));
        }
        let decision = reason["decision_id"].clone();
        ok(c.call(
            "decision.answer",
            json!({"pane_id": pane, "decision_id": decision, "option_id": "once"}),
        ));
        answered += 1;
        assert!(answered <= 2, "one question per shell call: {t}");
        wait_until("the answer to resume the task", LONG, || {
            let t = task_get(&mut c, &id);
            (t["status_reason"]["decision_id"] != decision).then_some(())
        });
    };
    assert_eq!(task["state"], "completed", "{task}");
    assert_eq!(answered, 2, "the commit's and the report's questions");
    assert_eq!(task["result"]["summary"], SUMMARY, "{task}");
    // The worker's commit is on its branch, cut from main's first commit.
    assert_eq!(git(&path, &["log", "-1", "--format=%s"]), "Add work.txt");
    assert_eq!(git(&path, &["status", "--porcelain"]), "");
    let requests = rig.model.requests();
    assert!(
        requests.iter().any(|r| r["users"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|u| u.as_str().is_some_and(|u| u.contains("Write work.txt")))),
        "the model got the composed prompt"
    );

    let d = ok(c.call("task.diff", json!({"task_id": id})));
    let files = d["files"].as_array().cloned().unwrap_or_default();
    let work = files
        .iter()
        .find(|f| f["path"] == "work.txt")
        .unwrap_or_else(|| panic!("{d}"));
    assert_eq!(work["added"], 1, "{d}");
    assert_eq!(work["untracked"], false, "committed: {d}");
    assert_eq!(
        d["merge_preview"],
        json!({"target": "main", "clean": true, "conflicted": []})
    );

    let done = ok(c.call("task.finish", json!({"task_id": id, "mode": "merge"})));
    assert_eq!(done["merge"]["target"], "main");
    assert_eq!(
        git(&repo, &["rev-parse", "HEAD"]),
        str_field(&done["merge"], "sha")
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("work.txt"))
            .ok()
            .as_deref(),
        Some("written by the worker\n"),
        "the worker's commit is on main"
    );
    assert_eq!(done["task"]["disposition"]["outcome"], "merged");
    assert!(!path.exists(), "the checkout is removed");
    assert!(git(&repo, &["branch", "--list", &branch]).is_empty());
}

/// Claude Code as a worker: its folder-trust dialog is answered for the
/// checkouts' directory too (Claude accepts a trusted ancestor).
#[test]
fn claude_as_a_task_worker_commits_reports_and_is_merged() {
    let claude = agent_bin("claude");
    let rig = claude_rig();
    rig.model.set(script());
    let state_path = rig.home.join(".claude/.claude.json");
    let mut state: Value = serde_json::from_str(
        &std::fs::read_to_string(&state_path).unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let trusted = json!({"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
                         "allowedTools": []});
    state["projects"][worktrees_dir(&rig).to_string_lossy().as_ref()] = trusted;
    std::fs::write(&state_path, state.to_string()).unwrap_or_else(|e| panic!("{e}"));
    worker_commits_reports_and_merges(&rig, "claude", json!([claude]));
}

/// Codex as a worker, pane-local with its hooks trusted, as the suite runs
/// it; the checkouts' directory is a trusted project too.
#[test]
fn codex_as_a_task_worker_commits_reports_and_is_merged() {
    let rig = codex_rig();
    rig.model.set(script());
    let config = rig.home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap_or_else(|e| panic!("{e}"));
    text.push_str(&format!(
        "\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        worktrees_dir(&rig).display()
    ));
    std::fs::write(&config, text).unwrap_or_else(|e| panic!("{e}"));
    worker_commits_reports_and_merges(&rig, "codex", codex_argv());
}
