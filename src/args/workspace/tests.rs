//! Tests of the workspace arguments' parsers.

use super::hibernate_after;

#[test]
fn a_hibernation_time_is_seconds_a_simple_duration_or_off() {
    assert_eq!(hibernate_after("90"), Ok(90));
    assert_eq!(hibernate_after("30s"), Ok(30));
    assert_eq!(hibernate_after("5m"), Ok(300));
    assert_eq!(hibernate_after("1h"), Ok(3600));
    assert_eq!(hibernate_after("off"), Ok(0));
    assert_eq!(hibernate_after("0"), Ok(0));
    for bad in ["", "s", "5d", "-3", "1.5m", "m5", "on"] {
        assert!(hibernate_after(bad).is_err(), "{bad:?}");
    }
}
