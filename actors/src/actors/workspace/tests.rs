//! Workspace actor tests: tab layouts against a real Supervisor on a memory journal.

use super::apply::ApplyLayout;
use super::*;
use crate::actors::supervisor::Supervisor;
use crate::store::journal::MemoryStore;
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
    let (ws, tab, _) = start_with_supervisor(dir).await;
    (ws, tab)
}

async fn start_with_supervisor(dir: &std::path::Path) -> (Addr<Workspace>, Tab, Addr<Supervisor>) {
    let (stop_tx, _) = tokio::sync::watch::channel(crate::os::listener::Accepting::Open);
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
        hibernate_after_s: None,
        auto_continue: false,
        auto_continue_prompt: None,
        created_at: Timestamp::now(),
        updated_at: Timestamp::now(),
    };
    let ws = Workspace::new(
        state,
        sup.clone().recipient(),
        sup.clone().recipient(),
        crate::os::seams::Os::real(),
    )
    .start();
    let tab = Tab {
        id: TabId("tab_t".into()),
        workspace_id: WorkspaceId("ws_t".into()),
        title: "tab".into(),
        layout: Some(pair(SplitDir::Right, 0.5, "pane_a", "pane_b")),
        active_pane_id: None,
        created_at: Timestamp::now(),
    };
    let tab = ws.send(CreateTab { tab }).await.unwrap().unwrap();
    (ws, tab, sup)
}

/// An `ApplyLayout` of `argvs` side by side into a new tab `tab_id`.
fn apply_of(
    dir: &std::path::Path,
    sup: &Addr<Supervisor>,
    tab_id: &str,
    argvs: &[&[&str]],
) -> ApplyLayout {
    let mut leaves = Vec::new();
    let mut layout: Option<Layout> = None;
    for (i, argv) in argvs.iter().enumerate() {
        let id = PaneId(format!("{tab_id}_pane_{i}"));
        let (pane, spec) = crate::domain::launch::build_pane(crate::domain::launch::PaneRecipe {
            id: id.clone(),
            workspace: WorkspaceId("ws_t".into()),
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            cwd: dir.to_path_buf(),
            size: signaltty_protocol::pane::PtySize::DEFAULT,
            kind: signaltty_protocol::pane::AgentKind::Generic,
            request_env: Default::default(),
            parent: None,
            relationship: None,
            label: None,
            task_id: None,
            server_env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            socket: std::path::Path::new("/nonexistent.sock"),
            now: Timestamp::now(),
        });
        leaves.push(ApplyLeaf {
            pane,
            spec,
            arbiter: Arbiter::current(),
            tail: Default::default(),
        });
        let leaf = Layout::Pane { pane_id: id };
        layout = Some(match layout {
            None => leaf,
            Some(first) => Layout::Split {
                dir: SplitDir::Right,
                ratio: 0.5,
                first: Box::new(first),
                second: Box::new(leaf),
            },
        });
    }
    ApplyLayout {
        tab: Tab {
            id: TabId(tab_id.into()),
            workspace_id: WorkspaceId("ws_t".into()),
            title: "applied".into(),
            layout: None,
            active_pane_id: None,
            created_at: Timestamp::now(),
        },
        layout: layout.unwrap(),
        leaves,
        pty_out: crate::actors::publish::PtyOut::unbounded(),
        config: Arc::new(config(dir)),
        ticket: crate::actors::directory::LaunchTicket::new(sup.clone().recipient(), Vec::new()),
    }
}

#[actix::test]
async fn an_applied_layout_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, _, sup) = start_with_supervisor(dir.path()).await;
    let missing = dir.path().join("no-such-program");
    let missing = missing.to_string_lossy().into_owned();
    let failed = ws
        .send(apply_of(
            dir.path(),
            &sup,
            "tab_bad",
            &[&["sleep", "600"], &[missing.as_str()]],
        ))
        .await
        .unwrap();
    assert!(
        matches!(failed, Err(Error::SpawnFailed(ref m)) if m.contains("leaf 2")),
        "{failed:?}"
    );
    // The tab never existed.
    let gone = ws
        .send(SetRatio {
            tab_id: TabId("tab_bad".into()),
            path: vec![],
            ratio: 0.5,
        })
        .await
        .unwrap();
    assert!(matches!(gone, Err(Error::NoSuchTab(_))), "{gone:?}");
    let (tab, placed) = ws
        .send(apply_of(
            dir.path(),
            &sup,
            "tab_ok",
            &[&["sleep", "600"], &["sleep", "601"]],
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(placed.len(), 2);
    assert_eq!(tab.active_pane_id, Some(placed[0].0.id.clone()));
    assert_eq!(
        tab.layout.as_ref().map(crate::domain::layout::leaves),
        Some(placed.iter().map(|(p, _, _)| p.id.clone()).collect())
    );
    assert!(placed.iter().all(|(p, _, _)| p.tab_id == tab.id));
    ws.send(CloseTab {
        tab_id: tab.id,
        signal: SignalName::Kill,
    })
    .await
    .unwrap()
    .unwrap();
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
