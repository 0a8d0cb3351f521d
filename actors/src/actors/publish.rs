//! How an actor makes a change of its state a fact: it sends [`Publish`] to
//! the Supervisor, which numbers the events, has the journal make them
//! durable and only then applies and fans them out (docs/persistence.md).
//! Every owner publishes its own events this way; the reply to a request
//! waits for the publication, so a client that reads after it sees the
//! change. A pane's output is not a state event: it numbers its `pty.data`
//! itself from the server's clock ([`PtyOut`]) and sends it straight to its
//! viewers (docs/terminal.md#the-output-path).

use crate::error::Error;
use crate::store::journal::clock::SeqClock;
use actix::prelude::*;
use signaltty_protocol::{Event, Seq};
use std::sync::Arc;

/// Sequences, journals and publishes events for their owning actor. Replies with
/// the seq of the last event once all are published; fails when the journal
/// has failed (and the server is stopping), or when the events were dropped
/// while it could not write (`IO_ERROR`).
#[derive(Debug, Message)]
#[rtype(result = "Result<Seq, Error>")]
pub struct Publish {
    /// The events, published in this order with consecutive seqs.
    pub events: Vec<Event>,
    /// What the publisher is told while the journal cannot write.
    pub hold: Hold,
}

impl Publish {
    /// A change the publisher's caller waits for: the reply comes once the
    /// events are published.
    pub fn new(events: Vec<Event>) -> Publish {
        Publish {
            events,
            hold: Hold::Wait,
        }
    }

    /// What an agent did (a hook): while the journal cannot write, the reply
    /// comes as soon as the events are held.
    pub fn observed(events: Vec<Event>) -> Publish {
        Publish {
            events,
            hold: Hold::Answer,
        }
    }
}

/// What a publisher is told while the journal cannot write and its events
/// are held (docs/reliability.md#a-full-disk).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Hold {
    /// Nothing until they are written: the reply is an acknowledgement.
    #[default]
    Wait,
    /// That they were taken, at once: an agent's hook must not wait on a disk.
    Answer,
}

/// What a pane numbers its `pty.data` with: the server-wide seq clock, whose
/// numbers below the durable reservation it may take without asking anyone
/// (see [`SeqClock`]).
#[derive(Debug, Clone)]
pub struct PtyOut {
    clock: Arc<SeqClock>,
}

impl PtyOut {
    /// Numbers from `clock`.
    pub fn new(clock: Arc<SeqClock>) -> PtyOut {
        PtyOut { clock }
    }

    /// A clock of its own with no ceiling (tests of a pane alone).
    #[cfg(test)]
    pub fn unbounded() -> PtyOut {
        PtyOut::new(SeqClock::unbounded())
    }

    /// The clock.
    pub fn clock(&self) -> &Arc<SeqClock> {
        &self.clock
    }
}
