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
