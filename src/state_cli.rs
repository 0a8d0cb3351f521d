//! The state commands: `hook-event` (what agents' hooks run), `notify`,
//! `report-session`, `wait`, `attention` and `mark-seen`.

use crate::Global;
use crate::cli::{call, fail, resolve_socket};
use serde_json::Value;
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::pane::{PaneResult, PaneTarget};
use signaltty_protocol::state::{
    AttentionItem, AttentionPendingParams, AttentionPendingResult, DecisionInput, HookEventParams,
    HookEventResult, HookWaitReply, NotifyParams, NotifyResult, PaneExplainResult,
    ReportSessionParams, Severity, Until, WaitBaseline, WaitParams, WaitResult,
    native_verdict_line,
};
use signaltty_protocol::{ErrorCode, Method, PaneRef};
use std::io::{IsTerminal as _, Read as _};
use std::time::Duration;

/// How long a hook reporter waits for the server's answer: agents run hooks
/// with short timeouts of their own.
pub const HOOK_REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// With `$SIGNALTTY_HOOK_LOG` set to a file, every hook reporter appends one
/// JSON line as it starts: `{"at_us", "agent", "event", "pane", "pid"}` (the
/// wall clock in microseconds). It shows which hooks an agent really runs, and
/// when; the real-agent suite times hook → state event with it. A line that
/// cannot be written is skipped: the trace never fails a hook.
fn trace_hook(args: &HookArgs) {
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

/// `$SIGNALTTY_PANE`, when set.
fn env_pane() -> Option<String> {
    std::env::var("SIGNALTTY_PANE")
        .ok()
        .filter(|s| !s.is_empty())
}

fn pane_or_env(given: Option<String>) -> Result<PaneRef, i32> {
    given.or_else(env_pane).map(PaneRef).ok_or_else(|| {
        fail("BAD_PARAMS: name a pane (or run inside one, where $SIGNALTTY_PANE is set)")
    })
}

fn severity(given: Option<String>) -> Result<Option<Severity>, i32> {
    given
        .map(|s| {
            serde_json::from_value(Value::String(s.clone())).map_err(|_| {
                fail(&format!(
                    "BAD_PARAMS: severity {s:?} is not info, warning or error"
                ))
            })
        })
        .transpose()
}

/// What `signaltty hook-event` was asked to send.
pub struct HookArgs {
    pub agent: String,
    pub event: String,
    pub pane: Option<String>,
    pub payload_stdin: bool,
    pub payload_arg: Option<String>,
    pub message: Option<String>,
    pub title: Option<String>,
    pub severity: Option<String>,
    pub decision: Option<String>,
    /// Permission reporter: wait for the answer.
    pub wait: bool,
    pub wait_timeout: Option<u64>,
}

/// How long the permission reporter waits in all: the provider's hook timeout
/// (125 s) around the server's 120 s wait.
pub const PERMISSION_REPORTER_TIMEOUT: Duration = Duration::from_secs(125);

/// Reads the hook payload: stdin when asked or piped (hooks pipe their JSON),
/// else a trailing argument (Codex `notify` appends its JSON there).
fn hook_payload(args: &HookArgs) -> Result<Value, String> {
    let text =
        if args.payload_stdin || (args.payload_arg.is_none() && !std::io::stdin().is_terminal()) {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the payload from stdin: {e}"))?;
            text
        } else {
            args.payload_arg.clone().unwrap_or_default()
        };
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| format!("the payload is not JSON: {e}"))
}

/// `signaltty hook-event`: never breaks the agent that runs it. Nothing on
/// stdout unless `--json`; a line on stderr says what happened. No server is
/// not an error (exit 0); a server that refuses the hook is (exit 1).
pub fn hook_event(global: &Global, args: HookArgs) -> i32 {
    trace_hook(&args);
    let payload = match hook_payload(&args) {
        Ok(p) => p,
        Err(e) => return fail(&format!("BAD_PARAMS: {e}")),
    };
    let decision = match args
        .decision
        .as_deref()
        .map(serde_json::from_str::<DecisionInput>)
    {
        Some(Err(e)) => return fail(&format!("BAD_PARAMS: --decision is not a decision: {e}")),
        Some(Ok(d)) => Some(d),
        None => None,
    };
    let severity = match severity(args.severity) {
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
        Err(CallError { code, message }) => fail(&format!("{code}: {message}")),
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
            return fail(&format!(
                "{code}: {message} ({label}: answer in the terminal)"
            ));
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

/// `signaltty notify`.
pub fn notify(
    global: &Global,
    pane: Option<String>,
    title: String,
    body: Option<String>,
    severity_arg: Option<String>,
) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let severity = match severity(severity_arg) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let params = NotifyParams {
        pane_id,
        title,
        body,
        severity,
    };
    call(global, Method::Notify(params), |r: NotifyResult| {
        say!("{}", r.notification.id);
    })
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

/// `signaltty wait PANE --until OUTCOME… [--after BASELINE] [--timeout S]`.
pub fn wait(
    global: &Global,
    pane: Option<String>,
    until: Vec<String>,
    after: Option<String>,
    timeout: Option<u64>,
) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let after = match after.as_deref().map(serde_json::from_str::<WaitBaseline>) {
        Some(Err(e)) => {
            return fail(&format!(
                "BAD_PARAMS: --after is not a wait_baseline (pane get --json prints one): {e}"
            ));
        },
        Some(Ok(b)) => Some(b),
        None => None,
    };
    let params = WaitParams {
        pane_id,
        until: Until::Any(until),
        after,
        timeout_s: timeout,
    };
    call(global, Method::Wait(params), |r: WaitResult| {
        say!(
            "{} (seq {})  now {} / {}",
            r.outcome,
            r.transition_seq,
            r.lifecycle.as_str(),
            r.attention.as_str()
        );
    })
}

/// `signaltty attention`: the panes that need a person, most urgent first.
pub fn attention(global: &Global, limit: Option<u64>) -> i32 {
    call(
        global,
        Method::AttentionPending(AttentionPendingParams { limit }),
        |r: AttentionPendingResult| {
            if r.panes.is_empty() {
                say!("nothing needs attention");
            }
            // Questions first: someone is waiting on them.
            let (asking, rest): (Vec<_>, Vec<_>) = r
                .panes
                .into_iter()
                .partition(|p| p.pending_decision.is_some());
            let paint = crate::paint::current();
            for p in asking.into_iter().chain(rest) {
                attention_line(&p, paint);
                if let Some(d) = &p.pending_decision {
                    crate::decisions_cli::print_decision(d, "    ");
                }
            }
        },
    )
}

/// One pane needing attention. Into a pipe: one line with every field. On a
/// terminal: the glyphs and states coloured, the last message on its own
/// indented line, cut to the width.
fn attention_line(p: &AttentionItem, paint: crate::paint::Paint) {
    let (glyph, lc_colour) = crate::paint::lifecycle(p.lifecycle);
    let (mark, at_colour) = crate::paint::attention(p.attention);
    let attention = p.attention.as_str();
    let lifecycle = p.lifecycle.as_str();
    let pad_a = " ".repeat(19usize.saturating_sub(attention.len()));
    let pad_l = " ".repeat(8usize.saturating_sub(lifecycle.len()));
    let attention = paint.paint(attention, at_colour, true);
    let lifecycle = paint.paint(lifecycle, lc_colour, false);
    let message = p.last_message.as_deref().unwrap_or("");
    if paint.width().is_none() {
        say!(
            "{}  {attention}{pad_a}  {lifecycle}{pad_l}  {message}",
            p.pane_id
        );
        return;
    }
    say!(
        "{}{} {}  {attention}{pad_a}  {lifecycle}",
        paint.paint(glyph, lc_colour, false),
        paint.paint(mark, at_colour, true),
        p.pane_id
    );
    if !message.is_empty() {
        say!(
            "{}",
            paint.fit(&format!("    {}", message.replace('\n', " ")))
        );
    }
}

/// `signaltty mark-seen PANE`.
pub fn mark_seen(global: &Global, pane: Option<String>) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    call(
        global,
        Method::PaneMarkSeen(PaneTarget { pane_id }),
        |r: PaneResult| {
            say!("{}  {}", r.pane.id, r.pane.attention.as_str());
        },
    )
}

/// `signaltty explain PANE`.
pub fn explain(global: &Global, pane: Option<String>) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    call(
        global,
        Method::PaneExplain(PaneTarget { pane_id }),
        |r: PaneExplainResult| {
            say!(
                "{:?} running {} ({}, {})",
                r.kind,
                r.process,
                if r.live { "live" } else { "exited" },
                if r.hooked { "hooked" } else { "no hook yet" }
            );
            for (axis, e) in [("lifecycle", &r.lifecycle), ("attention", &r.attention)] {
                say!(
                    "{axis} {} — set by {} at {}",
                    e.state,
                    e.source.as_deref().unwrap_or("the process start"),
                    e.since.as_ref().map_or("-", |t| t.as_str())
                );
                for hint in &e.changes_with {
                    say!("  changes with: {hint}");
                }
            }
            say!(
                "screen rules: {} ({})",
                r.source,
                if r.classifies { "active" } else { "inactive" }
            );
        },
    )
}

/// `signaltty agents list` and `agents reload`.
pub fn agents(global: &Global, reload: bool) -> i32 {
    use signaltty_protocol::state::{AgentsParams, AgentsResult};
    let method = if reload {
        Method::AgentsReload(AgentsParams {})
    } else {
        Method::AgentsList(AgentsParams {})
    };
    call(global, method, |r: AgentsResult| {
        say!("agents dir {}", r.dir.as_deref().unwrap_or("(none)"));
        for m in &r.manifests {
            say!(
                "  {:<20} {:<9} {:>3} screen rules{}{}",
                m.file,
                serde_json::to_value(m.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                m.screen_rules,
                if m.bundled { "  (bundled)" } else { "" },
                if m.binaries.is_empty() {
                    String::new()
                } else {
                    format!("  binaries {}", m.binaries.join(" "))
                }
            );
        }
        for f in &r.failures {
            say!("  skipped {}: {}", f.file, f.error);
        }
    })
}

/// `signaltty agents check FILE`: validates a manifest without a server and,
/// with a screen on stdin, shows what its rules say about it.
pub fn agents_check(file: &std::path::Path, title: Option<String>) -> i32 {
    use signaltty_model::agents::manifest::Manifest;
    use signaltty_model::agents::screen::{View, classify};
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(&format!("IO_ERROR: cannot read {}: {e}", file.display())),
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest = match Manifest::parse(&name, &text, false) {
        Ok(m) => m,
        Err(e) => return fail(&format!("BAD_PARAMS: {name}: {e}")),
    };
    say!(
        "{name}: valid, kind {:?}, {} screen rules",
        manifest.kind,
        manifest.screen.len()
    );
    if std::io::stdin().is_terminal() {
        return 0;
    }
    let mut screen = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut screen) {
        return fail(&format!("IO_ERROR: cannot read the screen from stdin: {e}"));
    }
    let title = title.unwrap_or_default();
    let view = View::new(&screen, &title);
    let rules: Vec<_> = manifest.screen.iter().collect();
    for rule in &rules {
        say!(
            "  {:<32} {:<8} {:>6}  {:<24} {}",
            rule.id,
            rule.state.as_str(),
            rule.priority,
            rule.region_label(),
            if rule.matches(&view) { "matches" } else { "-" }
        );
    }
    match classify(&rules, &view) {
        Some(i) => say!("winner: {} ({})", rules[i].id, rules[i].state.as_str()),
        None => say!("winner: none (the screen changes nothing)"),
    }
    0
}
