//! The streamed replay over in-memory generations: the range, the filter,
//! both generations in order, batches by size, a growing last line, bad
//! records refused, frames byte for byte those of a live event, and damaged
//! generated journals.

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
fn a_seq_that_does_not_rise_inside_the_range_is_an_error() {
    // A bit flipped after the journal was opened turned seq 13 into 11.
    let g = generation(1..=12) + &record(11, "workspace.renamed", json!({})) + &generation(14..=15);
    let err = replay(vec![g.clone()], 0, 15, all())
        .count()
        .expect_err("disorder");
    assert!(err.contains("line 13: seq 11 is not above 12"), "{err}");
    // Across generations too, and in the second pass.
    let gens = vec![generation(1..=5), generation(5..=6)];
    assert!(replay(gens.clone(), 0, 6, all()).count().is_err());
    assert!(replay(gens, 0, 6, all()).batch(1 << 20).is_err());
    // Before the range, it is not this replay's concern.
    assert_eq!(replay(vec![g], 12, 15, all()).count(), Ok(2));
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

// Generated inputs: valid journals in two generations, then cut, flipped or
// followed by garbage.

use crate::testkit::generated::config;
use proptest::prelude::*;
use signaltty_model::journal::history;

/// A valid journal's bytes: strictly increasing seqs, payloads with any text.
fn journal() -> impl Strategy<Value = Vec<u8>> {
    let spec = (
        1u64..4,
        proptest::sample::select(&["workspace.renamed", "pane.created", "task.updated"][..]),
        ".{0,24}",
    );
    (0u64..3, proptest::collection::vec(spec, 0..24)).prop_map(|(start, specs)| {
        let mut seq = start;
        let mut out = String::new();
        for (gap, event, text) in specs {
            seq += gap;
            out.push_str(&record(
                seq,
                event,
                json!({"task_id": "task_a", "name": text}),
            ));
        }
        out.into_bytes()
    })
}

/// What happens to the bytes: cut at, a bit flipped at, or garbage added.
#[derive(Debug, Clone)]
enum Damage {
    None,
    Truncate(prop::sample::Index),
    Flip(prop::sample::Index, u8),
    Append(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        Just(Damage::None),
        any::<prop::sample::Index>().prop_map(Damage::Truncate),
        (any::<prop::sample::Index>(), 0u8..8).prop_map(|(i, bit)| Damage::Flip(i, bit)),
        proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'{'), any::<u8>()], 0..64)
            .prop_map(Damage::Append),
    ]
}

/// The damaged bytes and the offset of the first byte that differs.
fn damaged(mut bytes: Vec<u8>, damage: &Damage) -> (Vec<u8>, usize) {
    let len = bytes.len();
    match damage {
        Damage::None => (bytes, len),
        Damage::Truncate(i) => {
            let at = i.index(len + 1);
            bytes.truncate(at);
            (bytes, at)
        },
        Damage::Flip(i, bit) if len > 0 => {
            let at = i.index(len);
            bytes[at] ^= 1 << bit;
            (bytes, at)
        },
        Damage::Flip(..) => (bytes, 0),
        Damage::Append(garbage) => {
            bytes.extend_from_slice(garbage);
            (bytes, len)
        },
    }
}

/// The offset after the `n`-th newline of `bytes` (0 for none).
fn after_lines(bytes: &[u8], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(n - 1)
        .map_or(bytes.len(), |(i, _)| i + 1)
}

/// A replay of `bytes` split into two generations after one of its lines.
fn split_replay(
    bytes: &[u8],
    split: prop::sample::Index,
    after: u64,
    through: u64,
) -> Replay<Cursor<Vec<u8>>> {
    let lines = bytes.iter().filter(|b| **b == b'\n').count();
    let at = after_lines(bytes, split.index(lines + 1));
    let mut sources = Vec::new();
    if at > 0 {
        sources.push(("audit.jsonl.1", Cursor::new(bytes[..at].to_vec())));
    }
    sources.push(("audit.jsonl", Cursor::new(bytes[at..].to_vec())));
    Replay::new(sources, Seq(after), Seq(through), all())
}

proptest! {
    #![proptest_config(config(256))]

    /// Any damage: the replay errs or hands out, in order and inside the
    /// range, at least every record before the damage; on a file the scan
    /// calls valid it hands out exactly the range, each frame carrying its
    /// record, and its count agrees.
    #[test]
    fn a_damaged_journal_replays_its_valid_prefix_or_fails(
        bytes in journal(),
        damage in damage(),
        split in any::<prop::sample::Index>(),
        after in 0u64..30,
        width in 0u64..40,
        batch in 1usize..4096,
    ) {
        let (damaged_bytes, offset) = damaged(bytes.clone(), &damage);
        let through = after + width;
        let count = split_replay(&damaged_bytes, split, after, through).count();
        let mut r = split_replay(&damaged_bytes, split, after, through);
        let mut frames = Vec::new();
        let drained = loop {
            match r.batch(batch) {
                Ok(Some(b)) if !b.is_empty() => frames.extend(b),
                Ok(_) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        // The records in the range of the lines the damage left whole.
        let intact = bytes[..offset].iter().filter(|b| **b == b'\n').count();
        let prefix: Vec<u64> =
            history::records_in_range(&bytes[..after_lines(&bytes, intact)], Seq(after), Seq(through))
                .expect("a valid journal")
                .into_iter()
                .map(|rec| rec.seq)
                .collect();
        let seqs: Vec<u64> = frames.iter().map(|(s, _)| *s).collect();
        if drained.is_ok() {
            prop_assert_eq!(count.as_ref().ok(), Some(&seqs.len()));
            prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(seqs.iter().all(|s| *s > after && *s <= through));
            prop_assert!(seqs.len() >= prefix.len());
            prop_assert_eq!(&seqs[..prefix.len()], &prefix[..]);
        }
        if history::scan(&damaged_bytes).is_valid() {
            let expected = history::records_in_range(&damaged_bytes, Seq(after), Seq(through))
                .expect("a valid journal");
            prop_assert!(drained.is_ok(), "a valid journal fails: {drained:?}");
            prop_assert_eq!(seqs, expected.iter().map(|rec| rec.seq).collect::<Vec<_>>());
            for ((seq, frame), rec) in frames.iter().zip(&expected) {
                let line = std::str::from_utf8(frame).expect("UTF-8");
                let Ok(signaltty_protocol::ServerLine::Event(e)) =
                    signaltty_protocol::ServerLine::parse(line.trim_end())
                else {
                    return Err(TestCaseError::fail(format!("not an event: {line}")));
                };
                prop_assert_eq!((e.seq, &e.event, &e.payload), (*seq, &rec.event, &rec.payload));
            }
        }
    }
}
