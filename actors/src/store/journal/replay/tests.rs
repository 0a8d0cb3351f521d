//! The streamed replay over in-memory generations: the range, the filter,
//! both generations in order, batches by size, a growing last line, bad
//! records refused, and frames byte for byte those of a live event.

use super::*;
use serde_json::json;
use signaltty_protocol::envelope::EventFrame;
use std::io::Cursor;

fn record(seq: u64, event: &str, payload: serde_json::Value) -> String {
    format!(
        "{{\"seq\":{seq},\"event\":\"{event}\",\"payload\":{payload},\"at\":\"2026-12-02T00:00:00Z\"}}\n"
    )
}

fn generation(seqs: std::ops::RangeInclusive<u64>) -> String {
    seqs.map(|s| record(s, "workspace.renamed", json!({"name": format!("n{s}")})))
        .collect()
}

fn replay(
    gens: Vec<String>,
    after: u64,
    through: u64,
    filter: EventFilter,
) -> Replay<Cursor<Vec<u8>>> {
    let names = ["audit.jsonl.1", "audit.jsonl"];
    let sources = gens
        .into_iter()
        .enumerate()
        .map(|(i, g)| (names[i.min(1)], Cursor::new(g.into_bytes())))
        .collect();
    Replay::new(sources, Seq(after), Seq(through), filter)
}

fn all() -> EventFilter {
    EventFilter::new(None, None)
}

fn drain(r: &mut Replay<Cursor<Vec<u8>>>, max: usize) -> Vec<(u64, Bytes)> {
    let mut out = Vec::new();
    while let Some(batch) = r.batch(max).expect("batch") {
        if batch.is_empty() {
            break;
        }
        out.extend(batch);
    }
    out
}

#[test]
fn both_generations_are_read_in_order_within_the_range() {
    let mut r = replay(vec![generation(1..=10), generation(11..=20)], 5, 15, all());
    let seqs: Vec<u64> = drain(&mut r, 1 << 20).into_iter().map(|(s, _)| s).collect();
    assert_eq!(seqs, (6..=15).collect::<Vec<_>>());
    assert_eq!(r.batch(1 << 20).expect("over"), None, "the feed ends");
}

#[test]
fn the_count_sees_what_the_batches_hand_out() {
    let filter = EventFilter::new(Some(vec!["workspace.renamed".into()]), None);
    let mut gens = vec![generation(1..=3)];
    gens.push(record(4, "pane.created", json!({})) + &generation(5..=6));
    assert_eq!(replay(gens.clone(), 0, 6, filter.clone()).count(), Ok(5));
    let got = drain(&mut replay(gens, 0, 6, filter), 1 << 20);
    assert_eq!(
        got.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        vec![1, 2, 3, 5, 6]
    );
}

#[test]
fn a_task_filter_reads_the_payload_of_task_events_only() {
    let filter = EventFilter::new(None, Some(vec!["task_a".into()]));
    let g = record(1, "task.updated", json!({"task_id": "task_a"}))
        + &record(2, "task.updated", json!({"task_id": "task_b"}))
        + &record(3, "pane.created", json!({"task_id": "task_b"}));
    let got = drain(&mut replay(vec![g], 0, 9, filter), 1 << 20);
    assert_eq!(got.iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![1, 3]);
}

#[test]
fn batches_stop_near_their_size_and_lose_nothing_between_them() {
    let mut r = replay(vec![generation(1..=1000)], 0, 1000, all());
    let first = r.batch(1000).expect("batch").expect("more");
    assert!(
        first.len() < 20,
        "a batch of about 1000 bytes: {} frames",
        first.len()
    );
    let mut seqs: Vec<u64> = first.iter().map(|(s, _)| *s).collect();
    seqs.extend(drain(&mut r, 1000).into_iter().map(|(s, _)| s));
    assert_eq!(seqs, (1..=1000).collect::<Vec<_>>());
}

#[test]
fn a_line_still_being_written_is_not_read() {
    let mut g = generation(1..=3);
    g.push_str("{\"seq\":4,\"event\":\"workspace.ren");
    let got = drain(&mut replay(vec![g], 0, 3, all()), 1 << 20);
    assert_eq!(got.len(), 3);
}

#[test]
fn a_bad_record_in_the_range_or_a_line_without_a_seq_is_an_error() {
    let g = generation(1..=2) + "{\"seq\":3,\"event\":7}\n" + &generation(4..=5);
    let err = replay(vec![g.clone()], 0, 5, all())
        .count()
        .expect_err("bad record");
    assert!(err.contains("audit.jsonl.1 line 3"), "{err}");
    // Out of range, it is skipped unread: only its seq is looked at.
    assert_eq!(replay(vec![g], 3, 5, all()).count(), Ok(2));
    let garbage = "not json\n".to_owned() + &generation(1..=2);
    assert!(replay(vec![garbage], 0, 2, all()).count().is_err());
}

#[test]
fn a_frame_is_the_live_frame_of_the_event_byte_for_byte() {
    let payload = json!({"workspace_id": "ws_1", "name": "a \"quoted\" ü", "n": [1, 2.5, null]});
    let g = record(7, "workspace.renamed", payload.clone());
    let got = drain(&mut replay(vec![g], 0, 9, all()), 1 << 20);
    let live = EventFrame::new("workspace.renamed", 7, payload).to_line();
    assert_eq!(got, vec![(7, Bytes::from(live))]);
}

#[test]
fn memory_stays_one_line_whatever_the_journal() {
    // A replay's own state is its read buffers and the longest line, never
    // the range: 100 000 events go through with the same line buffer.
    let mut r = replay(vec![generation(1..=100_000)], 0, 100_000, all());
    let mut n = 0;
    let mut most = 0;
    while let Some(batch) = r.batch(64 * 1024).expect("batch") {
        if batch.is_empty() {
            break;
        }
        n += batch.len();
        most = most.max(batch.iter().map(|(_, l)| l.len()).sum::<usize>());
    }
    assert_eq!(n, 100_000);
    assert!(
        most < 64 * 1024 + 512,
        "a batch stays near its size: {most}"
    );
    assert!(
        r.line.capacity() < 4096,
        "one line's buffer: {}",
        r.line.capacity()
    );
}
