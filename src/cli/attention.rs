//! What needs a person, and waiting for it: `signaltty attention` (the
//! panes that need one, most urgent first), `focus next-unread`, `wait` (a
//! pane reaching a state), `notify` (a notification that raises a pane's
//! attention) and `explain` (why a pane is in its state).

use crate::args::Global;
use crate::cli::{call, fail_with, pane_or_env, parse_severity, print_decision};
use clap::Subcommand;
use signaltty_protocol::pane::PaneTarget;
use signaltty_protocol::state::{
    AttentionItem, AttentionPendingParams, AttentionPendingResult, FocusNextUnreadParams,
    FocusNextUnreadResult, NotifyParams, NotifyResult, PaneExplainResult, Until, WaitBaseline,
    WaitParams, WaitResult,
};
use signaltty_protocol::{ErrorCode, Method};

#[derive(Debug, Subcommand)]
pub enum FocusCommand {
    /// The pane that needs a person most (focus.next_unread): prints its id,
    /// or says that none does.
    NextUnread,
}

/// `signaltty focus …`.
pub fn focus(global: &Global, cmd: FocusCommand) -> i32 {
    match cmd {
        FocusCommand::NextUnread => call(
            global,
            Method::FocusNextUnread(FocusNextUnreadParams {}),
            |r: FocusNextUnreadResult| match r.pane_id {
                Some(p) => say!("{p}"),
                None => say!("no pane needs attention"),
            },
        ),
    }
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
    let severity = match parse_severity(severity_arg) {
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
            return fail_with(
                ErrorCode::BadParams,
                format!("--after is not a wait_baseline (pane get --json prints one): {e}"),
            );
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
pub fn attention(global: &Global, limit: Option<u64>, all_hosts: bool) -> i32 {
    let method = || Method::AttentionPending(AttentionPendingParams { limit });
    if all_hosts {
        let data = |g: &Global| {
            signaltty_model::client::Client::open(&crate::remote::resolve(g)?)?.call(method())
        };
        let show = |v| crate::cli::typed(v).map(show_attention);
        return crate::remote::fleet::run(global, "panes", data, show);
    }
    call(global, method(), show_attention)
}

/// One server's panes that need attention, as text.
fn show_attention(r: AttentionPendingResult) {
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
            print_decision(d, "    ");
        }
    }
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
    // A pane at its usage limit: when it resets (docs/states.md#usage-limits).
    let resets = p.resets_at.as_ref().map(|at| {
        let countdown = crate::paint::countdown(at, &signaltty_protocol::Timestamp::now());
        format!("resets {at} (in {countdown})  ")
    });
    let resets = resets.as_deref().unwrap_or("");
    if paint.width().is_none() {
        say!(
            "{}  {attention}{pad_a}  {lifecycle}{pad_l}  {resets}{message}",
            p.pane_id
        );
        return;
    }
    let tail = if resets.is_empty() {
        String::new()
    } else {
        format!("{pad_l}  {}", resets.trim_end())
    };
    say!(
        "{}{} {}  {attention}{pad_a}  {lifecycle}{tail}",
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
            // docs/restore.md#hibernation
            if let Some(h) = &r.hibernation {
                let at =
                    h.at.as_ref()
                        .map_or(String::new(), |t| format!(" at {}", t.as_str()));
                say!("hibernation {}{at}: {}", h.state, h.reason);
            }
        },
    )
}
