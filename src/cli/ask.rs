//! `signaltty ask PANE PROMPT` (docs/ask.md): one `pane.ask` call, the
//! agent's answer on stdout, the outcome in the exit status.

use crate::args::Global;
use crate::cli::{fail_call, pane_or_env, typed};
use signaltty_model::client::Client;
use signaltty_protocol::Method;
use signaltty_protocol::pane::{AskOutcome, PaneAskParams, PaneAskResult};

/// The exit status of each outcome (docs/ask.md#exit-status).
pub fn exit_status(outcome: AskOutcome) -> i32 {
    match outcome {
        AskOutcome::Done => 0,
        AskOutcome::Blocked => 4,
        AskOutcome::Failed | AskOutcome::Interrupted => 5,
        AskOutcome::Timeout => 6,
    }
}

/// Runs `signaltty ask`.
pub fn ask(
    global: &Global,
    pane: Option<String>,
    prompt: String,
    timeout_s: Option<u64>,
    only_if_idle: bool,
) -> i32 {
    let pane_id = match pane_or_env(pane) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let params = PaneAskParams {
        pane_id,
        text: prompt,
        timeout_ms: timeout_s.map(|s| s.saturating_mul(1000)),
        only_if_idle: only_if_idle.then_some(true),
    };
    let target = match crate::remote::target(global) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let value = match Client::open(&target).and_then(|mut c| c.call(Method::PaneAsk(params))) {
        Ok(v) => v,
        Err(e) => return fail_call(e),
    };
    if global.json {
        say!("{value}");
    }
    let r: PaneAskResult = match typed(value) {
        Ok(r) => r,
        Err(code) => return code,
    };
    if !global.json {
        show(&r);
    }
    exit_status(r.outcome)
}

/// The answer as text: what the agent said, else what the outcome means.
fn show(r: &PaneAskResult) {
    match (r.outcome, &r.answer) {
        (AskOutcome::Done, Some(answer)) => say!("{answer}"),
        (AskOutcome::Done, None) => {
            say!(
                "(the turn ended; its answer is not readable: `signaltty pane read {}`)",
                r.pane_id
            )
        },
        (AskOutcome::Blocked, _) => {
            let question = r
                .decision
                .as_ref()
                .map(|d| d.prompt.clone())
                .or_else(|| r.last_message.clone())
                .unwrap_or_else(|| "(a question on its screen)".into());
            say!("blocked: {question}");
            if let Some(d) = &r.decision {
                for (n, o) in d.options.iter().enumerate() {
                    say!("  {} {}", n + 1, o.label);
                }
                say!("answer with `signaltty answer {} OPTION`", r.pane_id);
            }
        },
        (AskOutcome::Failed, _) => say!(
            "failed: {}",
            r.last_message.as_deref().unwrap_or("(no message)")
        ),
        (AskOutcome::Interrupted, _) => say!("interrupted: the turn ended without an answer"),
        (AskOutcome::Timeout, _) if !r.submitted => {
            say!("timeout: the pane stayed busy; nothing was submitted")
        },
        (AskOutcome::Timeout, _) => say!(
            "timeout: the agent is still {} (`signaltty wait {}` to go on waiting)",
            r.lifecycle.as_str(),
            r.pane_id
        ),
    }
}
