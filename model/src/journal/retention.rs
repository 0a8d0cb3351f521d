//! The retention record `audit-retention.json`
//! (docs/persistence.md#the-retention-record): what the journal files claim to
//! hold, written durably before anything is discarded.
//!
//! ```text
//!   seq:  1 ............ retained_after | retained_after+1 ........... head
//!         (may be gone: rotated away)   | audit.jsonl.1 + audit.jsonl hold all of it
//! ```
//!
//! `current_bytes` is a lower bound: it is rewritten at open, at rotation, at
//! shutdown and shortly after appends, not inside every append (that would double
//! the cost of every sync). A current file shorter than it was truncated; a longer
//! one grew by appends the record had not caught up with yet, which is checked by
//! reading them.

use serde::{Deserialize, Serialize};

/// The retention record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retention {
    /// Events with `seq <= retained_after` may have been discarded.
    pub retained_after: u64,
    /// `audit.jsonl.1` exists.
    pub predecessor: bool,
    /// Length of `audit.jsonl` when last recorded (a lower bound, see above).
    pub current_bytes: u64,
    /// Exact length of `audit.jsonl.1`.
    pub predecessor_bytes: u64,
    /// No loss has ever been detected; once false it stays false.
    pub known_complete: bool,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            retained_after: 0,
            predecessor: false,
            current_bytes: 0,
            predecessor_bytes: 0,
            known_complete: true,
        }
    }
}

impl Retention {
    /// Parses the record; `None` when it is not one.
    pub fn parse(bytes: &[u8]) -> Option<Retention> {
        serde_json::from_slice(bytes).ok()
    }

    /// The record as written to disk.
    pub fn to_bytes(self) -> Vec<u8> {
        // A struct of integers and booleans always serializes.
        serde_json::to_vec(&self).unwrap_or_default()
    }

    /// Do the files on disk agree with the record? `current` and `predecessor` are
    /// the lengths found (`None` when the file is missing).
    pub fn lengths_match(&self, current: Option<u64>, predecessor: Option<u64>) -> bool {
        let current_ok = current.is_some_and(|len| len >= self.current_bytes);
        let predecessor_ok = match (self.predecessor, predecessor) {
            (true, Some(len)) => len == self.predecessor_bytes,
            (false, None) => true,
            _ => false,
        };
        current_ok && predecessor_ok
    }
}

#[cfg(test)]
mod tests;
