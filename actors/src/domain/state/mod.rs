//! The state engine: what a pane is doing (lifecycle) and whether a person needs
//! to look (attention), docs/states.md. Pure code, no actor: each Pane actor
//! owns an `AgentTracker` (`tracker/`) that holds the pane's state and applies
//! these functions to it, and performs the effects it returns; the projection
//! keeps what waits need (`progress`).

pub mod apply;
pub mod axes;
pub mod decision;
pub mod explain;
pub mod hooks;
pub mod notify;
pub mod progress;
pub mod question;
pub mod stretch;
pub mod tracker;

#[cfg(test)]
pub(crate) mod tests;

pub use axes::Axes;

use signaltty_protocol::Event;
use signaltty_protocol::pane::Lifecycle;

/// Whether an event starts a turn (docs/states.md#turns): `agent.working` from
/// anything but `blocked`, whatever the source; a permission prompt hands back
/// to the same turn.
pub fn starts_turn(event: &Event) -> bool {
    matches!(event, Event::AgentWorking { prev, .. } if *prev != Lifecycle::Blocked)
}
pub use notify::{Draft, NewNotification};
pub use progress::{Outcome, Progress};
