//! The machine's time zone, for the clock times agents print about their
//! usage limits (docs/states.md#reading-the-reset-time): the C library's
//! `localtime_r`, which reads `TZ` and the system's zone database. The one
//! unsafe call is here, with its reasons.
#![allow(unsafe_code)]

/// The offset east of UTC, in seconds, in force at `unix_s`; 0 when the C
/// library cannot say.
pub fn local_offset(unix_s: i64) -> i32 {
    let t: libc::time_t = unix_s;
    // SAFETY: `tm` is plain old data, for which all-zero bytes are a valid
    // value; `localtime_r` only writes into it and reads `t`, both of which
    // live on this stack frame for the whole call, and it is the reentrant
    // form, safe to call from any thread.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: as above: both pointers are valid and unaliased for the call.
    let done = unsafe { libc::localtime_r(&t, &mut tm) };
    if done.is_null() {
        return 0;
    }
    i32::try_from(tm.tm_gmtoff).unwrap_or(0)
}

/// The machine's zone as the tracker takes it.
pub const LOCAL: signaltty_model::agents::resets::Zone =
    signaltty_model::agents::resets::Zone(local_offset);

#[cfg(test)]
mod tests {
    #[test]
    fn an_offset_is_within_a_day() {
        let offset = super::local_offset(1_796_653_800);
        assert!(offset.abs() < 86_400, "{offset}");
    }
}
