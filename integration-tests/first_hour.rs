//! What a new user meets in the first hour (issue 26): hints that name the
//! command to type, `config default --write`, `completions --install`,
//! `pane input --stdin` of any size, `task finish` saying what it did, and
//! a doctor with no warning the user did not cause after README's steps.

use crate::support::git::init_repo;
use crate::support::{TestServer, str_field, wait_until};
use std::process::Output;
use std::time::Duration;

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[track_caller]
fn succeeds(out: Output) -> String {
    assert!(out.status.success(), "{}", text(&out));
    text(&out)
}

#[track_caller]
fn fails_with(out: Output, code: &str, hint: &str) -> String {
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains(code), "{all}");
    assert!(all.contains(&format!("hint: {hint}")), "{all}");
    all
}

/// The pane id of what `new --json` printed.
fn new_pane(server: &TestServer, args: &[&str]) -> String {
    let mut all = vec!["new", "--json"];
    all.extend(args);
    let out = server.cli(&all);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    str_field(&v["pane"], "id").to_owned()
}

#[test]
fn errors_worded_for_the_protocol_come_with_the_command_to_type() {
    let server = TestServer::start();
    let pane = new_pane(&server, &["--name", "demo", "--", "sh"]);
    succeeds(server.cli(&["pane", "split", &pane, "--", "sh"]));
    // A spawn into the tab that has panes now.
    fails_with(
        server.cli(&["pane", "spawn", "demo", "--", "sh"]),
        "BAD_PARAMS",
        "a spawn takes an empty tab: add a pane beside one with `signaltty pane split",
    );
    // A prompt for an agent, to a shell.
    let all = fails_with(
        server.cli(&["pane", "submit", &pane, "--text", "hi"]),
        "AGENT_NOT_READY",
        &format!("{pane} runs no agent"),
    );
    assert!(
        all.contains(&format!("signaltty pane input {pane} --text TEXT --enter")),
        "{all}"
    );
    // A stop while panes live says what --force does.
    let all = fails_with(
        server.cli(&["stop"]),
        "PANES_ALIVE",
        "`signaltty stop --force` stops anyway",
    );
    assert!(all.contains("restorable"), "{all}");
}

#[test]
fn a_failed_tasks_merge_points_to_discard_and_a_discard_says_so() {
    let server = TestServer::start();
    let repo = server.env().root().join("repo");
    init_repo(&repo, "README", "hi\n");
    let out = server.cli(&[
        "task",
        "start",
        "--json",
        "--repo",
        &repo.display().to_string(),
        "--objective",
        "x",
        "--",
        "sh",
        "-c",
        "exit 3",
    ]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let task = str_field(&v["task"], "id").to_owned();
    succeeds(server.cli(&[
        "task",
        "wait",
        &task,
        "--until",
        "terminal",
        "--timeout",
        "30",
    ]));
    fails_with(
        server.cli(&["task", "finish", &task, "--merge"]),
        "only a completed task can be merged",
        "throw its work away with `signaltty task finish TASK --discard`",
    );
    let said = succeeds(server.cli(&["task", "finish", &task, "--discard"]));
    assert!(said.contains("  discarded"), "{said}");
    assert!(said.contains("branch signaltty/"), "{said}");
}

#[test]
fn config_default_write_creates_the_folder_and_never_replaces_a_file() {
    let server = TestServer::start();
    let env = server.env();
    let path = env.root().join("config/signaltty/config.toml");
    assert!(!path.parent().is_some_and(|p| p.exists()));
    let said = succeeds(env.cli(&["config", "default", "--write"]));
    assert_eq!(said.trim(), format!("wrote {}", path.display()));
    let default = succeeds(env.cli(&["config", "default"]));
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), default);
    std::fs::write(&path, "# mine\n").unwrap_or_else(|e| panic!("{e}"));
    let out = env.cli(&["config", "default", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("already exists: kept as it is"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        "# mine\n"
    );
    succeeds(env.cli(&["config", "default", "--write", "--force"]));
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), default);
}

#[test]
fn completions_install_writes_where_each_shell_loads_them() {
    let server = TestServer::start();
    let env = server.env();
    let home = env.home();
    let bash = home.join(".local/share/bash-completion/completions/signaltty");
    let said = succeeds(env.cli(&["completions", "bash", "--install"]));
    assert!(said.contains(&bash.display().to_string()), "{said}");
    let script = std::fs::read_to_string(&bash).unwrap_or_default();
    assert!(script.contains("_signaltty()"), "{script}");
    let fish = env.root().join("config/fish/completions/signaltty.fish");
    succeeds(env.cli(&["completions", "fish", "--install"]));
    assert!(fish.exists());
    let zsh = succeeds(env.cli(&["completions", "zsh", "--install"]));
    assert!(home.join(".zfunc/_signaltty").exists());
    assert!(zsh.contains("fpath+=~/.zfunc"), "{zsh}");
    let out = env.cli(&["completions", "powershell", "--install"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn pane_input_stdin_sends_a_large_text_in_chunks_in_order() {
    let server = TestServer::start();
    let out = server.env().root().join("out");
    let script = format!(
        "stty -echo -icanon; head -c 1200000 > {}; echo got-it; exec sleep 600",
        out.display()
    );
    let pane = new_pane(&server, &["--", "sh", "-c", &script]);
    // Lines of 80 characters: more than one pane.input's 1 MiB of base64.
    let text: String = (0..15_000).map(|i| format!("{:079}\n", i)).collect();
    assert_eq!(text.len(), 1_200_000);
    let said = server.cli_with_stdin(&["pane", "input", &pane, "--stdin"], text.as_bytes());
    assert!(said.status.success(), "{said:?}");
    assert_eq!(
        String::from_utf8_lossy(&said.stdout).trim(),
        "wrote 1200000 bytes"
    );
    succeeds(server.cli(&["pane", "wait-output", &pane, "got-it", "--timeout", "30"]));
    wait_until("the whole text", Duration::from_secs(10), || {
        (std::fs::read(&out).unwrap_or_default() == text.as_bytes()).then_some(())
    });
}

#[test]
fn the_doctor_after_installing_every_integration_warns_about_nothing_and_no_lock_is_left() {
    let mut env = crate::support::TestEnv::new();
    env.set_var("PATH", "/usr/bin:/bin");
    let server = TestServer::start_in(env);
    let env = server.env();
    succeeds(env.cli(&["integration", "install", "--all"]));
    let mut locks = Vec::new();
    let mut todo = vec![env.home(), env.root().join("config")];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.to_string_lossy().ends_with(".signaltty.lock") {
                locks.push(p);
            }
        }
    }
    assert!(
        locks.is_empty(),
        "lock files left in the user's folders: {locks:?}"
    );
    let out = env.cli(&["doctor"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("WARN"), "{said}");
    assert!(said.trim_end().ends_with("all good"), "{said}");
}

#[test]
fn new_says_its_workspace_and_a_failed_new_leaves_nothing_behind() {
    let server = TestServer::start();
    let out = succeeds(server.cli(&["new", "--name", "y", "--", "sh"]));
    assert!(out.starts_with("workspace y  (ws_"), "{out}");
    // A spawn that fails: its workspace goes with it, so the name is free.
    let out = server.cli(&["new", "--name", "z", "--", "no-such-program-here"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("SPAWN_FAILED"), "{}", text(&out));
    let list = succeeds(server.cli(&["workspace", "list"]));
    assert!(
        !list.lines().any(|l| l.starts_with("z ")),
        "the failed new's workspace is gone: {list}"
    );
    let out = succeeds(server.cli(&["new", "--name", "z", "--", "sh"]));
    assert!(out.starts_with("workspace z  (ws_"), "not z-2: {out}");
    // In a workspace that exists, the failed spawn's new tab goes instead.
    let mut client = server.client();
    let tabs = |c: &mut crate::support::Client| {
        let ws = c.call_ok("workspace.get", serde_json::json!({"workspace_id": "y"}));
        ws["tabs"].as_array().map_or(0, Vec::len)
    };
    let before = tabs(&mut client);
    let out = server.cli(&["new", "--workspace", "y", "--", "no-such-program-here"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(tabs(&mut client), before, "no empty tab is left in y");
}

#[test]
fn a_task_whose_worker_is_a_plain_shell_says_why_it_waits_and_takes_a_short_id() {
    let server = TestServer::start();
    let repo = server.env().root().join("repo");
    init_repo(&repo, "README", "hi\n");
    let out = server.cli(&[
        "task",
        "start",
        "--json",
        "--repo",
        &repo.display().to_string(),
        "--objective",
        "x",
        "--",
        "bash",
        "--norc",
    ]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let task = str_field(&v["task"], "id").to_owned();
    // As a list prints it: cut, with an ellipsis.
    let short = format!("{}…", &task[..13]);
    let said = wait_until(
        "the task to say what it waits for",
        Duration::from_secs(20),
        || {
            let said = succeeds(server.cli(&["task", "get", &short]));
            said.contains("hint: bash is not an agent signaltty knows")
                .then_some(said)
        },
    );
    assert!(said.contains(" pending "), "{said}");
    assert!(said.contains("signaltty task report"), "{said}");
    succeeds(server.cli(&["task", "cancel", &short]));
}
