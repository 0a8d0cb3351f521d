//! Tests of the read model: replaying events, the notifications kept, and
//! snapshots of it.

use super::*;
use signaltty_protocol::Timestamp;
use signaltty_protocol::workspace::GitInfo;

fn ws(id: &str, name: &str) -> Workspace {
    Workspace {
        id: WorkspaceId(id.into()),
        name: name.into(),
        handle: name.into(),
        cwd: "/".into(),
        git: GitInfo::default(),
        tabs: vec![],
        active_tab_id: None,
        auto_resume: false,
        hibernate_after_s: None,
        auto_continue: false,
        auto_continue_prompt: None,
        created_at: Timestamp::from_unix_millis(0),
        updated_at: Timestamp::from_unix_millis(0),
    }
}

#[test]
fn replaying_events_rebuilds_the_same_state_in_creation_order() {
    let events = [
        Event::WorkspaceCreated {
            workspace: ws("ws_b", "b"),
        },
        Event::WorkspaceCreated {
            workspace: ws("ws_a", "a"),
        },
        Event::WorkspaceUpdated {
            workspace: ws("ws_b", "b2"),
        },
        Event::WorkspaceCreated {
            workspace: ws("ws_c", "c"),
        },
        Event::WorkspaceClosed {
            workspace_id: WorkspaceId("ws_a".into()),
        },
    ];
    let mut p = Projection::new(Seq(0));
    for (i, e) in events.iter().enumerate() {
        p.apply(Seq(i as u64 + 1), e.clone());
    }
    let names: Vec<_> = p.workspaces().into_iter().map(|w| w.name).collect();
    assert_eq!(names, vec!["b2", "c"]);
    assert_eq!(p.seq(), Seq(5));
    assert_eq!(p.workspace_count(), 2);
}

fn notification(n: usize) -> Notification {
    Notification {
        id: format!("notif_{n}"),
        pane_id: None,
        workspace_id: None,
        title: format!("n{n}"),
        body: None,
        severity: signaltty_protocol::state::Severity::Info,
        source: "cli".into(),
        created_at: Timestamp::from_unix_millis(0),
        read_at: None,
    }
}

#[test]
fn the_newest_200_notifications_are_kept_oldest_first_across_a_restore() {
    let mut p = Projection::new(Seq(0));
    p.restore_notifications((0..150).map(notification).collect());
    let pane = crate::domain::state::tests::pane(signaltty_protocol::pane::AgentKind::Claude);
    for n in 150..260 {
        p.apply(
            Seq(n as u64),
            Event::NotificationCreated {
                notification: notification(n),
                pane: Box::new(pane.clone()),
            },
        );
    }
    let kept: Vec<String> = p.notifications().into_iter().map(|n| n.id).collect();
    assert_eq!(kept.len(), KEPT_NOTIFICATIONS);
    assert_eq!(kept.first().map(String::as_str), Some("notif_60"));
    assert_eq!(kept.last().map(String::as_str), Some("notif_259"));
}

#[test]
fn notification_read_sets_read_at_once_and_only_on_the_named_ones() {
    let mut p = Projection::new(Seq(0));
    p.restore_notifications((0..3).map(notification).collect());
    let first = Timestamp::from_unix_millis(1000);
    p.apply(
        Seq(1),
        Event::NotificationRead {
            ids: vec!["notif_0".into(), "notif_2".into(), "notif_gone".into()],
            read_at: first.clone(),
        },
    );
    p.apply(
        Seq(2),
        Event::NotificationRead {
            ids: vec!["notif_0".into()],
            read_at: Timestamp::from_unix_millis(2000),
        },
    );
    let read: Vec<Option<Timestamp>> = p.notifications().into_iter().map(|n| n.read_at).collect();
    assert_eq!(read, vec![Some(first.clone()), None, Some(first)]);
    let unread = p.notifications_newest(|n| n.read_at.is_none(), 10);
    assert_eq!(unread.len(), 1);
    let newest: Vec<String> = p
        .notifications_newest(|_| true, 2)
        .into_iter()
        .map(|n| n.id)
        .collect();
    assert_eq!(newest, vec!["notif_2", "notif_1"]);
}

#[test]
fn a_snapshot_taken_before_a_change_keeps_the_objects_as_they_were() {
    let mut pane = crate::domain::state::tests::pane(signaltty_protocol::pane::AgentKind::Claude);
    pane.live = LiveState::Live;
    let mut p = Projection::new(Seq(0));
    p.apply(
        Seq(1),
        Event::WorkspaceCreated {
            workspace: ws(pane.workspace_id.as_str(), "a"),
        },
    );
    p.apply(
        Seq(2),
        Event::PaneCreated {
            pane: pane.clone(),
            resumed: None,
        },
    );
    let (workspaces, panes) = (p.shared_workspaces(), p.all_panes());
    // Changed in place in the projection: copied first, the snapshot's
    // objects stay as they were.
    p.apply(
        Seq(3),
        Event::PaneExited {
            pane_id: pane.id.clone(),
            code: Some(0),
        },
    );
    let tab = Tab {
        id: TabId("tab_new".into()),
        workspace_id: pane.workspace_id.clone(),
        title: "new".into(),
        layout: None,
        active_pane_id: None,
        created_at: Timestamp::from_unix_millis(0),
    };
    p.apply(Seq(4), Event::TabCreated { tab });
    assert_eq!(panes[0].live, LiveState::Live);
    assert_eq!(
        p.pane(&pane.id).map(|p| p.live),
        Some(LiveState::Exited { code: Some(0) })
    );
    assert!(workspaces[0].tabs.is_empty());
    assert_eq!(p.workspaces()[0].tabs, vec![TabId("tab_new".into())]);
}
