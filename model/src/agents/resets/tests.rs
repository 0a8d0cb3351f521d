use super::{Zone, resets_at};

/// 2026-12-07T14:30:00Z.
const NOW: i64 = 1_796_653_800_000;

fn at(text: &str) -> Option<i64> {
    resets_at(text, NOW, Zone::UTC)
}

fn hm(h: i64, m: i64) -> i64 {
    // Midnight of NOW's day, UTC, plus the clock.
    (NOW / 86_400_000) * 86_400_000 + (h * 3600 + m * 60) * 1000
}

#[test]
fn now_is_the_afternoon_the_tests_assume() {
    assert_eq!(
        signaltty_protocol::Timestamp::from_unix_millis(NOW).as_str(),
        "2026-12-07T14:30:00.000Z"
    );
}

#[test]
fn a_clock_time_later_today_is_today() {
    assert_eq!(
        at("You've hit your session limit · resets 3pm"),
        Some(hm(15, 0))
    );
    assert_eq!(at("resets 3pm (Europe/London)"), Some(hm(15, 0)));
    assert_eq!(
        at("■ You've hit your usage limit. Upgrade to Pro, or try again at 3:04 PM."),
        Some(hm(15, 4))
    );
    assert_eq!(
        at("Usage limit reached for gemini-2.5-pro.\nAccess resets at 3:04 PM UTC."),
        Some(hm(15, 4))
    );
    assert_eq!(at("limit reached, resets at 17:45"), Some(hm(17, 45)));
    assert_eq!(at("resets 4 p.m. today"), Some(hm(16, 0)));
}

#[test]
fn a_clock_time_already_past_is_tomorrow_unless_just_past() {
    assert_eq!(at("resets 9am"), Some(hm(9, 0) + 86_400_000));
    assert_eq!(at("resets 12am"), Some(hm(0, 0) + 86_400_000));
    // Read a few minutes late: still today's.
    assert_eq!(at("try again at 2:28 PM"), Some(hm(14, 28)));
}

#[test]
fn a_time_split_over_two_lines_reads_whole() {
    assert_eq!(
        at("…purchase more credits or try again\nat 3:04\nPM."),
        Some(hm(15, 4))
    );
}

#[test]
fn a_date_and_time_read_as_that_day() {
    let dec9_3pm = hm(15, 0) + 2 * 86_400_000;
    assert_eq!(at("resets Dec 9, 3pm"), Some(dec9_3pm));
    assert_eq!(at("resets Dec 9 at 3pm"), Some(dec9_3pm));
    assert_eq!(at("try again at Dec 9th, 2026 3:00 PM."), Some(dec9_3pm));
    assert_eq!(at("resets December 9, 3pm"), Some(dec9_3pm));
    // In December, January is next year's.
    let jan2 = at("resets Jan 2, 10am").unwrap_or_default();
    assert_eq!(
        signaltty_protocol::Timestamp::from_unix_millis(jan2).as_str(),
        "2027-01-02T10:00:00.000Z"
    );
}

#[test]
fn a_relative_time_counts_from_now() {
    assert_eq!(
        at("resets in 2h 13m"),
        Some(NOW + (2 * 3600 + 13 * 60) * 1000)
    );
    assert_eq!(
        at("try again in 1 hour and 5 minutes"),
        Some(NOW + 3900 * 1000)
    );
    assert_eq!(at("Retry in 45s"), Some(NOW + 45_000));
    assert_eq!(at("resets in 3 days"), Some(NOW + 3 * 86_400_000));
}

#[test]
fn the_local_zone_is_the_machines() {
    // UTC+2 at 14:30Z is 16:30 local: "5pm" is 15:00Z today, "3pm"
    // tomorrow's 13:00Z.
    let plus_two = Zone(|_| 7200);
    assert_eq!(resets_at("resets 5pm", NOW, plus_two), Some(hm(15, 0)));
    assert_eq!(
        resets_at("resets 3pm", NOW, plus_two),
        Some(hm(13, 0) + 86_400_000)
    );
    // UTC-8 at 14:30Z is 06:30 local: "3pm" is 23:00Z today.
    let minus_eight = Zone(|_| -8 * 3600);
    assert_eq!(resets_at("resets 3pm", NOW, minus_eight), Some(hm(23, 0)));
}

#[test]
fn words_that_are_no_time_give_none() {
    for text in [
        "You've hit your usage limit.",
        "Usage limit reached for gemini-2.5-pro.",
        "resets soon",
        "resets 15",
        "resets 13pm",
        "resets 3:75 PM",
        "try again later.",
        "resets Foo 8, 3pm",
        "resets in a while",
        "",
    ] {
        assert_eq!(at(text), None, "{text:?}");
    }
}
