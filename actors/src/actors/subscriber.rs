//! Subscriber: one connection's subscription. The Supervisor offers it every
//! published state event with a non-blocking `try_send`; it applies the fence and
//! the filter and forwards matching event lines to its connection. A full mailbox
//! means the connection lags, and the Supervisor closes it rather than skip events.

use crate::actors::connection::ConnHandle;
use crate::actors::connection::{CloseConnection, Deliver, Drain, KickReason};
use crate::domain::events::{EventFilter, Published};
use actix::prelude::*;
use signaltty_protocol::Seq;
use std::sync::Arc;

/// A published event offered to this subscription.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Fanout(pub Arc<Published>);

/// The server is stopping: once the events before this message are forwarded,
/// drain the connection.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct DrainAfterEvents;

/// The Subscriber actor.
pub struct Subscriber {
    filter: EventFilter,
    /// Events at or below this seq were covered by the replay or precede the subscription.
    fence: Seq,
    /// The last seq delivered, to catch out-of-order delivery.
    last: Seq,
    generation: u64,
    conn: ConnHandle,
    mailbox: usize,
}

impl Subscriber {
    /// A subscription with `filter`, delivering only events after `fence`.
    pub fn new(
        filter: EventFilter,
        fence: Seq,
        generation: u64,
        conn: ConnHandle,
        mailbox: usize,
    ) -> Subscriber {
        Subscriber {
            filter,
            fence,
            last: fence,
            generation,
            conn,
            mailbox,
        }
    }

    /// Starts the actor with its bounded mailbox already in place.
    pub fn start(self) -> Addr<Subscriber> {
        let mailbox = self.mailbox;
        Subscriber::create(move |ctx| {
            ctx.set_mailbox_capacity(mailbox);
            self
        })
    }
}

impl Actor for Subscriber {
    type Context = Context<Self>;
}

impl Handler<Fanout> for Subscriber {
    type Result = ();

    fn handle(&mut self, msg: Fanout, ctx: &mut Self::Context) {
        let event = msg.0;
        if event.seq <= self.fence || !self.filter.matches(event.name, &event.payload) {
            return;
        }
        if event.seq <= self.last {
            self.conn.close.do_send(CloseConnection {
                kind: KickReason::OutOfOrder,
                reason: format!("out-of-order event seq {}", event.seq),
            });
            ctx.stop();
            return;
        }
        self.last = event.seq;
        // The connection bounds its own output in bytes and closes itself past the
        // limit, so this send needs no mailbox bound of its own.
        self.conn.deliver.do_send(Deliver {
            generation: self.generation,
            seq: event.seq.0,
            line: event.line.clone(),
        });
    }
}

impl Handler<DrainAfterEvents> for Subscriber {
    type Result = ();

    fn handle(&mut self, _msg: DrainAfterEvents, ctx: &mut Self::Context) {
        self.conn.drain.do_send(Drain);
        ctx.stop();
    }
}
