//! Decision: the live answer route of one native permission request (the waiting
//! mode of docs/methods.md#hook-event, docs/decisions.md#the-waiting-reporter).
//! One actor per waiting reporter. It owns the reporter's reply channel and the
//! deadline; the pane owns the decision record and decides, under its own turn,
//! whether an answer may be delivered.
//!
//! ```text
//!   waiting hook-event ──► Decision (deadline timer, reply channel)
//!        ▲ WaitEnd               │ Verdict (from the pane, after consumption)
//!        │                       ▼ stopped → RouteEnded (pane clears native_cancelled)
//!   reporter prints the verdict, or nothing
//! ```
//!
//! Every way the wait can end except a delivered verdict ends it without one, so
//! nothing but an answer can ever mean Allow.

use actix::prelude::*;
use serde_json::Value;
use std::time::Instant;
use tokio::sync::oneshot;

/// How a waiting reporter's wait ended.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitEnd {
    /// A person answered: the provider verdict JSON.
    Answered(Value),
    /// The deadline passed.
    Timeout,
    /// The server is stopping.
    Shutdown,
    /// The pane exited, its agent session or kind changed, or the decision was
    /// superseded or cleared.
    MovedOn,
    /// The reporter went away (EOF, another line on its connection).
    Abandoned,
}

impl WaitEnd {
    /// The `cancelled` string of the result; `None` for an answer.
    pub fn cancelled(&self) -> Option<&'static str> {
        match self {
            WaitEnd::Answered(_) => None,
            WaitEnd::Timeout => Some("timeout"),
            WaitEnd::Shutdown => Some("shutdown"),
            WaitEnd::MovedOn | WaitEnd::Abandoned => Some("moved_on"),
        }
    }
}

/// Hands a verdict to the waiting reporter. Fails when the wait already ended
/// (deadline, disconnect): the answer then reaches nobody.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), ()>")]
pub struct Verdict(pub Value);

/// Told to the pane when a route ends (its actor stopped): the pane forgets
/// it, and clears its decision if it is still the pending one
/// (`native_cancelled`).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct RouteEnded {
    /// The decision whose route ended.
    pub id: String,
}

/// Ends the wait without an answer.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct EndWait(pub WaitEnd);

/// The Decision actor.
pub struct Decision {
    id: String,
    pane: Recipient<RouteEnded>,
    deadline: Instant,
    waiter: Option<oneshot::Sender<WaitEnd>>,
}

impl Decision {
    /// Starts the route of decision `id` on `pane`, waiting until `deadline`.
    /// The receiver gets how the wait ended.
    pub fn start(
        id: String,
        pane: Recipient<RouteEnded>,
        deadline: Instant,
    ) -> (Addr<Decision>, oneshot::Receiver<WaitEnd>) {
        let (waiter, ended) = oneshot::channel();
        let addr = Decision {
            id,
            pane,
            deadline,
            waiter: Some(waiter),
        }
        .start();
        (addr, ended)
    }

    fn end(&mut self, why: WaitEnd, ctx: &mut Context<Self>) -> bool {
        let delivered = self.waiter.take().is_some_and(|w| w.send(why).is_ok());
        ctx.stop();
        delivered
    }
}

impl Actor for Decision {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        let left = self.deadline.saturating_duration_since(Instant::now());
        ctx.run_later(left, |act, ctx| {
            act.end(WaitEnd::Timeout, ctx);
        });
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        // Whatever ended the wait, the pane drops the route; a question still
        // pending is cleared there (`native_cancelled`).
        self.pane.do_send(RouteEnded {
            id: self.id.clone(),
        });
    }
}

impl Handler<Verdict> for Decision {
    type Result = Result<(), ()>;

    fn handle(&mut self, msg: Verdict, ctx: &mut Self::Context) -> Self::Result {
        if Instant::now() >= self.deadline {
            self.end(WaitEnd::Timeout, ctx);
            return Err(());
        }
        if self.end(WaitEnd::Answered(msg.0), ctx) {
            Ok(())
        } else {
            Err(())
        }
    }
}

impl Handler<EndWait> for Decision {
    type Result = ();

    fn handle(&mut self, msg: EndWait, ctx: &mut Self::Context) {
        self.end(msg.0, ctx);
    }
}

/// Ends a route when the wait that owns it is dropped before it finished (the
/// reporter's connection closed or sent another line): single-flight
/// cancellation drops the future, and with it this guard.
pub struct AbandonOnDrop(pub Addr<Decision>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        // A route that already ended ignores this (its mailbox is closed).
        self.0.do_send(EndWait(WaitEnd::Abandoned));
    }
}

/// The live answer routes of waiting permission reporters, by the connection
/// that waits: a route ends when its connection goes away, and at shutdown.
#[derive(Default)]
pub struct AnswerRoutes {
    routes: Vec<(crate::ids::ConnId, Addr<Decision>)>,
}

impl AnswerRoutes {
    /// Records the route of a reporter waiting on `conn`; routes already ended
    /// are forgotten.
    pub fn add(&mut self, conn: crate::ids::ConnId, route: Addr<Decision>) {
        self.routes.retain(|(_, r)| r.connected());
        self.routes.push((conn, route));
    }

    /// `conn` went away: its routes end without an answer (`Abandoned`).
    pub fn disconnect(&mut self, conn: crate::ids::ConnId) {
        self.routes.retain(|(c, route)| {
            if *c == conn {
                route.do_send(EndWait(WaitEnd::Abandoned));
            }
            *c != conn && route.connected()
        });
    }

    /// Every route ends with `end` (the server is stopping).
    pub fn end_all(&mut self, end: WaitEnd) {
        for (_, route) in self.routes.drain(..) {
            route.do_send(EndWait(end.clone()));
        }
    }
}
