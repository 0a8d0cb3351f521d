//! How long a pane's output has run without a pause: a known agent that
//! prints for long while no rule but the idle fallback matches reads
//! `unknown`, not a confident `idle` (docs/screen-rules.md#when-no-sign-matches).

use std::time::{Duration, Instant};

/// A pause this long ends a stretch of output.
pub const PRINT_GAP: Duration = Duration::from_secs(1);
/// Output running this long with no sign matched makes the reading unknown.
pub const UNKNOWN_AFTER: Duration = Duration::from_secs(20);
/// While unknown, the screen is looked at again this long after a tick, so
/// that the end of the output is seen even when nothing more is printed.
pub const UNKNOWN_RECHECK: Duration = Duration::from_millis(1500);

/// The current stretch of output: when it began and the last output in it.
#[derive(Debug, Default, Clone, Copy)]
pub struct PrintRun {
    start: Option<Instant>,
    last: Option<Instant>,
}

impl PrintRun {
    /// Output arrived at `now`.
    pub fn output(&mut self, now: Instant) {
        if self
            .last
            .is_none_or(|last| now.saturating_duration_since(last) > PRINT_GAP)
        {
            self.start = Some(now);
        }
        self.last = Some(now);
    }

    /// How long the output has run, when it still runs at `now` (its last
    /// output no more than `PRINT_GAP` ago).
    pub fn running_for(&self, now: Instant) -> Option<Duration> {
        let (start, last) = (self.start?, self.last?);
        (now.saturating_duration_since(last) <= PRINT_GAP)
            .then(|| last.saturating_duration_since(start))
    }

    /// Whether output has run for `UNKNOWN_AFTER` and still runs at `now`.
    pub fn long(&self, now: Instant) -> bool {
        self.running_for(now).is_some_and(|d| d >= UNKNOWN_AFTER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_of_output_runs_until_a_pause() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut run = PrintRun::default();
        assert_eq!(run.running_for(t0), None);
        for ms in (0..=21_000).step_by(100) {
            run.output(at(ms));
        }
        assert_eq!(run.running_for(at(21_500)), Some(Duration::from_secs(21)));
        assert!(run.long(at(21_500)));
        assert!(
            !run.long(at(22_100)),
            "a pause of more than a second ends it"
        );
        // Output after a pause starts a new stretch.
        run.output(at(23_000));
        assert_eq!(run.running_for(at(23_100)), Some(Duration::ZERO));
        assert!(!run.long(at(23_100)));
    }
}
