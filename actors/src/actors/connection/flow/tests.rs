//! Tests of a connection's flow control: reading pauses on too much output or
//! too many pending requests, and resumes only when both have cleared.

use super::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;

struct CountWakes(AtomicUsize);
impl Wake for CountWakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn output_past_the_high_mark_pauses_reading_until_it_drains_below_the_low_mark() {
    let flow = Flow::new();
    let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
    let waker = Waker::from(wakes.clone());
    let mut stream = GatedStream::new(futures_util::stream::iter([1, 2]), flow.clone());
    let mut cx = Context::from_waker(&waker);
    assert_eq!(
        Pin::new(&mut stream).poll_next(&mut cx),
        Poll::Ready(Some(1))
    );

    flow.queued_after_encoding(OUTPUT_HIGH_BYTES as usize + 1);
    assert_eq!(Pin::new(&mut stream).poll_next(&mut cx), Poll::Pending);
    flow.wrote((OUTPUT_HIGH_BYTES - OUTPUT_LOW_BYTES) as usize);
    assert_eq!(
        wakes.0.load(Ordering::SeqCst),
        0,
        "still above the low mark"
    );
    flow.wrote(1);
    assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
    assert_eq!(
        Pin::new(&mut stream).poll_next(&mut cx),
        Poll::Ready(Some(2))
    );
}

#[test]
fn request_backlog_pauses_and_resumes_reading() {
    let flow = Flow::new();
    let mut stream = GatedStream::new(futures_util::stream::iter([1]), flow.clone());
    let mut cx = Context::from_waker(Waker::noop());
    flow.pause_for_requests(true);
    assert_eq!(Pin::new(&mut stream).poll_next(&mut cx), Poll::Pending);
    flow.pause_for_requests(false);
    assert_eq!(
        Pin::new(&mut stream).poll_next(&mut cx),
        Poll::Ready(Some(1))
    );
}

#[test]
fn both_reasons_must_clear_before_reading_resumes() {
    let flow = Flow::new();
    flow.pause_for_requests(true);
    flow.queued_after_encoding(OUTPUT_HIGH_BYTES as usize + 1);
    flow.pause_for_requests(false);
    assert!(flow.paused());
    flow.wrote(OUTPUT_HIGH_BYTES as usize + 1);
    assert!(!flow.paused());
}
