//! `pane.resume` on the Pane actor (spec/ipc.md §8.5): a tombstone's agent is
//! started again, in the same pane (same id, history and viewers), with the
//! adapter's resume command. Never automatic.

use super::{Pane, PaneSink};
use crate::actors::publish::Publish;
use crate::error::Error;
use crate::os::pty::SpawnSpec;
use actix::prelude::*;
use signaltty_protocol::Event;
use signaltty_protocol::pane::Pane as PaneState;

/// Starts `spec` in this pane, which must have no live process. Replies with
/// the pane and its new process id once `pane.created {resumed: true}` is out.
#[derive(Debug, Message)]
#[rtype(result = "Result<(PaneState, u32), Error>")]
pub struct Resume {
    /// What to run.
    pub spec: SpawnSpec,
}

type Started = ResponseActFuture<Pane, Result<(PaneState, u32), Error>>;

fn failed(e: Error) -> Started {
    Box::pin(actix::fut::ready(Err(e)))
}

impl Handler<Resume> for Pane {
    type Result = Started;

    fn handle(&mut self, msg: Resume, _ctx: &mut Self::Context) -> Self::Result {
        if self.pty.is_some() {
            return failed(Error::BadParams(format!(
                "pane {} is already live",
                self.state().id
            )));
        }
        let (sink, addr_tx) = PaneSink::new();
        let spec = msg.spec;
        let argv = spec.argv.clone();
        let spawned =
            actix_rt::task::spawn_blocking(move || crate::os::pty::spawn(&spec, Box::new(sink)));
        Box::pin(spawned.into_actor(self).then(move |result, pane, ctx| {
            let pty = match result {
                Ok(Ok(pty)) => pty,
                Ok(Err(e)) => return failed(Error::SpawnFailed(e.to_string())),
                Err(e) => return failed(Error::SpawnFailed(format!("launch task failed: {e}"))),
            };
            let pid = pty.pid();
            // The old screen goes into the scrollback: the new process starts
            // on a clean one, and no screen rule reads the tail as its screen.
            pane.term.push_screen_into_history();
            pane.pty = Some(Box::new(pty));
            pane.ended = false;
            pane.reaped = None;
            pane.exit_reported = false;
            // A new process: unhooked, its own program, no inferred approvals.
            let effects = pane.tracker.on_process_started(&argv);
            let mut events = pane.perform(effects, ctx);
            let state = pane.state().clone();
            events.push(Event::PaneCreated {
                pane: state.clone(),
                resumed: Some(true),
            });
            let sent = pane.events.send(Publish { events });
            let me = ctx.address();
            Box::pin(
                async move {
                    sent.await??;
                    // Only now may the new process's output and exit reach the
                    // pane: nothing it reports can overtake `pane.created`.
                    let _ = addr_tx.send(me);
                    Ok((state, pid))
                }
                .into_actor(pane),
            )
        }))
    }
}
