//! Ages on the monotonic clock of moments the wire dates by the wall clock
//! (docs/tasks.md#the-silent-worker-watchdog). A pane's `last_activity_at`
//! is a wall-clock timestamp, right for display and records but not for a
//! timeout: a clock step (NTP, a suspended laptop, a user setting the date)
//! would make every pane look silent at once, or never. So whoever times out
//! on such a moment keeps, per key, the timestamp it saw last and the
//! monotonic instant it first saw it: the age runs from there, and the
//! timestamp is only ever compared for equality.

use signaltty_protocol::Timestamp;
use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// The monotonic ages of the timestamps last seen under each key.
#[derive(Debug, Clone)]
pub struct Ages<K> {
    seen: HashMap<K, (Option<Timestamp>, Instant)>,
}

impl<K> Default for Ages<K> {
    fn default() -> Self {
        Ages {
            seen: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash + Clone> Ages<K> {
    /// How long `stamp` has been what `key` shows, as of `now`: zero the
    /// first time it is seen (a new value, or a key seen for the first time).
    pub fn age(&mut self, key: &K, stamp: Option<&Timestamp>, now: Instant) -> Duration {
        match self.seen.get(key) {
            Some((seen, since)) if seen.as_ref() == stamp => now.saturating_duration_since(*since),
            _ => {
                self.seen.insert(key.clone(), (stamp.cloned(), now));
                Duration::ZERO
            },
        }
    }

    /// Forgets every key `keep` refuses.
    pub fn retain(&mut self, keep: impl Fn(&K) -> bool) {
        self.seen.retain(|k, _| keep(k));
    }
}

#[cfg(test)]
mod tests;
