//! Reading journal files back: record validity, seq order, torn tails
//! (docs/persistence.md#journal-records, docs/persistence.md#opening-the-journal).
//! Pure functions over bytes, plus the replay reader used by `subscribe` and
//! `signaltty journal verify`.

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
    /// Seq of the last `journal.gap` record: events numbered below it were
    /// dropped unrecorded, so the file proves nothing before it.
    pub last_gap: Option<u64>,
}

impl FileScan {
    /// Every complete line is a valid record and seqs strictly increase.
    pub fn is_valid(&self) -> bool {
        self.invalid.is_empty() && self.out_of_order.is_empty()
    }
}

/// The event that records state events dropped unrecorded
/// (docs/reliability.md#a-full-disk).
pub const GAP_EVENT: &str = "journal.gap";

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
                if r.event == GAP_EVENT {
                    scan.last_gap = Some(r.seq);
                }
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
mod tests;
