//! `signaltty notifications` (notification.list) and `signaltty
//! notifications read` (notification.mark_read).

use crate::args::Global;
use crate::cli::{call, fail_with};
use clap::{Args, Subcommand};
use signaltty_protocol::notification::{
    NotificationListParams, NotificationListResult, NotificationMarkReadParams,
    NotificationMarkReadResult,
};
use signaltty_protocol::state::{Notification, Severity};
use signaltty_protocol::{ErrorCode, Method, PaneRef};

/// The width a text line is cut to.
const WIDTH: usize = 80;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct NotificationsArgs {
    #[command(subcommand)]
    pub command: Option<NotificationsCommand>,
    /// Only this pane's (id or name).
    #[arg(long)]
    pub pane: Option<String>,
    /// Only the unread ones.
    #[arg(long)]
    pub unread: bool,
    /// At most this many (default 50, at most 200).
    #[arg(long)]
    pub limit: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum NotificationsCommand {
    /// Mark notifications read (notification.mark_read): these ids, a pane's, or --all.
    Read {
        /// Notification ids (from `notifications --json`).
        #[arg(conflicts_with_all = ["pane", "all"])]
        ids: Vec<String>,
        /// Every notification of this pane (id or name).
        #[arg(long, conflicts_with = "all")]
        pane: Option<String>,
        /// Every kept notification.
        #[arg(long)]
        all: bool,
    },
}

/// `signaltty notifications …`.
pub fn run(global: &Global, args: NotificationsArgs) -> i32 {
    match args.command {
        None => {
            let params = NotificationListParams {
                pane_id: args.pane.map(PaneRef),
                unread_only: args.unread.then_some(true),
                limit: args.limit,
            };
            call(
                global,
                Method::NotificationList(params),
                |r: NotificationListResult| {
                    if r.notifications.is_empty() {
                        say!("no notifications");
                    }
                    for n in &r.notifications {
                        say!("{}", line(n));
                    }
                },
            )
        },
        Some(NotificationsCommand::Read { ids, pane, all }) => {
            let params = match (ids.is_empty(), pane, all) {
                (false, None, false) => NotificationMarkReadParams {
                    ids: Some(ids),
                    pane_id: None,
                },
                (true, Some(p), false) => NotificationMarkReadParams {
                    ids: None,
                    pane_id: Some(PaneRef(p)),
                },
                (true, None, true) => NotificationMarkReadParams::default(),
                _ => {
                    return fail_with(
                        ErrorCode::BadParams,
                        "give notification ids, --pane PANE or --all",
                    );
                },
            };
            call(
                global,
                Method::NotificationMarkRead(params),
                |r: NotificationMarkReadResult| say!("marked {} read", r.marked),
            )
        },
    }
}

/// One notification on one line of at most 80 columns: unread mark, time of
/// day (UTC), the pane's short id, severity, then the title and the body cut
/// to fit.
fn line(n: &Notification) -> String {
    let mark = if n.read_at.is_none() { '*' } else { ' ' };
    let time = n.created_at.as_str().get(11..19).unwrap_or("--:--:--");
    let pane = n
        .pane_id
        .as_ref()
        .map_or("-", |p| p.as_str().get(..13).unwrap_or(p.as_str()));
    let severity = match n.severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    };
    let head = format!("{mark} {time}  {pane:<13}  {severity:<7}  ");
    let mut text = n.title.clone();
    if let Some(body) = n.body.as_deref().filter(|b| !b.is_empty()) {
        text.push_str(": ");
        text.push_str(body);
    }
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!(
        "{head}{}",
        cut(&text, WIDTH.saturating_sub(head.chars().count()))
    )
}

/// `text` in at most `room` characters, ending in `…` when cut.
fn cut(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(room.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests;
