//! `subscribe` params and result (docs/methods.md#subscribe,
//! docs/persistence.md#replay-and-live-delivery).

use serde::{Deserialize, Serialize};

/// `subscribe` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscribeParams {
    /// Event globs: `*`, `prefix.*` or an exact name. Absent means `["*"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    /// Replay every matching state event with `seq > from_seq` before live events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_seq: Option<u64>,
    /// Deliver `task.*` events only for these tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// `subscribe` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscribeResult {
    /// `false` when a replay could not be proven complete; the server then closes.
    pub subscribed: bool,
    /// The head seq at subscribe time (the fence).
    pub seq: u64,
    /// Replay coverage, present only when `from_seq` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
}

/// How much of the requested history a subscription replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayStatus {
    /// Every matching event in `(requested_after, through]` follows the reply.
    Complete,
    /// The journal does not reach back to `from_seq`.
    HistoryLost,
    /// More than 4096 matching events.
    Truncated,
    /// No usable journal and the ring does not cover.
    Unavailable,
    /// `from_seq` is beyond the head.
    CursorAhead,
}

/// The `replay` object of a `subscribe` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// Coverage verdict.
    pub status: ReplayStatus,
    /// The `from_seq` given.
    pub requested_after: u64,
    /// The lowest seq after which the server can prove history.
    pub retained_after: u64,
    /// The head seq at capture.
    pub through: u64,
    /// Number of replayed events that follow the reply.
    pub returned: usize,
    /// `"snapshot_then_resubscribe"` whenever the status is not `complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
}

/// The recovery hint of every non-complete replay.
pub const RECOVERY_SNAPSHOT_THEN_RESUBSCRIBE: &str = "snapshot_then_resubscribe";

/// The most events one replay returns; more makes the replay `truncated`.
pub const MAX_REPLAY_EVENTS: usize = 4096;

/// Does `glob` match the event `name`? `*` matches everything, `prefix.*` matches
/// `prefix` itself and every name starting with `prefix.`, anything else is exact.
pub fn glob_matches(glob: &str, name: &str) -> bool {
    if glob == "*" {
        return true;
    }
    match glob.strip_suffix(".*") {
        Some(prefix) => {
            name == prefix
                || (name.len() > prefix.len()
                    && name.starts_with(prefix)
                    && name.as_bytes()[prefix.len()] == b'.')
        },
        None => glob == name,
    }
}

#[cfg(test)]
mod tests;
