//! Usage limits through the real binary (docs/states.md#usage-limits,
//! docs/states.md#auto-continue): a hook-less Claude look-alike says it hit
//! its limit; the pane reads `blocked` + `rate_limited` with the reset time
//! it gave, `signaltty attention` shows it, and it survives a restart; with
//! auto-continue on, the continue prompt is typed exactly once after the
//! reset and the margin.

use crate::support::agents::{script, wait_state, workspace};
use crate::support::{TestEnv, TestServer, ok, str_field, wait_until};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// A hook-less `claude` that works for a moment, then says it hit its
/// session limit, resetting in `resets_in`; each line typed into it is
/// appended to `$LIMIT_LOG` and answered with a short turn.
fn limited_claude(root: &Path, resets_in: &str) -> std::path::PathBuf {
    let body = format!(
        r#"rule='────────────────────────────────────────'
box() {{ printf '%s\r\n❯ \r\n%s\r\n' "$rule" "$rule"; }}
printf '\033]0;Claude Code\007'
printf '\033[2J\033[H* Cogitating… (1s · esc to interrupt)\r\n'
sleep 1
printf '\033[2J\033[H❯ Create out.txt\r\n\r\n● You%sve hit your session limit · resets {resets_in}\r\n\r\n' "'"
box
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$LIMIT_LOG"
  printf '\033[2J\033[H* Cogitating… (1s · esc to interrupt)\r\n'
  sleep 2
  printf '\033[2J\033[H● Done.\r\n\r\n'
  box
done
"#
    );
    script(root, "claude", &body)
}

fn spawn(c: &mut crate::support::client::Client, ws: &str, claude: &Path, log: &Path) -> String {
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": [claude], "env": {"LIMIT_LOG": log}}),
    ));
    str_field(&pane["pane"], "id").to_owned()
}

fn pane_of(c: &mut crate::support::client::Client, pane: &str) -> Value {
    ok(c.call("pane.get", json!({"pane_id": pane})))["pane"].clone()
}

/// Seconds from now to the pane's `resets_at`.
fn resets_in(pane: &Value) -> i64 {
    let at = signaltty_protocol::Timestamp(str_field(pane, "resets_at").to_owned());
    at.seconds_since(&signaltty_protocol::Timestamp::now())
        .unwrap_or_else(|| panic!("a timestamp: {pane}"))
}

#[test]
fn a_limit_on_screen_is_rate_limited_shown_and_kept_across_a_restart() {
    let mut server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "limits");
    let root = server.env().root().to_path_buf();
    let claude = limited_claude(&root, "in 2h 13m");
    let pane = spawn(&mut c, &ws, &claude, &root.join("typed.log"));
    let limited = wait_state(&mut c, &pane, "rate_limited");
    assert_eq!(limited["lifecycle"], "blocked", "{limited}");
    let p = pane_of(&mut c, &pane);
    let secs = resets_in(&p);
    assert!((7960..=7980).contains(&secs), "{secs}: {p}");
    let explain = ok(c.call("pane.explain", json!({"pane_id": pane})));
    assert_eq!(
        explain["lifecycle"]["source"], "screen:usage_limit",
        "{explain}"
    );
    // Reading it does not clear the wait.
    ok(c.call("pane.mark_seen", json!({"pane_id": pane})));
    assert_eq!(pane_of(&mut c, &pane)["attention"], "rate_limited");
    let out = server.env().cli(&["attention"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rate_limited")
            && text.contains(&format!("resets {}", str_field(&p, "resets_at"))),
        "{text}"
    );
    // The journal keeps it: after a crash the tombstone says the same.
    server.crash_and_restart();
    let mut c = server.client();
    let after = pane_of(&mut c, &pane);
    assert_eq!(after["attention"], "rate_limited", "{after}");
    assert_eq!(after["resets_at"], p["resets_at"], "{after}");
}

#[test]
fn auto_continue_types_the_continue_prompt_once_after_the_reset() {
    let mut env = TestEnv::new();
    env.set_var("SIGNALTTY_AUTO_CONTINUE_MARGIN_S", "1");
    let server = TestServer::start_in(env);
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.auto_continued"]})));
    let ws = workspace(&mut c, &server, "limits");
    let on = ok(c.call(
        "workspace.set_auto_continue",
        json!({"workspace_id": ws, "enabled": true}),
    ));
    assert_eq!(on["workspace"]["auto_continue"], true, "{on}");
    let root = server.env().root().to_path_buf();
    let log = root.join("typed.log");
    let claude = limited_claude(&root, "in 3s");
    let pane = spawn(&mut c, &ws, &claude, &log);
    wait_state(&mut c, &pane, "rate_limited");
    let resets_at = pane_of(&mut c, &pane)["resets_at"].clone();
    assert!(resets_at.is_string(), "{resets_at}");
    // Three seconds to the reset, one of margin: then the prompt, once.
    let event = sub.next_event();
    assert_eq!(event.event, "pane.auto_continued");
    assert_eq!(event.payload["pane_id"], pane.as_str());
    assert_eq!(event.payload["resets_at"], resets_at);
    assert_eq!(event.payload["prompt"], "continue");
    wait_until(
        "the agent to take the prompt",
        Duration::from_secs(20),
        || std::fs::read_to_string(&log).ok().filter(|t| !t.is_empty()),
    );
    // It works, then its turn ends: the wait is over.
    let moved = wait_state(&mut c, &pane, "working");
    assert_eq!(moved["attention"], "none", "{moved}");
    let settled = wait_until("the turn to end", Duration::from_secs(20), || {
        let p = pane_of(&mut c, &pane);
        matches!(p["lifecycle"].as_str(), Some("done" | "idle")).then_some(p)
    });
    assert!(settled["resets_at"].is_null(), "{settled}");
    let typed = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(typed, "continue\n");
    // The setting is the workspace's, for the journal and `workspace get`.
    let ws_now = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(ws_now["workspace"]["auto_continue"], true, "{ws_now}");
}

#[test]
fn auto_continue_is_set_from_the_cli_and_refuses_a_blank_prompt() {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "limits");
    let out = server.env().cli(&[
        "workspace",
        "auto-continue",
        &ws,
        "on",
        "--prompt",
        " go on ",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("auto-continue on, typing \"go on\""),
        "{text}"
    );
    let got = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert_eq!(got["workspace"]["auto_continue"], true, "{got}");
    assert_eq!(got["workspace"]["auto_continue_prompt"], "go on", "{got}");
    let bad = c.call(
        "workspace.set_auto_continue",
        json!({"workspace_id": ws, "enabled": true, "prompt": "  "}),
    );
    crate::support::expect_code(bad, signaltty_protocol::ErrorCode::BadParams);
    let out = server
        .env()
        .cli(&["workspace", "auto-continue", &ws, "off"]);
    assert!(out.status.success(), "{out:?}");
    let got = ok(c.call("workspace.get", json!({"workspace_id": ws})));
    assert!(got["workspace"]["auto_continue"].is_null(), "{got}");
    assert!(got["workspace"]["auto_continue_prompt"].is_null(), "{got}");
}

/// Auto-continue on the server's wall clock, stepped by libfaketime
/// (docs/states.md#auto-continue): a limit two hours and thirteen minutes
/// out is not continued when the clock jumps two hours, and is, once, when it
/// jumps past the reset and the 60 s margin. Needs libfaketime, as the
/// clock tests do.
#[test]
fn auto_continue_follows_the_wall_clock_to_the_reset() {
    let lib = crate::clock::libfaketime()
        .unwrap_or_else(|| panic!("libfaketime is needed (apt-get install faketime)"));
    let env = TestEnv::new();
    let offset = env.root().join("faketime.rc");
    crate::clock::set_offset(&offset, 0);
    let socket = env.default_socket();
    let mut cmd = env.command(&["server"]);
    cmd.env("LD_PRELOAD", &lib)
        .env("FAKETIME_TIMESTAMP_FILE", &offset)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("NO_FAKE_STAT", "1");
    let server = TestServer::start_with_command(env, cmd, socket);
    let mut c = server.client();
    let mut sub = server.client();
    ok(sub.call("subscribe", json!({"events": ["pane.auto_continued"]})));
    let ws = workspace(&mut c, &server, "limits");
    // The fake Claude takes "prompt …" as a submitted prompt.
    ok(c.call(
        "workspace.set_auto_continue",
        json!({"workspace_id": ws, "enabled": true, "prompt": "prompt continue"}),
    ));
    let pane = crate::support::agents::spawn_fake_with(&mut c, &ws, "fake-claude", json!({}));
    wait_state(&mut c, &pane, "idle");
    crate::support::agents::type_line(&mut c, &pane, "prompt build it");
    wait_state(&mut c, &pane, "working");
    crate::support::agents::type_line(
        &mut c,
        &pane,
        "limit You've hit your session limit · resets in 2h 13m",
    );
    wait_state(&mut c, &pane, "rate_limited");
    // Two hours later on the wall clock: 13 minutes still to go. Two
    // checks of the second-long sweep pass; nothing is typed.
    crate::clock::set_offset(&offset, 2 * 3600);
    let mut probe = server.client();
    let deadline = std::time::Instant::now() + Duration::from_millis(2500);
    while std::time::Instant::now() < deadline {
        let p = pane_of(&mut probe, &pane);
        assert_eq!(p["attention"], "rate_limited", "{p}");
        std::thread::sleep(Duration::from_millis(250));
    }
    // Past the reset and the margin: continued, once.
    crate::clock::set_offset(&offset, 2 * 3600 + 15 * 60);
    let event = sub.next_event();
    assert_eq!(event.event, "pane.auto_continued");
    assert_eq!(event.payload["prompt"], "prompt continue");
    let working = wait_state(&mut c, &pane, "working");
    assert_eq!(working["attention"], "none", "{working}");
}
