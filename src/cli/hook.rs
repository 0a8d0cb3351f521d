//! The hook reporters, what agents' installed hooks run: `signaltty
//! hook-event` (a hook, or with `--wait` a permission request held until a
//! person answers) and `signaltty report-session` (an agent's session id).
//! `hook-event` never breaks its agent: no server is not an error.

use crate::args::Global;
use crate::cli::{
    call, env_pane, fail_call, fail_with, pane_or_env, parse_severity, resolve_socket,
};
use serde_json::Value;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::pane::PaneResult;
use signaltty_protocol::state::{
    DecisionInput, HookEventParams, HookEventResult, HookWaitReply, ReportSessionParams,
    native_verdict_line,
};
use signaltty_protocol::{ErrorCode, Method, PaneRef};
use std::io::{IsTerminal as _, Read as _};
use std::time::Duration;

/// How long a hook reporter waits for the server's answer: agents run hooks
/// with short timeouts of their own.
pub const HOOK_REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// `signaltty hook-event`: what the hook asked to send (the clap tree names
/// this struct).
#[derive(Debug, clap::Args)]
pub struct HookEventArgs {
    /// claude, codex, opencode, cursor, pi, gemini, generic or none.
    #[arg(long)]
    pub agent: String,
    /// The native hook name (Stop, PermissionRequest, session.idle, …).
    #[arg(long)]
    pub event: String,
    /// Pane id or name (default: $SIGNALTTY_PANE, else found from this process's parents).
    #[arg(long)]
    pub pane: Option<String>,
    /// Read the payload from stdin even when it is a terminal.
    #[arg(long)]
    pub payload_stdin: bool,
    /// An explicit notification body.
    #[arg(long)]
    pub message: Option<String>,
    /// The notification title.
    #[arg(long)]
    pub title: Option<String>,
    /// info, warning or error.
    #[arg(long)]
    pub severity: Option<String>,
    /// A decision: {"id", "prompt", "options": [{"id", "label"}]}.
    #[arg(long)]
    pub decision: Option<String>,
    /// Permission reporter: wait for Allow once / Deny from a person and print
    /// the provider's verdict JSON; print nothing when nobody answers.
    #[arg(long, visible_alias = "wait-for-answer")]
    pub wait: bool,
    /// With --wait: seconds the server waits for an answer (1-120, default 120).
    #[arg(long, value_name = "S")]
    pub wait_timeout: Option<u64>,
    /// The payload JSON as an argument (what Codex's `notify` appends).
    pub payload: Option<String>,
}

/// With `$SIGNALTTY_HOOK_LOG` set to a file, every hook reporter appends one
/// JSON line as it starts: `{"at_us", "agent", "event", "pane", "pid"}` (the
/// wall clock in microseconds). It shows which hooks an agent really runs, and
/// when; the real-agent suite times hook → state event with it. A line that
/// cannot be written is skipped: the trace never fails a hook.
fn trace_hook(args: &HookEventArgs) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os("SIGNALTTY_HOOK_LOG").filter(|p| !p.is_empty()) else {
        return;
    };
    let at_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let line = serde_json::json!({
        "at_us": at_us,
        "agent": args.agent,
        "event": args.event,
        "pane": args.pane.clone().or_else(env_pane),
        "pid": std::process::id(),
    });
    let mut bytes = line.to_string().into_bytes();
    bytes.push(b'\n');
    // One write of an O_APPEND file: concurrent reporters do not interleave.
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = file.write_all(&bytes);
    }
}

/// How long the permission reporter waits in all: the provider's hook timeout
/// (125 s) around the server's 120 s wait.
pub const PERMISSION_REPORTER_TIMEOUT: Duration = Duration::from_secs(125);

/// Reads the hook payload: stdin when asked or piped (hooks pipe their JSON),
/// else a trailing argument (Codex `notify` appends its JSON there).
fn hook_payload(args: &HookEventArgs) -> Result<Value, String> {
    let text = if args.payload_stdin || (args.payload.is_none() && !std::io::stdin().is_terminal())
    {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read the payload from stdin: {e}"))?;
        text
    } else {
        args.payload.clone().unwrap_or_default()
    };
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| format!("the payload is not JSON: {e}"))
}

/// `signaltty hook-event`: never breaks the agent that runs it. Nothing on
/// stdout unless `--json`; a line on stderr says what happened. No server is
/// not an error (exit 0); a server that refuses the hook is (exit 1).
pub fn hook_event(global: &Global, args: HookEventArgs) -> i32 {
    trace_hook(&args);
    let payload = match hook_payload(&args) {
        Ok(p) => p,
        Err(e) => return fail_with(ErrorCode::BadParams, e),
    };
    let decision = match args
        .decision
        .as_deref()
        .map(serde_json::from_str::<DecisionInput>)
    {
        Some(Err(e)) => {
            return fail_with(
                ErrorCode::BadParams,
                format!("--decision is not a decision: {e}"),
            );
        },
        Some(Ok(d)) => Some(d),
        None => None,
    };
    let severity = match parse_severity(args.severity) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let params = HookEventParams {
        agent: args.agent.clone(),
        event: args.event.clone(),
        pane_id: args.pane.or_else(env_pane).map(PaneRef),
        client_pid: Some(u64::from(std::process::id())),
        payload,
        message: args.message,
        body: None,
        title: args.title,
        severity,
        decision,
        wait_for_answer: args.wait.then_some(true),
        wait_timeout_s: args.wait_timeout,
    };
    if args.wait {
        return permission_reporter(global, params);
    }
    let socket = resolve_socket(global);
    let report = |params: HookEventParams| {
        Client::connect(&socket).and_then(|mut c| {
            c.set_timeout(Some(HOOK_REPLY_TIMEOUT))?;
            c.call(Method::HookEvent(params))
        })
    };
    let mut outcome = report(params.clone());
    if matches!(&outcome, Err(e) if e.message == signaltty_model::client::CLOSED_EARLY) {
        // An in-place upgrade closed the connection before the hook was
        // served (docs/upgrade.md): the next binary takes it. Applying a
        // hook twice changes nothing the first did not.
        outcome = report(params);
    }
    match outcome {
        Ok(value) => {
            if global.json {
                say!("{value}");
            } else if !std::io::stderr().is_terminal() {
                // Run by an agent's hook: some agents (Gemini CLI) show a hook's
                // stderr to the user, so the summary is only for people.
            } else if let Ok(r) = serde_json::from_value::<HookEventResult>(value) {
                let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
                if r.accepted {
                    eprintln!(
                        "accepted {}:{} lifecycle={} attention={}",
                        r.agent,
                        r.event,
                        show(r.lifecycle.map(|l| l.as_str().to_owned())),
                        show(r.attention.map(|a| a.as_str().to_owned())),
                    );
                } else {
                    eprintln!("dropped {}:{} ({})", r.agent, r.event, show(r.reason));
                }
            }
            0
        },
        Err(CallError {
            code: ErrorCode::NoSuchServer,
            message,
        }) => {
            // Silent for an agent as the summary is: Gemini CLI shows a hook's
            // stderr in its transcript, once per hook of every turn.
            if std::io::stderr().is_terminal() {
                eprintln!(
                    "signaltty: hook {}:{} not reported: {message}",
                    args.agent, args.event
                );
            }
            0
        },
        Err(e) => fail_call(e),
    }
}

/// The permission reporter (`hook-event --wait`): holds its own connection
/// until a person answers, then prints exactly the provider verdict JSON and
/// exits 0. Anything else — timeout, cancellation, no server, an error —
/// prints nothing on stdout and explains on stderr, so the provider keeps its
/// own permission prompt. Nothing here can ever turn into Allow by default.
fn permission_reporter(global: &Global, params: HookEventParams) -> i32 {
    let label = format!("{}:{}", params.agent, params.event);
    let socket = resolve_socket(global);
    let outcome = Client::connect(&socket).and_then(|mut c| {
        c.set_timeout(Some(PERMISSION_REPORTER_TIMEOUT))?;
        c.call(Method::HookEvent(params))
    });
    let value = match outcome {
        Ok(value) => value,
        Err(CallError {
            code: ErrorCode::NoSuchServer,
            message,
        }) => {
            eprintln!("signaltty: {label}: no answer route ({message}); answer in the terminal");
            return 0;
        },
        Err(CallError { code, message }) => {
            return fail_with(code, format!("{message} ({label}: answer in the terminal)"));
        },
    };
    // A reply of neither shape (a server of another version) carries no
    // verdict: the provider keeps its own prompt.
    let reply = serde_json::from_value::<HookWaitReply>(value).ok();
    match reply.as_ref().and_then(HookWaitReply::native_verdict) {
        Some(v) => {
            // The documented key order, for providers and people reading logs.
            let line = match v
                .pointer("/hookSpecificOutput/decision/behavior")
                .and_then(Value::as_str)
            {
                Some("allow") => native_verdict_line(true),
                Some("deny") => native_verdict_line(false),
                _ => v.to_string(),
            };
            say!("{line}");
        },
        None => {
            let why = reply
                .as_ref()
                .and_then(HookWaitReply::unanswered_because)
                .unwrap_or("no answer");
            eprintln!("signaltty: {label}: not answered ({why}); answer in the terminal");
        },
    }
    0
}

/// `signaltty report-session`.
pub fn report_session(
    global: &Global,
    pane: Option<String>,
    session: String,
    agent: Option<String>,
) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let params = ReportSessionParams {
        pane_id,
        agent_session_id: session,
        agent,
    };
    call(global, Method::ReportSession(params), |r: PaneResult| {
        let agent = &r.pane.agent;
        say!(
            "{}  {:?}  session {}",
            r.pane.id,
            agent.kind,
            agent.agent_session_id.as_deref().unwrap_or("-")
        );
    })
}
