//! Reading journal files back: record validity, seq order, torn tails
//! (spec/persistence.md §4.2, §4.6). Pure functions over bytes, plus the replay
//! reader used by `subscribe` and `signaltty journal verify`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use signaltty_protocol::Seq;

/// A journal line as written: `{seq, event, payload, at}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRecord {
    /// The event's sequence number.
    pub seq: u64,
    /// The event name.
    pub event: String,
    /// The payload exactly as broadcast.
    pub payload: Value,
    /// When it was sequenced (RFC 3339). Optional on read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// Just the seq of a line, to skip out-of-range lines without building values.
#[derive(Deserialize)]
struct SeqOnly {
    seq: u64,
}

/// What a scan of one journal file found.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FileScan {
    /// Complete lines (terminated by `\n`).
    pub lines: usize,
    /// 1-based numbers of complete lines that are not valid records.
    pub invalid: Vec<usize>,
    /// Seq of the first valid record.
    pub first_seq: Option<u64>,
    /// Seq of the last valid record.
    pub last_seq: Option<u64>,
    /// Highest valid seq.
    pub max_seq: Option<u64>,
    /// 1-based line numbers whose seq is not above the previous valid one.
    pub out_of_order: Vec<usize>,
    /// Length of the complete lines, i.e. the offset after the last `\n`.
    pub complete_len: u64,
    /// Bytes after the last `\n`: a torn last record.
    pub torn_bytes: u64,
}

impl FileScan {
    /// Every complete line is a valid record and seqs strictly increase.
    pub fn is_valid(&self) -> bool {
        self.invalid.is_empty() && self.out_of_order.is_empty()
    }
}

/// Is `line` a valid record? (JSON object with an unsigned `seq`, a string `event`
/// and a `payload` field.)
pub fn parse_record(line: &[u8]) -> Option<StoredRecord> {
    serde_json::from_slice::<StoredRecord>(line).ok()
}

/// Scans the bytes of one journal file.
pub fn scan(bytes: &[u8]) -> FileScan {
    let mut scan = FileScan::default();
    let complete_len = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    scan.complete_len = complete_len as u64;
    scan.torn_bytes = (bytes.len() - complete_len) as u64;
    for (i, line) in bytes[..complete_len]
        .split_inclusive(|b| *b == b'\n')
        .enumerate()
    {
        let line = &line[..line.len() - 1];
        let number = i + 1;
        scan.lines += 1;
        match parse_record(line) {
            Some(r) => {
                if scan.last_seq.is_some_and(|last| r.seq <= last) {
                    scan.out_of_order.push(number);
                }
                scan.first_seq.get_or_insert(r.seq);
                scan.last_seq = Some(r.seq);
                scan.max_seq = Some(scan.max_seq.map_or(r.seq, |m| m.max(r.seq)));
            },
            None => scan.invalid.push(number),
        }
    }
    scan
}

/// Checks that seqs keep increasing from one file (the predecessor) into the next.
pub fn continues(pred: &FileScan, cur: &FileScan) -> bool {
    match (pred.max_seq, cur.first_seq) {
        (Some(p), Some(c)) => c > p,
        _ => true,
    }
}

/// The records of `bytes` with `after < seq <= through`, in file order. Fails on a
/// line that is not a valid record: replay never guesses.
pub fn records_in_range(
    bytes: &[u8],
    after: Seq,
    through: Seq,
) -> Result<Vec<StoredRecord>, String> {
    // Only complete lines count: the file may be growing while it is read.
    let complete_len = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut out = Vec::new();
    for (i, line) in bytes[..complete_len]
        .split_inclusive(|b| *b == b'\n')
        .enumerate()
    {
        let line = &line[..line.len() - 1];
        let seq = match serde_json::from_slice::<SeqOnly>(line) {
            Ok(s) => s.seq,
            Err(e) => return Err(format!("line {}: {e}", i + 1)),
        };
        if seq <= after.0 || seq > through.0 {
            continue;
        }
        match parse_record(line) {
            Some(r) => out.push(r),
            None => return Err(format!("line {}: not a journal record", i + 1)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
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
}
