//! The Supervisor's connections and its stop: who is connected (to drain at
//! shutdown), what a connection that goes away leaves behind (its
//! subscription, waits, answer routes, attachments), and the shutdown itself:
//! `server.will_shutdown`, answer routes ended, connections drained within
//! the grace period, the journal closed and a last snapshot written.

use super::Supervisor;
use crate::actors::connection::{Connected, Disconnected, Drain};
use crate::actors::decision::WaitEnd;
use crate::os::listener::Accepting;
use actix::prelude::*;
use signaltty_protocol::Event;

/// Stop the server: announce it, finish in-flight replies, exit. A second request
/// while already stopping stops at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct BeginShutdown {
    /// Why, for the log.
    pub reason: String,
}

impl Supervisor {
    /// The server has stopped with `self.exit_code`.
    pub(super) fn stopped(&mut self) {
        match self.on_stop.take() {
            Some(report) => report(self.exit_code),
            None => System::current().stop_with_code(self.exit_code),
        }
    }

    /// Announces shutdown, stops accepting and drains every connection; the system
    /// stops once they are gone or the grace period ends.
    pub(crate) fn begin_shutdown(&mut self, ctx: &mut Context<Self>) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        let _ = self.stop_accepting.send(Accepting::Stopped);
        // Waiting permission reporters get their answer: none (`shutdown`).
        self.routes.end_all(WaitEnd::Shutdown);
        for (id, drain) in &self.connections {
            // A subscribed connection is drained through its Subscriber, behind the
            // events already offered to it, so `server.will_shutdown` reaches it.
            if !self.events.drain_subscribed(*id) {
                drain.do_send(Drain);
            }
        }
        if self.connections.is_empty() {
            self.stop_now();
        } else {
            ctx.run_later(self.config.limits.shutdown_grace, |act, _| {
                log::warn!(
                    "{} connection(s) did not finish in time",
                    act.connections.len()
                );
                act.stop_now();
            });
        }
    }

    pub(super) fn stop_now(&mut self) {
        self.events.close_journal();
        self.save_snapshot_now();
        self.stopped();
    }
}

impl Handler<Connected> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: Connected, _ctx: &mut Self::Context) {
        if self.shutting_down {
            msg.drain.do_send(Drain);
        }
        self.connections.insert(msg.id, msg.drain);
    }
}

impl Handler<Disconnected> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: Disconnected, _ctx: &mut Self::Context) {
        self.events.disconnect(msg.id);
        self.routes.disconnect(msg.id);
        for pane in self.registry.disconnect(msg.id) {
            pane.addr
                .do_send(crate::actors::pane::Detach { conn: msg.id });
        }
        self.connections.remove(&msg.id);
        if self.shutting_down && self.connections.is_empty() {
            self.stop_now();
        }
    }
}

impl Handler<BeginShutdown> for Supervisor {
    type Result = ();

    fn handle(&mut self, msg: BeginShutdown, ctx: &mut Self::Context) {
        if self.shutting_down {
            log::info!("{}: stopping now", msg.reason);
            self.stop_now();
            return;
        }
        log::info!("{}: shutting down", msg.reason);
        // A stalled journal does not keep the server from stopping
        // (docs/reliability.md#a-full-disk).
        let rx = self.events.publish_held(
            vec![Event::ServerWillShutdown {}],
            crate::actors::publish::Hold::Answer,
        );
        ctx.spawn(
            rx.into_actor(self)
                .map(|_, act, ctx| act.begin_shutdown(ctx)),
        );
    }
}
