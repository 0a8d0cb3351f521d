//! The questions panes ask: which ones only their terminal shows, and the
//! options `y` and `n` pick.

use signaltty_protocol::pane::{Attention, Lifecycle, LiveState, Pane};
use signaltty_protocol::state::{Decision, DecisionOption};

/// Whether `pane` waits on a question it has no decision for: live,
/// blocked, and asking for input or permission.
pub fn asks_in_terminal(pane: &Pane) -> bool {
    pane.pending_decision.is_none()
        && pane.live == LiveState::Live
        && pane.lifecycle == Lifecycle::Blocked
        && matches!(
            pane.attention,
            Attention::InputRequired | Attention::PermissionRequired
        )
}

/// The option `y` picks: the first whose id or label starts like an allow.
pub fn allowing(d: &Decision) -> Option<&DecisionOption> {
    pick(d, &["once", "allow", "yes"])
}

/// The option `n` picks: the first whose id or label starts like a deny.
pub fn denying(d: &Decision) -> Option<&DecisionOption> {
    pick(d, &["deny", "no", "reject"])
}

/// The option whose id or label starts with one of `words` (case insensitive).
fn pick<'d>(d: &'d Decision, words: &[&str]) -> Option<&'d DecisionOption> {
    d.options.iter().find(|o| {
        let id = o.id.to_lowercase();
        let label = o.label.to_lowercase();
        words
            .iter()
            .any(|w| id.starts_with(w) || label.starts_with(w))
    })
}
