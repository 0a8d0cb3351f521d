//! The config file and the log (docs/configuration.md, docs/logging.md):
//! a real server reads `$XDG_CONFIG_HOME/signaltty/config.toml`, bad entries
//! are reported by line and never stop it, `config show` tells each value's
//! origin, and the log file rotates at its cap while the server keeps writing.

use crate::support::git::init_repo;
use crate::support::process::TestEnv;
use crate::support::{DEADLINE, TestServer, expect_code, mode_of, ok, poll_until, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `$XDG_CONFIG_HOME/signaltty/config.toml` of `env`, written with `text`.
fn write_config(env: &TestEnv, text: &str) -> PathBuf {
    let dir = env.root().join("config/signaltty");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    let path = dir.join("config.toml");
    if let Err(e) = std::fs::write(&path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
    path
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn show_json(env: &TestEnv, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["config", "show", "--json"];
    all.extend_from_slice(args);
    let out = env.cli(&all);
    let text = stdout(&out);
    match serde_json::from_str(&text) {
        Ok(v) => (out.status.code(), v),
        Err(e) => panic!("config show --json printed no JSON ({e}): {text}"),
    }
}

/// The `settings` row of `key` in `config show --json` output.
fn setting<'a>(shown: &'a Value, key: &str) -> &'a Value {
    let rows = shown["settings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    match rows.iter().find(|r| r["key"] == key) {
        Some(row) => row,
        None => panic!("no {key} in {shown}"),
    }
}

fn task_start(server: &TestServer, repo: &Path) -> signaltty_protocol::Response {
    server.client().call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": "wait"},
               "argv": ["sh", "-c", "exec cat"]}),
    )
}

#[test]
fn a_config_file_capping_tasks_at_one_makes_the_server_refuse_a_second_start() {
    let env = TestEnv::new();
    write_config(&env, "# one at a time\n[tasks]\nmax_parallel = 1\n");
    let server = TestServer::start_in(env);
    let repo = server.env().root().join("repo");
    init_repo(&repo, "README", "hello\n");
    ok(task_start(&server, &repo));
    let refused = expect_code(task_start(&server, &repo), ErrorCode::RateLimited);
    assert_eq!(
        refused.details,
        Some(json!({"active_tasks": 1, "max_parallel_tasks": 1})),
        "the cap came from the file"
    );
    let status = ok(server.client().call("server.status", json!({})));
    assert!(status.get("config_problems").is_none(), "{status}");
}

#[test]
fn config_show_json_tells_each_value_where_it_came_from() {
    let mut env = TestEnv::new();
    let path = write_config(
        &env,
        "[tasks]\nmax_parallel = 2\nworker_silent_timeout_s = 5\n\n[snapshot]\ninterval_ms = 750\n",
    );
    env.set_var("SIGNALTTY_WORKER_SILENT_TIMEOUT_S", "30");
    let flag_socket = env.root().join("flag.sock");
    let socket_arg = flag_socket.to_string_lossy().into_owned();
    let (code, shown) = show_json(&env, &["--socket", &socket_arg]);
    assert_eq!(code, Some(0), "no problems: {shown}");
    assert_eq!(shown["file"]["path"], json!(path));
    assert_eq!(shown["file"]["found"], true);
    let row = setting(&shown, "tasks.max_parallel");
    assert_eq!(row["value"], 2);
    assert_eq!(
        row["origin"],
        json!({"kind": "file", "path": path, "line": 2})
    );
    let row = setting(&shown, "snapshot.interval_ms");
    assert_eq!(row["origin"]["line"], 6);
    let row = setting(&shown, "tasks.worker_silent_timeout_s");
    assert_eq!(row["value"], 30, "the variable beats the file");
    assert_eq!(
        row["origin"],
        json!({"kind": "env", "var": "SIGNALTTY_WORKER_SILENT_TIMEOUT_S"})
    );
    let row = setting(&shown, "server.socket");
    assert_eq!(row["value"], json!(flag_socket));
    assert_eq!(row["origin"], json!({"kind": "flag", "flag": "--socket"}));
    let row = setting(&shown, "journal.rotate_bytes");
    assert_eq!(row["origin"], json!({"kind": "default"}));
    assert_eq!(shown["problems"], json!([]));

    // `config path` and `config default` need no server either.
    let out = env.cli(&["config", "path"]);
    assert_eq!(stdout(&out).trim(), path.to_string_lossy());
    let text = stdout(&env.cli(&["config", "default"]));
    std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    env.remove_var("SIGNALTTY_WORKER_SILENT_TIMEOUT_S");
    let (code, shown) = show_json(&env, &[]);
    assert_eq!(code, Some(0), "the default file has no problems: {shown}");
    assert_eq!(setting(&shown, "tasks.max_parallel")["value"], 4);
}

/// Each bad file: its text, the line (and for a syntax error, column) the
/// problem is reported at, and what the message says.
const BAD_FILES: &[(&str, &str, &str, &str)] = &[
    (
        "unknown key",
        "[tasks]\nmax_parallel = 1\nmax_paralel = 2\n",
        ":3: ",
        "unknown key `tasks.max_paralel`",
    ),
    (
        "wrong type",
        "[tasks]\nmax_parallel = 1\n\n[snapshot]\ninterval_ms = \"soon\"\n",
        ":5: ",
        "expected an integer (milliseconds",
    ),
    (
        "syntax error",
        "[tasks]\nmax_parallel = 1\nmerge_timeout_ms = = 3\n",
        ":3:",
        "TOML syntax error",
    ),
];

#[test]
fn bad_config_files_are_reported_at_their_line_and_the_server_still_starts() {
    for (what, text, at, says) in BAD_FILES {
        let env = TestEnv::new();
        let path = write_config(&env, text);
        let located = format!("{}{at}", path.display());

        let (code, shown) = show_json(&env, &[]);
        assert_eq!(code, Some(1), "{what}: config show fails: {shown}");
        let texts: Vec<&str> = shown["problems"]
            .as_array()
            .map(|a| a.iter().filter_map(|p| p["text"].as_str()).collect())
            .unwrap_or_default();
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with(&located) && t.contains(says)),
            "{what}: {texts:?} has no {located}…{says}"
        );
        let human = env.cli(&["config", "show"]);
        assert_eq!(human.status.code(), Some(1));
        assert!(
            stdout(&human).contains(&located),
            "{what}: {}",
            stdout(&human)
        );

        let server = TestServer::start_in(env);
        let status = ok(server.client().call("server.status", json!({})));
        assert_eq!(status["workspaces"], 0, "{what}: the server answers");
        assert_eq!(status["config_file"], json!(path), "{what}");
        let listed = status["config_problems"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            listed
                .iter()
                .filter_map(Value::as_str)
                .any(|p| p.starts_with(&located) && p.contains(says)),
            "{what}: server.status lists the problem: {status}"
        );
        let log = server.stderr();
        assert!(
            log.lines()
                .any(|l| l.contains("WARN") && l.contains(&located) && l.contains(says)),
            "{what}: the server warns with file:line: {log}"
        );
        // The good entry before the bad one counts, except after a syntax
        // error, which leaves the whole file unused.
        let repo = server.env().root().join("repo");
        init_repo(&repo, "README", "hello\n");
        ok(task_start(&server, &repo));
        let second = task_start(&server, &repo);
        if *what == "syntax error" {
            ok(second);
        } else {
            expect_code(second, ErrorCode::RateLimited);
        }
    }
}

fn log_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("server.log"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn len_of(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

#[test]
fn a_server_with_a_small_log_cap_rotates_its_log_and_keeps_writing() {
    let env = TestEnv::new();
    let logs = env.root().join("logs");
    std::fs::create_dir(&logs).unwrap_or_else(|e| panic!("{e}"));
    let log = logs.join("server.log");
    // Every change makes a snapshot due; each save logs two debug lines.
    write_config(
        &env,
        &format!(
            "[log]\nlevel = \"signaltty_actors=debug,info\"\nfile = \"{}\"\nmax_bytes = 2048\n\
             [snapshot]\ninterval_ms = 20\n",
            log.display()
        ),
    );
    let server = TestServer::start_in(env);
    let mut c = server.client();
    let mut n = 0;
    let mut change = || {
        n += 1;
        ok(c.call("workspace.create", json!({"name": format!("w{n}")})));
    };
    let rotated = logs.join("server.log.1");
    assert!(
        poll_until(DEADLINE, || {
            change();
            rotated.exists()
        }),
        "no rotation; log files: {:?}",
        log_files(&logs)
    );
    let first = std::fs::read(&rotated).unwrap_or_default();
    // The server keeps writing: the predecessor is replaced by a newer one,
    // and there is never a second.
    assert!(
        poll_until(DEADLINE, || {
            change();
            std::fs::read(&rotated).unwrap_or_default() != first
        }),
        "the log stopped rotating: {:?}",
        log_files(&logs)
    );
    wait_until("a fresh record in server.log", DEADLINE, || {
        change();
        (len_of(&log) > 0).then_some(())
    });
    assert_eq!(log_files(&logs), ["server.log", "server.log.1"]);
    for path in [&log, &rotated] {
        assert_eq!(mode_of(path), 0o600, "{}", path.display());
        // A record is a few hundred bytes: none is bigger than the cap.
        assert!(
            len_of(path) <= 2048,
            "{} is {} bytes",
            path.display(),
            len_of(path)
        );
    }
    let text = String::from_utf8_lossy(&first).into_owned();
    assert!(
        text.lines()
            .all(|l| l.contains(" DEBUG ") || l.contains(" INFO ")),
        "whole records only: {text}"
    );
}

/// Kills the detached server if the test fails before `stop`.
struct KillOnDrop(Option<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok()) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

#[test]
fn start_lets_the_server_write_its_own_log_in_the_state_dir() {
    let env = TestEnv::new();
    let out = env.cli(&["start", "--json"]);
    let started: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("start --json: {e}: {}", stdout(&out)));
    let mut guard = KillOnDrop(started["pid"].as_u64().and_then(|p| u32::try_from(p).ok()));
    let log = env.state_home().join("signaltty/server.log");
    wait_until("the server's own log line", DEADLINE, || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.contains("listening on").then_some(())
    });
    assert_eq!(mode_of(&log), 0o600);
    assert_eq!(env.cli(&["stop"]).status.code(), Some(0));
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(text.contains("stopped"), "{text}");
    guard.0 = None;
}

/// `JOURNAL_STREAM` set to `env`'s `server.stderr` (created now), as systemd
/// sets it for a service whose stderr is the journal; or to another inode.
fn journal_stream_env(matching: bool) -> TestEnv {
    use std::os::unix::fs::MetadataExt;
    let mut env = TestEnv::new();
    let stderr = env.root().join("server.stderr");
    std::fs::write(&stderr, b"").unwrap_or_else(|e| panic!("{e}"));
    let meta = std::fs::metadata(&stderr).unwrap_or_else(|e| panic!("{e}"));
    let ino = if matching { meta.ino() } else { meta.ino() + 1 };
    env.set_var("JOURNAL_STREAM", format!("{}:{ino}", meta.dev()));
    env
}

#[test]
fn on_a_journal_stream_without_journald_lines_carry_syslog_priorities() {
    if Path::new("/run/systemd/journal/socket").exists() {
        eprintln!("journald runs here: the records go to it, not to stderr; skipped");
        return;
    }
    let env = journal_stream_env(true);
    let socket = env.default_socket();
    let cmd = env.command(&["server"]);
    let server = TestServer::start_with_command(env, cmd, socket);
    let log = wait_until("the listening line", DEADLINE, || {
        let log = server.stderr();
        log.contains("listening on").then_some(log)
    });
    for line in log.lines() {
        let rest = line.strip_prefix('<').and_then(|l| l.split_once('>'));
        assert!(
            matches!(rest, Some((n, text)) if n.len() == 1 && !text.starts_with("20")),
            "a <N> prefix and no timestamp: {line:?}"
        );
    }
    assert!(log.contains("<6>signaltty_actors: signaltty"), "{log}");

    // A variable inherited without the stream (another inode) changes nothing.
    let env = journal_stream_env(false);
    let socket = env.default_socket();
    let cmd = env.command(&["server"]);
    let server = TestServer::start_with_command(env, cmd, socket);
    let log = wait_until("the listening line", DEADLINE, || {
        let log = server.stderr();
        log.contains("listening on").then_some(log)
    });
    assert!(
        log.lines().all(|l| l.starts_with("20")),
        "plain timestamped lines: {log}"
    );
}
