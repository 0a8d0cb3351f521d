//! `signaltty service install|uninstall|status` (docs/service.md) with a fake
//! `systemctl` first on `PATH`: it logs its arguments and answers `is-enabled`
//! and `is-active` from files the test writes. The web view's unit
//! (`--web`) is `service/web.rs`.

mod web;

use crate::support::process::{BIN, run_with_deadline, set_mode};
use crate::support::{TestEnv, TestServer};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fake: `$FAKE_DIR/log` gets one line per call; `is-enabled`/`is-active`
/// print the content of `$FAKE_DIR/enabled`/`active` (default `disabled`,
/// `inactive`; `active-<unit>` first) and succeed only for `enabled`/`active`; with
/// `$FAKE_DIR/unreachable` present every call fails as without a user bus.
const FAKE_SYSTEMCTL: &str = r#"#!/bin/sh
d="$FAKE_DIR"
echo "$*" >> "$d/log"
if [ -e "$d/unreachable" ]; then
  echo "Failed to connect to bus: No medium found" >&2
  exit 1
fi
case "$2" in
  is-enabled) v=$(cat "$d/enabled" 2>/dev/null || echo disabled); echo "$v"; [ "$v" = enabled ];;
  is-active) v=$(cat "$d/active-$3" 2>/dev/null || cat "$d/active" 2>/dev/null || echo inactive)
    echo "$v"; [ "$v" = active ];;
  *) exit 0;;
esac
"#;

/// A test env with the fake `systemctl` first on `PATH`.
struct Fake {
    env: TestEnv,
    dir: PathBuf,
}

impl Fake {
    fn new() -> Fake {
        Fake::in_env(TestEnv::new())
    }

    fn in_env(mut env: TestEnv) -> Fake {
        let dir = env.root().join("fake");
        let bin = dir.join("bin");
        if let Err(e) = std::fs::create_dir_all(&bin) {
            panic!("cannot create {}: {e}", bin.display());
        }
        let script = bin.join("systemctl");
        if let Err(e) = std::fs::write(&script, FAKE_SYSTEMCTL) {
            panic!("cannot write {}: {e}", script.display());
        }
        set_mode(&script, 0o755);
        env.set_var("PATH", format!("{}:/usr/bin:/bin", bin.display()));
        env.set_var("FAKE_DIR", &dir);
        Fake { env, dir }
    }

    /// Every call the fake got, one line each (`--user …`).
    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("log"))
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// Forgets the calls so far.
    fn clear(&self) {
        let _ = std::fs::remove_file(self.dir.join("log"));
    }

    /// What `is-enabled` and `is-active` answer from now on.
    fn answer(&self, enabled: &str, active: &str) {
        for (file, text) in [("enabled", enabled), ("active", active)] {
            if let Err(e) = std::fs::write(self.dir.join(file), text) {
                panic!("cannot write the fake's answer: {e}");
            }
        }
    }

    fn unit_dir(&self) -> PathBuf {
        self.env.root().join("config/systemd/user")
    }

    fn unit(&self, name: &str) -> PathBuf {
        self.unit_dir().join(name)
    }

    fn read_unit(&self, name: &str) -> String {
        match std::fs::read_to_string(self.unit(name)) {
            Ok(t) => t,
            Err(e) => panic!("cannot read {}: {e}", self.unit(name).display()),
        }
    }

    fn cli(&self, args: &[&str]) -> Output {
        self.env.cli(args)
    }
}

/// Stdout and stderr, for failure messages.
fn shown(out: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts exit 0 and returns stdout.
#[track_caller]
fn success(out: &Output) -> String {
    assert!(out.status.success(), "{}", shown(out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts exit 0 and parses stdout as JSON.
#[track_caller]
fn success_json(out: &Output) -> Value {
    match serde_json::from_str(&success(out)) {
        Ok(v) => v,
        Err(e) => panic!("stdout is not JSON ({e}): {}", shown(out)),
    }
}

/// The value of `key=` in a unit file (the first one).
fn directive(text: &str, key: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .map(str::to_owned)
}

/// The binary as ExecStart= must name it.
fn canonical_bin() -> PathBuf {
    match std::fs::canonicalize(BIN) {
        Ok(p) => p,
        Err(e) => panic!("cannot resolve {BIN}: {e}"),
    }
}

/// `systemd-analyze verify --user` on the written units, when it exists.
fn verify_with_systemd_analyze(fake: &Fake) {
    let found = Command::new("/bin/sh")
        .args(["-c", "command -v systemd-analyze"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        println!(
            "skipped: systemd-analyze is not installed, the units are not verified by systemd"
        );
        return;
    }
    let mut cmd = Command::new("systemd-analyze");
    cmd.args(["verify", "--user"])
        .arg(fake.unit("signaltty.socket"))
        .arg(fake.unit("signaltty.service"));
    if fake.unit("signaltty-web.service").exists() {
        cmd.arg(fake.unit("signaltty-web.service"));
    }
    fake.env.apply_env(&mut cmd);
    // Its own PATH, not the fake's: it must not run our fake systemctl.
    cmd.env("PATH", "/usr/bin:/bin");
    let out = run_with_deadline(&mut cmd, "systemd-analyze verify");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "systemd-analyze verify found problems: {}",
        shown(&out)
    );
}

#[test]
fn install_writes_both_units_enables_the_socket_and_is_idempotent() {
    let fake = Fake::new();
    let out = fake.cli(&["service", "install"]);
    let stdout = success(&out);
    assert!(
        stdout.contains("ran: systemctl --user daemon-reload"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ran: systemctl --user enable --now signaltty.socket"),
        "{stdout}"
    );
    assert_eq!(
        fake.calls(),
        [
            "--user daemon-reload",
            "--user enable --now signaltty.socket"
        ]
    );

    let service = fake.read_unit("signaltty.service");
    let exec = format!("{} server", canonical_bin().display());
    assert_eq!(directive(&service, "ExecStart"), Some(exec));
    for (key, value) in [
        ("Type", "notify"),
        ("NotifyAccess", "main"),
        ("Restart", "on-failure"),
        ("Requires", "signaltty.socket"),
        ("After", "signaltty.socket"),
        ("Also", "signaltty.socket"),
    ] {
        assert_eq!(directive(&service, key).as_deref(), Some(value), "{key}");
    }
    assert!(directive(&service, "RestartSec").is_some());
    let socket = fake.read_unit("signaltty.socket");
    for (key, value) in [
        ("ListenStream", "%t/signaltty/signaltty.sock"),
        ("SocketMode", "0600"),
        ("DirectoryMode", "0700"),
        ("WantedBy", "sockets.target"),
    ] {
        assert_eq!(directive(&socket, key).as_deref(), Some(value), "{key}");
    }
    verify_with_systemd_analyze(&fake);

    // Again, with the socket enabled and listening: nothing is written and
    // nothing but the two questions is asked.
    fake.clear();
    fake.answer("enabled", "active");
    let json = success_json(&fake.cli(&["--json", "service", "install"]));
    assert_eq!(json["changed"], Value::Bool(false), "{json}");
    assert!(
        json["files"]
            .as_array()
            .is_some_and(|f| f.iter().all(|f| f["action"] == "unchanged")),
        "{json}"
    );
    assert_eq!(
        fake.calls(),
        [
            "--user is-enabled signaltty.socket",
            "--user is-active signaltty.socket"
        ]
    );
    let text = success(&fake.cli(&["service", "install"]));
    assert!(text.contains("nothing changed"), "{text}");
    assert_eq!(fake.read_unit("signaltty.service"), service);

    // Status: installed, ours, pointing at this binary, both units' answers.
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    assert_eq!(status["installed"], Value::Bool(true), "{status}");
    let units = status["units"].as_array().cloned().unwrap_or_default();
    assert_eq!(units.len(), 2, "{status}");
    for unit in &units {
        assert_eq!(unit["owner"], "ours", "{unit}");
        assert_eq!(unit["enabled"], "enabled", "{unit}");
        assert_eq!(unit["active"], "active", "{unit}");
    }
    assert_eq!(
        units[0]["exec_start"].as_str().map(PathBuf::from),
        Some(canonical_bin())
    );
    assert_eq!(units[0]["exec_start_exists"], Value::Bool(true));
    assert_eq!(status["server"]["running"], Value::Bool(false), "{status}");
    let text = success(&fake.cli(&["service", "status"]));
    assert!(text.contains("signaltty.socket"), "{text}");
}

#[test]
fn an_edited_unit_is_kept_unless_forced_and_uninstall_removes_only_ours() {
    let fake = Fake::new();
    success(&fake.cli(&["service", "install"]));
    let service = fake.unit("signaltty.service");
    let edited = format!("{}# my own tweak\n", fake.read_unit("signaltty.service"));
    if let Err(e) = std::fs::write(&service, &edited) {
        panic!("cannot edit {}: {e}", service.display());
    }
    fake.clear();
    let out = fake.cli(&["service", "install"]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("edited"), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(
        fake.read_unit("signaltty.service"),
        edited,
        "left as it was"
    );
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());

    let stdout = success(&fake.cli(&["service", "install", "--force"]));
    assert!(stdout.contains("replaced"), "{stdout}");
    assert!(!fake.read_unit("signaltty.service").contains("my own tweak"));

    // The socket unit becomes the user's own (no marker line): uninstall
    // stops and removes only the service, and keeps the socket unit.
    let socket = fake.unit("signaltty.socket");
    let own = "[Socket]\nListenStream=%t/mine.sock\n";
    if let Err(e) = std::fs::write(&socket, own) {
        panic!("cannot write {}: {e}", socket.display());
    }
    fake.clear();
    let stdout = success(&fake.cli(&["service", "uninstall"]));
    assert!(stdout.contains("kept"), "{stdout}");
    assert!(!service.exists(), "ours is removed");
    assert_eq!(fake.read_unit("signaltty.socket"), own, "the user's stays");
    let calls = fake.calls();
    assert!(
        calls.contains(&"--user disable --now signaltty.service".to_owned()),
        "{calls:?}"
    );
    assert!(
        !calls
            .iter()
            .any(|c| c.contains("disable") && c.contains("signaltty.socket")),
        "the user's unit is not disabled: {calls:?}"
    );
    assert_eq!(
        calls.last().map(String::as_str),
        Some("--user daemon-reload")
    );

    // Nothing of ours left: nothing to do, nothing run.
    fake.clear();
    let stdout = success(&fake.cli(&["service", "uninstall"]));
    assert!(stdout.contains("nothing to do"), "{stdout}");
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());
}

#[test]
fn install_and_uninstall_without_a_reachable_manager_say_what_to_run() {
    let fake = Fake::new();
    std::fs::write(fake.dir.join("unreachable"), "").unwrap_or_else(|e| panic!("{e}"));
    let stdout = success(&fake.cli(&["service", "install"]));
    assert!(fake.unit("signaltty.service").exists());
    assert!(fake.unit("signaltty.socket").exists());
    assert!(stdout.contains("No medium found"), "{stdout}");
    assert!(stdout.contains("to finish, run:"), "{stdout}");
    assert!(
        stdout.contains("  systemctl --user daemon-reload"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  systemctl --user enable --now signaltty.socket"),
        "{stdout}"
    );
    // The units may still run: uninstall keeps the files and says so.
    let out = fake.cli(&["service", "uninstall"]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    assert!(fake.unit("signaltty.service").exists());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("systemctl --user disable --now signaltty.socket signaltty.service"),
        "{stdout}"
    );

    // No systemctl at all: the files are written, and the steps are named.
    let mut bare = TestEnv::new();
    let empty = bare.root().join("empty-bin");
    std::fs::create_dir(&empty).unwrap_or_else(|e| panic!("{e}"));
    bare.set_var("PATH", &empty);
    let out = bare.cli(&["--json", "service", "install"]);
    let json = success_json(&out);
    assert_eq!(
        json["todo"],
        serde_json::json!([
            "systemctl --user daemon-reload",
            "systemctl --user enable --now signaltty.socket"
        ]),
        "{json}"
    );
    assert!(Path::new(&bare.root().join("config/systemd/user/signaltty.socket")).exists());
    // And uninstall removes them, with nothing to stop.
    let stdout = success(&bare.cli(&["service", "uninstall"]));
    assert!(stdout.contains("systemctl is not installed"), "{stdout}");
    assert!(
        !bare
            .root()
            .join("config/systemd/user/signaltty.socket")
            .exists()
    );
}

#[test]
fn install_refuses_while_a_server_not_started_by_systemd_answers() {
    let server = TestServer::start();
    let own = server
        .client()
        .call_ok("server.status", serde_json::json!({}));
    assert_eq!(own["socket_activated"], Value::Bool(false), "{own}");
    assert_eq!(own["pid"], serde_json::json!(server.pid()), "{own}");
    let mut env = TestEnv::new();
    // The same runtime dir, so the unit's socket is the running server's.
    env.set_var("XDG_RUNTIME_DIR", server.env().runtime_dir());
    let fake = Fake::in_env(env);
    let out = fake.cli(&["service", "install"]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not started by systemd"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", server.pid())),
        "{stderr}"
    );
    assert!(!fake.unit("signaltty.service").exists(), "nothing written");
    // Only asked whether systemd listens there (it does not) before connecting.
    assert_eq!(fake.calls(), ["--user is-active signaltty.socket"]);
    fake.clear();

    // Forced: the units are written and enabled but not started (the socket
    // is taken), and the user is told to stop the server first.
    let json = success_json(&fake.cli(&["--json", "service", "install", "--force"]));
    assert_eq!(
        fake.calls(),
        [
            "--user is-active signaltty.socket",
            "--user daemon-reload",
            "--user enable signaltty.socket"
        ]
    );
    assert_eq!(
        json["todo"],
        serde_json::json!(["signaltty stop", "systemctl --user start signaltty.socket"]),
        "{json}"
    );
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    assert_eq!(status["server"]["running"], Value::Bool(true), "{status}");
    assert_eq!(
        status["server"]["socket_activated"],
        Value::Bool(false),
        "{status}"
    );
}

#[test]
fn status_never_starts_the_server_of_a_listening_socket_unit() {
    let fake = Fake::new();
    success(&fake.cli(&["service", "install"]));
    // Stand in for systemd: its socket listens, its service is not active.
    let dir = fake.env.default_socket_dir();
    std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    let listener = std::os::unix::net::UnixListener::bind(fake.env.default_socket())
        .unwrap_or_else(|e| panic!("cannot bind: {e}"));
    listener
        .set_nonblocking(true)
        .unwrap_or_else(|e| panic!("{e}"));
    fake.answer("enabled", "active");
    std::fs::write(fake.dir.join("active-signaltty.service"), "inactive")
        .unwrap_or_else(|e| panic!("{e}"));
    let status = success_json(&fake.cli(&["--json", "service", "status"]));
    assert_eq!(status["server"]["running"], Value::Bool(false), "{status}");
    assert_eq!(
        status["server"]["starts_on_connect"],
        Value::Bool(true),
        "{status}"
    );
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "status connected to the socket, which would have started a server"
    );
    let text = success(&fake.cli(&["service", "status"]));
    assert!(text.contains("the next connection"), "{text}");
}
