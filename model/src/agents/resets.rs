//! When a usage limit resets, read from the agent's own words
//! (docs/states.md#reading-the-reset-time): "resets 3pm", "try again at
//! 3:04 PM", "Access resets at 3:04 PM UTC.", "resets Dec 8, 3pm", "try again
//! at Dec 8th, 2026 3:04 PM", "resets in 2h 13m". A clock time is the
//! machine's local time, as the agent printed it; words that do not read as a
//! time give nothing, never a guess.

use regex::Regex;
use signaltty_protocol::time::{civil_from_days, days_from_civil};
use std::sync::LazyLock;

/// The machine's time zone as a function: the offset east of UTC, in
/// seconds, in force at a Unix time (in seconds). The server passes the
/// operating system's; tests pass a fixed one.
#[derive(Clone, Copy)]
pub struct Zone(pub fn(i64) -> i32);

impl Zone {
    /// Coordinated Universal Time.
    pub const UTC: Zone = Zone(|_| 0);

    fn offset(self, unix_s: i64) -> i64 {
        i64::from((self.0)(unix_s))
    }

    /// The Unix time of a local wall-clock time, given as seconds since the
    /// epoch as if the zone were UTC.
    fn unix_of_local(self, local: i64) -> i64 {
        let guess = local - self.offset(local);
        local - self.offset(guess)
    }
}

impl Default for Zone {
    fn default() -> Zone {
        Zone::UTC
    }
}

impl std::fmt::Debug for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Zone")
    }
}

/// A clock time read a little late (the screen said "resets 3pm" at 3:00:20)
/// is today's, not tomorrow's.
const LATE_GRACE_S: i64 = 300;

/// The words that lead to a reset time.
static LEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:resets?|try again|retry|available again)(?:[ \t]+(?:at|on|after))?[ \t]+")
        .unwrap_or_else(|e| unreachable!("the lead pattern compiles: {e}"))
});

/// "in 2h 13m", "in 2 hours 13 minutes", "in 45s".
static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\Ain[ \t]+((?:\d+[ \t]*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[ \t,]*(?:and[ \t]+)?)+)",
    )
    .unwrap_or_else(|e| unreachable!("the relative pattern compiles: {e}"))
});

static PART: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+)[ \t]*([a-z]+)")
        .unwrap_or_else(|e| unreachable!("the part pattern compiles: {e}"))
});

/// An optional date ("Dec 8", "Dec 8th, 2026", "December 8 at") then a
/// clock time ("3pm", "3:04 PM", "15:04").
static ABSOLUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A(?:(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[ \t]+",
        r"(?P<day>\d{1,2})(?:st|nd|rd|th)?(?:,?[ \t]+(?P<year>\d{4}))?,?[ \t]+(?:at[ \t]+)?)?",
        r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?(?::\d{2})?",
        r"[ \t]*(?P<ampm>[ap]\.?m\.?)?(?:[^a-z0-9:]|\z)",
    ))
    .unwrap_or_else(|e| unreachable!("the absolute pattern compiles: {e}"))
});

/// When the limit the text speaks of resets, in milliseconds since the
/// epoch, read at `now_ms` in `zone`; `None` when the words give no time.
pub fn resets_at(text: &str, now_ms: i64, zone: Zone) -> Option<i64> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    LEAD.find_iter(&flat).find_map(|lead| {
        let rest = &flat[lead.end()..];
        relative(rest, now_ms).or_else(|| absolute(rest, now_ms, zone))
    })
}

fn relative(rest: &str, now_ms: i64) -> Option<i64> {
    let parts = RELATIVE.captures(rest)?;
    let mut secs: i64 = 0;
    for part in PART.captures_iter(parts.get(1)?.as_str()) {
        let n: i64 = part[1].parse().ok()?;
        let unit = part[2].to_ascii_lowercase();
        let scale = match unit.as_str() {
            "d" | "day" | "days" => 86_400,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
            "m" | "min" | "mins" | "minute" | "minutes" => 60,
            "s" | "sec" | "secs" | "second" | "seconds" => 1,
            "and" => continue,
            _ => return None,
        };
        secs = secs.checked_add(n.checked_mul(scale)?)?;
    }
    (secs > 0).then(|| now_ms + secs * 1000)
}

fn absolute(rest: &str, now_ms: i64, zone: Zone) -> Option<i64> {
    let c = ABSOLUTE.captures(rest)?;
    let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<i64>().ok());
    let mut hour = num("hour")?;
    let minute = num("minute");
    let ampm = c.name("ampm").map(|m| m.as_str().to_ascii_lowercase());
    match ampm.as_deref().map(|s| s.starts_with('p')) {
        // "3pm", "3:04 PM"
        Some(pm) => {
            if !(1..=12).contains(&hour) {
                return None;
            }
            hour = hour % 12 + if pm { 12 } else { 0 };
        },
        // A bare number is no time; "15:04" is.
        None if minute.is_none() || hour > 23 => return None,
        None => {},
    }
    let minute = minute.unwrap_or(0);
    if minute > 59 {
        return None;
    }
    let now_s = now_ms.div_euclid(1000);
    let local_now = now_s + zone.offset(now_s);
    let clock = hour * 3600 + minute * 60;
    let local = match c.name("month") {
        Some(month) => {
            let month = month_number(month.as_str())?;
            let day = num("day").filter(|d| (1..=31).contains(d))?;
            let (this_year, _, _) = civil_from_days(local_now.div_euclid(86_400));
            let on = |year: i64| days_from_civil(year, month, day) * 86_400 + clock;
            match num("year") {
                Some(year) => on(year),
                // A date without a year is the next one: in the new year,
                // "Dec 31" is behind and "Jan 1" ahead.
                None if on(this_year) < local_now - 180 * 86_400 => on(this_year + 1),
                None => on(this_year),
            }
        },
        None => {
            let today = local_now.div_euclid(86_400) * 86_400 + clock;
            if today < local_now - LATE_GRACE_S {
                today + 86_400
            } else {
                today
            }
        },
    };
    Some(zone.unix_of_local(local) * 1000)
}

fn month_number(name: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let name = name.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| *m == name)
        .and_then(|i| i64::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests;
