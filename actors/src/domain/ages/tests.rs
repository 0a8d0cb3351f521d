//! Ages run on the instants given, whatever the timestamps say.

use super::*;

fn at(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms)
}

#[test]
fn an_age_runs_from_the_first_sighting_and_restarts_on_a_new_value() {
    let t0 = Instant::now();
    let mut ages = Ages::default();
    let stamp = at(1_000_000);
    assert_eq!(ages.age(&"p", Some(&stamp), t0), Duration::ZERO);
    let later = t0 + Duration::from_secs(7);
    assert_eq!(ages.age(&"p", Some(&stamp), later), Duration::from_secs(7));
    let newer = at(1_000_500);
    assert_eq!(
        ages.age(&"p", Some(&newer), later),
        Duration::ZERO,
        "activity"
    );
    assert_eq!(
        ages.age(&"p", Some(&newer), later + Duration::from_secs(2)),
        Duration::from_secs(2)
    );
    assert_eq!(
        ages.age(&"q", None, later),
        Duration::ZERO,
        "keys are apart"
    );
    assert_eq!(
        ages.age(&"q", None, later + Duration::from_secs(1)),
        Duration::from_secs(1)
    );
}

#[test]
fn a_wall_clock_jump_changes_no_age() {
    // The same activity seen across a wall-clock step of an hour forward
    // (a timestamp now an hour old) and then one back: the age follows the
    // monotonic instants only.
    let t0 = Instant::now();
    let mut ages = Ages::default();
    let stamp = at(5_000_000);
    ages.age(&1, Some(&stamp), t0);
    for step in 1..=10 {
        let now = t0 + Duration::from_millis(250 * step);
        assert_eq!(
            ages.age(&1, Some(&stamp), now),
            Duration::from_millis(250 * step)
        );
    }
    // A timestamp from before a backward step is just a new value.
    let earlier = at(4_000_000);
    assert_eq!(
        ages.age(&1, Some(&earlier), t0 + Duration::from_secs(3)),
        Duration::ZERO
    );
}

#[test]
fn retain_forgets_the_keys_refused() {
    let t0 = Instant::now();
    let mut ages = Ages::default();
    for k in 0..5 {
        ages.age(&k, None, t0);
    }
    ages.retain(|k| k % 2 == 0);
    assert_eq!(ages.seen.len(), 3);
}
