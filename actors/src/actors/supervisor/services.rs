//! The Supervisor's own services to routing: the shutdown a client asks for,
//! marking a pane's notifications read (the notification ring is the
//! projection's), telling every pane that the agent rules changed.

use super::Supervisor;
use super::router::read_of_pane;
use crate::actors::services::{ReadNotificationsOf, RulesReplaced, Shutdown};
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::Event;

impl Handler<Shutdown> for Supervisor {
    type Result = ResponseActFuture<Self, Result<(), Error>>;

    fn handle(&mut self, _msg: Shutdown, _ctx: &mut Self::Context) -> Self::Result {
        // A stalled journal does not keep the server from stopping
        // (docs/reliability.md#a-full-disk).
        let rx = self.events.publish_held(
            vec![Event::ServerWillShutdown {}],
            crate::actors::publish::Hold::Answer,
        );
        Box::pin(rx.into_actor(self).map(|published, act, ctx| {
            let published = published
                .unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())));
            if published.is_ok() {
                log::info!("server.shutdown requested: shutting down");
                act.begin_shutdown(ctx);
            }
            published.map(|_| ())
        }))
    }
}

impl Handler<ReadNotificationsOf> for Supervisor {
    type Result = ResponseFuture<Result<(), Error>>;

    fn handle(&mut self, msg: ReadNotificationsOf, _ctx: &mut Self::Context) -> Self::Result {
        let Some(read) = read_of_pane(self.events.projection(), &msg.0) else {
            return Box::pin(std::future::ready(Ok(())));
        };
        let rx = self.events.publish(vec![read]);
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(Error::JournalFailed("publish was abandoned".into())))
                .map(|_| ())
        })
    }
}

impl Handler<RulesReplaced> for Supervisor {
    type Result = ();

    fn handle(&mut self, _msg: RulesReplaced, _ctx: &mut Self::Context) {
        for entry in self.registry.panes() {
            entry.addr.do_send(crate::actors::pane::RulesChanged);
        }
    }
}

impl Handler<crate::actors::services::SubmitFor> for Supervisor {
    type Result = ResponseFuture<
        Result<
            (
                signaltty_protocol::state::PaneSubmitResult,
                Option<signaltty_protocol::state::WaitBaseline>,
            ),
            Error,
        >,
    >;

    fn handle(
        &mut self,
        msg: crate::actors::services::SubmitFor,
        _ctx: &mut Self::Context,
    ) -> Self::Result {
        match super::router::submit_for(&mut self.cx(), msg.conn, msg.params) {
            Ok(submitting) => submitting,
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }
}

impl Handler<crate::actors::services::EventAt> for Supervisor {
    type Result = Option<serde_json::Value>;

    fn handle(
        &mut self,
        msg: crate::actors::services::EventAt,
        _ctx: &mut Self::Context,
    ) -> Self::Result {
        let payload = self.events.ring().payload_at(msg.0)?;
        serde_json::from_slice(&payload).ok()
    }
}
