//! `pane.resume` on the Pane actor (docs/methods.md#paneresume): a
//! tombstone's agent is started again, in the same pane (same id, history and
//! viewers), with the adapter's resume command.

use super::{Pane, PaneSink};
use crate::actors::publish::Publish;
use crate::domain::launch::{self, SpawnSpec};
use crate::error::Error;
use crate::os::seams::{Os, prepare_hooks};
use actix::prelude::*;
use signaltty_protocol::Event;
use signaltty_protocol::pane::{Integration, Pane as PaneState};
use std::path::PathBuf;

/// Starts the pane's own resume command (docs/restore.md) in this pane,
/// which must have no live process: the adapter's exact-session command, or
/// the plain shell it ran, with only the retained config variables passed
/// again and the agent's hooks prepared first. Replies with the pane and
/// the integration report once `pane.created {resumed: true}` is out and
/// the registry knows the new process. `BAD_PARAMS` for a live pane or one
/// with nothing to resume, `SPAWN_FAILED`.
#[derive(Message)]
#[rtype(result = "Result<(PaneState, Option<Integration>), Error>")]
pub struct Resume {
    /// The socket the new process reports to.
    pub socket: PathBuf,
    /// What the launch asks of the OS.
    pub os: Os,
    /// Told of the new process.
    pub directory: Recipient<Relaunched>,
    /// What woke a hibernated pane (`submit`, `input`, `attach`): then
    /// `pane.woke` goes out with `pane.created` (docs/restore.md#waking-up).
    pub woke_by: Option<&'static str>,
}

/// This pane runs a new process now (told the registry's owner, before the
/// `pane.resume` reply).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Relaunched {
    /// The pane.
    pub pane: signaltty_protocol::PaneId,
    /// Its new process.
    pub pid: u32,
}

type Started = ResponseActFuture<Pane, Result<(PaneState, Option<Integration>), Error>>;

fn failed(e: Error) -> Started {
    Box::pin(actix::fut::ready(Err(e)))
}

impl Handler<Resume> for Pane {
    type Result = Started;

    fn handle(&mut self, msg: Resume, _ctx: &mut Self::Context) -> Self::Result {
        // A second wake while the first one starts the agent is answered as
        // woken; a plain resume is refused.
        if msg.woke_by.is_some() && (self.pty.is_some() || self.resuming) {
            let state = self.state().clone();
            return Box::pin(actix::fut::ready(Ok((state, None))));
        }
        if self.pty.is_some() || self.resuming {
            return failed(Error::BadParams(format!(
                "pane {} is already live",
                self.state().id
            )));
        }
        let pane = self.state();
        let Some(argv) = launch::resume_command(pane) else {
            return failed(Error::BadParams(
                signaltty_model::agents::programs::not_resumable_because(pane),
            ));
        };
        // Only the retained config variables are passed again (CLAUDE_CONFIG_DIR, …).
        let config_env = pane.agent.config_env.clone().unwrap_or_default();
        let env = launch::child_env(std::env::vars(), &config_env, pane.id.as_str(), &msg.socket);
        let spec = SpawnSpec {
            argv,
            cwd: PathBuf::from(&pane.cwd),
            env,
            rows: pane.pty_size.rows,
            cols: pane.pty_size.cols,
        };
        let (os, directory, woke_by) = (msg.os, msg.directory, msg.woke_by);
        self.resuming = true;
        let spawned = async move {
            let (spec, integration) = match prepare_hooks(&os, spec, config_env).await {
                Ok(prepared) => prepared,
                Err(e) => return Err(Error::SpawnFailed(e.to_string())),
            };
            let (sink, addr_tx) = PaneSink::new();
            let argv = spec.argv.clone();
            let spawner = os.spawner.clone();
            let spawned =
                actix_rt::task::spawn_blocking(move || spawner.spawn(&spec, Box::new(sink))).await;
            Ok((spawned, addr_tx, argv, integration))
        };
        Box::pin(
            spawned
                .into_actor(self)
                .then(move |prepared: Result<_, Error>, pane, ctx| {
                    pane.resuming = false;
                    let (result, addr_tx, argv, integration) = match prepared {
                        Ok(prepared) => prepared,
                        Err(e) => return failed(e),
                    };
                    let pty = match result {
                        Ok(Ok(pty)) => pty,
                        Ok(Err(e)) => return failed(Error::SpawnFailed(e.to_string())),
                        Err(e) => {
                            return failed(Error::SpawnFailed(format!("launch task failed: {e}")));
                        },
                    };
                    let pid = pty.pid();
                    // The old screen goes into the scrollback: the new process starts
                    // on a clean one, and no screen rule reads the tail as its screen.
                    pane.term.push_screen_into_history();
                    pane.pty = Some(pty);
                    pane.ended = false;
                    pane.reaped = None;
                    pane.exit_reported = false;
                    pane.reset_hibernation(ctx);
                    // A new process: unhooked, its own program, no inferred approvals.
                    let effects = pane.tracker.on_process_started(&argv);
                    let mut events = pane.perform(effects, ctx);
                    let state = pane.state().clone();
                    if let Some(by) = woke_by {
                        events.push(Event::PaneWoke {
                            pane_id: state.id.clone(),
                            by: by.to_owned(),
                        });
                    }
                    events.push(Event::PaneCreated {
                        pane: state.clone(),
                        resumed: Some(true),
                    });
                    let sent = pane.events.send(Publish::new(events));
                    let me = ctx.address();
                    Box::pin(
                        async move {
                            sent.await??;
                            directory.do_send(Relaunched {
                                pane: state.id.clone(),
                                pid,
                            });
                            // Only now may the new process's output and exit reach the
                            // pane: nothing it reports can overtake `pane.created`.
                            addr_tx.send(me);
                            Ok((state, integration))
                        }
                        .into_actor(pane),
                    )
                }),
        )
    }
}

#[cfg(test)]
mod tests;
