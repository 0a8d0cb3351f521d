//! `notification.*` params and results: the server's kept notifications
//! (the newest 200, docs/notifications.md#the-ring) listed and marked read. These two
//! methods are extensions of this server (docs/notifications.md).

use crate::PaneRef;
use crate::state::Notification;
use serde::{Deserialize, Serialize};

/// `notification.list` answers at most this many by default…
pub const LIST_DEFAULT: usize = 50;
/// …and never more than the server keeps.
pub const LIST_MAX: usize = 200;

/// `notification.list` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationListParams {
    /// Only this pane's (an id or a name; the id of a closed pane still matches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneRef>,
    /// Only those not read yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread_only: Option<bool>,
    /// At most this many, default 50, clamped to 1..=200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

/// `notification.list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationListResult {
    /// Newest first.
    pub notifications: Vec<Notification>,
}

/// `notification.mark_read` params: `ids`, or `pane_id`, or neither (all).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationMarkReadParams {
    /// These notifications (ids no longer kept are ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    /// Every notification of this pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneRef>,
}

/// `notification.mark_read` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationMarkReadResult {
    /// How many unread notifications became read.
    pub marked: usize,
}
