//! How an actor makes a change of its state a fact: it sends [`Publish`] to
//! the Supervisor, which numbers the events, has the journal make them
//! durable and only then applies and fans them out (docs/persistence.md).
//! Every owner publishes its own events this way; the reply to a request
//! waits for the publication, so a client that reads after it sees the
//! change.

use crate::actors::connection::DeliverPty;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::{Event, PaneId, Seq};

/// Sequences, journals and publishes events for their owning actor. Replies with
/// the seq of the last event once all are published; fails only when the journal
/// has failed (and the server is stopping).
#[derive(Debug, Message)]
#[rtype(result = "Result<Seq, Error>")]
pub struct Publish {
    /// The events, published in this order with consecutive seqs.
    pub events: Vec<Event>,
}

/// A chunk of a pane's output for its viewers (`pty.data`). It is numbered and
/// delivered in seq order with the state events.
#[derive(Message)]
#[rtype(result = "()")]
pub struct PtyData {
    /// The pane.
    pub pane_id: PaneId,
    /// The bytes.
    pub chunk: Vec<u8>,
    /// The pane's cumulative output offset at the end of the chunk.
    pub end_offset: u64,
    /// The connections attached to the pane.
    pub viewers: Vec<Recipient<DeliverPty>>,
}
