//! `signaltty ask` and `pane.ask` through the real server (docs/ask.md): the
//! prompt goes in through the submit gate, the turn is waited for, and the
//! agent's answer comes back — from its turn-end hook, else from the screen
//! — with the exit status of the outcome; a busy pane is waited for or, with
//! `--only-if-idle`, refused; the time runs out.

use crate::support::agents::{script, wait_state, workspace};
use crate::support::process::BIN;
use crate::support::{Client, TestServer, expect_code, ok, str_field};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;
use std::process::Output;

/// An agent look-alike that reports as Claude Code and answers every prompt
/// on its own: it draws the prompt, thinks 0.3 s (3 s when the prompt says
/// "slow"), then draws its answer above an input box and reports the turn's
/// end — with its text in the hook when `$ASK_MODE` is `hook`, without it
/// otherwise. A prompt that says "permission" asks for one instead.
pub(crate) const ASKED: &str = r#"bin=$SIGNALTTY_BIN
stty -echo
base="\"session_id\":\"ask-session\",\"cwd\":\"$PWD\""
hook() { printf '%s' "$2" | "$bin" hook-event --agent claude --event "$1" >/dev/null; }
hook SessionStart "{$base,\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"
printf 'ready\r\n> '
on=$(printf '\033[200~'); off=$(printf '\033[201~')
while IFS= read -r line; do
    line=${line//"$on"/}; line=${line//"$off"/}; line=${line%$'\r'}
    hook UserPromptSubmit "{$base,\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"p\"}"
    printf '%s\r\n* Thinking...\r\n' "$line"
    sleep 0.3
    case $line in
    *permission*)
        hook PermissionRequest "{$base,\"hook_event_name\":\"PermissionRequest\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"make deploy\"}}"
        printf 'Do you want to proceed?\r\n'
        continue
        ;;
    *slow*) sleep 3 ;;
    esac
    printf 'The answer to "%s" is 42.\r\n\r\n' "$line"
    printf '\342\225\255\342\224\200\342\224\200\r\n> \r\n\342\225\260\342\224\200\342\224\200\r\n'
    if [ "${ASK_MODE:-}" = hook ]; then
        hook Stop "{$base,\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"It is 42.\"}"
    else
        hook Stop "{$base,\"hook_event_name\":\"Stop\"}"
    fi
done
"#;

/// A server with the look-alike in a pane, idle; `mode` is `$ASK_MODE`.
pub(crate) fn asked(mode: &str) -> (TestServer, Client, String) {
    let server = TestServer::start();
    let mut c = server.client();
    let ws = workspace(&mut c, &server, "ask");
    let agent = script(server.env().root(), "asked", ASKED);
    let pane = ok(c.call(
        "pane.spawn",
        json!({"workspace_id": ws, "argv": ["bash", agent], "env": {"SIGNALTTY_BIN": BIN, "ASK_MODE": mode}}),
    ));
    let pane = str_field(&pane["pane"], "id").to_owned();
    wait_state(&mut c, &pane, "idle");
    (server, c, pane)
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
}

#[test]
fn ask_prints_the_answer_of_the_agents_turn_end_and_exits_0() {
    let (server, mut c, pane) = asked("hook");
    let out = server.cli(&["ask", &pane, "what is six times seven", "--timeout", "30"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text(&out), "It is 42.");
    // The turn is over: the pane is done, its answer unread.
    let got = ok(c.call("pane.get", json!({"pane_id": pane})));
    assert_eq!(got["pane"]["lifecycle"], "done");
    let json = server.cli(&["--json", "ask", &pane, "and again"]);
    let r: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(r["outcome"], "done", "{r}");
    assert_eq!(r["submitted"], true);
    assert_eq!(r["answer_source"], "hook");
}

#[test]
fn without_text_in_the_hook_the_answer_is_the_turns_text_on_the_screen() {
    let (server, _c, pane) = asked("screen");
    let json = server.cli(&["--json", "ask", &pane, "what is six times seven"]);
    let r: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(r["outcome"], "done", "{r}");
    assert_eq!(r["answer_source"], "screen", "{r}");
    assert_eq!(
        r["answer"], "* Thinking...\nThe answer to \"what is six times seven\" is 42.",
        "below the prompt, above the input box"
    );
}

#[test]
fn a_question_ends_the_ask_blocked_with_the_question_and_exit_4() {
    let (server, mut c, pane) = asked("hook");
    let out = server.cli(&["ask", &pane, "deploy it, with permission"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(text(&out).starts_with("blocked: "), "{}", text(&out));
    assert!(text(&out).contains("Bash"), "the question: {}", text(&out));
    // Still asking: a second ask that will not wait is refused.
    let refused = c.call(
        "pane.ask",
        json!({"pane_id": pane, "text": "x", "only_if_idle": true}),
    );
    let e = expect_code(refused, ErrorCode::AgentBusy);
    assert_eq!(e.details, Some(json!({"lifecycle": "blocked"})));
}

#[test]
fn a_busy_pane_is_waited_for_unless_only_if_idle_refuses_it() {
    let (server, mut c, pane) = asked("hook");
    ok(c.call(
        "pane.submit",
        json!({"pane_id": pane, "text": "a slow first question"}),
    ));
    let refused = c.call(
        "pane.ask",
        json!({"pane_id": pane, "text": "second", "only_if_idle": true}),
    );
    let e = expect_code(refused, ErrorCode::AgentBusy);
    assert_eq!(e.details, Some(json!({"lifecycle": "working"})));
    let cli = server.cli(&["ask", &pane, "second", "--only-if-idle"]);
    assert_eq!(cli.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&cli.stderr).contains("AGENT_BUSY"));
    // Without the flag the ask waits for the slow turn, then asks.
    let r = ok(c.call("pane.ask", json!({"pane_id": pane, "text": "second"})));
    assert_eq!(r["outcome"], "done", "{r}");
    assert_eq!(r["answer"], "It is 42.");
    let screen = ok(c.call("pane.read", json!({"pane_id": pane, "mode": "screen"})));
    let screen = str_field(&screen, "text");
    let first = screen.find(r#"The answer to "a slow first question" is 42."#);
    let second = screen.find(r#"The answer to "second" is 42."#);
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "the second prompt went in after the first turn: {screen}"
    );
}

#[test]
fn the_time_running_out_is_a_timeout_with_exit_6() {
    let (server, mut c, pane) = asked("hook");
    let out = server.cli(&["ask", &pane, "a slow one", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(6), "{}", text(&out));
    assert!(
        text(&out).starts_with("timeout: the agent is still working"),
        "{}",
        text(&out)
    );
    // A busy pane that stays busy: nothing is submitted.
    let r = ok(c.call(
        "pane.ask",
        json!({"pane_id": pane, "text": "never typed", "timeout_ms": 200}),
    ));
    assert_eq!(r["outcome"], "timeout", "{r}");
    assert_eq!(r["submitted"], false);
    // Bad input is refused before anything is typed.
    expect_code(
        c.call("pane.ask", json!({"pane_id": pane, "text": ""})),
        ErrorCode::BadParams,
    );
    expect_code(
        c.call("pane.ask", json!({"pane_id": "nosuch", "text": "x"})),
        ErrorCode::NoSuchPane,
    );
}
