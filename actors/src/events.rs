//! Published events, the in-memory ring, subscription filters and replay coverage
//! (spec/persistence.md §5). Pure data structures: the Supervisor owns them.
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
use signaltty_protocol::envelope::EventFrame;
use signaltty_protocol::subscribe::{
    MAX_REPLAY_EVENTS, RECOVERY_SNAPSHOT_THEN_RESUBSCRIBE, Replay, ReplayStatus, glob_matches,
};
use signaltty_protocol::{Event, Seq};
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

/// A state event after the journal made it durable: what the ring keeps and what
/// subscribers receive. The wire line is serialized once and shared.
#[derive(Debug)]
pub struct Published {
    /// Its sequence number.
    pub seq: Seq,
    /// The event name.
    pub name: &'static str,
    /// The payload (kept for filters that look inside, like `task_ids`).
    pub payload: Value,
    /// The event frame line, newline included.
    pub line: Bytes,
}

impl Published {
    /// Builds the shared form of an event.
    pub fn new(seq: Seq, event: &Event) -> Arc<Published> {
        let payload = event.payload();
        let line = EventFrame::new(event.name(), seq.0, payload.clone()).to_line();
        Arc::new(Published {
            seq,
            name: event.name(),
            payload,
            line: Bytes::from(line),
        })
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

    /// The seq after which the ring proves history.
    pub fn retained_after(&self) -> Seq {
        self.retained_after
    }

    /// Decides a replay from `after` with `head` as the fence: the `replay` object
    /// and, when complete, the matching events in ascending seq.
    pub fn replay(
        &self,
        after: Seq,
        head: Seq,
        filter: &EventFilter,
    ) -> (Replay, Vec<Arc<Published>>) {
        let mut replay = Replay {
            status: ReplayStatus::Complete,
            requested_after: after.0,
            retained_after: self.retained_after.0,
            through: head.0,
            returned: 0,
            recovery: None,
        };
        let status = if after > head {
            ReplayStatus::CursorAhead
        } else if after >= self.retained_after {
            ReplayStatus::Complete
        } else {
            ReplayStatus::Unavailable
        };
        let mut events = Vec::new();
        if status == ReplayStatus::Complete {
            events.extend(
                self.events
                    .iter()
                    .filter(|e| e.seq > after && e.seq <= head && filter.matches(e))
                    .cloned(),
            );
        }
        let status = if events.len() > MAX_REPLAY_EVENTS {
            ReplayStatus::Truncated
        } else {
            status
        };
        replay.status = status;
        if status == ReplayStatus::Complete {
            replay.returned = events.len();
        } else {
            events.clear();
            replay.recovery = Some(RECOVERY_SNAPSHOT_THEN_RESUBSCRIBE.to_owned());
        }
        (replay, events)
    }
}

/// A subscription's filter: globs, plus an optional task filter that applies only
/// to `task.*` events (spec/ipc.md §6).
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

    /// Whether the event passes. `pty.data` never does: it is attach-only.
    pub fn matches(&self, event: &Published) -> bool {
        if event.name == "pty.data" || !self.globs.iter().any(|g| glob_matches(g, event.name)) {
            return false;
        }
        match &self.task_ids {
            Some(ids) if event.name.starts_with("task.") => event
                .payload
                .get("task_id")
                .and_then(Value::as_str)
                .is_some_and(|id| ids.contains(id)),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use signaltty_protocol::WorkspaceId;

    fn closed(seq: u64) -> Arc<Published> {
        Published::new(
            Seq(seq),
            &Event::WorkspaceClosed {
                workspace_id: WorkspaceId(format!("ws_{seq}")),
            },
        )
    }

    fn raw(seq: u64, name: &'static str, payload: Value) -> Arc<Published> {
        Arc::new(Published {
            seq: Seq(seq),
            name,
            payload,
            line: Bytes::new(),
        })
    }

    fn all() -> EventFilter {
        EventFilter::new(None, None)
    }

    #[test]
    fn a_fresh_ring_proves_history_from_the_start_head() {
        let mut ring = Ring::new(4, Seq(10));
        for s in 11..=13 {
            ring.push(closed(s));
        }
        let (r, ev) = ring.replay(Seq(10), Seq(13), &all());
        assert_eq!(r.status, ReplayStatus::Complete);
        assert_eq!(
            ev.iter().map(|e| e.seq.0).collect::<Vec<_>>(),
            vec![11, 12, 13]
        );
        assert_eq!(r.returned, 3);
        assert_eq!(r.recovery, None);
        let (r, _) = ring.replay(Seq(9), Seq(13), &all());
        assert_eq!(r.status, ReplayStatus::Unavailable);
        assert_eq!(r.recovery.as_deref(), Some("snapshot_then_resubscribe"));
    }

    #[test]
    fn eviction_moves_coverage_forward() {
        let mut ring = Ring::new(2, Seq(0));
        for s in 1..=5 {
            ring.push(closed(s));
        }
        assert_eq!(ring.retained_after(), Seq(3));
        assert_eq!(
            ring.replay(Seq(2), Seq(5), &all()).0.status,
            ReplayStatus::Unavailable
        );
        let (r, ev) = ring.replay(Seq(3), Seq(5), &all());
        assert_eq!((r.status, ev.len()), (ReplayStatus::Complete, 2));
    }

    #[test]
    fn a_cursor_past_the_head_is_ahead_and_replays_nothing() {
        let ring = Ring::new(2, Seq(5));
        let (r, ev) = ring.replay(Seq(6), Seq(5), &all());
        assert_eq!(r.status, ReplayStatus::CursorAhead);
        assert!(ev.is_empty());
    }

    #[test]
    fn replay_stops_at_the_fence_and_applies_the_filter() {
        let mut ring = Ring::new(8, Seq(0));
        ring.push(closed(1));
        ring.push(raw(2, "tab.created", json!({})));
        ring.push(closed(3));
        let filter = EventFilter::new(Some(vec!["workspace.*".into()]), None);
        let (r, ev) = ring.replay(Seq(0), Seq(2), &filter);
        assert_eq!(r.through, 2);
        assert_eq!(ev.iter().map(|e| e.seq.0).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn task_filter_applies_only_to_task_events() {
        let f = EventFilter::new(None, Some(vec!["task_a".into()]));
        assert!(f.matches(&raw(1, "task.updated", json!({"task_id": "task_a"}))));
        assert!(!f.matches(&raw(2, "task.updated", json!({"task_id": "task_b"}))));
        assert!(!f.matches(&raw(3, "task.created", json!({"task": {}}))));
        assert!(f.matches(&raw(4, "workspace.closed", json!({}))));
        assert!(!f.matches(&raw(5, "pty.data", json!({}))));
    }
}
