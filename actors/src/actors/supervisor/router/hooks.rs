//! Routing of `hook-event` in its ordinary mode (docs/methods.md#hook-event,
//! docs/states.md#hook-processing-rules): validation, the adapter, and the pane
//! — by explicit id or by walking the reporting process's parents to a pane.
//! The pane's actor applies it.

use super::decisions::waiting_dialect;
use super::{Cx, Routed, answer, fail};
use crate::actors::pane::Pane;
use crate::actors::pane::{Hook, ReportSession};
use crate::actors::services::Reporters;
use crate::domain::registry::PaneEntry;
use crate::domain::state::decision::{NativeRequest, native_id};
use crate::domain::state::hooks::answer_channel;
use crate::error::Error;
use crate::ids::ConnId;
use crate::os::procfs;
use actix::prelude::*;
use signaltty_model::agents::vocabulary::asks_permission;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::AgentKind;
use signaltty_protocol::pane::PaneResult;
use signaltty_protocol::state::{
    Decision, DecisionInput, HookEventParams, HookEventResult, ReportSessionParams,
};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// The largest hook payload accepted, serialized (docs/methods.md#hook-event).
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// How long a hook that found no pane waits for launches under way: a new
/// process can report before its pane is registered.
pub const LAUNCH_WAIT: Duration = Duration::from_secs(5);

/// `hook-event`: ordinary reporting, or a native permission request that waits
/// for its answer.
pub fn hook_event(cx: &mut Cx<'_>, conn: ConnId, p: HookEventParams) -> Routed {
    if p.wait_for_answer == Some(true) {
        return super::decisions::wait_for_answer(cx, conn, p);
    }
    let hook = match validate(&p, None) {
        Ok(hook) => hook,
        Err(e) => return fail(Err(e)),
    };
    let Some(me) = cx.me.clone() else {
        return fail(Err(Error::Internal("the Supervisor is not running".into())));
    };
    let to = Target {
        pane: p.pane_id,
        pid: p.client_pid.and_then(|pid| u32::try_from(pid).ok()),
        until: Instant::now() + LAUNCH_WAIT,
    };
    answer(async move {
        match find(me.recipient(), to).await? {
            Some(entry) => {
                let gone = Error::NoSuchPane(entry.id.0.clone());
                entry.addr.send(hook).await.map_err(|_| gone)?
            },
            None => Ok(unrouted(&hook)),
        }
    })
}

/// Where a hook comes from: an explicit pane, else the reporter's pid; and how
/// long it may wait for launches under way.
pub(super) struct Target {
    pub pane: Option<signaltty_protocol::pane::PaneRef>,
    pub pid: Option<u32>,
    pub until: Instant,
}

/// The pane a hook is for: the explicit pane, else the live pane whose
/// process the reporter descends from (a `/proc` walk on a blocking thread).
/// An explicit pane that does not resolve is `NO_SUCH_PANE`. A hook that
/// finds no pane while launches are under way looks again as each one ends,
/// until `until`.
pub(super) async fn find(
    supervisor: Recipient<Reporters>,
    to: Target,
) -> Result<Option<PaneEntry<Addr<Pane>>>, Error> {
    loop {
        let seen = supervisor
            .send(Reporters {
                pane: to.pane.clone(),
            })
            .await?;
        let found = match (seen.named, to.pid) {
            (Some(Ok(entry)), _) => return Ok(Some(entry)),
            (Some(Err(e)), _) => Err(e),
            (None, None) => return Ok(None),
            (None, Some(pid)) => {
                let live = seen.live;
                let by_pid: HashMap<u32, PaneId> =
                    live.iter().map(|(pid, e)| (*pid, e.id.clone())).collect();
                let walked =
                    actix_rt::task::spawn_blocking(move || procfs::pane_of_process(pid, &by_pid))
                        .await
                        .ok()
                        .flatten();
                match walked.and_then(|id| live.into_values().find(|e| e.id == id)) {
                    Some(entry) => return Ok(Some(entry)),
                    None => Ok(None),
                }
            },
        };
        match seen.launching {
            Some(mut launched) if Instant::now() < to.until => {
                let _ = tokio::time::timeout(LAUNCH_WAIT, launched.changed()).await;
            },
            _ => return found,
        }
    }
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

/// The checks of the ordinary mode of docs/methods.md#hook-event (steps 1–4:
/// the agent, the decision, the payload cap, the native decision). `native` is
/// the id of a waiting request's decision (answerable: its route is live); an
/// ordinary `PermissionRequest` gets a read-only one.
pub(super) fn validate(p: &HookEventParams, native: Option<String>) -> Result<Hook, Error> {
    let kind = AgentKind::parse(&p.agent).ok_or_else(|| {
        Error::BadParams(format!(
            "unknown agent {:?} (claude, codex, opencode, cursor, pi, gemini, generic or none)",
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
    let now = signaltty_protocol::Timestamp::now();
    let decision = match (&p.decision, native) {
        (Some(d), _) => Some(Decision {
            id: d.id.clone(),
            prompt: d.prompt.trim().to_owned(),
            options: d.options.clone(),
            // A caller's `permission_` id has no route: read-only.
            answerable: !d.id.starts_with(Decision::NATIVE_PREFIX)
                && answer_channel(kind).is_some(),
            received_at: now,
        }),
        // A waiting reporter's (its route is live); a generic one's payload
        // is Claude Code's.
        (None, Some(id)) if asks_permission(waiting_dialect(kind), &p.event) => {
            NativeRequest::parse(waiting_dialect(kind), &p.payload)
                .map(|request| request.decision(id, true, now))
        },
        (None, None) if asks_permission(waiting_dialect(kind), &p.event) => {
            NativeRequest::parse(kind, &p.payload)
                .map(|request| request.decision(native_id(), false, now))
        },
        (None, _) => None,
    };
    let non_empty = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
    Ok(Hook {
        kind,
        agent: p.agent.clone(),
        event: p.event.clone(),
        payload: p.payload.clone(),
        message: non_empty(&p.message).or_else(|| non_empty(&p.body)),
        title: non_empty(&p.title),
        severity: p.severity.unwrap_or_default(),
        decision,
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
pub fn report_session(cx: &mut Cx<'_>, p: ReportSessionParams) -> Routed {
    if p.agent_session_id.trim().is_empty() {
        return fail(Err(Error::BadParams(
            "agent_session_id must not be empty".into(),
        )));
    }
    let id = match cx.registry.resolve(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
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
    super::panes::ask_pane(cx, &id, msg, |pane| PaneResult { pane })
}
