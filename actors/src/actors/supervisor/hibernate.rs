//! The hibernation check (docs/restore.md#hibernation): every second, the
//! live agent panes of workspaces that hibernate are judged by the rules of
//! `domain/hibernate.rs` from the projection and the registry, their quiet
//! time measured on the monotonic clock; a pane that is due is asked to
//! hibernate, and it judges again in its own turn with what only it knows
//! (its attached terminals, its unsent input, its last touch).

use super::Supervisor;
use crate::actors::pane::Hibernate;
use crate::domain::ages::Ages;
use crate::domain::hibernate::{Facts, Verdict, verdict};
use crate::domain::projection::Projection;
use actix::prelude::*;
use signaltty_protocol::pane::{LiveState, Pane};
use signaltty_protocol::{PaneId, Timestamp};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// How often the check runs.
pub(super) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// The quiet ages the check keeps, and the panes it has asked.
#[derive(Debug, Default)]
pub(super) struct Sweep {
    ages: Ages<PaneId>,
    asked: HashSet<PaneId>,
}

/// The idle time of `pane`'s workspace: its own setting, else the server's
/// default (`hibernate.after_s`).
pub(crate) fn after_of(projection: &Projection, default: Duration, pane: &Pane) -> Duration {
    projection
        .workspace(&pane.workspace_id)
        .and_then(|w| w.hibernate_after_s)
        .map_or(default, Duration::from_secs)
}

/// Whether a task that is not terminal has `pane` as its worker.
pub(crate) fn task_waits(projection: &Projection, pane: &Pane) -> bool {
    projection
        .task_of_pane(&pane.id)
        .is_some_and(|t| !t.state.is_terminal())
}

/// The last moment the pane was not quiet, as the projection knows it: its
/// lifecycle or attention changing, or a person looking.
pub(crate) fn quiet_mark(pane: &Pane) -> Timestamp {
    [
        pane.lifecycle_since.as_ref(),
        pane.attention_since.as_ref(),
        pane.last_seen_at.as_ref(),
    ]
    .into_iter()
    .flatten()
    .max()
    .cloned()
    .unwrap_or_else(|| pane.created_at.clone())
}

impl Supervisor {
    /// One check: asks each due pane to hibernate.
    pub(super) fn check_hibernation(&mut self, ctx: &mut Context<Self>) {
        if self.shutting_down || self.upgrading.is_some() {
            return;
        }
        let default = self.config.limits.hibernate_after;
        let projection = self.events.projection();
        let now = Instant::now();
        let mut due = Vec::new();
        for pane in projection.panes() {
            let after = after_of(projection, default, pane);
            if after.is_zero() || pane.live != LiveState::Live {
                continue;
            }
            let mark = quiet_mark(pane);
            let quiet_for = self.sweep.ages.age(&pane.id, Some(&mark), now);
            let task_waits = task_waits(projection, pane);
            let facts = Facts {
                after,
                quiet_for,
                // Only the pane knows whether a viewer is a terminal or a
                // watch, and what was typed.
                viewer: false,
                unsent_input: false,
                task_waits,
            };
            if verdict(pane, &facts) == Verdict::Due && !self.sweep.asked.contains(&pane.id) {
                due.push((
                    pane.id.clone(),
                    Hibernate {
                        after,
                        quiet_for,
                        task_waits,
                    },
                ));
            }
        }
        let panes: HashSet<&PaneId> = projection.panes().map(|p| &p.id).collect();
        self.sweep.ages.retain(|id| panes.contains(id));
        for (id, ask) in due {
            let Some(entry) = self.registry.pane_by_id(&id) else {
                continue;
            };
            self.sweep.asked.insert(id.clone());
            let asked = entry.addr.send(ask);
            ctx.spawn(asked.into_actor(self).map(move |_, sup, _| {
                sup.sweep.asked.remove(&id);
            }));
        }
    }
}
