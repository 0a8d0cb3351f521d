//! Tests of the event ring, its replay coverage and subscription filters, and
//! the wire form of an event.

use super::*;
use serde_json::json;
use signaltty_protocol::WorkspaceId;

fn closed(seq: u64) -> Arc<Published> {
    Published::new(
        Seq(seq),
        &Event::WorkspaceClosed {
            workspace_id: WorkspaceId(format!("ws_{seq}")),
        },
    )
}

fn raw(seq: u64, name: &'static str, payload: Value) -> Arc<Published> {
    Arc::new(Published {
        payload_json: Bytes::from(payload.to_string()),
        seq: Seq(seq),
        name,
        payload,
        line: Bytes::new(),
    })
}

fn all() -> EventFilter {
    EventFilter::new(None, None)
}

fn seqs(events: &[(Seq, Bytes)]) -> Vec<u64> {
    events.iter().map(|(s, _)| s.0).collect()
}

#[test]
fn a_fresh_ring_holds_history_from_the_start_head() {
    let mut ring = Ring::new(4, Seq(10));
    for s in 11..=13 {
        ring.push(closed(s));
    }
    assert_eq!(ring.retained_after(), Seq(10));
    assert_eq!(
        seqs(&ring.matching(Seq(10), Seq(13), &all())),
        vec![11, 12, 13]
    );
    assert_eq!(
        seqs(&ring.matching(Seq(11), Seq(12), &all())),
        vec![12],
        "stops at the fence"
    );
}

#[test]
fn eviction_moves_coverage_forward() {
    let mut ring = Ring::new(2, Seq(0));
    for s in 1..=5 {
        ring.push(closed(s));
    }
    assert_eq!(ring.retained_after(), Seq(3));
}

#[test]
fn coverage_follows_the_documented_order_of_verdicts() {
    use ReplayStatus::*;
    let ring = Seq(100);
    assert_eq!(
        coverage(Seq(201), Seq(200), ring, Some(Seq(0))).0,
        CursorAhead
    );
    assert_eq!(
        coverage(Seq(150), Seq(200), ring, None),
        (Complete, ring, Some(ReplaySource::Ring))
    );
    assert_eq!(
        coverage(Seq(50), Seq(200), ring, Some(Seq(10))),
        (Complete, Seq(10), Some(ReplaySource::Disk))
    );
    assert_eq!(
        coverage(Seq(5), Seq(200), ring, Some(Seq(10))),
        (HistoryLost, Seq(10), None)
    );
    assert_eq!(
        coverage(Seq(5), Seq(200), ring, None),
        (Unavailable, ring, None)
    );
    assert_eq!(
        coverage(Seq(200), Seq(200), ring, None).0,
        Complete,
        "from the head: nothing to replay"
    );
}

#[test]
fn a_complete_replay_is_deduplicated_sorted_and_never_capped() {
    let line = |s: u64| (Seq(s), Bytes::from(format!("{s}\n")));
    let (r, lines) = finish_replay(
        ReplayStatus::Complete,
        Seq(0),
        Seq(9),
        Seq(0),
        vec![line(3), line(1), line(3), line(2)],
    );
    assert_eq!(
        lines,
        vec![Bytes::from("1\n"), Bytes::from("2\n"), Bytes::from("3\n")]
    );
    assert_eq!(
        (r.status, r.returned, r.recovery),
        (ReplayStatus::Complete, 3, None)
    );

    // No cap: more than the old 4096 is still complete, every one returned.
    let many: Vec<_> = (1..=10_000).map(line).collect();
    let (r, lines) = finish_replay(ReplayStatus::Complete, Seq(0), Seq(10_000), Seq(0), many);
    assert_eq!(
        (r.status, r.returned, lines.len(), r.recovery),
        (ReplayStatus::Complete, 10_000, 10_000, None)
    );

    let (r, lines) = finish_replay(
        ReplayStatus::HistoryLost,
        Seq(0),
        Seq(9),
        Seq(5),
        vec![line(1)],
    );
    assert_eq!(
        (r.status, lines.len(), r.retained_after),
        (ReplayStatus::HistoryLost, 0, 5)
    );
}

#[test]
fn replay_matching_applies_the_filter() {
    let mut ring = Ring::new(8, Seq(0));
    ring.push(closed(1));
    ring.push(raw(2, "tab.created", json!({})));
    ring.push(closed(3));
    let filter = EventFilter::new(Some(vec!["workspace.*".into()]), None);
    assert_eq!(seqs(&ring.matching(Seq(0), Seq(3), &filter)), vec![1, 3]);
}

#[test]
fn task_filter_applies_only_to_task_events() {
    let f = EventFilter::new(None, Some(vec!["task_a".into()]));
    assert!(f.matches("task.updated", &json!({"task_id": "task_a"})));
    assert!(!f.matches("task.updated", &json!({"task_id": "task_b"})));
    assert!(!f.matches("task.created", &json!({"task": {}})));
    assert!(f.matches("workspace.closed", &json!({})));
    assert!(!f.matches("pty.data", &json!({})));
}

#[test]
fn the_hand_built_line_parses_as_the_event_frame_the_protocol_defines() {
    use signaltty_protocol::envelope::{EventFrame, ServerLine};
    let event = Event::WorkspaceClosed {
        workspace_id: WorkspaceId("ws_\"quoted\"".into()),
    };
    let published = Published::new(Seq(42), &event);
    let text = std::str::from_utf8(&published.line).unwrap();
    assert!(text.ends_with('\n'));
    let parsed = ServerLine::parse(text.trim_end()).unwrap();
    assert_eq!(
        parsed,
        ServerLine::Event(EventFrame::new("workspace.closed", 42, event.payload()))
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&published.payload_json).unwrap(),
        event.payload()
    );
    assert_eq!(payload_json(&Event::ServerWillShutdown {}), b"{}");
}

#[test]
fn an_event_is_found_by_its_seq_while_the_ring_holds_it() {
    let mut ring = Ring::new(2, Seq(0));
    for s in [1, 2, 4] {
        ring.push(closed(s));
    }
    let payload = ring.payload_at(Seq(4)).expect("held");
    let value: Value = serde_json::from_slice(&payload).expect("JSON");
    assert_eq!(value["workspace_id"], "ws_4");
    assert!(ring.payload_at(Seq(3)).is_none(), "never numbered");
    assert!(ring.payload_at(Seq(1)).is_none(), "evicted");
}
