//! The silent-worker watchdog's verdict on the monotonic clock: a step of
//! the wall clock, forward or back, changes no task; silence does.

use super::*;
use crate::domain::ages::Ages;
use signaltty_protocol::Timestamp;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(600);

fn worker(activity_ms: i64) -> signaltty_protocol::pane::Pane {
    let mut p = crate::domain::state::tests::pane(signaltty_protocol::pane::AgentKind::Claude);
    p.last_activity_at = Timestamp::from_unix_millis(activity_ms);
    p
}

#[test]
fn a_wall_clock_step_forward_or_back_sends_no_worker_to_input_required() {
    let wall_now = Timestamp::now().unix_millis().expect("now");
    let t0 = Instant::now();
    // Right after a step of an hour forward, the last activity looks an hour
    // old; after a step back, it is in the future. Neither is silence.
    for activity in [wall_now - 3_600_000, wall_now + 3_600_000] {
        let pane = worker(activity);
        let mut ages = Ages::default();
        for at in [
            Duration::ZERO,
            Duration::from_secs(1),
            TIMEOUT - Duration::from_millis(1),
        ] {
            let silent = silent_workers([("task", &pane)], &mut ages, t0 + at, TIMEOUT);
            assert!(silent.is_empty(), "{activity}: silent after {at:?}");
        }
        // Silence for the whole timeout on the monotonic clock is silence.
        let silent = silent_workers([("task", &pane)], &mut ages, t0 + TIMEOUT, TIMEOUT);
        assert_eq!(silent, vec!["task"]);
    }
}

#[test]
fn activity_restarts_the_wait_and_a_pane_no_longer_watched_is_forgotten() {
    let t0 = Instant::now();
    let mut ages = Ages::default();
    let quiet = worker(1_000);
    assert!(silent_workers([("a", &quiet)], &mut ages, t0, TIMEOUT).is_empty());
    let busy = worker(2_000);
    let later = t0 + TIMEOUT;
    assert!(
        silent_workers([("a", &busy)], &mut ages, later, TIMEOUT).is_empty(),
        "output came"
    );
    assert_eq!(
        silent_workers([("a", &busy)], &mut ages, later + TIMEOUT, TIMEOUT),
        vec!["a"]
    );
    // Not working any more, then working again: the wait starts over.
    silent_workers(Vec::<(&str, _)>::new(), &mut ages, later + TIMEOUT, TIMEOUT);
    let again = later + TIMEOUT + Duration::from_secs(1);
    assert!(silent_workers([("a", &busy)], &mut ages, again, TIMEOUT).is_empty());
}
