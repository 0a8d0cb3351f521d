//! Routing of the attention methods (spec/ipc.md §8.5 `pane.mark_seen`, §8.7
//! `notify`, §8.9 `focus.next_unread`, `attention.pending`). Changes go to the
//! pane's actor, which owns its state; rankings are read from the projection.

use super::panes::ask_pane;
use super::{Routed, ready};
use crate::error::Error;
use crate::pane::{Explain, MarkSeen, Notify};
use crate::projection::Projection;
use crate::supervisor::Supervisor;
use signaltty_protocol::pane::{PaneResult, PaneTarget};
use signaltty_protocol::state::{
    AttentionPendingParams, AttentionPendingResult, FocusNextUnreadResult, NotifyParams,
    NotifyResult,
};

/// `attention.pending` answers at most this many panes by default…
pub const PENDING_DEFAULT: u64 = 50;
/// …and never more than this.
pub const PENDING_MAX: u64 = 500;

/// `pane.mark_seen`.
pub fn mark_seen(sup: &mut Supervisor, p: PaneTarget) -> Routed {
    let id = match sup.resolve_pane_ref(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return ready::<PaneResult>(Err(e)),
    };
    ask_pane(
        sup,
        &id,
        MarkSeen {
            reason: "mark_seen",
        },
        |pane| PaneResult { pane },
    )
}

/// `notify`.
pub fn notify(sup: &mut Supervisor, p: NotifyParams) -> Routed {
    if p.title.trim().is_empty() {
        return ready::<NotifyResult>(Err(Error::BadParams("title must not be empty".into())));
    }
    let id = match sup.resolve_pane_ref(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return ready::<NotifyResult>(Err(e)),
    };
    let msg = Notify {
        title: p.title,
        body: p.body.unwrap_or_default(),
        severity: p.severity.unwrap_or_default(),
    };
    ask_pane(sup, &id, msg, |notification| NotifyResult { notification })
}

/// `focus.next_unread`.
pub fn focus_next_unread(sup: &mut Supervisor) -> Routed {
    let pane_id = sup
        .projection
        .attention_ranked()
        .first()
        .map(|p| p.id.clone());
    ready(Ok(FocusNextUnreadResult { pane_id }))
}

/// `attention.pending`.
pub fn pending(sup: &mut Supervisor, p: AttentionPendingParams) -> Routed {
    let limit = p.limit.unwrap_or(PENDING_DEFAULT).clamp(1, PENDING_MAX) as usize;
    let panes = sup
        .projection
        .attention_ranked()
        .into_iter()
        .take(limit)
        .map(Projection::attention_item)
        .collect();
    ready(Ok(AttentionPendingResult { panes }))
}

/// `pane.explain`.
pub fn explain(sup: &mut Supervisor, p: PaneTarget) -> Routed {
    let id = match sup.resolve_pane_ref(&p.pane_id) {
        Ok(id) => id,
        Err(e) => return ready::<signaltty_protocol::state::PaneExplainResult>(Err(e)),
    };
    ask_pane(sup, &id, Explain, |result| result)
}
