//! The config file and the log (docs/configuration.md, docs/logging.md):
//! a real server reads `$XDG_CONFIG_HOME/signaltty/config.toml`, bad entries
//! are reported by line and never stop it, `config show` tells each value's
//! origin, and the log file rotates at its cap while the server keeps writing.

use crate::support::git::init_repo;
use crate::support::life::state_dir;
use crate::support::process::TestEnv;
use crate::support::{
    Client, DEADLINE, TestServer, expect_code, mode_of, ok, poll_until, str_field, u64_field,
    wait_until,
};
use base64::Engine as _;
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
    // Refused rather than queued at the cap (docs/tasks.md#the-task-queue).
    server.client().call(
        "task.start",
        json!({"repo": repo.to_string_lossy(), "contract": {"objective": "wait"},
               "argv": ["sh", "-c", "exec cat"], "queue": false}),
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

/// The cap the tail tests set: `[history] tail_bytes = 4096`.
const SMALL_CAP: u64 = 4096;

/// Waits until pane `id` shows `text`, then renames it: a save is due only
/// when the state moved (output alone does not), so the next one holds it.
fn shown_then_saved(c: &mut Client, id: &str, text: &str, name: &str) {
    wait_until(&format!("{text:?} on the screen"), DEADLINE, || {
        let r = ok(c.call("pane.read", json!({"pane_id": id, "mode": "screen"})));
        str_field(&r, "text").contains(text).then_some(())
    });
    ok(c.call("pane.rename", json!({"pane_id": id, "name": name})));
}

/// The numbers of the `line NNNNN of the tail test` lines in `text`, in order.
fn numbered_lines(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix("line ")?.strip_suffix(" of the tail test"))
        .filter_map(|n| n.parse().ok())
        .collect()
}

#[test]
fn a_config_file_tail_cap_keeps_the_tail_file_small_and_restores_only_the_newest_lines() {
    const CAP: u64 = SMALL_CAP;
    let env = TestEnv::new();
    write_config(
        &env,
        "[history]\ntail_bytes = 4096\n\n[snapshot]\ninterval_ms = 300\n",
    );
    let mut server = TestServer::start_in(env);
    let mut c = server.client();
    let status = ok(c.call("server.status", json!({})));
    assert!(status.get("config_problems").is_none(), "{status}");
    let ws = ok(c.call("workspace.create", json!({"name": "tails"})));
    // 1800 numbered lines of 28 bytes with their newlines: about 50 kB,
    // twelve times the cap.
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": ["sh", "-c",
               "stty -echo; seq -f 'line %05g of the tail test' 1 1800; echo tail-end; exec cat"]}),
    ));
    let id = str_field(&pane["pane"], "id").to_owned();
    let (rows, cols) = (
        u64_field(&pane["pane"]["pty_size"], "rows"),
        u64_field(&pane["pane"]["pty_size"], "cols"),
    );
    let path = state_dir(server.env())
        .join("history")
        .join(format!("{id}.tail"));
    // The file: at most two tails' worth (appends stop there), or one tail
    // and the screen right after a rewrite; with the default cap the first
    // one alone would be 50 kB. Its lines (`h` history, `s` screen rows)
    // reach back at most two tails and a screen from the newest.
    let bound = 2 * CAP + rows * (cols + 2) + 128;
    let check_saved = |newest: &str, last: u64| {
        let saved = wait_until(&format!("the tail file to hold {newest}"), DEADLINE, || {
            std::fs::read(&path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .filter(|t| t.contains(newest))
        });
        let len = saved.len() as u64;
        assert!(len <= bound, "{len} bytes, more than {bound}");
        let held: Vec<&str> = saved.lines().filter_map(|l| l.get(1..)).collect();
        let oldest = numbered_lines(&held.join("\n")).first().copied();
        assert!(
            oldest.is_some_and(|n| n > last - 2 * CAP / 28 - rows - 2),
            "old lines kept: from {oldest:?}"
        );
        len
    };
    shown_then_saved(&mut c, &id, "tail-end", "printed");
    let mut lengths = vec![check_saved("tail-end", 1800)];
    // Then twenty lines at a time, each batch saved before the next: appended
    // to the file until it would pass two tails, then compacted.
    for batch in 0..6u64 {
        let lines: String = (1801 + 20 * batch..1821 + 20 * batch)
            .map(|n| format!("line {n:05} of the tail test\n"))
            .collect();
        let data = base64::engine::general_purpose::STANDARD.encode(lines);
        ok(c.call("pane.input", json!({"pane_id": id, "data_b64": data})));
        let last = 1820 + 20 * batch;
        let newest = format!("line {last:05} of");
        shown_then_saved(&mut c, &id, &newest, &format!("batch-{batch}"));
        lengths.push(check_saved(&newest, last));
    }
    assert!(
        lengths.windows(2).any(|w| w[1] < w[0]),
        "never compacted: {lengths:?}"
    );

    // After a crash the pane comes back with only its newest 4 KiB.
    drop(c);
    server.crash_and_restart();
    assert_restored_within(&server, &id, 1920, CAP);
}

/// Asserts that the restored pane `id` shows the newest lines of its saved
/// tail up to `last`, within `cap` bytes, then the restore marker.
#[track_caller]
fn assert_restored_within(server: &TestServer, id: &str, last: u64, cap: u64) {
    let read = ok(server.client().call(
        "pane.read",
        json!({"pane_id": id, "mode": "tail", "lines": 5000}),
    ));
    let text = str_field(&read, "text");
    let lines: Vec<&str> = text.lines().collect();
    let Some(marker) = lines
        .iter()
        .position(|l| l.contains("restored by signaltty at"))
    else {
        panic!("no restore marker: {text}");
    };
    let before = lines[..marker].join("\n");
    let before = before.trim();
    assert!(
        before.ends_with(&format!("line {last:05} of the tail test")),
        "{text}"
    );
    let restored = numbered_lines(before);
    let Some(first) = restored.first().copied() else {
        panic!("no numbered line restored: {text}");
    };
    let expected: Vec<u64> = (first..=last).collect();
    assert_eq!(restored, expected, "one contiguous stretch: {text}");
    // Each line costs 28 bytes with its newline, and "tail-end" may share
    // the cap: about 145 lines at 4 KiB.
    let n = restored.len() as u64;
    assert!(n <= cap / 28 && n > cap / 28 - 10, "{n} lines restored");
    assert!(
        before.len() as u64 <= cap,
        "{} bytes restored",
        before.len()
    );
}

#[test]
fn a_tail_saved_under_the_default_cap_is_restored_within_a_cap_lowered_since() {
    let env = TestEnv::new();
    let mut server = TestServer::start_in(env);
    let mut c = server.client();
    let ws = ok(c.call("workspace.create", json!({"name": "tails"})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws["workspace"]["id"], "argv": ["sh", "-c",
               "seq -f 'line %05g of the tail test' 1 1800; exec cat"]}),
    ));
    let id = str_field(&pane["pane"], "id").to_owned();
    let path = state_dir(server.env())
        .join("history")
        .join(format!("{id}.tail"));
    shown_then_saved(&mut c, &id, "line 01800 of", "printed");
    let newest: &[u8] = b"line 01800 of";
    let saved = wait_until("the tail file to hold the last line", DEADLINE, || {
        std::fs::read(&path)
            .ok()
            .filter(|b| b.windows(newest.len()).any(|w| w == newest))
    });
    assert!(saved.len() > 40_000, "a 64 KiB tail: {} bytes", saved.len());
    drop(c);
    // The next run has a 4 KiB cap: the old file is read trimmed to it.
    write_config(server.env(), "[history]\ntail_bytes = 4096\n");
    server.crash_and_restart();
    assert_restored_within(&server, &id, 1800, SMALL_CAP);
    // And the file is left as it was until the pane's screen changes.
    assert_eq!(std::fs::read(&path).ok(), Some(saved));
}

#[test]
fn config_show_json_tells_each_value_where_it_came_from() {
    let mut env = TestEnv::new();
    let path = write_config(
        &env,
        "[tasks]\nmax_parallel = 2\nworker_silent_timeout_s = 5\n\n[snapshot]\ninterval_ms = 750\n\n[board]\nbell = false\n",
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
    // The board reads its alerts from the same file (`signaltty board`).
    let row = setting(&shown, "board.bell");
    assert_eq!(row["value"], false);
    assert_eq!(row["origin"]["line"], 9);
    assert_eq!(setting(&shown, "board.notify")["value"], false);
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
