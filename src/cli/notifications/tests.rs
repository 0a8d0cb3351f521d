//! A notification's line: 80 columns at most, unread ones marked.

use super::*;
use signaltty_protocol::{PaneId, Timestamp};

#[test]
fn a_line_fits_80_columns_and_marks_unread() {
    let n = Notification {
        id: "notif_1".into(),
        pane_id: Some(PaneId("pane_0123456789abcdef0123456789abcdef".into())),
        workspace_id: None,
        title: "Build".into(),
        body: Some("x".repeat(300) + "\nmore"),
        severity: Severity::Warning,
        source: "cli".into(),
        created_at: Timestamp("2026-12-01T17:02:11.000Z".into()),
        read_at: None,
    };
    let text = line(&n);
    assert_eq!(text.chars().count(), 80, "{text}");
    assert!(
        text.starts_with("* 17:02:11  pane_01234567  warning  Build: xx"),
        "{text}"
    );
    assert!(text.ends_with('…'));
    let read = Notification {
        read_at: Some(Timestamp::now()),
        body: None,
        ..n
    };
    assert!(line(&read).starts_with("  17:02:11"), "{}", line(&read));
    assert!(line(&read).ends_with("Build"));
}
