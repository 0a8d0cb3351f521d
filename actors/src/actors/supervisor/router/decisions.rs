//! Decisions in the router (docs/methods.md#decisionanswer, the waiting mode of
//! docs/methods.md#hook-event, docs/decisions.md#native-permission-requests):
//! the checks that need no pane, the route's actor, and the wait of a native
//! permission reporter. The pane does the rest in its own turn
//! (pane/decisions.rs).

use super::hooks::{Target, find, validate};
use super::panes::ask_pane;
use super::{Cx, Routed, fail};
use crate::actors::decision::{AbandonOnDrop, Decision as Route, WaitEnd};
use crate::actors::pane::{Answer, NativeHook, NativeRoute, NativeStarted};
use crate::actors::services::AddRoute;
use crate::domain::state::decision::{NativeRequest, native_id};
use crate::error::Error;
use crate::ids::ConnId;
use signaltty_model::agents::vocabulary::asks_permission;
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::state::{
    DecisionAnswerParams, DecisionAnswerResult, HookEventParams, HookWaitReply, HookWaitResult,
};
use std::time::{Duration, Instant};

/// The longest (and default) wait of a native permission reporter, seconds.
pub const MAX_WAIT_S: u64 = 120;

/// `decision.answer`: the pane checks, consumes and delivers.
pub fn answer(cx: &mut Cx<'_>, p: DecisionAnswerParams) -> Routed {
    let id = match cx.registry.resolve(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
    };
    let msg = Answer {
        decision_id: p.decision_id,
        option_id: p.option_id,
    };
    ask_pane(cx, &id, msg, |r: DecisionAnswerResult| r)
}

/// The checks of the waiting mode that need no pane
/// (docs/methods.md#hook-event).
fn check_waiting(p: &HookEventParams) -> Result<(AgentKind, String, Duration), Error> {
    // The native permission hook of either waiting dialect, whatever agent
    // says it sends it (the agent is checked next).
    if ![AgentKind::Claude, AgentKind::Codex]
        .iter()
        .any(|dialect| asks_permission(*dialect, &p.event))
    {
        return Err(Error::BadParams(format!(
            "wait_for_answer is for PermissionRequest hooks, not {:?}",
            p.event
        )));
    }
    if p.decision.is_some() {
        return Err(Error::BadParams(
            "wait_for_answer makes its own decision: do not pass one".into(),
        ));
    }
    let secs = p.wait_timeout_s.unwrap_or(MAX_WAIT_S);
    if !(1..=MAX_WAIT_S).contains(&secs) {
        return Err(Error::BadParams(format!(
            "wait_timeout_s must be 1..={MAX_WAIT_S}, not {secs}"
        )));
    }
    // `generic`: a program whose hooks are Claude Code's (Qwen Code): its
    // payload is read, and its verdict written, as Claude's.
    let kind = AgentKind::parse(&p.agent)
        .filter(|k| matches!(k, AgentKind::Claude | AgentKind::Codex | AgentKind::Generic))
        .ok_or_else(|| {
            Error::BadParams(format!(
                "wait_for_answer is for claude, codex and generic, not {:?}",
                p.agent
            ))
        })?;
    let Some(request) = NativeRequest::parse(waiting_dialect(kind), &p.payload) else {
        return Err(Error::BadParams(
            "the payload is not a permission request: it needs a session_id, a tool_name and an object tool_input".into(),
        ));
    };
    Ok((
        kind,
        request.session_id.to_owned(),
        Duration::from_secs(secs),
    ))
}

/// The kind whose payload a waiting reporter of `kind` sends: a generic
/// program's is Claude Code's.
pub(super) fn waiting_dialect(kind: AgentKind) -> AgentKind {
    match kind {
        AgentKind::Generic => AgentKind::Claude,
        kind => kind,
    }
}

/// `hook-event` with `wait_for_answer: true`.
pub fn wait_for_answer(cx: &mut Cx<'_>, conn: ConnId, p: HookEventParams) -> Routed {
    let (kind, session, timeout) = match check_waiting(&p) {
        Ok(checked) => checked,
        Err(e) => return fail(Err(e)),
    };
    let id = native_id();
    let hook = match validate(&p, Some(id.clone())) {
        Ok(hook) => hook,
        Err(e) => return fail(Err(e)),
    };
    let Some(me) = cx.me.clone() else {
        return fail(Err(Error::Internal("the Supervisor is not running".into())));
    };
    let to = Target {
        pane: p.pane_id,
        pid: p.client_pid.and_then(|pid| u32::try_from(pid).ok()),
        until: Instant::now() + super::hooks::LAUNCH_WAIT,
    };
    super::answer(async move {
        let Some(entry) = find(me.clone().recipient(), to).await? else {
            return Err(Error::BadParams(
                "wait_for_answer requires a managed pane: none was given and the reporter does not run in one".into(),
            ));
        };
        let pane_id = entry.id.clone();
        let deadline = Instant::now() + timeout;
        let (addr, ended) = Route::start(id.clone(), entry.addr.clone().recipient(), deadline);
        // The connection going away (EOF, another line) ends the route; so
        // does this wait being dropped for any other reason.
        me.do_send(AddRoute {
            conn,
            route: addr.clone(),
        });
        let _guard = AbandonOnDrop(addr.clone());
        let (agent, event) = (hook.agent.clone(), hook.event.clone());
        let msg = NativeHook {
            hook,
            route: NativeRoute {
                id: id.clone(),
                addr,
                kind,
                session,
                deadline,
            },
        };
        match entry.addr.send(msg).await {
            Err(_) => Err(Error::NoSuchPane(pane_id.0.clone())),
            Ok(Err(e)) => Err(e),
            Ok(Ok(NativeStarted::Dropped(result))) => Ok(HookWaitReply::Dropped(result)),
            Ok(Ok(NativeStarted::Waiting)) => {
                // The route's actor always answers before it stops; a
                // dropped channel can only mean it was torn down.
                let end = ended.await.unwrap_or(WaitEnd::Shutdown);
                let cancelled = end.cancelled().map(str::to_owned);
                let native_verdict = match end {
                    WaitEnd::Answered(v) => Some(v),
                    _ => None,
                };
                Ok(HookWaitReply::Waited(HookWaitResult {
                    accepted: true,
                    agent,
                    event,
                    pane_id,
                    decision_id: id,
                    native_verdict,
                    cancelled,
                }))
            },
        }
    })
}
