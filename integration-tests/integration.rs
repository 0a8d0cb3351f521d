//! Hook integration end to end (docs/integrations.md,
//! docs/methods.md#the-integration-object): the CLI's install/status/uninstall
//! on a temp HOME, automatic setup when a pane launches a supported agent
//! (before the process starts), and the OpenCode plugin executed under node
//! with both plugin loaders.

use crate::support::agents::{script, wait_screen, workspace};
use crate::support::client::Client;
use crate::support::process::BIN;
use crate::support::{TestEnv, TestServer, ok, str_field};
use serde_json::{Value, json};
use std::path::Path;

fn spawn(c: &mut Client, ws: &str, argv: Value) -> Value {
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": argv}),
    ))
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_default()).unwrap_or(Value::Null)
}

/// A `claude` launched in a pane finds its hooks already in place: the
/// settings file is written before the process runs.
#[test]
fn launching_claude_installs_its_hooks_before_it_starts() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "integration");
    let home = server.env().home();
    let claude = script(
        server.env().root(),
        "claude",
        "if grep -q 'hook-event --agent claude --event Stop' \"$HOME/.claude/settings.json\"; then echo settings-present; else echo settings-missing; fi\nexec sleep 600\n",
    );
    let r = spawn(&mut c, &ws, json!([claude]));
    let settings = home.join(".claude").join("settings.json");
    assert_eq!(
        r["integration"],
        json!({"agent": "claude", "status": "configured", "changed": true,
               "file": settings.to_string_lossy()})
    );
    let pane = str_field(&r["pane"], "id").to_owned();
    wait_screen(&mut c, &pane, "settings-present");
    let v = json_file(&settings);
    let cmd = str_field(&v["hooks"]["PermissionRequest"][0]["hooks"][0], "command").to_owned();
    assert!(
        cmd.starts_with(&format!("'{BIN}' hook-event --agent claude")),
        "{cmd}"
    );
    assert!(cmd.contains("--wait-for-answer"), "{cmd}");

    // A second launch finds it installed: nothing written.
    let again = spawn(&mut c, &ws, json!([claude]));
    assert_eq!(again["integration"]["changed"], false);
    assert_eq!(again["integration"]["status"], "configured");

    // Launches that turn user hooks off write nothing and say so.
    std::fs::remove_file(&settings).expect("remove");
    let bare = spawn(&mut c, &ws, json!([claude, "--bare"]));
    assert_eq!(bare["integration"]["status"], "disabled");
    assert!(
        bare["integration"]["notice"]
            .as_str()
            .is_some_and(|n| n.contains("disables"))
    );
    assert!(!settings.exists());

    // Anything that is not a supported agent gets no integration at all.
    let sh = spawn(&mut c, &ws, json!(["sh", "-c", "sleep 600"]));
    assert!(sh.get("integration").is_none(), "{sh}");
}

/// A config dir that cannot be written is reported, and the agent still runs.
#[test]
fn a_setup_error_is_reported_and_never_stops_the_launch() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "integration");
    // A file where the config directory should be.
    std::fs::write(server.env().home().join(".claude"), "in the way").expect("write");
    let claude = script(
        server.env().root(),
        "claude",
        "echo started-anyway\nexec sleep 600\n",
    );
    let r = spawn(&mut c, &ws, json!([claude]));
    assert_eq!(r["integration"]["status"], "error");
    assert_eq!(r["integration"]["changed"], false);
    let notice = str_field(&r["integration"], "notice");
    assert!(
        notice.contains("claude status setup failed") && notice.contains("remains available"),
        "{notice}"
    );
    wait_screen(&mut c, str_field(&r["pane"], "id"), "started-anyway");
}

/// An interactive local Codex runs with `--no-daemon` when it supports it; the
/// stored argv stays as given. One that cannot confirm it keeps its argv.
#[test]
fn codex_gets_no_daemon_only_when_its_probe_confirms_it() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "integration");
    let root = server.env().root();
    let modern = script(
        &root.join("modern"),
        "codex",
        "[ \"$1\" = --no-daemon ] && [ \"$2\" = --version ] && exit 0\necho \"argv: $*\"\nexec sleep 600\n",
    );
    let r = spawn(&mut c, &ws, json!([modern, "-m", "gpt-5"]));
    assert_eq!(r["integration"]["status"], "configured", "{r}");
    assert!(
        r["integration"]["notice"]
            .as_str()
            .is_some_and(|n| n.contains("/hooks")),
        "{r}"
    );
    assert_eq!(
        r["pane"]["argv"],
        json!([modern, "-m", "gpt-5"]),
        "the stored argv is unchanged"
    );
    wait_screen(
        &mut c,
        str_field(&r["pane"], "id"),
        "argv: --no-daemon -m gpt-5",
    );
    assert!(server.env().home().join(".codex/hooks.json").exists());

    let old = script(
        &root.join("old"),
        "codex",
        "[ \"$1\" = --no-daemon ] && exit 2\necho \"argv: $*\"\nexec sleep 600\n",
    );
    let r = spawn(&mut c, &ws, json!([old]));
    assert_eq!(r["integration"]["status"], "disabled");
    assert!(str_field(&r["integration"], "notice").contains("cannot confirm --no-daemon"));
    wait_screen(&mut c, str_field(&r["pane"], "id"), "argv:");

    // A utility command is left alone and is not probed.
    let r = spawn(&mut c, &ws, json!([modern, "exec", "hi"]));
    assert_eq!(r["integration"]["status"], "configured");
    wait_screen(&mut c, str_field(&r["pane"], "id"), "argv: exec hi");
}

/// `CLAUDE_CONFIG_DIR` in the launch env moves the file, and resume uses the
/// same retained config.
#[test]
fn the_launch_env_chooses_the_config_dir() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "integration");
    let claude = script(server.env().root(), "claude", "exec sleep 600\n");
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let r = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude],
               "env": {"CLAUDE_CONFIG_DIR": "profile-a"}}),
    ));
    let file = server.env().root().join("profile-a").join("settings.json");
    assert_eq!(
        r["integration"]["file"],
        file.to_string_lossy().as_ref(),
        "{r}"
    );
    assert!(file.exists());
}

fn cli(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let out = env.cli(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The CLI: install, status, uninstall round trip on a given home, with a
/// user's own hooks kept, and a malformed file refused untouched.
#[test]
fn the_cli_installs_reports_and_removes_hooks_without_a_server() {
    let env = TestEnv::new();
    let home = env.root().join("h");
    let h = home.to_string_lossy().into_owned();
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    let mine = r#"{"model": "opus", "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}]}}"#;
    std::fs::write(&settings, mine).expect("write");

    let (code, out, _) = cli(&env, &["integration", "status", "--home", &h]);
    assert_eq!(code, 0);
    assert!(out.contains("claude    not installed"), "{out}");

    let (code, out, err) = cli(&env, &["integration", "install", "claude", "--home", &h]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("claude: installed"), "{out}");
    let (_, out, _) = cli(
        &env,
        &["--json", "integration", "status", "claude", "--home", &h],
    );
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["agents"][0]["status"], "installed");
    assert_eq!(v["agents"][0]["installed"], true);

    let (code, out, _) = cli(
        &env,
        &["--json", "integration", "install", "--all", "--home", &h],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).expect("json");
    let changed: Vec<(&str, bool)> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                str_field(r, "agent"),
                r["changed"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        changed,
        [
            ("codex", true),
            ("claude", false),
            ("opencode", true),
            ("cursor", true),
            ("gemini", true),
            ("pi", true),
            ("qwen", true),
            ("kilo", true)
        ]
    );
    assert!(
        v["results"][0]["notice"]
            .as_str()
            .is_some_and(|n| n.contains("/hooks"))
    );

    let (code, out, _) = cli(&env, &["integration", "uninstall", "--all", "--home", &h]);
    assert_eq!(code, 0);
    assert!(out.contains("claude: removed"), "{out}");
    let left: Value = json_file(&settings);
    let original: Value = serde_json::from_str(mine).expect("json");
    assert_eq!(left, original, "the user's settings are as they were");
    // OpenCode's root follows $XDG_CONFIG_HOME even with --home.
    assert!(
        !env.root()
            .join("config/opencode/plugins/signaltty.js")
            .exists()
    );

    // Malformed: refused, exit 1, byte for byte unchanged, status invalid.
    std::fs::write(&settings, "{invalid").expect("write");
    let (code, _, err) = cli(&env, &["integration", "install", "claude", "--home", &h]);
    assert_eq!(code, 1);
    assert!(err.contains("not valid JSON"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap_or_default(),
        "{invalid"
    );
    let (_, out, _) = cli(&env, &["integration", "status", "claude", "--home", &h]);
    assert!(out.contains("invalid"), "{out}");
    let (code, _, err) = cli(&env, &["integration", "install", "nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown agent"), "{err}");
}

/// The OpenCode plugin runs under node with both plugin loaders: the classic
/// one calls the default export, the newer one its `setup`; either way an
/// OpenCode event becomes a `hook-event` call with the right arguments and
/// payload, and nothing happens outside a signaltty pane.
#[test]
fn the_opencode_plugin_reports_events_under_both_loaders() {
    let env = TestEnv::new();
    let home = env.root().join("h");
    let h = home.to_string_lossy().into_owned();
    let (code, _, err) = cli(&env, &["integration", "install", "opencode", "--home", &h]);
    assert_eq!(code, 0, "{err}");
    let plugin = env.root().join("config/opencode/plugins/signaltty.js");
    let text = std::fs::read_to_string(&plugin).expect("read");
    // Point the plugin at a recorder instead of the real reporter.
    let log = env.root().join("calls.log");
    let recorder = script(
        env.root(),
        "recorder",
        &format!(
            "printf '%s|' \"$@\" >> '{}'\ncat >> '{}'\necho >> '{}'\n",
            log.display(),
            log.display(),
            log.display()
        ),
    );
    let module = env.root().join("plugin.mjs");
    let cli_line = text
        .lines()
        .find(|l| l.starts_with("const CLI = "))
        .expect("CLI line");
    std::fs::write(
        &module,
        text.replace(
            cli_line,
            &format!("const CLI = {:?};", recorder.to_string_lossy()),
        ),
    )
    .expect("write module");
    let driver = format!(
        r#"
const mod = await import({module:?});
const plugin = mod.default;
const hooksV1 = await plugin({{}});
const hooksV2 = await plugin.setup({{}});
if (typeof mod.SignalttyPlugin !== "function" || plugin.id !== "signaltty") throw new Error("exports");
await hooksV1.event({{ event: {{ type: "session.created", properties: {{ info: {{ id: "ses_1" }} }} }} }});
await hooksV2.event({{ event: {{ type: "session.status", properties: {{ sessionID: "ses_1", status: {{ type: "busy" }} }} }} }});
await hooksV1.event({{ event: {{ type: "session.error", properties: {{ sessionID: "ses_1", error: {{ data: {{ message: "rate limited" }} }} }} }} }});
await hooksV1.event({{ event: {{ type: "message.updated", properties: {{}} }} }});
delete process.env.SIGNALTTY_PANE;
await hooksV1.event({{ event: {{ type: "session.idle", properties: {{ sessionID: "ses_1" }} }} }});
"#,
        module = module.to_string_lossy()
    );
    let out = std::process::Command::new("node")
        .args(["--input-type=module", "-e", &driver])
        .env("SIGNALTTY_PANE", "pane_test")
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let lines: Vec<&str> = calls.lines().collect();
    assert_eq!(lines.len(), 3, "{calls}");
    assert_eq!(
        lines[0],
        r#"hook-event|--agent|opencode|--event|session.created|--payload-stdin|{"session_id":"ses_1"}"#
    );
    assert!(
        lines[1]
            .contains(r#"session.status|--payload-stdin|{"session_id":"ses_1","status":"busy"}"#),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains(r#""message":"rate limited""#),
        "{}",
        lines[2]
    );
}

/// `pane.resume` prepares the hooks again before the agent restarts.
#[test]
fn resuming_an_agent_prepares_its_hooks_again() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "integration");
    let claude = script(
        server.env().root(),
        "claude",
        "if [ -n \"$SIGNALTTY_BIN\" ]; then printf '{\"session_id\":\"r1\"}' | \"$SIGNALTTY_BIN\" hook-event --agent claude --event SessionStart; fi\necho \"ran $*\"\nexec sleep 1\n",
    );
    let tab = ok(c.call("tab.create", json!({"workspace_id": ws})));
    let r = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "tab_id": tab["tab"]["id"], "argv": [claude], "env": {"SIGNALTTY_BIN": BIN}}),
    ));
    let pane = str_field(&r["pane"], "id").to_owned();
    ok(c.call(
        "wait",
        json!({"pane_id": pane, "until": "exited", "timeout_s": 20}),
    ));
    let settings = server.env().home().join(".claude/settings.json");
    std::fs::remove_file(&settings).unwrap_or_else(|e| panic!("remove: {e}"));
    let resumed = ok(c.call("pane.resume", json!({"pane_id": pane})));
    assert_eq!(resumed["integration"]["status"], "configured", "{resumed}");
    assert_eq!(resumed["integration"]["changed"], true);
    assert!(settings.exists());
    wait_screen(&mut c, &pane, "ran --resume r1");
}
