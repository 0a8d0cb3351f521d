//! Routing of `notification.list` and `notification.mark_read` (extensions,
//! docs/notifications.md): reads come from the projection's kept
//! notifications (the newest 200); marking publishes one journaled
//! `notification.read {ids, read_at}`, which the projection, the snapshot and
//! a replaying subscriber all apply the same way. `pane.mark_seen` marks the
//! pane's notifications read through [`read_of_pane`].

use super::{Cx, Routed, answer, fail, flatten, ready};
use crate::domain::projection::Projection;
use crate::error::Error;
use signaltty_protocol::notification::{
    LIST_DEFAULT, LIST_MAX, NotificationListParams, NotificationListResult,
    NotificationMarkReadParams, NotificationMarkReadResult,
};
use signaltty_protocol::state::Notification;
use signaltty_protocol::{Event, PaneId, PaneRef, Timestamp};

/// The pane id a filter names: a registered pane (by id or name), else the
/// text itself, so the notifications of a closed pane can still be found.
fn pane_filter(cx: &Cx<'_>, r: &PaneRef) -> PaneId {
    cx.registry
        .resolve(r)
        .unwrap_or_else(|_| PaneId(r.0.clone()))
}

/// `notification.list`: newest first.
pub fn list(cx: &mut Cx<'_>, p: NotificationListParams) -> Routed {
    let pane = p.pane_id.as_ref().map(|r| pane_filter(cx, r));
    let unread_only = p.unread_only.unwrap_or(false);
    let limit = p
        .limit
        .map_or(LIST_DEFAULT, |l| usize::try_from(l).unwrap_or(LIST_MAX))
        .clamp(1, LIST_MAX);
    let notifications = cx.events.projection().notifications_newest(
        |n| {
            pane.as_ref()
                .is_none_or(|id| n.pane_id.as_ref() == Some(id))
                && (!unread_only || n.read_at.is_none())
        },
        limit,
    );
    ready(Ok(NotificationListResult { notifications }))
}

/// The unread kept notifications that pass `keep`, by id.
fn unread_ids(projection: &Projection, keep: impl Fn(&Notification) -> bool) -> Vec<String> {
    let mut ids: Vec<String> = projection
        .notifications_newest(|n| n.read_at.is_none() && keep(n), LIST_MAX)
        .into_iter()
        .map(|n| n.id)
        .collect();
    ids.reverse();
    ids
}

/// The event that marks `pane`'s unread notifications read, if it has any.
pub(crate) fn read_of_pane(projection: &Projection, pane: &PaneId) -> Option<Event> {
    let ids = unread_ids(projection, |n| n.pane_id.as_ref() == Some(pane));
    (!ids.is_empty()).then(|| Event::NotificationRead {
        ids,
        read_at: Timestamp::now(),
    })
}

/// `notification.mark_read`: `ids`, or every notification of `pane_id`, or
/// (neither given) every kept one.
pub fn mark_read(cx: &mut Cx<'_>, p: NotificationMarkReadParams) -> Routed {
    let ids = match (p.ids, p.pane_id) {
        (Some(_), Some(_)) => {
            return fail(Err(Error::BadParams(
                "give ids or pane_id, not both".into(),
            )));
        },
        (Some(ids), None) if ids.is_empty() => {
            return fail(Err(Error::BadParams(
                "ids must not be empty (leave it out to mark every notification)".into(),
            )));
        },
        (Some(ids), None) => unread_ids(cx.events.projection(), |n| ids.contains(&n.id)),
        (None, Some(r)) => {
            let pane = pane_filter(cx, &r);
            unread_ids(cx.events.projection(), |n| {
                n.pane_id.as_ref() == Some(&pane)
            })
        },
        (None, None) => unread_ids(cx.events.projection(), |_| true),
    };
    let marked = ids.len();
    if marked == 0 {
        return ready(Ok(NotificationMarkReadResult { marked }));
    }
    let rx = cx.events.publish(vec![Event::NotificationRead {
        ids,
        read_at: Timestamp::now(),
    }]);
    answer(async move { flatten(rx.await).map(|_| NotificationMarkReadResult { marked }) })
}
