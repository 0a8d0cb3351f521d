//! The doctor's verdict on how many more panes the running server can start
//! (docs/panes.md#how-many-panes).

use super::{Check, Verdict};
use signaltty_protocol::server::PaneCapacity;

/// How full the server's room for live panes may get before it is a warning.
const WARN_PERCENT: u64 = 75;

/// How many live panes the server's open-file limit allows, and how many are
/// live (docs/panes.md#how-many-panes).
pub fn pane_capacity(c: &PaneCapacity, live: usize) -> Check {
    let live = u64::try_from(live).unwrap_or(u64::MAX);
    let detail = format!(
        "{live} live of at most {} (open-file limit {}, {} descriptors a pane, {} kept \
         for the rest)",
        c.max_live_panes, c.open_file_limit, c.fds_per_pane, c.reserved_fds
    );
    if live.saturating_mul(100) < c.max_live_panes.saturating_mul(WARN_PERCENT) {
        return Check::new("pane capacity", Verdict::Ok, detail);
    }
    let detail = if live >= c.max_live_panes {
        format!("{detail}: new panes are refused")
    } else {
        detail
    };
    Check::new("pane capacity", Verdict::Warn, detail).fix(
        "close panes, or raise the server's open-file limit: `ulimit -n` before \
         `signaltty start`, or LimitNOFILE= in its systemd unit, then restart it",
    )
}
