//! Notifications (docs/notifications.md#how-a-notification-is-stored,
//! docs/objects.md#notification): building the stored record from untrusted
//! text, and the `last_message` rule.

use signaltty_model::term::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::Pane;
use signaltty_protocol::state::{Notification, Severity};

/// The title of a notification that came without one.
pub const FALLBACK_TITLE: &str = "signaltty";
/// `last_message` keeps at most this many characters of a body, then `…`.
pub const MESSAGE_BODY_CHARS: usize = 300;

/// What a notification is made of, before sanitizing.
#[derive(Debug, Clone)]
pub struct Draft<'a> {
    /// An explicit title (the `title` param, an OSC 99/777 title).
    pub title: Option<&'a str>,
    /// An adapter's title, used when no explicit one is given, before the
    /// fallback `signaltty`.
    pub draft_title: Option<&'a str>,
    pub body: &'a str,
    pub severity: Severity,
    /// `osc9`, `cli`, `hook:<agent>:<event>`, …
    pub source: String,
}

/// A notification about to be stored, and whether its title was given
/// explicitly (which decides the `last_message` form).
#[derive(Debug, Clone, PartialEq)]
pub struct NewNotification {
    pub notification: Notification,
    pub explicit_title: bool,
}

impl NewNotification {
    /// Builds the record for `pane` from `draft`.
    pub fn new(id: String, pane: &Pane, draft: Draft<'_>, now: Timestamp) -> NewNotification {
        let Draft {
            title,
            draft_title,
            body,
            severity,
            source,
        } = draft;
        let explicit = title
            .map(|t| sanitize(t, MAX_TITLE_CHARS))
            .filter(|t| !t.is_empty());
        let explicit_title = explicit.is_some();
        let title = explicit
            .or_else(|| draft_title.map(|t| sanitize(t, MAX_TITLE_CHARS)))
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| FALLBACK_TITLE.to_owned());
        let body = sanitize(body, MAX_BODY_CHARS);
        NewNotification {
            notification: Notification {
                id,
                pane_id: Some(pane.id.clone()),
                workspace_id: Some(pane.workspace_id.clone()),
                title,
                body: (!body.is_empty()).then_some(body),
                severity,
                source,
                created_at: now,
                read_at: None,
            },
            explicit_title,
        }
    }

    /// The pane's `last_message` after storing it: an empty body keeps the
    /// current message (or takes the title when there is none); an explicit title
    /// gives `"<title>: <body>"`; otherwise the body alone. The body is cut to
    /// 300 characters with `…` appended. `None` leaves the message as it is.
    pub fn last_message(&self, current: Option<&str>) -> Option<String> {
        let n = &self.notification;
        let Some(body) = n.body.as_deref() else {
            return match current {
                Some(_) => None,
                None => Some(n.title.clone()),
            };
        };
        let body = truncate_chars(body, MESSAGE_BODY_CHARS);
        Some(if self.explicit_title {
            format!("{}: {body}", n.title)
        } else {
            body
        })
    }
}

/// At most `max` characters of `text`, with `…` appended when cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
