//! Published events, the in-memory ring, subscription filters and replay coverage
//! (docs/persistence.md#replay-and-live-delivery). Pure data structures: the
//! Supervisor owns them.
//!
//! ```text
//!   ring (1024 newest state events)
//!   ┌────────┬────────┬─────┬────────┐
//!   │ seq 41 │ seq 42 │ ... │ seq 97 │   retained_after = 40 (seq of the last eviction,
//!   └────────┴────────┴─────┴────────┘   or the head at server start)
//!   replay(from_seq = after): complete  iff after ≥ retained_after and after ≤ head
//! ```

use bytes::Bytes;
use serde_json::Value;
use signaltty_protocol::subscribe::{
    RECOVERY_SNAPSHOT_THEN_RESUBSCRIBE, Replay, ReplayStatus, glob_matches,
};
use signaltty_protocol::{Event, Seq};
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

/// A state event as sequenced: what the journal writes, the ring keeps and
/// subscribers receive. The payload is serialized once; the journal record and the
/// wire line both reuse those bytes.
#[derive(Debug)]
pub struct Published {
    /// Its sequence number.
    pub seq: Seq,
    /// The event name.
    pub name: &'static str,
    /// The payload as a value, kept only where a filter looks inside it (`task.*`
    /// events, for `task_ids`); `Null` otherwise.
    pub payload: Value,
    /// The payload's JSON text.
    pub payload_json: Bytes,
    /// The event frame line, newline included.
    pub line: Bytes,
}

impl Published {
    /// Builds the shared form of an event.
    pub fn new(seq: Seq, event: &Event) -> Arc<Published> {
        let name = event.name();
        let payload = payload_json(event);
        let mut line = Vec::with_capacity(payload.len() + 96);
        line.extend_from_slice(b"{\"protocol\":\"");
        line.extend_from_slice(signaltty_protocol::PROTOCOL.as_bytes());
        line.extend_from_slice(b"\",\"type\":\"event\",\"event\":\"");
        line.extend_from_slice(name.as_bytes());
        line.extend_from_slice(format!("\",\"seq\":{},\"payload\":", seq.0).as_bytes());
        let start = line.len();
        line.extend_from_slice(&payload);
        let end = line.len();
        line.extend_from_slice(b"}\n");
        drop(payload);
        // The payload is a view into the line, not a second copy: the ring
        // holds a thousand of these.
        let line = Bytes::from(line);
        let payload_json = line.slice(start..end);
        let payload = if name.starts_with("task.") {
            serde_json::from_slice(&payload_json).unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        Arc::new(Published {
            seq,
            name,
            payload,
            payload_json,
            line,
        })
    }
}

/// The payload of an event as JSON text, without building a value tree: an
/// adjacently tagged enum serializes as `{"event":"<name>","payload":<payload>}`,
/// so the payload is that text minus the known prefix and the closing brace.
/// (Event names are ASCII identifiers: nothing in the prefix is escaped.)
pub fn payload_json(event: &Event) -> Vec<u8> {
    let prefix = format!("{{\"event\":\"{}\",\"payload\":", event.name());
    match serde_json::to_vec(event) {
        Ok(full) if full.starts_with(prefix.as_bytes()) && full.ends_with(b"}") => {
            full[prefix.len()..full.len() - 1].to_vec()
        },
        // Cannot happen for these plain-data types; fall back to the value path.
        _ => serde_json::to_vec(&event.payload()).unwrap_or_else(|_| b"{}".to_vec()),
    }
}

/// The newest state events, for replay.
#[derive(Debug)]
pub struct Ring {
    events: VecDeque<Arc<Published>>,
    capacity: usize,
    /// Every event after this seq is in the ring (or was never emitted).
    retained_after: Seq,
}

impl Ring {
    /// An empty ring whose coverage starts at `head` (the head at server start).
    pub fn new(capacity: usize, head: Seq) -> Ring {
        Ring {
            events: VecDeque::with_capacity(capacity),
            capacity,
            retained_after: head,
        }
    }

    /// Appends an event, evicting the oldest past capacity.
    pub fn push(&mut self, event: Arc<Published>) {
        if self.events.len() == self.capacity
            && let Some(old) = self.events.pop_front()
        {
            self.retained_after = old.seq;
        }
        if self.capacity > 0 {
            self.events.push_back(event);
        } else {
            self.retained_after = event.seq;
        }
    }

    /// Events numbered up to `seq` were lost (a `journal.gap`): the ring
    /// proves nothing before it, and drops what it held before it.
    pub fn forget_through(&mut self, seq: Seq) {
        self.retained_after = self.retained_after.max(seq);
        self.events.retain(|e| e.seq > seq);
    }

    /// The seq after which the ring proves history.
    pub fn retained_after(&self) -> Seq {
        self.retained_after
    }

    /// The payload JSON of the event numbered `seq`, while the ring holds it.
    pub fn payload_at(&self, seq: Seq) -> Option<Bytes> {
        let at = self.events.binary_search_by_key(&seq, |e| e.seq).ok()?;
        self.events.get(at).map(|e| e.payload_json.clone())
    }

    /// Ring events with `after < seq <= head` that pass `filter`, as (seq, line).
    pub fn matching(&self, after: Seq, head: Seq, filter: &EventFilter) -> Vec<(Seq, Bytes)> {
        self.events
            .iter()
            .filter(|e| e.seq > after && e.seq <= head && filter.matches(e.name, &e.payload))
            .map(|e| (e.seq, e.line.clone()))
            .collect()
    }
}

/// Where a complete replay comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaySource {
    /// The in-memory ring covers it.
    Ring,
    /// Only the journal files cover it.
    Disk,
}

/// The coverage verdict for a replay from `after`
/// (docs/persistence.md#replay-coverage): the status (before the cap), the
/// reported `retained_after`, and the source of a complete replay. `disk` is the
/// journal's proof point, `None` when the files cannot prove anything.
pub fn coverage(
    after: Seq,
    head: Seq,
    ring: Seq,
    disk: Option<Seq>,
) -> (ReplayStatus, Seq, Option<ReplaySource>) {
    let retained_after = disk.map_or(ring, |d| d.min(ring));
    let (status, source) = if after > head {
        (ReplayStatus::CursorAhead, None)
    } else if after >= ring {
        (ReplayStatus::Complete, Some(ReplaySource::Ring))
    } else if disk.is_some_and(|d| after >= d) {
        (ReplayStatus::Complete, Some(ReplaySource::Disk))
    } else if disk.is_some() {
        (ReplayStatus::HistoryLost, None)
    } else {
        (ReplayStatus::Unavailable, None)
    };
    (status, retained_after, source)
}

/// Builds the `replay` object and the lines to send: the matching events of a
/// complete replay, deduplicated and ascending. There is no cap: a replay from
/// the journal files is streamed ([`replay_record`] then says how many follow).
pub fn finish_replay(
    status: ReplayStatus,
    after: Seq,
    head: Seq,
    retained_after: Seq,
    events: Vec<(Seq, Bytes)>,
) -> (Replay, Vec<Bytes>) {
    let mut lines: Vec<Bytes> = Vec::new();
    if status == ReplayStatus::Complete {
        let unique: std::collections::BTreeMap<Seq, Bytes> = events.into_iter().collect();
        lines = unique.into_values().collect();
    }
    let replay = replay_record(status, after, head, retained_after, lines.len());
    (replay, lines)
}

/// The `replay` object of a reply after which `returned` events follow.
pub fn replay_record(
    status: ReplayStatus,
    after: Seq,
    head: Seq,
    retained_after: Seq,
    returned: usize,
) -> Replay {
    Replay {
        status,
        requested_after: after.0,
        retained_after: retained_after.0,
        through: head.0,
        returned,
        recovery: (status != ReplayStatus::Complete)
            .then(|| RECOVERY_SNAPSHOT_THEN_RESUBSCRIBE.to_owned()),
    }
}

/// A subscription's filter: globs, plus an optional task filter that applies only
/// to `task.*` events (docs/protocol.md#subscriptions).
#[derive(Debug, Clone)]
pub struct EventFilter {
    globs: Vec<String>,
    task_ids: Option<HashSet<String>>,
}

impl EventFilter {
    /// A filter from `subscribe` params; absent globs mean `["*"]`.
    pub fn new(globs: Option<Vec<String>>, task_ids: Option<Vec<String>>) -> EventFilter {
        EventFilter {
            globs: globs.unwrap_or_else(|| vec!["*".to_owned()]),
            task_ids: task_ids.map(|ids| ids.into_iter().collect()),
        }
    }

    /// Whether [`EventFilter::matches`] reads the payload of an event so named
    /// (a task filter on a `task.*` event); if not, any payload will do.
    pub fn needs_payload(&self, name: &str) -> bool {
        self.task_ids.is_some() && name.starts_with("task.")
    }

    /// Whether an event with this name and payload passes. `pty.data` never does:
    /// it is attach-only.
    pub fn matches(&self, name: &str, payload: &Value) -> bool {
        if name == "pty.data" || !self.globs.iter().any(|g| glob_matches(g, name)) {
            return false;
        }
        match &self.task_ids {
            Some(ids) if name.starts_with("task.") => payload
                .get("task_id")
                .and_then(Value::as_str)
                .is_some_and(|id| ids.contains(id)),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests;
