//! The PTY reader's side of a pane: `PaneSink` turns the reader thread's
//! calls into messages for the Pane actor and keeps at most `OUTPUT_WINDOW`
//! chunks in its mailbox, so a flood is paced by the pane.

use super::{ChildExited, Output, OutputEnded, Pane, Released};
use crate::os::pty::PtySink;
use actix::prelude::*;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

/// Feeds a pane actor from its PTY threads. The pane's address arrives once the
/// actor has started (the PTY is spawned first, so a failed spawn creates no actor).
pub struct PaneSink {
    addr: Option<Addr<Pane>>,
    addr_rx: Receiver<Addr<Pane>>,
    ack_tx: SyncSender<()>,
    ack_rx: Receiver<()>,
    /// Chunks sent and not yet acknowledged.
    in_flight: usize,
}

/// Chunks a reader may have in a pane's mailbox at once: enough to overlap the
/// next read with the pane's parsing, few enough (32 KiB) to keep the pace of a
/// flood set by the pane.
pub const OUTPUT_WINDOW: usize = 4;

impl PaneSink {
    /// A sink and the sender its pane address will come through.
    pub fn new() -> (PaneSink, SyncSender<Addr<Pane>>) {
        let (addr_tx, addr_rx) = sync_channel(1);
        let (ack_tx, ack_rx) = sync_channel(OUTPUT_WINDOW);
        (
            PaneSink {
                addr: None,
                addr_rx,
                ack_tx,
                ack_rx,
                in_flight: 0,
            },
            addr_tx,
        )
    }

    /// [`PaneSink::new`], boxed for the PTY layer (an upgrade's adoption).
    pub fn boxed() -> (Box<dyn PtySink>, SyncSender<Addr<Pane>>) {
        let (sink, addr_tx) = PaneSink::new();
        (Box::new(sink), addr_tx)
    }

    fn addr(&mut self) -> Option<&Addr<Pane>> {
        if self.addr.is_none() {
            self.addr = self.addr_rx.recv().ok();
        }
        self.addr.as_ref()
    }
}

impl PtySink for PaneSink {
    fn output(&mut self, chunk: Vec<u8>) {
        let ack = self.ack_tx.clone();
        let Some(addr) = self.addr().cloned() else {
            return;
        };
        addr.do_send(Output { chunk, ack });
        self.in_flight += 1;
        while self.ack_rx.try_recv().is_ok() {
            self.in_flight -= 1;
        }
        // At most OUTPUT_WINDOW chunks in flight: past that the reader waits for the
        // pane. A stopped pane drops its messages (and their ack senders) while this
        // sink still holds one, so the wait polls whether the pane is still there.
        while self.in_flight >= OUTPUT_WINDOW {
            match self.ack_rx.recv_timeout(Duration::from_millis(200)) {
                Ok(()) => self.in_flight -= 1,
                Err(_) if !addr.connected() => return,
                Err(_) => {},
            }
        }
    }

    fn output_ended(&mut self) {
        if let Some(addr) = self.addr() {
            addr.do_send(OutputEnded);
        }
    }

    fn exited(&mut self, code: Option<i32>) {
        if let Some(addr) = self.addr() {
            addr.do_send(ChildExited { code });
        }
    }

    fn released(&mut self) {
        // Behind every chunk sent: the pane has them all when this arrives.
        if let Some(addr) = self.addr() {
            addr.do_send(Released);
        }
    }
}
