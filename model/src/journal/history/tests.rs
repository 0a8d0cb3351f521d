//! Reading journal files back: clean files, torn and zero-filled tails, bad
//! lines and disorder, continuity across files, and range reads, by example
//! and over generated journals cut, flipped or followed by garbage.

use super::*;

fn line(seq: u64) -> String {
    format!(
        "{{\"seq\":{seq},\"event\":\"workspace.closed\",\"payload\":{{\"workspace_id\":\"ws_{seq}\"}},\"at\":\"2026-11-30T00:00:00.000Z\"}}\n"
    )
}

#[test]
fn a_clean_file_is_valid_with_its_seq_range() {
    let bytes = format!("{}{}{}", line(1), line(2), line(5));
    let s = scan(bytes.as_bytes());
    assert!(s.is_valid());
    assert_eq!(
        (s.lines, s.first_seq, s.last_seq, s.max_seq),
        (3, Some(1), Some(5), Some(5))
    );
    assert_eq!((s.complete_len as usize, s.torn_bytes), (bytes.len(), 0));
}

#[test]
fn a_torn_last_line_is_counted_as_torn_bytes_and_never_parsed() {
    let bytes = format!("{}{}{{\"seq\":3,\"eve", line(1), line(2));
    let s = scan(bytes.as_bytes());
    assert!(s.is_valid());
    assert_eq!(s.max_seq, Some(2));
    assert_eq!(s.torn_bytes, 13);
    // A complete-looking record without its newline is torn too.
    let unterminated = format!("{}{}", line(1), line(2).trim_end());
    let s = scan(unterminated.as_bytes());
    assert_eq!((s.lines, s.max_seq), (1, Some(1)));
    assert!(s.torn_bytes > 0);
}

#[test]
fn zero_fill_after_the_last_newline_is_torn_not_invalid() {
    let mut bytes = line(1).into_bytes();
    bytes.extend(std::iter::repeat_n(0u8, 4096));
    let s = scan(&bytes);
    assert!(s.is_valid());
    assert_eq!(s.torn_bytes, 4096);
}

#[test]
fn bad_lines_and_disorder_make_a_file_invalid() {
    let bytes = format!("{}garbage\n{}{}", line(2), line(1), line(3));
    let s = scan(bytes.as_bytes());
    assert_eq!(s.invalid, vec![2]);
    assert_eq!(s.out_of_order, vec![3]);
    assert!(!s.is_valid());
    let missing_payload = "{\"seq\":1,\"event\":\"x\"}\n";
    assert_eq!(scan(missing_payload.as_bytes()).invalid, vec![1]);
    let negative = "{\"seq\":-1,\"event\":\"x\",\"payload\":{}}\n";
    assert_eq!(scan(negative.as_bytes()).invalid, vec![1]);
}

#[test]
fn files_must_continue_each_other() {
    let a = scan(format!("{}{}", line(1), line(2)).as_bytes());
    let b = scan(line(3).as_bytes());
    assert!(continues(&a, &b));
    assert!(!continues(&b, &a));
    assert!(continues(&a, &FileScan::default()));
}

#[test]
fn range_reads_return_only_records_inside_the_window() {
    let bytes = format!("{}{}{}{}", line(1), line(2), line(3), line(4));
    let got = records_in_range(bytes.as_bytes(), Seq(1), Seq(3)).unwrap();
    assert_eq!(got.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![2, 3]);
    assert!(records_in_range(b"nonsense\n", Seq(0), Seq(9)).is_err());
    let growing = format!("{}{{\"seq\":2,\"ev", line(1));
    assert_eq!(
        records_in_range(growing.as_bytes(), Seq(0), Seq(9))
            .unwrap()
            .len(),
        1
    );
}

// Generated inputs: valid journals, then cut, flipped or followed by garbage.

use crate::generated::config;
use proptest::prelude::*;

/// A valid journal: strictly increasing seqs, payloads with any text.
fn journal() -> impl Strategy<Value = (Vec<StoredRecord>, Vec<u8>)> {
    let record = (
        1u64..4,
        proptest::sample::select(&["workspace.renamed", "pane.created", "task.updated"][..]),
        ".{0,24}",
        proptest::option::of(Just("2026-12-02T00:00:00.000Z".to_owned())),
    );
    (0u64..3, proptest::collection::vec(record, 0..24)).prop_map(|(start, specs)| {
        let mut seq = start;
        let mut records = Vec::new();
        let mut bytes = Vec::new();
        for (gap, event, text, at) in specs {
            seq += gap;
            let r = StoredRecord {
                seq,
                event: event.to_owned(),
                payload: serde_json::json!({"workspace_id": format!("ws_{seq}"), "name": text}),
                at,
            };
            bytes.extend(serde_json::to_vec(&r).expect("a record serialises"));
            bytes.push(b'\n');
            records.push(r);
        }
        (records, bytes)
    })
}

/// What happens to the file.
#[derive(Debug, Clone)]
enum Damage {
    Truncate(prop::sample::Index),
    Flip(prop::sample::Index, u8),
    Append(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Damage::Truncate),
        (any::<prop::sample::Index>(), 0u8..8).prop_map(|(i, bit)| Damage::Flip(i, bit)),
        proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'{'), Just(0u8), any::<u8>()],
            0..64
        )
        .prop_map(Damage::Append),
    ]
}

/// The damaged bytes and the offset of the first byte that differs from the
/// valid file (its length when only bytes were added).
fn damaged(bytes: &[u8], damage: &Damage) -> (Vec<u8>, usize) {
    let mut out = bytes.to_vec();
    match damage {
        Damage::Truncate(i) => {
            let at = i.index(bytes.len() + 1);
            out.truncate(at);
            (out, at)
        },
        Damage::Flip(i, bit) if !bytes.is_empty() => {
            let at = i.index(bytes.len());
            out[at] ^= 1 << bit;
            (out, at)
        },
        Damage::Flip(..) => (out, 0),
        Damage::Append(garbage) => {
            out.extend_from_slice(garbage);
            (out, bytes.len())
        },
    }
}

/// How many whole lines of `bytes` end before `offset`.
fn intact_lines(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
}

proptest! {
    #![proptest_config(config(512))]

    /// Any damage: the scan's lengths add up, every line before the damage is
    /// still valid and in order, and a file the scan calls valid gives every
    /// one of its records to a range read.
    #[test]
    fn a_damaged_journal_keeps_its_valid_prefix((records, bytes) in journal(), damage in damage()) {
        let (bytes_after, offset) = damaged(&bytes, &damage);
        let s = scan(&bytes_after);
        prop_assert_eq!(s.complete_len + s.torn_bytes, bytes_after.len() as u64);
        let complete = s.complete_len as usize;
        prop_assert!(complete == 0 || bytes_after[complete - 1] == b'\n');
        prop_assert!(!bytes_after[complete..].contains(&b'\n'));
        prop_assert_eq!(s.lines, intact_lines(&bytes_after, bytes_after.len()));
        let intact = intact_lines(&bytes, offset);
        prop_assert!(s.invalid.iter().chain(&s.out_of_order).all(|n| *n > intact && *n <= s.lines));
        if intact > 0 {
            prop_assert_eq!(s.first_seq, Some(records[0].seq));
        }
        if let Damage::Truncate(_) = damage {
            prop_assert!(s.is_valid());
            prop_assert_eq!(s.lines, intact);
            prop_assert_eq!(s.last_seq, intact.checked_sub(1).map(|i| records[i].seq));
        }
        match records_in_range(&bytes_after, Seq(0), Seq(u64::MAX)) {
            Ok(read) => {
                prop_assert!(read.len() >= intact);
                prop_assert_eq!(&read[..intact], &records[..intact]);
                if s.is_valid() {
                    let zero = usize::from(s.first_seq == Some(0));
                    prop_assert_eq!(read.len() + zero, s.lines);
                    prop_assert_eq!(read.last().map(|r| r.seq), s.last_seq.filter(|_| !read.is_empty()));
                }
            },
            Err(e) => prop_assert!(!s.is_valid(), "a valid file fails a range read: {e}"),
        }
    }

    /// A range read of a valid journal, cut anywhere, returns exactly the
    /// complete records in the window.
    #[test]
    fn a_range_read_returns_exactly_the_window(
        (records, bytes) in journal(),
        cut in any::<prop::sample::Index>(),
        after in 0u64..40,
        width in 0u64..40,
    ) {
        let at = cut.index(bytes.len() + 1);
        let through = after + width;
        let complete = intact_lines(&bytes, at);
        let expected: Vec<&StoredRecord> = records[..complete]
            .iter()
            .filter(|r| r.seq > after && r.seq <= through)
            .collect();
        let read = records_in_range(&bytes[..at], Seq(after), Seq(through)).expect("valid");
        prop_assert_eq!(read.iter().collect::<Vec<_>>(), expected);
    }
}
