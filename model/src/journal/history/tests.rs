//! Reading journal files back: clean files, torn and zero-filled tails, bad
//! lines and disorder, continuity across files, and range reads.

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
