//! Every command's help, and every command with its stdout closed (issue
//! 26): the clap tree is walked through `--help` itself, so a command added
//! later is checked too, and must be listed in `RUNS` (run with a closed
//! stdout against a live server) or in `NOT_RUN` (with the reason). No
//! command may panic on a closed stdout (`signaltty completions bash | head
//! -3`), nor have an empty help.

use crate::support::{TestEnv, TestServer, str_field};
use std::process::{Output, Stdio};

/// The subcommands `--help` lists under "Commands:" (without `help`).
fn subcommands(env: &TestEnv, path: &[String]) -> Vec<String> {
    let mut args = path.to_vec();
    args.push("--help".into());
    let out = env.cli(&args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{args:?}: {text}");
    text.split_once("\nCommands:\n")
        .map(|(_, rest)| {
            rest.lines()
                .take_while(|l| !l.trim().is_empty())
                .filter_map(|l| l.split_whitespace().next())
                .filter(|c| *c != "help")
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Every command path, parents included, depth first.
fn command_tree(env: &TestEnv) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        for sub in subcommands(env, &path) {
            let mut child = path.clone();
            child.push(sub);
            todo.push(child.clone());
            all.push(child);
        }
    }
    all.sort();
    all
}

/// Whether the command has subcommands of its own (then it is run only
/// when `RUNS` lists it).
fn has_subcommands(tree: &[Vec<String>], path: &[String]) -> bool {
    tree.iter()
        .any(|p| p.len() == path.len() + 1 && p.starts_with(path))
}

/// Runs `signaltty ARGS` with stdout a pipe whose reader is already gone.
fn closed_stdout(env: &TestEnv, args: &[String]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap_or_else(|e| panic!("pipe: {e}"));
    drop(reader);
    let mut cmd = env.command(args);
    cmd.stdout(writer).stderr(Stdio::piped());
    crate::support::process::run_with_deadline_keeping_stdout(&mut cmd, &format!("{args:?}"))
}

#[track_caller]
fn assert_no_panic(args: &[String], out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && out.status.code() != Some(101),
        "`signaltty {}` with a closed stdout: {} {stderr}",
        args.join(" "),
        out.status
    );
}

#[test]
fn every_command_has_a_help_and_prints_it_into_a_closed_pipe() {
    let env = TestEnv::new();
    let tree = command_tree(&env);
    assert!(tree.len() > 80, "{} commands", tree.len());
    for path in std::iter::once(Vec::new()).chain(tree) {
        let mut args = path.clone();
        args.push("--help".into());
        let out = env.cli(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        let about = text.lines().next().unwrap_or("").trim();
        assert!(
            out.status.success() && !about.is_empty() && text.contains("\nUsage: signaltty"),
            "`signaltty {}`: an empty or broken help:\n{text}",
            args.join(" ")
        );
        // Every flag and argument says what it is.
        for line in text
            .lines()
            .filter(|l| l.starts_with("  -") || l.starts_with("  <"))
        {
            let described = line.trim().split_once("  ").is_some()
                || text
                    .lines()
                    .skip_while(|l| *l != line)
                    .nth(1)
                    .is_some_and(|next| next.starts_with("          ") && !next.trim().is_empty());
            assert!(
                described,
                "`signaltty {}`: `{line}` has no help text",
                args.join(" ")
            );
        }
        assert_no_panic(&args, &closed_stdout(&env, &args));
    }
}

/// Commands that are not run here, and why.
const NOT_RUN: &[(&str, &str)] = &[
    ("server", "runs a server in the foreground until stopped"),
    ("stop", "run last, by the test itself"),
    ("upgrade", "replaces the server (README's tour runs it)"),
    ("board", "draws on a terminal (board.rs)"),
    ("attach", "attaches a terminal (attach.rs)"),
    ("pane attach", "attaches a terminal (attach.rs)"),
    ("service install", "writes systemd units (service.rs)"),
    ("service uninstall", "removes systemd units (service.rs)"),
    (
        "bridge",
        "relays stdin and stdout (remote/hosts.rs, over ssh)",
    ),
    ("host check", "needs ssh to a host (remote/hosts.rs)"),
    ("web", "serves in the foreground until stopped (web.rs)"),
    ("web pair", "asks a running web view (web.rs)"),
    ("web sessions", "asks a running web view (web.rs)"),
    ("web revoke", "asks a running web view (web.rs)"),
];

/// The commands run with a closed stdout, in order; `PANE`, `TAB`, `WS`
/// stand for the pane, tab and workspace made first.
const RUNS: &[&str] = &[
    "start",
    "status",
    "schema",
    "config show",
    "config default",
    "config path",
    "workspace create --name other",
    "workspace list",
    "workspace get WS",
    "workspace rename other other2",
    "workspace auto-resume WS --off",
    "workspace hibernate WS 30s",
    "workspace auto-continue WS off",
    "workspace refresh-git WS",
    "workspace diff WS",
    "workspace file-diff WS README",
    "new --workspace WS -- sh",
    "pane spawn other2 -- sh",
    "pane split PANE -- sh",
    "pane list",
    "pane list WS",
    "pane rename PANE p",
    "pane swap p PANE",
    "pane move p PANE",
    "pane clear p",
    "pane wait-output p ready --timeout 5",
    "pane mark-seen p",
    "pane submit p --text hi",
    "ask p hi --timeout 1",
    "pane resume p",
    "pane get p",
    "pane read p",
    "pane input p --text x",
    "pane resize p --cols 90 --rows 30",
    "pane signal p --signal WINCH",
    "tab create WS --title t2",
    "tab set-layout TAB -",
    "tab set-ratio TAB --ratio 0.5",
    "worktree list WS",
    "worktree create WS --branch b",
    "worktree open WS b",
    "worktree remove WS b",
    "events --from-seq 0 --no-follow",
    "journal verify",
    "hook-event --agent claude --event Stop",
    "notify --pane p --title hello",
    "report-session --pane p --session s1",
    "wait p --until unknown,idle,done --timeout 5",
    "restore",
    "attention",
    "mark-seen p",
    "agents list",
    "agents reload",
    "agents check MANIFEST",
    "agents record sh --pane PANE --for 1",
    "explain p",
    "decisions",
    "task start --repo . --objective x -- sh",
    "task get task_0",
    "task list",
    "task wait task_0 --timeout 1",
    "task finish task_0 --discard",
    "task diff task_0",
    "task file-diff task_0 x",
    "task cancel task_0",
    "task conflicts",
    "report --status completed --summary x --task task_0",
    "integration install --all",
    "integration status --all",
    "integration uninstall --all",
    "integration install-mcp all",
    "integration uninstall-mcp all",
    "mcp",
    "service status",
    "doctor",
    "host add devbox me@devbox.example --remote-bin /opt/signaltty",
    "host list",
    "host remove devbox",
    "answer p once",
    "decision answer p once",
    "completions bash",
    "completions zsh",
    "completions fish",
    "completions elvish",
    "completions powershell",
    "completions bash --install",
    "man",
    "focus next-unread",
    "layout export TAB",
    "layout apply WS LAYOUT --drop-names",
    "notifications",
    "notifications read --all",
    "pane close p",
    "tab close TAB",
    "workspace close other2",
];

#[test]
fn every_command_with_a_closed_stdout_ends_without_a_panic() {
    let server = TestServer::start();
    let env = server.env();
    let tree = command_tree(env);
    // Every command is run here or said why not.
    let listed = |path: &[String]| {
        let name = path.join(" ");
        RUNS.iter()
            .any(|r| r.starts_with(&format!("{name} ")) || *r == name)
            || NOT_RUN.iter().any(|(n, _)| *n == name)
    };
    for path in &tree {
        assert!(
            has_subcommands(&tree, path) || listed(path),
            "`signaltty {}` is neither in RUNS nor in NOT_RUN",
            path.join(" ")
        );
    }
    let made = server.cli(&[
        "new",
        "--json",
        "--",
        "sh",
        "-c",
        "echo ready; exec sleep 600",
    ]);
    assert!(made.status.success(), "{made:?}");
    let made: serde_json::Value =
        serde_json::from_slice(&made.stdout).unwrap_or_else(|e| panic!("{e}"));
    let pane = str_field(&made["pane"], "id").to_owned();
    let tab = str_field(&made["pane"], "tab_id").to_owned();
    let ws = str_field(&made["pane"], "workspace_id").to_owned();
    let layout = env.root().join("layout.json");
    let exported = server.cli(&["layout", "export", &tab]);
    std::fs::write(&layout, &exported.stdout).unwrap_or_else(|e| panic!("{e}"));
    let manifest = env.root().join("agent.toml");
    std::fs::write(&manifest, "name = \"x\"\n").unwrap_or_else(|e| panic!("{e}"));
    for run in RUNS {
        let args: Vec<String> = run
            .split(' ')
            .map(|a| match a {
                "PANE" => pane.clone(),
                "TAB" => tab.clone(),
                "WS" => ws.clone(),
                "LAYOUT" => layout.display().to_string(),
                "MANIFEST" => manifest.display().to_string(),
                a => a.to_owned(),
            })
            .collect();
        assert_no_panic(&args, &closed_stdout(env, &args));
    }
    let stop = ["stop".to_owned(), "--force".to_owned()];
    assert_no_panic(&stop, &closed_stdout(env, &stop));
}
