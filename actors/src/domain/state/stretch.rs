//! How long a pane's current lifecycle has lasted, on the monotonic clock
//! (docs/states.md#lifecycle-states). `last_run_secs` records how long a
//! working stretch ran; measured by subtracting wall-clock timestamps, a
//! step of the clock (NTP, a resumed laptop, a changed date) would record
//! hours, or less than nothing. So the tracker runs each batch of state
//! operations through a `Stretch`, which notes the monotonic instant at
//! which a new `lifecycle_since` appeared and hands the batch how long the
//! lifecycle it finds has lasted since. A stretch that began before this
//! process saw it (a restored or handed-over pane) has no such instant: the
//! batch is told nothing and falls back on the wall clock, never below zero.

use super::axes::Now;
use signaltty_model::agents::resets::Zone;
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::Pane;
use std::time::{Duration, Instant};

/// The monotonic start of one pane's current lifecycle, when seen to begin.
#[derive(Debug, Clone, Default)]
pub struct Stretch {
    began: Option<(Timestamp, Instant)>,
    /// The machine's time zone, handed to every batch.
    pub zone: Zone,
}

impl Stretch {
    /// Runs `f` on `pane` as one batch at this instant: the wall clock for
    /// its records, the monotonic clock for how long the lifecycle lasted.
    pub fn batch<R>(&mut self, pane: &mut Pane, f: impl FnOnce(&mut Pane, Now) -> R) -> R {
        self.batch_at(pane, Timestamp::now(), Instant::now(), f)
    }

    /// `batch` at the given wall-clock time and monotonic instant.
    pub fn batch_at<R>(
        &mut self,
        pane: &mut Pane,
        wall: Timestamp,
        mono: Instant,
        f: impl FnOnce(&mut Pane, Now) -> R,
    ) -> R {
        let before = pane.lifecycle_since.clone();
        let lasted = self.lasted(before.as_ref(), mono);
        let zone = self.zone;
        let out = f(pane, Now { wall, lasted, zone });
        if pane.lifecycle_since != before {
            self.began = pane.lifecycle_since.clone().map(|since| (since, mono));
        }
        out
    }

    /// How long the lifecycle that began at `since` has lasted as of `now`,
    /// if this stretch saw it begin.
    fn lasted(&self, since: Option<&Timestamp>, now: Instant) -> Option<Duration> {
        match (&self.began, since) {
            (Some((seen, at)), Some(since)) if seen == since => {
                Some(now.saturating_duration_since(*at))
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
