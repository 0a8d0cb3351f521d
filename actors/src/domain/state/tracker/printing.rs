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

/// The current stretch of output: when it began, the last output in it, and
/// since when every look at the screen found no sign but the catch-all.
#[derive(Debug, Default, Clone, Copy)]
pub struct PrintRun {
    start: Option<Instant>,
    last: Option<Instant>,
    no_sign_since: Option<Instant>,
}

impl PrintRun {
    /// Output arrived at `now`.
    pub fn output(&mut self, now: Instant) {
        if self
            .last
            .is_none_or(|last| now.saturating_duration_since(last) > PRINT_GAP)
        {
            self.start = Some(now);
            self.no_sign_since = None;
        }
        self.last = Some(now);
    }

    /// A look at the screen at `now`, where the catch-all won or a sign did:
    /// whether the output still runs and no sign has matched in it for
    /// `UNKNOWN_AFTER`. A turn that showed its working sign until its last
    /// screen is not that, however long it ran: only the looks since the
    /// last sign count.
    pub fn no_sign_for_long(&mut self, catch_all: bool, now: Instant) -> bool {
        if !catch_all || self.running_for(now).is_none() {
            self.no_sign_since = None;
            return false;
        }
        let since = *self.no_sign_since.get_or_insert(now);
        now.saturating_duration_since(since) >= UNKNOWN_AFTER
    }

    /// How long the output has run, when it still runs at `now` (its last
    /// output no more than `PRINT_GAP` ago).
    pub fn running_for(&self, now: Instant) -> Option<Duration> {
        let (start, last) = (self.start?, self.last?);
        (now.saturating_duration_since(last) <= PRINT_GAP)
            .then(|| last.saturating_duration_since(start))
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
        assert_eq!(
            run.running_for(at(22_100)),
            None,
            "a pause of more than a second ends it"
        );
        // Output after a pause starts a new stretch.
        run.output(at(23_000));
        assert_eq!(run.running_for(at(23_100)), Some(Duration::ZERO));
    }

    #[test]
    fn only_looks_since_the_last_sign_count() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut run = PrintRun::default();
        // 25 s of a working sign, then the catch-all: a turn that just ended.
        for ms in (0..=25_000).step_by(500) {
            run.output(at(ms));
            assert!(!run.no_sign_for_long(false, at(ms)));
        }
        run.output(at(25_200));
        assert!(!run.no_sign_for_long(true, at(25_500)));
        // The catch-all for 20 s of output more: no sign is known.
        for ms in (26_000..45_500).step_by(500) {
            run.output(at(ms));
            assert!(!run.no_sign_for_long(true, at(ms)), "{ms}");
        }
        run.output(at(45_500));
        assert!(run.no_sign_for_long(true, at(45_500)));
        // A sign resets it; so does a pause.
        assert!(!run.no_sign_for_long(false, at(45_600)));
        run.output(at(45_700));
        assert!(!run.no_sign_for_long(true, at(45_700)));
        run.output(at(48_000));
        assert!(!run.no_sign_for_long(true, at(48_000)));
    }
}
