//! `pane.resume` on fake seams: a restored shell starts again in its own pane
//! with its own command and directory, the registry learns its new process,
//! and a live pane or one with nothing to resume is refused.

use crate::actors::services::FindPane;
use crate::domain::launch::{self, PaneRecipe};
use crate::domain::projection::Projection;
use crate::store::restore::{RestoreReport, Restored};
use crate::testkit::{call, config, fake_os};
use actix::prelude::*;
use signaltty_protocol::WorkspaceId;
use signaltty_protocol::pane::{AgentKind, PaneTarget, PtySize};
use signaltty_protocol::workspace::{Layout, Tab, Workspace};
use signaltty_protocol::{ErrorCode, Event, Method, PaneId, PaneRef, Seq, TabId, Timestamp};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A restored world: one workspace in `/w` with one tab holding a tombstone
/// pane per argv, in order.
fn restored(argvs: &[&[&str]]) -> (Restored, Vec<PaneId>) {
    let now = Timestamp::now();
    let ws = WorkspaceId("ws_r".into());
    let tab = TabId("tab_r".into());
    let mut projection = Projection::new(Seq(0));
    projection.apply(
        Seq(1),
        Event::WorkspaceCreated {
            workspace: Workspace {
                id: ws.clone(),
                name: "r".into(),
                handle: "r".into(),
                cwd: "/w".into(),
                git: Default::default(),
                tabs: vec![tab.clone()],
                active_tab_id: Some(tab.clone()),
                auto_resume: false,
                hibernate_after_s: None,
                auto_continue: false,
                auto_continue_prompt: None,
                created_at: now.clone(),
                updated_at: now.clone(),
            },
        },
    );
    let mut ids = Vec::new();
    let mut layout: Option<Layout> = None;
    for (i, argv) in argvs.iter().enumerate() {
        let id = PaneId(format!("pane_r{i}"));
        let socket = PathBuf::from("/run/s.sock");
        let (mut pane, _) = launch::build_pane(PaneRecipe {
            id: id.clone(),
            workspace: ws.clone(),
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            cwd: PathBuf::from("/w"),
            size: PtySize::DEFAULT,
            kind: AgentKind::Generic,
            request_env: Default::default(),
            parent: None,
            relationship: None,
            label: None,
            task_id: None,
            server_env: Vec::new(),
            socket: &socket,
            now: now.clone(),
        });
        pane.tab_id = tab.clone();
        crate::store::restore::tombstone(&mut pane);
        layout = Some(match layout {
            None => Layout::Pane {
                pane_id: id.clone(),
            },
            Some(l) => crate::domain::layout::split(
                Some(l),
                None,
                signaltty_protocol::workspace::SplitDir::Right,
                id.clone(),
            )
            .expect("a split"),
        });
        projection.apply(
            Seq(2 + i as u64),
            Event::PaneCreated {
                pane,
                resumed: None,
            },
        );
        ids.push(id);
    }
    projection.apply(
        Seq(100),
        Event::TabCreated {
            tab: Tab {
                id: tab.clone(),
                workspace_id: ws,
                title: "t".into(),
                layout,
                active_pane_id: ids.first().cloned(),
                created_at: now,
            },
        },
    );
    let restored = Restored {
        projection,
        tails: HashMap::new(),
        report: RestoreReport::default(),
    };
    (restored, ids)
}

fn resume(id: &PaneId) -> Method {
    Method::PaneResume(PaneTarget {
        pane_id: PaneRef(id.0.clone()),
    })
}

#[actix::test]
async fn a_restored_shell_resumes_in_its_own_pane_with_its_own_command() {
    let dir = tempfile::tempdir().unwrap();
    let (os, world) = fake_os();
    let (restored, ids) = restored(&[&["bash"], &["sh", "-c", "make test"]]);
    let (stop_tx, _) = tokio::sync::watch::channel(crate::os::listener::Accepting::Open);
    let config = crate::config::Config {
        os,
        ..config(dir.path())
    };
    let sup = crate::actors::supervisor::Supervisor::new(
        Arc::new(config),
        crate::store::journal::MemoryStore,
        None,
        stop_tx,
    )
    .restored(restored, dir.path().join("state"))
    .start();
    let (conn, _) = crate::testkit::Probe::start(1);

    let resumed = call(&sup, &conn, resume(&ids[0])).await.unwrap();
    assert_eq!(resumed["pane"]["id"], ids[0].0.as_str());
    assert_eq!(resumed["pane"]["live"]["state"], "live", "{resumed}");
    assert_eq!(resumed["pane"]["restore_state"], "LIVE");
    let spawned = world.spawner.spawned();
    assert_eq!(spawned.len(), 1);
    let spec = &spawned[0].0;
    assert_eq!(spec.argv, ["bash"]);
    assert_eq!(spec.cwd, PathBuf::from("/w"));
    assert!(
        spec.env
            .iter()
            .any(|(k, v)| k == "SIGNALTTY_PANE" && *v == ids[0].0),
        "the new process knows its pane: {:?}",
        spec.env
    );
    let entry = sup
        .send(FindPane(PaneRef(ids[0].0.clone())))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(entry.pid, 4242, "the registry knows the new process");

    let again = call(&sup, &conn, resume(&ids[0])).await;
    assert_eq!(
        again.map_err(|(code, m)| (code, m.contains("is already live"))),
        Err((ErrorCode::BadParams, true))
    );
    let command = call(&sup, &conn, resume(&ids[1])).await;
    assert_eq!(
        command.map_err(|(code, m)| (code, m.contains("is not resumable"))),
        Err((ErrorCode::BadParams, true)),
        "a shell that ran a command is not ours to run again"
    );
    assert_eq!(world.spawner.spawned().len(), 1, "nothing else started");
}
