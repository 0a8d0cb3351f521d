//! The length of a working stretch follows the monotonic instants given,
//! whatever the wall clock says.

use super::*;
use crate::domain::state::Axes;
use crate::domain::state::tests::pane;
use signaltty_protocol::pane::{AgentKind, Lifecycle};

const HOUR: i64 = 3_600_000;

fn wall(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms)
}

/// Sets the lifecycle of `p` in one batch at `wall_ms` and `mono`.
fn set(stretch: &mut Stretch, p: &mut Pane, to: Lifecycle, wall_ms: i64, mono: Instant) {
    stretch.batch_at(p, wall(wall_ms), mono, |pane, now| {
        let mut axes = Axes::new(pane, now);
        axes.set_lifecycle(to, "test");
        axes.into_events()
    });
}

#[test]
fn a_working_stretch_is_measured_on_the_monotonic_clock_across_wall_clock_steps() {
    let t0 = Instant::now();
    let mut stretch = Stretch::default();
    let mut p = pane(AgentKind::Claude);
    let start = 100 * HOUR;
    set(&mut stretch, &mut p, Lifecycle::Working, start, t0);
    // Forty seconds later by the monotonic clock, the wall clock has jumped
    // three hours forward.
    let t1 = t0 + Duration::from_secs(40);
    set(&mut stretch, &mut p, Lifecycle::Done, start + 3 * HOUR, t1);
    assert_eq!(p.last_run_secs, Some(40), "not three hours");
    assert_eq!(
        p.lifecycle_since,
        Some(wall(start + 3 * HOUR)),
        "the record is wall time"
    );
    // The next stretch, with the wall clock stepped back below where the
    // first one started.
    let t2 = t1 + Duration::from_secs(5);
    set(
        &mut stretch,
        &mut p,
        Lifecycle::Working,
        start - 2 * HOUR,
        t2,
    );
    let t3 = t2 + Duration::from_secs(12);
    set(
        &mut stretch,
        &mut p,
        Lifecycle::Blocked,
        start - 2 * HOUR + 1000,
        t3,
    );
    assert_eq!(p.last_run_secs, Some(12), "not less than nothing");
}

#[test]
fn a_batch_without_a_change_keeps_the_start_and_two_changes_in_one_batch_restart_it() {
    let t0 = Instant::now();
    let mut stretch = Stretch::default();
    let mut p = pane(AgentKind::Claude);
    set(&mut stretch, &mut p, Lifecycle::Working, HOUR, t0);
    // A batch that changes no lifecycle (an attention raise) moves nothing.
    stretch.batch_at(
        &mut p,
        wall(9 * HOUR),
        t0 + Duration::from_secs(3),
        |pane, now| Axes::new(pane, now).raise(signaltty_protocol::pane::Attention::Unread),
    );
    // Working → done → working in one batch: the second stretch starts there.
    let t1 = t0 + Duration::from_secs(8);
    stretch.batch_at(&mut p, wall(0), t1, |pane, now| {
        let mut axes = Axes::new(pane, now);
        axes.set_lifecycle(Lifecycle::Done, "test");
        axes.set_lifecycle(Lifecycle::Working, "test");
    });
    assert_eq!(p.last_run_secs, Some(8));
    set(
        &mut stretch,
        &mut p,
        Lifecycle::Idle,
        5 * HOUR,
        t1 + Duration::from_secs(2),
    );
    assert_eq!(p.last_run_secs, Some(2));
}

#[test]
fn a_stretch_begun_before_it_was_seen_falls_back_on_the_wall_clock_never_below_zero() {
    let t0 = Instant::now();
    // A restored pane: working since a time this stretch never saw begin.
    let mut p = pane(AgentKind::Claude);
    p.lifecycle = Lifecycle::Working;
    p.lifecycle_since = Some(wall(10 * HOUR));
    let mut stretch = Stretch::default();
    set(
        &mut stretch,
        &mut p,
        Lifecycle::Done,
        10 * HOUR + 30_000,
        t0,
    );
    assert_eq!(p.last_run_secs, Some(30));
    // Restored again, with the wall clock now behind its start.
    p.lifecycle = Lifecycle::Working;
    p.lifecycle_since = Some(wall(10 * HOUR));
    let mut stretch = Stretch::default();
    set(&mut stretch, &mut p, Lifecycle::Done, 9 * HOUR, t0);
    assert_eq!(p.last_run_secs, Some(0));
}
