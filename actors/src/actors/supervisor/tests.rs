//! Supervisor tests with fake journal stores and probe connections.

use super::*;
use crate::actors::connection::ConnHandle;
use crate::actors::publish::Publish;
use crate::store::journal::JournalStore;
use crate::store::journal::MemoryStore;
use crate::testkit::{FailingStore, FullDiskStore, GatedStore, Probe, config, wait_for};
use signaltty_protocol::WorkspaceId;
use signaltty_protocol::subscribe::SubscribeParams;
use signaltty_protocol::workspace::WorkspaceCreateParams;
use signaltty_protocol::{Event, Seq};
use signaltty_protocol::{Method, Request};

fn start(store: impl JournalStore, dir: &std::path::Path) -> Addr<Supervisor> {
    let (stop_tx, _stop_rx) = watch::channel(crate::os::listener::Accepting::Open);
    Supervisor::new(Arc::new(config(dir)), store, None, stop_tx).start()
}

fn dispatch(conn: &ConnHandle, method: Method) -> Dispatch {
    Dispatch {
        request: Request::new("t", method),
        conn: conn.clone(),
        generation: 1,
    }
}

fn create(name: &str) -> Method {
    Method::WorkspaceCreate(WorkspaceCreateParams {
        name: Some(name.into()),
        cwd: None,
    })
}

/// A reply's result as a JSON value.
fn json(reply: Reply) -> serde_json::Value {
    serde_json::from_slice(&reply.result.expect("a successful reply")).expect("result JSON")
}

fn closed_event(n: u64) -> Event {
    Event::WorkspaceClosed {
        workspace_id: WorkspaceId(format!("ws_{n}")),
    }
}

#[actix::test]
async fn events_are_published_and_answered_only_after_the_journal_syncs_them() {
    let dir = tempfile::tempdir().unwrap();
    let (store, gate, batches) = GatedStore::new();
    let sup = start(store, dir.path());
    let (conn, log) = Probe::start(1);
    let sub = sup
        .send(dispatch(
            &conn,
            Method::Subscribe(SubscribeParams::default()),
        ))
        .await
        .unwrap();
    assert_eq!(json(sub)["seq"], 100);

    let pending = actix_rt::spawn(sup.send(dispatch(&conn, create("alpha"))));
    wait_for("the journal to receive the event", || {
        batches.lock().len() == 1
    })
    .await;
    let status = sup
        .send(dispatch(&conn, Method::ServerStatus(Default::default())))
        .await
        .unwrap();
    assert_eq!(
        json(status)["workspaces"],
        0,
        "a read must not see an unsynced event"
    );
    assert!(
        log.lock().events.is_empty(),
        "nothing may be published before the sync"
    );
    assert!(
        !pending.is_finished(),
        "the request may not be answered before the sync"
    );

    gate.send(()).unwrap();
    let reply = pending.await.unwrap().unwrap();
    assert_eq!(json(reply)["workspace"]["handle"], "alpha");
    wait_for("the event to reach the subscriber", || {
        log.lock().events.len() == 1
    })
    .await;
    let event = log.lock().events[0].clone();
    assert_eq!(
        (event["event"].as_str(), event["seq"].as_u64()),
        (Some("workspace.created"), Some(101))
    );
}

#[actix::test]
async fn events_queued_during_a_sync_are_committed_together() {
    let dir = tempfile::tempdir().unwrap();
    let (store, gate, batches) = GatedStore::new();
    let sup = start(store, dir.path());
    let (conn, _log) = Probe::start(1);
    let first = actix_rt::spawn(sup.send(Publish::new(vec![closed_event(1)])));
    wait_for("the first append", || batches.lock().len() == 1).await;
    let rest: Vec<_> = (2..=4)
        .map(|n| actix_rt::spawn(sup.send(Publish::new(vec![closed_event(n)]))))
        .collect();
    // A round trip through the mailbox proves the three publishes were sequenced.
    sup.send(dispatch(&conn, Method::ServerStatus(Default::default())))
        .await
        .unwrap();
    gate.send(()).unwrap();
    gate.send(()).unwrap();
    assert_eq!(first.await.unwrap().unwrap().unwrap(), Seq(101));
    for (n, handle) in rest.into_iter().enumerate() {
        assert_eq!(handle.await.unwrap().unwrap().unwrap(), Seq(102 + n as u64));
    }
    assert_eq!(
        *batches.lock(),
        vec![vec![Seq(101)], vec![Seq(102), Seq(103), Seq(104)]]
    );
}

#[actix::test]
async fn concurrent_creates_of_one_name_get_distinct_handles() {
    let dir = tempfile::tempdir().unwrap();
    let sup = start(MemoryStore, dir.path());
    let (conn, _log) = Probe::start(1);
    let calls: Vec<_> = (0..5)
        .map(|_| sup.send(dispatch(&conn, create("Same Name"))))
        .collect();
    let mut handles = Vec::new();
    for call in calls {
        let reply = call.await.unwrap();
        handles.push(
            json(reply)["workspace"]["handle"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    handles.sort();
    assert_eq!(
        handles,
        vec![
            "same-name",
            "same-name-2",
            "same-name-3",
            "same-name-4",
            "same-name-5"
        ]
    );
}

#[actix::test]
async fn replay_follows_the_reply_and_a_cursor_ahead_closes_without_subscribing() {
    let dir = tempfile::tempdir().unwrap();
    let sup = start(MemoryStore, dir.path());
    let (conn, log) = Probe::start(1);
    for n in 1..=3 {
        sup.send(Publish::new(vec![closed_event(n)]))
            .await
            .unwrap()
            .unwrap();
    }
    let from = |seq| {
        Method::Subscribe(SubscribeParams {
            from_seq: Some(seq),
            ..Default::default()
        })
    };
    let reply = sup.send(dispatch(&conn, from(1))).await.unwrap();
    assert_eq!(reply.after.len(), 2);
    assert!(!reply.close_after);
    let replay = json(reply)["replay"].clone();
    assert_eq!(
        (replay["status"].as_str(), replay["returned"].as_u64()),
        (Some("complete"), Some(2))
    );

    let ahead = sup.send(dispatch(&conn, from(9))).await.unwrap();
    assert!(ahead.close_after && ahead.after.is_empty());
    let result = json(ahead);
    assert_eq!(result["subscribed"], false);
    assert_eq!(result["replay"]["status"], "cursor_ahead");
    assert_eq!(result["replay"]["recovery"], "snapshot_then_resubscribe");

    // The first subscription stays live: its fence was seq 3.
    sup.send(Publish::new(vec![closed_event(4)]))
        .await
        .unwrap()
        .unwrap();
    wait_for("the live event", || !log.lock().events.is_empty()).await;
    assert_eq!(log.lock().events[0]["seq"], 4);
}

#[test]
fn a_journal_failure_stops_the_server_and_publishes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let system = System::new();
    let (tx, rx) = std::sync::mpsc::channel();
    let log = system.block_on(async {
        let sup = start(FailingStore, dir.path());
        let (conn, log) = Probe::start(1);
        sup.send(dispatch(
            &conn,
            Method::Subscribe(SubscribeParams::default()),
        ))
        .await
        .unwrap();
        let call = sup.send(dispatch(&conn, create("doomed")));
        actix_rt::spawn(async move {
            let _ = tx.send(call.await.map(|r| r.result.map_err(|e| e.code())));
        });
        log
    });
    assert_eq!(system.run_with_code().unwrap(), 1);
    if let Ok(Ok(result)) = rx.try_recv() {
        assert!(result.is_err(), "the request must not succeed: {result:?}");
    }
    assert!(
        log.lock().events.is_empty(),
        "an unproven event was published"
    );
}

fn status(reply: Reply) -> serde_json::Value {
    json(reply)["storage"].clone()
}

#[actix::test]
async fn a_full_disk_refuses_changes_holds_what_agents_do_and_writes_it_all_when_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let (store, disk) = FullDiskStore::new();
    let sup = start(store, dir.path());
    let (conn, log) = Probe::start(1);
    sup.send(dispatch(
        &conn,
        Method::Subscribe(SubscribeParams::default()),
    ))
    .await
    .unwrap();
    json(sup.send(dispatch(&conn, create("before"))).await.unwrap());
    wait_for("the first event", || log.lock().events.len() == 1).await;

    disk.set_full(true);
    // The change that meets the full disk is held, not answered: it waits
    // for its record.
    let on_its_way = actix_rt::spawn(sup.send(dispatch(&conn, create("on-its-way"))));
    let stalled = || async {
        let reply = sup
            .send(dispatch(&conn, Method::ServerStatus(Default::default())))
            .await
            .unwrap();
        status(reply)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while stalled().await["state"] != "degraded" {
        assert!(
            std::time::Instant::now() < deadline,
            "the stall was never seen"
        );
        actix_rt::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let storage = stalled().await;
    assert_eq!(storage["reason"], "no_space", "{storage}");
    assert_eq!(storage["held_events"], 1, "{storage}");

    // A new change is refused before it does anything.
    let refused = sup.send(dispatch(&conn, create("refused"))).await.unwrap();
    let error = refused.result.expect_err("refused while the disk is full");
    assert_eq!(error.code(), signaltty_protocol::ErrorCode::IoError);
    assert_eq!(error.details().unwrap()["reason"], "no_space");
    // What an agent does is taken at once and held, unseen.
    let observed = sup
        .send(Publish::observed(vec![closed_event(7)]))
        .await
        .unwrap()
        .expect("a held observation is answered");
    assert!(
        !on_its_way.is_finished(),
        "a change is answered only once written"
    );
    assert_eq!(
        log.lock().events.len(),
        1,
        "nothing unjournaled is published"
    );
    let reads = sup
        .send(dispatch(&conn, Method::WorkspaceList(Default::default())))
        .await
        .unwrap();
    assert_eq!(json(reads)["workspaces"].as_array().map(Vec::len), Some(1));

    disk.set_full(false);
    let reply = on_its_way.await.unwrap().unwrap();
    assert_eq!(json(reply)["workspace"]["handle"], "on-its-way");
    wait_for("the held events", || log.lock().events.len() == 3).await;
    let seqs: Vec<u64> = log
        .lock()
        .events
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order: {seqs:?}");
    assert_eq!(seqs[2], observed.0);
    assert_eq!(log.lock().events[1]["event"], "workspace.created");
    let written: Vec<&str> = disk.written.lock().iter().map(|(_, e)| *e).collect();
    assert_eq!(
        written,
        ["workspace.created", "workspace.created", "workspace.closed"]
    );
    assert_eq!(stalled().await["state"], "ok");
    json(sup.send(dispatch(&conn, create("after"))).await.unwrap());
}

#[actix::test]
async fn past_the_hold_bound_events_are_dropped_and_a_gap_record_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let (store, disk) = FullDiskStore::new();
    let mut cfg = config(dir.path());
    cfg.limits.hold_events = 2;
    let (stop_tx, _stop_rx) = watch::channel(crate::os::listener::Accepting::Open);
    let sup = Supervisor::new(Arc::new(cfg), store, None, stop_tx).start();
    let (conn, log) = Probe::start(1);
    sup.send(dispatch(
        &conn,
        Method::Subscribe(SubscribeParams::default()),
    ))
    .await
    .unwrap();
    disk.set_full(true);
    let mut seqs = Vec::new();
    for n in 1..=5 {
        let answer = sup
            .send(Publish::observed(vec![closed_event(n)]))
            .await
            .unwrap();
        if let Ok(seq) = answer {
            seqs.push(seq.0);
        }
    }
    // The first is held when the journal stalls; the next fill the bound;
    // the rest are dropped.
    assert!(seqs.len() >= 2, "{seqs:?}");
    disk.set_full(false);
    wait_for("the gap record", || {
        log.lock()
            .events
            .iter()
            .any(|e| e["event"] == "journal.gap")
    })
    .await;
    let events = log.lock().events.clone();
    let gap = events.last().unwrap();
    assert_eq!(gap["event"], "journal.gap");
    assert_eq!(events.len(), 3, "two held, then the gap: {events:?}");
    assert_eq!(gap["payload"]["lost"], 3);
    assert_eq!(gap["payload"]["reason"], "no_space");
    let first = gap["payload"]["first_seq"].as_u64().unwrap();
    assert!(first > events[1]["seq"].as_u64().unwrap());
    // A replay from before the gap cannot be complete; from it, it is.
    let (late, _) = Probe::start(2);
    let before = sup
        .send(dispatch(
            &late,
            Method::Subscribe(SubscribeParams {
                from_seq: Some(0),
                ..Default::default()
            }),
        ))
        .await
        .unwrap();
    assert_ne!(json(before)["replay"]["status"], "complete");
    let gap_seq = gap["seq"].as_u64().unwrap();
    let (later, _) = Probe::start(3);
    let after = sup
        .send(dispatch(
            &later,
            Method::Subscribe(SubscribeParams {
                from_seq: Some(gap_seq - 1),
                ..Default::default()
            }),
        ))
        .await
        .unwrap();
    let after = json(after);
    assert_eq!(after["replay"]["status"], "complete", "{after}");
    assert_eq!(after["replay"]["returned"], 1, "the gap itself: {after}");
}
