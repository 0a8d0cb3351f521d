//! Workspace actor tests: tab layouts against a real Supervisor on a memory journal.

use super::*;
use crate::journal::MemoryStore;
use crate::supervisor::Supervisor;
use crate::testkit::config;
use signaltty_protocol::workspace::{GitInfo, SplitDir};
use signaltty_protocol::{PaneId, WorkspaceId};
use std::sync::Arc;

fn pane(id: &str) -> Layout {
    Layout::Pane {
        pane_id: PaneId(id.into()),
    }
}

fn pair(dir: SplitDir, ratio: f32, a: &str, b: &str) -> Layout {
    Layout::Split {
        dir,
        ratio,
        first: Box::new(pane(a)),
        second: Box::new(pane(b)),
    }
}

async fn start(dir: &std::path::Path) -> (Addr<Workspace>, Tab) {
    let (stop_tx, _) = tokio::sync::watch::channel(false);
    let sup = Supervisor::new(Arc::new(config(dir)), MemoryStore, None, stop_tx).start();
    let state = WorkspaceState {
        id: WorkspaceId("ws_t".into()),
        name: "t".into(),
        handle: "t".into(),
        cwd: "/".into(),
        git: GitInfo::default(),
        tabs: vec![],
        active_tab_id: None,
        auto_resume: false,
        created_at: Timestamp::now(),
        updated_at: Timestamp::now(),
    };
    let ws = Workspace::new(state, sup.recipient()).start();
    let tab = Tab {
        id: TabId("tab_t".into()),
        workspace_id: WorkspaceId("ws_t".into()),
        title: "tab".into(),
        layout: Some(pair(SplitDir::Right, 0.5, "pane_a", "pane_b")),
        active_pane_id: None,
        created_at: Timestamp::now(),
    };
    let tab = ws.send(CreateTab { tab }).await.unwrap().unwrap();
    (ws, tab)
}

#[actix::test]
async fn set_layout_rearranges_exactly_the_tabs_panes_and_clamps() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, tab) = start(dir.path()).await;
    let swapped = pair(SplitDir::Down, 2.0, "pane_b", "pane_a");
    let tab = ws
        .send(SetLayout {
            tab_id: tab.id.clone(),
            layout: swapped,
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        tab.layout,
        Some(pair(SplitDir::Down, 0.95, "pane_b", "pane_a"))
    );
}

#[actix::test]
async fn a_rejected_layout_or_ratio_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, tab) = start(dir.path()).await;
    let original = tab.layout.clone();
    for bad in [
        pane("pane_a"),
        pair(SplitDir::Right, 0.5, "pane_a", "pane_a"),
        pair(SplitDir::Right, 0.5, "pane_a", "pane_z"),
    ] {
        let e = ws
            .send(SetLayout {
                tab_id: tab.id.clone(),
                layout: bad,
            })
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code(), signaltty_protocol::ErrorCode::BadParams);
    }
    let e = ws
        .send(SetRatio {
            tab_id: tab.id.clone(),
            path: vec![0],
            ratio: 0.3,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(e.code(), signaltty_protocol::ErrorCode::BadParams);
    let tab = ws
        .send(SetRatio {
            tab_id: tab.id.clone(),
            path: vec![],
            ratio: 0.3,
        })
        .await
        .unwrap()
        .unwrap();
    assert_ne!(tab.layout, original);
    assert!(matches!(tab.layout, Some(Layout::Split { ratio, .. }) if (ratio - 0.3).abs() < 1e-6));
}

#[actix::test]
async fn closing_the_active_tab_activates_the_last_remaining_one() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, first) = start(dir.path()).await;
    let second = Tab {
        id: TabId("tab_2".into()),
        layout: None,
        ..first.clone()
    };
    let third = Tab {
        id: TabId("tab_3".into()),
        layout: None,
        ..first.clone()
    };
    ws.send(CreateTab { tab: second }).await.unwrap().unwrap();
    ws.send(CreateTab { tab: third }).await.unwrap().unwrap();
    ws.send(CloseTab {
        tab_id: TabId("tab_3".into()),
        signal: SignalName::Term,
    })
    .await
    .unwrap()
    .unwrap();
    let renamed = ws.send(Rename { name: "x".into() }).await.unwrap().unwrap();
    assert_eq!(renamed.tabs, vec![first.id.clone(), TabId("tab_2".into())]);
    assert_eq!(renamed.active_tab_id, Some(TabId("tab_2".into())));
    let e = ws
        .send(CloseTab {
            tab_id: TabId("tab_3".into()),
            signal: SignalName::Term,
        })
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(e.code(), signaltty_protocol::ErrorCode::NoSuchTab);
}
