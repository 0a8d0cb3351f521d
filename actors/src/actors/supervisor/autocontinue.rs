//! Auto-continue (docs/states.md#auto-continue): every second, beside the
//! hibernation check, the live panes of workspaces that opted in and wait at
//! their usage limit are judged by `domain/autocontinue.rs`; a pane whose
//! reset time plus the margin has come gets one `pane.auto_continued`
//! (journaled, so a reset is continued at most once, also across a restart
//! or an upgrade), then its continue prompt through the same typing and
//! activity gate as `pane.submit` (docs/states.md#the-activity-gate), off
//! the Supervisor's turn.

use super::Supervisor;
use crate::actors::submit::{Gate, SERVER_CONN, activity_gate, type_prompt};
use crate::domain::autocontinue::due;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::{Event, PaneId, Timestamp};
use std::time::Duration;

/// The pause between the paste and Enter, as `pane.submit`'s default.
const SUBMIT_DELAY: Duration = Duration::from_millis(300);

/// How long the agent may take to show it took the prompt.
const STALL: Duration = Duration::from_secs(10);

impl Supervisor {
    /// One check: each due pane is continued once for its reset.
    pub(super) fn check_auto_continue(&mut self, ctx: &mut Context<Self>) {
        if self.shutting_down || self.upgrading.is_some() {
            return;
        }
        let margin = self.config.limits.auto_continue_margin;
        let now = Timestamp::now();
        let projection = self.events.projection();
        let rules = self.config.agents.current();
        let mut continued = Vec::new();
        // What was continued but is not in the journal yet counts too; a gone
        // pane's entry goes.
        self.continuing
            .retain(|id, _| projection.pane(id).is_some());
        for pane in projection.panes() {
            let Some(ws) = projection.workspace(&pane.workspace_id) else {
                continue;
            };
            let last = self
                .continuing
                .get(&pane.id)
                .or_else(|| projection.auto_continued(&pane.id));
            let Some(resets_at) = due(pane, ws.auto_continue, last, &now, margin) else {
                continue;
            };
            let prompt = ws.auto_continue_prompt.clone().unwrap_or_else(|| {
                let program = signaltty_model::agents::programs::name_of(&pane.argv);
                rules.continue_prompt(pane.agent.kind, &program)
            });
            let baseline = projection.progress(&pane.id).map(|pr| pr.baseline(pane));
            continued.push((pane.id.clone(), resets_at, prompt, baseline));
        }
        for (id, resets_at, prompt, baseline) in continued {
            let Some(addr) = self.registry.pane_by_id(&id).map(|e| e.addr.clone()) else {
                continue;
            };
            // Recorded before anything is typed: the next check does not
            // continue the same reset, and nothing is typed unless the
            // journal has the record.
            self.continuing.insert(id.clone(), resets_at.clone());
            let recorded = self.events.publish(vec![Event::PaneAutoContinued {
                pane_id: id.clone(),
                resets_at,
                prompt: prompt.clone(),
            }]);
            let me = ctx.address();
            let gate = Gate {
                conn: SERVER_CONN,
                pane: id.clone(),
                addr: addr.clone(),
                baseline,
                stall: STALL,
                waits: me.clone().recipient(),
                view: me.recipient(),
            };
            ctx.spawn(
                async move {
                    match recorded.await {
                        Ok(Ok(_)) => submit(id, addr, prompt, gate).await,
                        _ => log::warn!(
                            "auto-continue: pane {}: not recorded in the journal, nothing typed",
                            id.0
                        ),
                    }
                }
                .into_actor(self)
                .map(|_, _, _| ()),
            );
        }
    }
}

/// Types `prompt` and holds the activity gate; the outcome is logged (the
/// journaled event already tells a person it happened).
async fn submit(id: PaneId, addr: Addr<crate::actors::pane::Pane>, prompt: String, gate: Gate) {
    let gone = id.0.clone();
    let typed = type_prompt(&addr, prompt, SUBMIT_DELAY, |_| {
        Error::NoSuchPane(gone.clone())
    })
    .await;
    let outcome = match typed {
        Ok(()) => activity_gate(gate).await.map(drop),
        Err(typed) => Err(typed.into_error()),
    };
    match outcome {
        Ok(()) => log::info!("auto-continue: pane {} took its continue prompt", id.0),
        Err(e) => log::warn!("auto-continue: pane {}: {e}", id.0),
    }
}
