//! `signaltty doctor` end to end (docs/doctor.md): a healthy setup reports
//! every relevant check ok and exits 0; each broken setup (no server, an
//! unwritable state dir, a malformed agent settings file, hooks that never
//! fired, a server or an agent that hangs) fails or warns on the right check
//! with its fix, and the doctor always finishes within its deadline.

use crate::support::agents::{script, workspace};
use crate::support::process::set_mode;
use crate::support::{TestEnv, TestServer, ok, str_field};
use serde_json::{Value, json};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// A `PATH` with the test's `bin/` first and the system's tools after it.
fn path_with_bin(root: &Path) -> String {
    format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        root.join("bin").display()
    )
}

/// A fake `claude` on the env's `PATH` that prints a version.
fn fake_claude(env: &mut TestEnv) {
    script(
        env.root(),
        "claude",
        "if [ \"$1\" = --version ]; then echo '9.9.9 (Claude Code)'; exit 0; fi\nexec sleep 600\n",
    );
    let path = path_with_bin(env.root());
    env.set_var("PATH", path);
}

/// Runs `signaltty doctor --json --home <home>` and returns its exit code and
/// report.
fn doctor_json(env: &TestEnv) -> (Option<i32>, Value, Output) {
    let home = env.home();
    let out = env.cli(&[
        "doctor".as_ref(),
        "--json".as_ref(),
        "--home".as_ref(),
        home.as_os_str(),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed no JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report, out)
}

/// The check called `name`, failing the test with the report when absent.
#[track_caller]
fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["check"] == name))
        .unwrap_or_else(|| panic!("no check {name:?} in {report:#}"))
}

#[track_caller]
fn verdict<'a>(report: &'a Value, name: &str) -> &'a str {
    str_field(check(report, name), "verdict")
}

/// `signaltty integration install claude` into the server's temp home.
fn install_claude_hooks(server: &TestServer) {
    let home = server.env().home();
    let out = server.cli(&[
        "integration".as_ref(),
        "install".as_ref(),
        "claude".as_ref(),
        "--home".as_ref(),
        home.as_os_str(),
    ]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_healthy_setup_reports_ok_and_exits_0() {
    let mut env = TestEnv::new();
    fake_claude(&mut env);
    let server = TestServer::start_in(env);
    install_claude_hooks(&server);
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "doctor");
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": ["sleep", "600"]}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    let hook = server.cli(&[
        "hook-event",
        "--agent",
        "claude",
        "--event",
        "UserPromptSubmit",
        "--pane",
        &pane,
    ]);
    assert!(hook.status.success(), "{hook:?}");

    let (code, report, out) = doctor_json(server.env());
    assert_eq!(code, Some(0), "{report:#}\n{out:?}");
    assert_eq!(report["ok"], true);
    for name in [
        "server",
        "socket perms",
        "live panes",
        "journal",
        "snapshot",
        "state dir",
        "agent claude",
        "hooks claude",
    ] {
        assert_eq!(verdict(&report, name), "ok", "{name}: {report:#}");
    }
    assert_ne!(verdict(&report, "state disk"), "fail", "{report:#}");
    let server_detail = str_field(check(&report, "server"), "detail");
    assert!(
        server_detail.contains(env!("CARGO_PKG_VERSION")) && server_detail.contains("1 panes"),
        "{server_detail}"
    );
    // The hook made the sleeper a Claude pane, and a hooked one.
    let panes = str_field(check(&report, "live panes"), "detail");
    assert!(panes.contains("all heard from their hooks"), "{panes}");
    let claude = str_field(check(&report, "agent claude"), "detail");
    assert!(claude.contains("9.9.9 (Claude Code)"), "{claude}");
    assert!(claude.contains("hooks installed"), "{claude}");
    let hooks = str_field(check(&report, "hooks claude"), "detail");
    assert!(
        hooks.contains("last hook") && hooks.contains("hook:claude:UserPromptSubmit"),
        "{hooks}"
    );
    // Temp XDG dirs: no units, no config file.
    assert_eq!(verdict(&report, "service"), "skip");
    assert_eq!(verdict(&report, "config"), "skip");

    // The text form: one line per check, within 80 columns.
    let home = server.env().home();
    let text = server.cli(&["doctor".as_ref(), "--home".as_ref(), home.as_os_str()]);
    assert!(text.status.success(), "{text:?}");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("ok   server "), "{text}");
    assert!(text.contains("ok   hooks claude "), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
}

#[test]
fn no_server_fails_with_the_start_fix_and_exits_1() {
    let env = TestEnv::new();
    let (code, report, _) = doctor_json(&env);
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["ok"], false);
    let server = check(&report, "server");
    assert_eq!(server["verdict"], "fail");
    assert!(
        str_field(server, "detail").contains("not running"),
        "{server}"
    );
    assert!(
        str_field(server, "fix").contains("signaltty start"),
        "{server}"
    );
    assert!(str_field(server, "fix").contains("signaltty service install"));

    let text = env.cli(&["doctor"]);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("FAIL server "), "{text}");
    assert!(
        text.contains("\n     fix: start it: `signaltty start`"),
        "{text}"
    );
}

#[test]
fn a_stale_socket_file_is_named_as_such() {
    let env = TestEnv::new();
    let dir = env.default_socket_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    set_mode(&dir, 0o700);
    drop(UnixListener::bind(env.default_socket()).unwrap_or_else(|e| panic!("{e}")));
    let (code, report, _) = doctor_json(&env);
    assert_eq!(code, Some(1));
    let detail = str_field(check(&report, "server"), "detail");
    assert!(detail.contains("stale socket file"), "{detail}");
}

#[test]
fn the_json_report_has_ok_and_one_object_per_check() {
    let env = TestEnv::new();
    let (_, report, _) = doctor_json(&env);
    let Some(obj) = report.as_object() else {
        panic!("{report}")
    };
    assert_eq!(
        obj.keys().collect::<Vec<_>>(),
        ["ok", "checks"],
        "{report:#}"
    );
    let checks = report["checks"].as_array().cloned().unwrap_or_default();
    assert!(checks.len() >= 10, "{report:#}");
    let mut failed = false;
    for c in &checks {
        let Some(fields) = c.as_object() else {
            panic!("{c}")
        };
        for key in fields.keys() {
            assert!(
                ["check", "verdict", "detail", "fix"].contains(&key.as_str()),
                "{c}"
            );
        }
        assert!(c["check"].is_string() && c["detail"].is_string(), "{c}");
        assert!(c.get("fix").is_none_or(Value::is_string), "{c}");
        let v = str_field(c, "verdict");
        assert!(["ok", "warn", "fail", "skip"].contains(&v), "{c}");
        failed |= v == "fail";
    }
    assert_eq!(report["ok"], !failed);
    // Every agent integration knows about has its line.
    for agent in [
        "claude", "codex", "opencode", "cursor", "gemini", "pi", "qwen", "kilo",
    ] {
        check(&report, &format!("agent {agent}"));
    }
}

#[test]
fn an_unwritable_state_dir_fails() {
    let env = TestEnv::new();
    let state = env.state_home().join("signaltty");
    std::fs::create_dir_all(&state).unwrap_or_else(|e| panic!("{e}"));
    set_mode(&state, 0o500);
    let (code, report, _) = doctor_json(&env);
    set_mode(&state, 0o700);
    assert_eq!(code, Some(1), "{report:#}");
    let c = check(&report, "state dir");
    if nix::unistd::geteuid().is_root() {
        // root writes through any mode: only the mode is wrong.
        eprintln!("running as root: the probe file is written anyway; checking the mode warning");
        assert_eq!(c["verdict"], "warn", "{c}");
        assert!(str_field(c, "detail").contains("0500"), "{c}");
    } else {
        assert_eq!(c["verdict"], "fail", "{c}");
        assert!(str_field(c, "detail").contains("not writable"), "{c}");
        assert!(str_field(c, "fix").contains("chmod 700"), "{c}");
    }
}

#[test]
fn a_malformed_agent_settings_file_fails_naming_the_file() {
    let mut env = TestEnv::new();
    fake_claude(&mut env);
    let settings = env.home().join(".claude").join("settings.json");
    std::fs::create_dir_all(env.home().join(".claude")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&settings, "{\"hooks\": {").unwrap_or_else(|e| panic!("{e}"));
    let (code, report, _) = doctor_json(&env);
    assert_eq!(code, Some(1));
    let c = check(&report, "agent claude");
    assert_eq!(c["verdict"], "fail", "{c}");
    let detail = str_field(c, "detail");
    assert!(
        detail.contains(&settings.display().to_string()) && detail.contains("not valid JSON"),
        "{detail}"
    );
    assert!(str_field(c, "fix").contains("signaltty integration install claude"));
}

#[test]
fn hooks_installed_but_never_fired_warn() {
    let mut env = TestEnv::new();
    fake_claude(&mut env);
    let server = TestServer::start_in(env);
    install_claude_hooks(&server);
    // Some journal to read, none of it from a hook.
    let mut c = server.client();
    workspace(&mut c, &server, "quiet");
    let (code, report, _) = doctor_json(server.env());
    assert_eq!(code, Some(0), "warnings alone pass: {report:#}");
    let c = check(&report, "hooks claude");
    assert_eq!(c["verdict"], "warn", "{c}");
    assert!(
        str_field(c, "detail").contains("hooks installed but never fired"),
        "{c}"
    );
    assert!(c["fix"].is_string(), "{c}");
}

#[test]
fn a_server_that_never_answers_and_a_hanging_agent_do_not_hang_the_doctor() {
    let mut env = TestEnv::new();
    script(env.root(), "claude", "exec sleep 600\n");
    let path = path_with_bin(env.root());
    env.set_var("PATH", path);
    let dir = env.default_socket_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    set_mode(&dir, 0o700);
    let listener = UnixListener::bind(env.default_socket()).unwrap_or_else(|e| panic!("{e}"));
    // Accepts every connection and holds it open without a word.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            held.push(conn);
        }
    });
    let started = Instant::now();
    let (code, report, _) = doctor_json(&env);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert_eq!(code, Some(1), "{report:#}");
    let server = check(&report, "server");
    assert_eq!(server["verdict"], "fail");
    assert!(
        str_field(server, "detail").contains("did not answer within"),
        "{server}"
    );
    let claude = check(&report, "agent claude");
    assert_eq!(claude["verdict"], "warn", "{claude}");
    assert!(
        str_field(claude, "detail").contains("no answer within"),
        "{claude}"
    );
}

#[test]
fn installed_units_a_config_file_and_a_data_dir_are_looked_at() {
    let mut env = TestEnv::new();
    // A systemctl stand-in: the socket unit enabled and active, the
    // service waiting for it (inactive), as socket activation leaves it.
    script(
        env.root(),
        "systemctl",
        "case \"$2 $3\" in\n\
         'is-enabled signaltty.socket') echo enabled ;;\n\
         'is-active signaltty.socket') echo active ;;\n\
         'is-active signaltty.service') echo inactive; exit 3 ;;\n\
         *) echo unknown; exit 1 ;;\n\
         esac\n",
    );
    let path = path_with_bin(env.root());
    env.set_var("PATH", path);
    let units = env.root().join("config/systemd/user");
    std::fs::create_dir_all(&units).unwrap_or_else(|e| panic!("{e}"));
    for unit in ["signaltty.service", "signaltty.socket"] {
        std::fs::write(units.join(unit), "[Unit]\n").unwrap_or_else(|e| panic!("{e}"));
    }
    let config = env.root().join("config/signaltty");
    std::fs::create_dir_all(&config).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(config.join("config.toml"), "").unwrap_or_else(|e| panic!("{e}"));
    let data = env.home().join(".local/share/signaltty");
    std::fs::create_dir_all(&data).unwrap_or_else(|e| panic!("{e}"));
    set_mode(&data, 0o700);

    let (_, report, _) = doctor_json(&env);
    let service = check(&report, "service");
    assert_eq!(service["verdict"], "ok", "{service}");
    assert_eq!(
        service["detail"],
        "signaltty.socket enabled, active; signaltty.service inactive"
    );
    let config_check = check(&report, "config");
    assert_eq!(config_check["verdict"], "ok", "{config_check}");
    assert!(str_field(config_check, "detail").contains("config.toml is valid"));
    assert_eq!(verdict(&report, "data dir"), "ok", "{report:#}");
    assert_ne!(verdict(&report, "data disk"), "fail", "{report:#}");

    // The socket unit turned off: a warning with the command that enables it.
    script(
        env.root(),
        "systemctl",
        "case \"$2\" in is-enabled) echo disabled; exit 1 ;; *) echo inactive; exit 3 ;; esac\n",
    );
    let (_, report, _) = doctor_json(&env);
    let service = check(&report, "service");
    assert_eq!(service["verdict"], "warn", "{service}");
    assert_eq!(
        service["fix"],
        "systemctl --user enable --now signaltty.socket"
    );

    // A config file with a mistake: the check fails naming the line, and
    // doctor exits 1.
    std::fs::write(
        config.join("config.toml"),
        "[tasks]\nmax_parallel = 2\nmax_paralel = 3\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, report, _) = doctor_json(&env);
    let config_check = check(&report, "config");
    assert_eq!(config_check["verdict"], "fail", "{config_check}");
    let detail = str_field(config_check, "detail");
    assert!(detail.contains("config.toml:3"), "{detail}");
    assert!(detail.contains("max_paralel"), "{detail}");
    assert!(str_field(config_check, "fix").contains("signaltty config show"));
    assert_eq!(code, Some(1));
}

#[test]
fn a_damaged_journal_or_snapshot_fails_and_set_aside_snapshots_warn() {
    let env = TestEnv::new();
    let state = env.state_home().join("signaltty");
    std::fs::create_dir_all(&state).unwrap_or_else(|e| panic!("{e}"));
    set_mode(&state, 0o700);
    let write = |name: &str, text: &str| {
        std::fs::write(state.join(name), text).unwrap_or_else(|e| panic!("{e}"));
    };
    write("audit.jsonl", "not a record\n");
    write("snapshot.json", "{\"version\": 1, \"seq\": 4}");
    write("snapshot.corrupt-20261201T101010", "garbage");
    let (code, report, _) = doctor_json(&env);
    assert_eq!(code, Some(1));
    let journal = check(&report, "journal");
    assert_eq!(journal["verdict"], "fail", "{journal}");
    assert!(
        str_field(journal, "detail").contains("line 1 is not a journal record"),
        "{journal}"
    );
    assert!(str_field(journal, "fix").contains("signaltty journal verify"));
    let snapshot = check(&report, "snapshot");
    assert_eq!(snapshot["verdict"], "warn", "{snapshot}");
    assert!(
        str_field(snapshot, "detail").contains("seq 4")
            && str_field(snapshot, "detail").contains("snapshot.corrupt-20261201T101010"),
        "{snapshot}"
    );

    write("snapshot.json", "{\"version\": 7}");
    let (_, report, _) = doctor_json(&env);
    let snapshot = check(&report, "snapshot");
    assert_eq!(snapshot["verdict"], "fail", "{snapshot}");
    assert!(
        str_field(snapshot, "detail").contains("version 7"),
        "{snapshot}"
    );
    // Looked at, never moved aside: that is the server's to do.
    assert!(state.join("snapshot.json").exists());
}
