//! RFC 3339 UTC timestamps, formatted without a date-time dependency.

use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// An RFC 3339 timestamp in UTC with millisecond precision, e.g.
/// `2026-11-30T08:15:02.125Z`. Stored as its text so it round-trips verbatim.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub String);

impl Timestamp {
    /// The current wall-clock time.
    pub fn now() -> Timestamp {
        Timestamp::from_system_time(SystemTime::now())
    }

    /// Formats a system time; times before 1970 are clamped to the epoch.
    pub fn from_system_time(t: SystemTime) -> Timestamp {
        let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
        Timestamp::from_unix_millis(since.as_millis() as i64)
    }

    /// Formats milliseconds since the Unix epoch.
    pub fn from_unix_millis(ms: i64) -> Timestamp {
        let secs = ms.div_euclid(1000);
        let millis = ms.rem_euclid(1000);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        Timestamp(format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60
        ))
    }

    /// The text form.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Milliseconds since the Unix epoch, for a timestamp in the form this type
    /// writes (`YYYY-MM-DDTHH:MM:SS.mmmZ`); `None` for any other text.
    pub fn unix_millis(&self) -> Option<i64> {
        let b = self.0.as_bytes();
        if b.len() != 24
            || b[4] != b'-'
            || b[7] != b'-'
            || b[10] != b'T'
            || b[19] != b'.'
            || b[23] != b'Z'
        {
            return None;
        }
        let num = |from: usize, to: usize| -> Option<i64> { self.0.get(from..to)?.parse().ok() };
        let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
        let (hh, mm, ss, ms) = (num(11, 13)?, num(14, 16)?, num(17, 19)?, num(20, 23)?);
        let days = days_from_civil(y, m, d);
        Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1000) + ms)
    }

    /// Whole seconds from `earlier` to this instant (negative if it is later).
    pub fn seconds_since(&self, earlier: &Timestamp) -> Option<i64> {
        Some((self.unix_millis()? - earlier.unix_millis()?).div_euclid(1000))
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's
/// `days_from_civil`, the inverse of `civil_from_days`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after
/// Howard Hinnant's `civil_from_days` algorithm.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests;
