//! A pane's launch on fake seams (no process, no file system): the cwd is
//! checked off the loop and refused when it is not a directory, a workspace
//! closed while the check runs starts nothing, a spawn that fails publishes
//! nothing and ends its launch, and an agent's hooks are prepared before it
//! starts, with the command the setup gives.

use crate::actors::services::Reporters;
use crate::testkit::{call, fake_os, server_on, wait_for};
use serde_json::Value;
use signaltty_protocol::pane::PaneSpawnParams;
use signaltty_protocol::workspace::{WorkspaceCloseParams, WorkspaceCreateParams};
use signaltty_protocol::{ErrorCode, Method, WorkspaceRef};

fn create(cwd: &str) -> Method {
    Method::WorkspaceCreate(WorkspaceCreateParams {
        name: Some("w".into()),
        cwd: Some(cwd.into()),
    })
}

fn spawn(argv: &[&str], cwd: Option<&str>) -> Method {
    let mut p = PaneSpawnParams::new(
        WorkspaceRef("w".into()),
        argv.iter().map(|a| (*a).to_owned()).collect(),
    );
    p.cwd = cwd.map(str::to_owned);
    Method::PaneSpawn(p)
}

fn get() -> Method {
    Method::WorkspaceGet(signaltty_protocol::workspace::WorkspaceGetParams {
        workspace_id: WorkspaceRef("w".into()),
    })
}

fn panes_and_tabs(got: &Value) -> (usize, usize) {
    let len = |k: &str| got[k].as_array().map_or(0, Vec::len);
    (len("panes"), len("tabs"))
}

#[actix::test]
async fn a_cwd_that_is_not_a_directory_is_refused_and_nothing_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (os, world) = fake_os();
    world.files.dir("/w");
    let (sup, conn) = server_on(dir.path(), os);
    call(&sup, &conn, create("/w")).await.unwrap();

    let refused = call(&sup, &conn, spawn(&["bash"], Some("/w/missing"))).await;
    assert_eq!(
        refused,
        Err((
            ErrorCode::BadParams,
            "cwd /w/missing is not a directory".into()
        ))
    );
    let relative = call(&sup, &conn, spawn(&["bash"], Some("w/rel"))).await;
    assert_eq!(
        relative.map_err(|(code, m)| (code, m.contains("is not an absolute path"))),
        Err((ErrorCode::BadParams, true))
    );
    assert!(
        !world.files.checked().iter().any(|p| p.ends_with("rel")),
        "a relative cwd is refused before the file system is asked"
    );
    assert!(world.spawner.spawned().is_empty(), "no process was started");
    let got = call(&sup, &conn, get()).await.unwrap();
    assert_eq!(panes_and_tabs(&got), (0, 0), "nothing was placed: {got}");
}

#[actix::test]
async fn a_workspace_closed_while_the_cwd_is_checked_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (os, world) = fake_os();
    world.files.dir("/w");
    let (sup, conn) = server_on(dir.path(), os);
    call(&sup, &conn, create("/w")).await.unwrap();

    let release = world.files.hold_next();
    let spawning = {
        let (sup, conn) = (sup.clone(), conn.clone());
        actix_rt::spawn(async move { call(&sup, &conn, spawn(&["bash"], None)).await })
    };
    let files = world.files.clone();
    wait_for("the spawn's cwd check to start", || {
        files.checked().len() == 2
    })
    .await;
    let closed = call(
        &sup,
        &conn,
        Method::WorkspaceClose(WorkspaceCloseParams {
            workspace_id: WorkspaceRef("w".into()),
            signal: None,
        }),
    )
    .await;
    assert!(closed.is_ok(), "{closed:?}");
    release.send(()).unwrap();
    let spawned = spawning.await.unwrap();
    assert_eq!(
        spawned.map_err(|(code, _)| code),
        Err(ErrorCode::NoSuchWorkspace)
    );
    assert!(world.spawner.spawned().is_empty(), "no process was started");
}

#[actix::test]
async fn a_spawn_that_fails_publishes_nothing_and_ends_its_launch() {
    let dir = tempfile::tempdir().unwrap();
    let (os, world) = fake_os();
    world.files.dir("/w");
    world.spawner.fail_with("no such program");
    let (sup, conn) = server_on(dir.path(), os);
    call(&sup, &conn, create("/w")).await.unwrap();

    let failed = call(&sup, &conn, spawn(&["nope"], None)).await;
    assert_eq!(
        failed.map_err(|(code, m)| (code, m.contains("no such program"))),
        Err((ErrorCode::SpawnFailed, true))
    );
    let got = call(&sup, &conn, get()).await.unwrap();
    assert_eq!(
        panes_and_tabs(&got),
        (0, 0),
        "the tab a spawn would have created is not there: {got}"
    );
    let seen = sup.send(Reporters { pane: None }).await.unwrap();
    assert!(
        seen.launching.is_none(),
        "no launch is left under way after a failure"
    );
}

#[actix::test]
async fn an_agent_gets_its_hooks_prepared_and_runs_what_the_setup_says() {
    let dir = tempfile::tempdir().unwrap();
    let (os, world) = fake_os();
    world.files.dir("/w");
    world.hooks.exec(&["claude", "--from-setup"]);
    let (sup, conn) = server_on(dir.path(), os);
    call(&sup, &conn, create("/w")).await.unwrap();

    let plain = call(&sup, &conn, spawn(&["bash"], None)).await.unwrap();
    assert!(
        plain.get("integration").is_none_or(Value::is_null),
        "{plain}"
    );
    assert!(world.hooks.calls().is_empty(), "a shell gets no hook setup");

    let split = Method::PaneSplit(signaltty_protocol::pane::PaneSplitParams {
        pane_id: signaltty_protocol::PaneRef(plain["pane"]["id"].as_str().unwrap().into()),
        argv: Some(vec!["claude".into()]),
        cwd: None,
        direction: None,
        env: None,
    });
    let agent = call(&sup, &conn, split).await.unwrap();
    assert_eq!(world.hooks.calls(), vec![vec!["claude".to_owned()]]);
    assert_eq!(agent["integration"]["status"], "installed", "{agent}");
    let spawned = world.spawner.spawned();
    assert_eq!(spawned.len(), 2);
    assert_eq!(spawned[1].0.argv, ["claude", "--from-setup"]);
    assert_eq!(agent["pane"]["argv"], serde_json::json!(["claude"]));
    let got = call(&sup, &conn, get()).await.unwrap();
    assert_eq!(panes_and_tabs(&got), (2, 1), "{got}");
}

#[actix::test]
async fn an_agent_that_is_not_installed_gets_nothing_written_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let (os, world) = fake_os();
    world.files.dir("/w");
    world.spawner.missing("claude");
    let (sup, conn) = server_on(dir.path(), os);
    call(&sup, &conn, create("/w")).await.unwrap();

    let refused = call(&sup, &conn, spawn(&["claude"], None)).await;
    assert_eq!(
        refused,
        Err((
            ErrorCode::SpawnFailed,
            "failed to spawn \"claude\": not found".into()
        ))
    );
    assert!(
        world.hooks.calls().is_empty(),
        "no hook setup for a program that is not there"
    );
    assert!(world.spawner.spawned().is_empty());
    let seen = sup.send(Reporters { pane: None }).await.unwrap();
    assert!(seen.launching.is_none(), "the launch ended");
}
