//! Where pane actors run: a small pool of arbiters (about one per core), handed
//! out round robin, so heavy output in one pane never delays the Supervisor or
//! another pane's hook events.

use actix::prelude::*;

/// The arbiters pane actors run on, handed out round robin.
#[derive(Default)]
pub struct PaneArbiters {
    arbiters: Vec<ArbiterHandle>,
    next: usize,
}

impl PaneArbiters {
    /// A pool over `arbiters`.
    pub fn new(arbiters: Vec<ArbiterHandle>) -> PaneArbiters {
        PaneArbiters { arbiters, next: 0 }
    }

    /// The arbiter for the next pane (the current one when there are none).
    pub fn next_arbiter(&mut self) -> ArbiterHandle {
        if self.arbiters.is_empty() {
            return Arbiter::current();
        }
        self.next = (self.next + 1) % self.arbiters.len();
        self.arbiters[self.next].clone()
    }
}
