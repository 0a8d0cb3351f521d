//! Screen rules on the Pane actor (docs/screen-rules.md#when-screen-rules-run):
//! the rules themselves, the ticks and the question watch are the tracker's
//! (`state/tracker/screen.rs`); the pane hands it its terminal and arms the
//! timers it asks for. This file holds the message that re-evaluates a pane.

use super::Pane;
use actix::prelude::*;

/// The active rule set changed (`agents.reload`): evaluate again.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct RulesChanged;

impl Handler<RulesChanged> for Pane {
    type Result = ();

    fn handle(&mut self, _msg: RulesChanged, ctx: &mut Self::Context) {
        let effects = self.tracker.on_rules_changed();
        self.perform_now(effects, ctx);
    }
}
