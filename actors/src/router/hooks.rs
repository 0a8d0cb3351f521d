//! Routing of `hook-event` in its ordinary mode (spec/ipc.md §8.7, agents.md
//! §6.3): validation, the adapter, and the pane — by explicit id or by walking
//! the reporting process's parents to a pane. The pane's actor applies it.

use super::{Routed, ready};
use crate::error::Error;
use crate::pane::{Hook, ReportSession};
use crate::procfs;
use crate::supervisor::Supervisor;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::PaneResult;
use signaltty_protocol::pane::{AgentKind, LiveState};
use signaltty_protocol::state::{
    DecisionInput, HookEventParams, HookEventResult, ReportSessionParams,
};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// The largest hook payload accepted, serialized (spec/ipc.md §12).
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// How long a hook that found no pane waits for launches under way: a new
/// process can report before its pane is registered.
pub const LAUNCH_WAIT: Duration = Duration::from_secs(5);

/// `hook-event`.
pub fn hook_event(sup: &mut Supervisor, p: HookEventParams) -> Routed {
    let hook = match validate(&p) {
        Ok(hook) => hook,
        Err(e) => return ready::<HookEventResult>(Err(e)),
    };
    let pid = p.client_pid.and_then(|pid| u32::try_from(pid).ok());
    route(sup, hook, p.pane_id, pid, Instant::now() + LAUNCH_WAIT)
}

/// Routes by explicit pane, else by the reporter's ancestry. A hook that finds
/// no pane while launches are under way tries again as each one finishes.
fn route(
    sup: &mut Supervisor,
    hook: Hook,
    pane: Option<PaneId>,
    pid: Option<u32>,
    until: Instant,
) -> Routed {
    if let Some(r) = pane {
        return match sup.resolve_pane_ref(&r) {
            Ok(id) => deliver(sup, id, hook),
            Err(_) if sup.launching > 0 && Instant::now() < until => {
                after_a_launch(sup, move |act| route(act, hook, Some(r), pid, until))
            },
            Err(e) => ready::<HookEventResult>(Err(e)),
        };
    }
    let Some(pid) = pid else {
        return ready(Ok(unrouted(&hook)));
    };
    // Processes started by live panes, for the walk up from the reporter.
    let panes: HashMap<u32, PaneId> = sup
        .panes
        .values()
        .filter(|e| {
            sup.projection
                .pane(&e.id)
                .is_some_and(|p| p.live == LiveState::Live)
        })
        .map(|e| (e.pid, e.id.clone()))
        .collect();
    let walk = actix_rt::task::spawn_blocking(move || procfs::pane_of_process(pid, &panes));
    Box::pin(
        walk.into_actor(sup)
            .then(move |found, act, _| match found.ok().flatten() {
                Some(id) => deliver(act, id, hook),
                None if act.launching > 0 && Instant::now() < until => {
                    after_a_launch(act, move |act| route(act, hook, None, Some(pid), until))
                },
                None => ready(Ok(unrouted(&hook))),
            }),
    )
}

/// Runs `then` once the next launch under way has finished (or after a while).
fn after_a_launch(
    sup: &mut Supervisor,
    then: impl FnOnce(&mut Supervisor) -> Routed + 'static,
) -> Routed {
    let mut launched = sup.launched.subscribe();
    let waited = async move {
        let _ = tokio::time::timeout(LAUNCH_WAIT, launched.changed()).await;
    };
    Box::pin(waited.into_actor(sup).then(move |(), act, _| then(act)))
}

/// A hook no pane claims is accepted and changes nothing (a foreign process's
/// hook must never break its agent).
fn unrouted(hook: &Hook) -> HookEventResult {
    HookEventResult {
        accepted: true,
        agent: hook.agent.clone(),
        event: hook.event.clone(),
        pane_id: None,
        dropped: None,
        reason: None,
        lifecycle: None,
        attention: None,
    }
}

fn deliver(sup: &mut Supervisor, id: PaneId, hook: Hook) -> Routed {
    super::panes::ask_pane(sup, &id, hook, |result| result)
}

/// The checks of agents.md §6.3 steps 2–3 and the payload cap.
fn validate(p: &HookEventParams) -> Result<Hook, Error> {
    if p.wait_for_answer == Some(true) {
        return Err(Error::BadParams(
            "wait_for_answer (native permission replies) is not served by this server yet".into(),
        ));
    }
    let kind = AgentKind::parse(&p.agent).ok_or_else(|| {
        Error::BadParams(format!(
            "unknown agent {:?} (claude, codex, opencode, cursor, pi, generic or none)",
            p.agent
        ))
    })?;
    if let Some(decision) = &p.decision {
        validate_decision(decision)?;
    }
    let size = serde_json::to_vec(&p.payload).map_or(0, |v| v.len());
    if size > MAX_PAYLOAD_BYTES {
        return Err(Error::RateLimited(format!(
            "hook payload of {size} bytes is over the {MAX_PAYLOAD_BYTES}-byte limit"
        )));
    }
    let non_empty = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
    Ok(Hook {
        kind,
        agent: p.agent.clone(),
        event: p.event.clone(),
        payload: p.payload.clone(),
        message: non_empty(&p.message).or_else(|| non_empty(&p.body)),
        title: non_empty(&p.title),
        severity: p.severity.unwrap_or_default(),
        decision_prompt: p.decision.as_ref().map(|d| d.prompt.trim().to_owned()),
    })
}

/// A decision needs a prompt and at least one option, every option an id and
/// a label, and no two options the same id.
fn validate_decision(d: &DecisionInput) -> Result<(), Error> {
    let bad = |why: &str| Err(Error::BadParams(format!("decision: {why}")));
    if d.prompt.trim().is_empty() {
        return bad("the prompt is empty");
    }
    if d.options.is_empty() {
        return bad("there must be at least one option");
    }
    let mut ids = HashSet::new();
    for option in &d.options {
        if option.id.trim().is_empty() || option.label.trim().is_empty() {
            return bad("every option needs an id and a label");
        }
        if !ids.insert(option.id.as_str()) {
            return bad(&format!("option id {:?} appears twice", option.id));
        }
    }
    Ok(())
}

/// `report-session`.
pub fn report_session(sup: &mut Supervisor, p: ReportSessionParams) -> Routed {
    if p.agent_session_id.trim().is_empty() {
        return ready::<PaneResult>(Err(Error::BadParams(
            "agent_session_id must not be empty".into(),
        )));
    }
    let id = match sup.resolve_pane_ref(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return ready::<PaneResult>(Err(e)),
    };
    // An unparseable kind is `generic`, not an error.
    let kind = p
        .agent
        .as_deref()
        .map(|a| AgentKind::parse(a).unwrap_or(AgentKind::Generic));
    let msg = ReportSession {
        kind,
        session_id: p.agent_session_id,
    };
    super::panes::ask_pane(sup, &id, msg, |pane| PaneResult { pane })
}
