//! A fake PTY for Pane actor tests: the test feeds the pane output and the
//! exit, reads what the pane wrote, and makes writes stall or fail.

use actix::prelude::*;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Instant;

/// What a `FakePty` does with a write.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FakeWrites {
    /// Every write completes at once.
    #[default]
    Accept,
    /// A write takes this many bytes, then waits for its deadline to pass
    /// (`FakePty::expire_writes`), as a program that stopped reading does.
    Stall {
        /// The prefix the kernel accepts.
        accept: usize,
    },
    /// Every write fails at once with this error and nothing written.
    Fail(crate::os::pty::WriteErrorKind),
}

/// A write held by `FakeWrites::Stall` until its deadline passes.
struct StalledWrite {
    written: usize,
    deadline: Instant,
    reply: tokio::sync::oneshot::Sender<Result<usize, crate::os::pty::WriteError>>,
}

#[derive(Default)]
struct FakePtyState {
    writes: FakeWrites,
    written: Vec<u8>,
    stalled: Vec<StalledWrite>,
    deadlines: Vec<Instant>,
    resized: Vec<(u16, u16)>,
    signals: Vec<(nix::sys::signal::Signal, crate::actors::pane::SignalTarget)>,
    closed: Option<nix::sys::signal::Signal>,
    exited: bool,
}

/// A PTY for Pane actor tests: the test pushes output and the exit to the
/// pane, reads what the pane wrote, and makes writes stall or fail. Clones
/// share one terminal.
#[derive(Clone, Default)]
pub struct FakePty {
    state: Arc<Mutex<FakePtyState>>,
}

impl FakePty {
    /// A fake PTY whose writes complete at once.
    pub fn new() -> FakePty {
        FakePty::default()
    }

    /// A handle for `Pane::new`, sharing this fake.
    pub fn handle(&self) -> Box<dyn crate::actors::pane::PtyHandle> {
        Box::new(self.clone())
    }

    /// Sets what later writes do.
    pub fn set_writes(&self, writes: FakeWrites) {
        self.state.lock().writes = writes;
    }

    /// Every byte the pane's writes delivered, in order.
    pub fn written(&self) -> Vec<u8> {
        self.state.lock().written.clone()
    }

    /// The deadline of every write, in order.
    pub fn deadlines(&self) -> Vec<Instant> {
        self.state.lock().deadlines.clone()
    }

    /// Writes waiting for their deadline.
    pub fn stalled(&self) -> usize {
        self.state.lock().stalled.len()
    }

    /// The deadlines of the stalled writes pass: each fails with `Timeout`
    /// and the prefix it wrote.
    pub fn expire_writes(&self) {
        let stalled = std::mem::take(&mut self.state.lock().stalled);
        for write in stalled {
            assert!(
                write.deadline > Instant::now(),
                "expired before its deadline"
            );
            let _ = write.reply.send(Err(crate::os::pty::WriteError {
                kind: crate::os::pty::WriteErrorKind::Timeout,
                written: write.written,
            }));
        }
    }

    /// Every resize, in order.
    pub fn resized(&self) -> Vec<(u16, u16)> {
        self.state.lock().resized.clone()
    }

    /// Every signal sent, in order.
    pub fn signals(&self) -> Vec<(nix::sys::signal::Signal, crate::actors::pane::SignalTarget)> {
        self.state.lock().signals.clone()
    }

    /// The signal `close` was called with, if it was.
    pub fn closed(&self) -> Option<nix::sys::signal::Signal> {
        self.state.lock().closed
    }

    /// The program prints `bytes`; returns once the pane has processed them.
    pub async fn output(&self, pane: &Addr<crate::actors::pane::Pane>, bytes: &[u8]) {
        let (credit, _returned) = crate::actors::pane::Credit::probe();
        pane.send(crate::actors::pane::Output {
            chunk: bytes.to_vec(),
            credit,
        })
        .await
        .expect("the pane is running");
    }

    /// The program exits with `code` after its output drained (EOF, then the
    /// reap, as the reader reports them); the terminal hangs up.
    pub async fn exit(&self, pane: &Addr<crate::actors::pane::Pane>, code: Option<i32>) {
        self.state.lock().exited = true;
        pane.send(crate::actors::pane::OutputEnded)
            .await
            .expect("the pane is running");
        pane.send(crate::actors::pane::ChildExited { code })
            .await
            .expect("the pane is running");
    }
}

impl crate::actors::pane::PtyHandle for FakePty {
    fn pid(&self) -> u32 {
        4242
    }

    fn resize(&self, rows: u16, cols: u16) -> std::io::Result<()> {
        self.state.lock().resized.push((rows, cols));
        Ok(())
    }

    fn signal(
        &self,
        sig: nix::sys::signal::Signal,
        target: crate::actors::pane::SignalTarget,
    ) -> std::io::Result<()> {
        let mut state = self.state.lock();
        if state.exited {
            return Err(nix::errno::Errno::ESRCH.into());
        }
        state.signals.push((sig, target));
        Ok(())
    }

    fn write(
        &self,
        bytes: Vec<u8>,
        deadline: Instant,
    ) -> tokio::sync::oneshot::Receiver<Result<usize, crate::os::pty::WriteError>> {
        use crate::os::pty::{WriteError, WriteErrorKind};
        let (reply, rx) = tokio::sync::oneshot::channel();
        let mut state = self.state.lock();
        state.deadlines.push(deadline);
        if state.exited || state.closed.is_some() {
            let _ = reply.send(Err(WriteError {
                kind: WriteErrorKind::Exited,
                written: 0,
            }));
            return rx;
        }
        match state.writes.clone() {
            FakeWrites::Accept => {
                state.written.extend_from_slice(&bytes);
                let _ = reply.send(Ok(bytes.len()));
            },
            FakeWrites::Stall { accept } => {
                let written = accept.min(bytes.len());
                state.written.extend_from_slice(&bytes[..written]);
                state.stalled.push(StalledWrite {
                    written,
                    deadline,
                    reply,
                });
            },
            FakeWrites::Fail(kind) => {
                let _ = reply.send(Err(WriteError { kind, written: 0 }));
            },
        }
        rx
    }

    fn close(&self, sig: nix::sys::signal::Signal) {
        let mut state = self.state.lock();
        state.closed.get_or_insert(sig);
        // A hangup resolves the writes still waiting (the real writer does too).
        for write in state.stalled.drain(..) {
            let _ = write.reply.send(Err(crate::os::pty::WriteError {
                kind: crate::os::pty::WriteErrorKind::Exited,
                written: write.written,
            }));
        }
    }

    fn release(&self) -> std::io::Result<std::os::fd::OwnedFd> {
        Err(std::io::Error::other(
            "a fake pty has no master to hand over",
        ))
    }
}
