//! Routing of the attention methods (`pane.mark_seen`,
//! docs/methods.md#panemark_seen; `notify`, docs/methods.md#notify;
//! `focus.next_unread` and `attention.pending`, docs/methods.md#attention).
//! Changes go to the pane's actor, which owns its state; rankings are read from
//! the projection.

use super::panes::ask_pane;
use super::{Cx, Routed, answer, fail, ready};
use crate::actors::pane::{Explain, MarkSeen, Notify};
use crate::actors::services::ReadNotificationsOf;
use crate::domain::projection::Projection;
use crate::error::Error;
use signaltty_protocol::pane::{PaneResult, PaneTarget};
use signaltty_protocol::state::{
    AttentionPendingParams, AttentionPendingResult, FocusNextUnreadResult, NotifyParams,
    NotifyResult,
};

/// `attention.pending` answers at most this many panes by default…
pub const PENDING_DEFAULT: u64 = 50;
/// …and never more than this.
pub const PENDING_MAX: u64 = 500;

/// `pane.mark_seen`: the pane's actor clears its attention; then the pane's
/// unread notifications are marked read (`notification.read`) before the reply.
pub fn mark_seen(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    let entry = match cx.registry.pane(&p.pane_id) {
        Ok(e) => e,
        Err(e) => return fail(Err(e)),
    };
    let Some(me) = cx.me.clone() else {
        return fail(Err(Error::Internal("the Supervisor is not running".into())));
    };
    let gone = Error::NoSuchPane(entry.id.0.clone());
    let id = entry.id.clone();
    let seen = entry.addr.send(MarkSeen {
        reason: "mark_seen",
    });
    answer(async move {
        let pane = seen.await.map_err(|_| gone)??;
        me.send(ReadNotificationsOf(id)).await??;
        Ok(PaneResult { pane })
    })
}

/// `notify`.
pub fn notify(cx: &mut Cx<'_>, p: NotifyParams) -> Routed {
    if p.title.trim().is_empty() {
        return fail(Err(Error::BadParams("title must not be empty".into())));
    }
    let id = match cx.registry.resolve(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
    };
    let msg = Notify {
        title: p.title,
        body: p.body.unwrap_or_default(),
        severity: p.severity.unwrap_or_default(),
    };
    ask_pane(cx, &id, msg, |notification| NotifyResult { notification })
}

/// `focus.next_unread`.
pub fn focus_next_unread(cx: &mut Cx<'_>) -> Routed {
    let pane_id = cx
        .events
        .projection()
        .attention_ranked()
        .first()
        .map(|p| p.id.clone());
    ready(Ok(FocusNextUnreadResult { pane_id }))
}

/// `attention.pending`.
pub fn pending(cx: &mut Cx<'_>, p: AttentionPendingParams) -> Routed {
    let limit = p.limit.unwrap_or(PENDING_DEFAULT).clamp(1, PENDING_MAX) as usize;
    let panes = cx
        .events
        .projection()
        .attention_ranked()
        .into_iter()
        .take(limit)
        .map(Projection::attention_item)
        .collect();
    ready(Ok(AttentionPendingResult { panes }))
}

/// `pane.explain`.
pub fn explain(cx: &mut Cx<'_>, p: PaneTarget) -> Routed {
    let id = match cx.registry.resolve(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return fail(Err(e)),
    };
    let hibernate = hibernate_ask(cx, &id);
    ask_pane(cx, &id, Explain { hibernate }, |result| result)
}

/// What the projection says of the pane's hibernation, for `pane.explain`:
/// the quiet time by the wall clock (the check itself uses the monotonic one).
fn hibernate_ask(cx: &Cx<'_>, id: &signaltty_protocol::PaneId) -> crate::actors::pane::Hibernate {
    use crate::actors::supervisor::hibernate::{after_of, quiet_mark, task_waits};
    let projection = cx.events.projection();
    let default = cx.config.limits.hibernate_after;
    let Some(pane) = projection.pane(id) else {
        return crate::actors::pane::Hibernate {
            after: default,
            quiet_for: std::time::Duration::ZERO,
            task_waits: false,
        };
    };
    let now = signaltty_protocol::Timestamp::now()
        .unix_millis()
        .unwrap_or(0);
    let mark = quiet_mark(pane).unix_millis().unwrap_or(now);
    crate::actors::pane::Hibernate {
        after: after_of(projection, default, pane),
        quiet_for: std::time::Duration::from_millis(now.saturating_sub(mark).max(0) as u64),
        task_waits: task_waits(projection, pane),
    }
}
