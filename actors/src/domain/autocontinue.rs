//! Auto-continue (docs/states.md#auto-continue): which pane is due its
//! continue prompt, as a pure function of the pane, its workspace's setting,
//! the reset it was last continued for and the wall clock. The reset is a
//! moment the agent named on the wall clock ("resets 3pm"), so it is compared
//! with the wall clock, not measured on the monotonic one.

use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::{Attention, Lifecycle, LiveState, Pane};
use std::time::Duration;

/// The reset `pane` is due its continue prompt for at `now`, if it is: its
/// workspace has auto-continue on (`enabled`), its process runs, it waits
/// at its usage limit with a reset time, that time plus `margin` has come,
/// and it was not continued for that reset already (`last`).
pub fn due(
    pane: &Pane,
    enabled: bool,
    last: Option<&Timestamp>,
    now: &Timestamp,
    margin: Duration,
) -> Option<Timestamp> {
    if !enabled
        || pane.live != LiveState::Live
        || pane.lifecycle != Lifecycle::Blocked
        || pane.attention != Attention::RateLimited
    {
        return None;
    }
    let resets_at = pane.resets_at.as_ref()?;
    if last == Some(resets_at) {
        return None;
    }
    let margin_ms = i64::try_from(margin.as_millis()).ok()?;
    let at = resets_at.unix_millis()?.checked_add(margin_ms)?;
    (now.unix_millis()? >= at).then(|| resets_at.clone())
}

#[cfg(test)]
mod tests;
