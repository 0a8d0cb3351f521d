//! Flow control for one connection, shared by its reader, its writer and the
//! Connection actor (all on one thread, hence `Rc`).
//!
//! ```text
//!   socket ─► GatedStream ─► Connection ─► CountingWriter ─► socket
//!               ▲ paused while too many requests wait,   │
//!               └─ or while too much output is unwritten ┘ (resumed below the low mark)
//! ```
//!
//! A client that pipelines requests without reading its replies is simply not read
//! any further: the kernel's socket buffer fills and the client blocks, as with any
//! well-behaved server. Nothing is dropped and memory stays bounded.

use futures_util::Stream;
use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use tokio::io::AsyncWrite;

/// Output bytes queued past which reading stops.
pub const OUTPUT_HIGH_BYTES: u64 = 1024 * 1024;
/// Output bytes queued below which reading resumes.
pub const OUTPUT_LOW_BYTES: u64 = 256 * 1024;

/// The shared flow state of one connection.
#[derive(Debug, Default)]
pub struct Flow {
    encoded: Cell<u64>,
    written: Cell<u64>,
    paused_for_requests: Cell<bool>,
    paused_for_output: Cell<bool>,
    reader: RefCell<Option<Waker>>,
    /// Woken once the unwritten output is at or below the low mark.
    low: RefCell<Option<Waker>>,
}

impl Flow {
    /// A fresh flow state.
    pub fn new() -> Rc<Flow> {
        Rc::new(Flow::default())
    }

    /// Records `n` bytes handed to the writer; pauses reading past the high mark.
    /// Returns the bytes now queued.
    pub fn queued_after_encoding(&self, n: usize) -> u64 {
        self.encoded.set(self.encoded.get() + n as u64);
        let queued = self.queued();
        if queued > OUTPUT_HIGH_BYTES {
            self.paused_for_output.set(true);
        }
        queued
    }

    /// Bytes handed to the writer and not yet accepted by the socket.
    pub fn queued(&self) -> u64 {
        self.encoded.get().saturating_sub(self.written.get())
    }

    /// Records `n` bytes accepted by the socket; resumes reading below the low mark.
    fn wrote(&self, n: usize) {
        self.written.set(self.written.get() + n as u64);
        if self.queued() > OUTPUT_LOW_BYTES {
            return;
        }
        if self.paused_for_output.get() {
            self.paused_for_output.set(false);
            self.wake_reader();
        }
        if let Some(w) = self.low.borrow_mut().take() {
            w.wake();
        }
    }

    /// Resolves once the unwritten output is at or below the low mark.
    pub fn when_low(self: &Rc<Self>) -> WhenLow {
        WhenLow(self.clone())
    }

    /// Stops or resumes reading because of the number of waiting requests.
    pub fn pause_for_requests(&self, paused: bool) {
        let was = self.paused_for_requests.replace(paused);
        if was && !paused {
            self.wake_reader();
        }
    }

    fn paused(&self) -> bool {
        self.paused_for_requests.get() || self.paused_for_output.get()
    }

    fn wake_reader(&self) {
        if !self.paused()
            && let Some(w) = self.reader.borrow_mut().take()
        {
            w.wake();
        }
    }
}

/// See [`Flow::when_low`].
pub struct WhenLow(Rc<Flow>);

impl std::future::Future for WhenLow {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.queued() <= OUTPUT_LOW_BYTES {
            return Poll::Ready(());
        }
        *self.0.low.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// A stream that yields nothing while its flow is paused.
pub struct GatedStream<S> {
    inner: S,
    flow: Rc<Flow>,
}

impl<S> GatedStream<S> {
    /// Gates `inner` by `flow`.
    pub fn new(inner: S, flow: Rc<Flow>) -> GatedStream<S> {
        GatedStream { inner, flow }
    }
}

impl<S: Stream + Unpin> Stream for GatedStream<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        if self.flow.paused() {
            *self.flow.reader.borrow_mut() = Some(cx.waker().clone());
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

/// A writer that tells its flow how many bytes the socket accepted.
pub struct CountingWriter<W> {
    inner: W,
    flow: Rc<Flow>,
}

impl<W> CountingWriter<W> {
    /// Counts what `inner` accepts into `flow`.
    pub fn new(inner: W, flow: Rc<Flow>) -> CountingWriter<W> {
        CountingWriter { inner, flow }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for CountingWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = poll {
            self.flow.wrote(n);
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests;
