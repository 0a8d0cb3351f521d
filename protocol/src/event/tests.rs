//! State events: the payload without its tag, `notification.read`'s round trip,
//! and unique dotted names.

use super::*;

#[test]
fn payload_is_the_object_without_the_tag() {
    let e = Event::WorkspaceClosed {
        workspace_id: WorkspaceId("ws_1".into()),
    };
    assert_eq!(e.name(), "workspace.closed");
    assert_eq!(e.payload(), serde_json::json!({"workspace_id": "ws_1"}));
    assert_eq!(
        Event::ServerWillShutdown {}.payload(),
        serde_json::json!({})
    );
}

#[test]
fn notification_read_round_trips_with_its_ids_and_time() {
    let e = Event::NotificationRead {
        ids: vec!["notif_1".into()],
        read_at: crate::time::Timestamp::from_unix_millis(0),
    };
    let payload = e.payload();
    assert_eq!(payload["ids"], serde_json::json!(["notif_1"]));
    let back: Event = serde_json::from_value(
        serde_json::json!({"event": "notification.read", "payload": payload}),
    )
    .expect("parses back");
    assert_eq!(back, e);
}

#[test]
fn every_name_is_unique_and_dotted() {
    let mut names = Event::NAMES.to_vec();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Event::NAMES.len());
    assert!(Event::NAMES.iter().all(|n| n.contains('.')));
}

#[test]
fn task_conflict_round_trips_and_leaves_out_an_absent_b() {
    use crate::task::conflict::ConflictState;
    let e = Event::TaskConflict {
        repo: "/src/app".into(),
        a: crate::ids::TaskId("task_1".into()),
        b: None,
        target_branch: Some("main".into()),
        paths: vec!["README.md".into()],
        state: ConflictState::Appeared,
        since: crate::time::Timestamp::from_unix_millis(0),
    };
    let payload = e.payload();
    assert_eq!(payload["state"], "appeared");
    assert_eq!(payload["target_branch"], "main");
    assert!(payload.get("b").is_none(), "{payload}");
    let back: Event =
        serde_json::from_value(serde_json::json!({"event": "task.conflict", "payload": payload}))
            .expect("parses back");
    assert_eq!(back, e);
}
