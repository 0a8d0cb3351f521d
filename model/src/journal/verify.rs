//! Offline journal check for `signaltty journal verify`: reads the files of a state
//! directory (never writes) and says what it found.

use super::Paths;
use super::history::{self, FileScan};
use super::reservation;
use super::retention::Retention;
use serde::Serialize;
use std::path::Path;

/// What `verify` found.
#[derive(Debug, Default, Serialize)]
pub struct VerifyReport {
    /// The state directory checked.
    pub dir: String,
    /// Facts: files, record counts, seq ranges, coverage.
    pub facts: Vec<String>,
    /// Things that are wrong. Empty means the journal is consistent.
    pub problems: Vec<String>,
    /// Highest seq found in the journal files.
    pub max_seq: Option<u64>,
    /// The reservation ceiling.
    pub reserved: Option<u64>,
    /// Whether the files prove every event after `retained_after`.
    pub provable: bool,
    /// The seq after which history is kept.
    pub retained_after: Option<u64>,
}

impl VerifyReport {
    /// No problems were found.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the journal in `dir`: every line parses, seqs strictly increase across
/// `audit.jsonl.1` and `audit.jsonl`, the retention record matches the files, and
/// the reservation is not behind the journal.
pub fn verify(dir: &Path) -> VerifyReport {
    let paths = Paths::new(dir);
    let mut report = VerifyReport {
        dir: dir.display().to_string(),
        ..VerifyReport::default()
    };
    let mut scans: Vec<(&str, Option<FileScan>, Option<u64>)> = Vec::new();
    for (name, path) in [
        ("audit.jsonl.1", &paths.predecessor),
        ("audit.jsonl", &paths.current),
    ] {
        match std::fs::read(path) {
            Ok(bytes) => {
                let scan = history::scan(&bytes);
                report.facts.push(match (scan.first_seq, scan.last_seq) {
                    (Some(a), Some(b)) => format!(
                        "{name}: {} bytes, {} records, seq {a}..={b}",
                        bytes.len(),
                        scan.lines
                    ),
                    _ => format!("{name}: {} bytes, no records", bytes.len()),
                });
                for n in &scan.invalid {
                    report
                        .problems
                        .push(format!("{name} line {n} is not a journal record"));
                }
                for n in &scan.out_of_order {
                    report
                        .problems
                        .push(format!("{name} line {n}: seq does not increase"));
                }
                if scan.torn_bytes > 0 {
                    report.problems.push(format!(
                        "{name} ends with {} bytes of an unfinished record (cut off at the next server start)",
                        scan.torn_bytes
                    ));
                }
                scans.push((name, Some(scan), Some(bytes.len() as u64)));
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                report.facts.push(format!("{name}: absent"));
                scans.push((name, None, None));
            },
            Err(e) => {
                report.problems.push(format!("cannot read {name}: {e}"));
                scans.push((name, None, None));
            },
        }
    }
    if let (Some(pred), Some(cur)) = (&scans[0].1, &scans[1].1)
        && !history::continues(pred, cur)
    {
        report
            .problems
            .push("audit.jsonl does not continue above audit.jsonl.1".into());
    }
    report.max_seq = scans
        .iter()
        .filter_map(|(_, s, _)| s.as_ref().and_then(|s| s.max_seq))
        .max();

    match std::fs::read(&paths.retention) {
        Ok(bytes) => match Retention::parse(&bytes) {
            Some(r) => {
                report.retained_after = Some(r.retained_after);
                let matches = r.lengths_match(scans[1].2, scans[0].2);
                if !matches {
                    report.problems.push(format!(
                        "the retention record does not match the files (expects audit.jsonl >= {} bytes, audit.jsonl.1 {})",
                        r.current_bytes,
                        if r.predecessor { format!("= {} bytes", r.predecessor_bytes) } else { "absent".into() }
                    ));
                }
                let records_ok = scans
                    .iter()
                    .all(|(_, scan, _)| scan.as_ref().is_none_or(FileScan::is_valid))
                    && match (&scans[0].1, &scans[1].1) {
                        (Some(pred), Some(cur)) => history::continues(pred, cur),
                        _ => true,
                    };
                report.provable = r.known_complete && matches && records_ok;
                if !r.known_complete {
                    report.problems.push(
                        "history is not provable: a loss was detected earlier (known_complete = false); replays that need the disk will not be complete"
                            .to_owned(),
                    );
                }
                report.facts.push(if r.known_complete {
                    format!("history is complete after seq {}", r.retained_after)
                } else {
                    "history is not provable: a loss was detected earlier (known_complete = false)"
                        .to_owned()
                });
            },
            None => report
                .problems
                .push("audit-retention.json is not a retention record".into()),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            report.facts.push(
                "audit-retention.json: absent (no server has opened this journal yet)".into(),
            );
        },
        Err(e) => report
            .problems
            .push(format!("cannot read audit-retention.json: {e}")),
    }

    match reservation::read(&paths.reservation) {
        Ok(Some(ceiling)) => {
            report.reserved = Some(ceiling);
            report
                .facts
                .push(format!("sequence reserved through {ceiling}"));
            if let Some(max) = report.max_seq.filter(|m| *m > ceiling) {
                report.problems.push(format!(
                    "the reservation ({ceiling}) is behind the journal ({max})"
                ));
            }
        },
        Ok(None) => report.facts.push("event-sequence.json: absent".into()),
        Err(e) => report.problems.push(e.to_string()),
    }
    report
}
