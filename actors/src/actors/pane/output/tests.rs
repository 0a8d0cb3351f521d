//! Tests of a pane's output to its viewers: the line sent for a chunk is its
//! `pty.data` event frame.

use super::*;
use crate::actors::pane::{Attach, ChildExited, GetPane, OutputEnded};
use crate::store::journal::clock::SeqClock;
use crate::testkit::{FakePty, ProbeLog, PublishProbe, Published};
use parking_lot::Mutex;
use signaltty_protocol::Event;
use signaltty_protocol::envelope::EventFrame;
use signaltty_protocol::pane::{AgentKind, LiveState};
use std::time::Duration;

/// A pane numbering from `clock`, with one attached probe connection.
async fn attached(clock: Arc<SeqClock>) -> (Addr<Pane>, Arc<Mutex<ProbeLog>>, Published) {
    let (probe, published) = PublishProbe::start();
    let config = crate::testkit::config(&std::env::temp_dir().join("signaltty-output-tests"));
    let state = crate::domain::state::tests::pane(AgentKind::Generic);
    let pane = Pane::new(
        state,
        FakePty::new().handle(),
        probe.recipient(),
        PtyOut::new(clock),
        &config,
    )
    .start();
    let (conn, log) = crate::testkit::Probe::start(7);
    pane.send(Attach {
        conn: conn.id,
        viewer: conn.pty.clone(),
        size: None,
        mark_seen: false,
        watch: false,
    })
    .await
    .expect("the pane is running")
    .expect("attached");
    (pane, log, published)
}

/// Sends a chunk and returns the reader's side of its acknowledgement.
async fn print(pane: &Addr<Pane>, bytes: &[u8]) -> std::sync::mpsc::Receiver<()> {
    let (credit, acked) = super::super::Credit::probe();
    pane.send(Output {
        chunk: bytes.to_vec(),
        credit,
    })
    .await
    .expect("the pane is running");
    acked
}

/// `(seq, data, output_offset)` of every `pty.data` the probe got.
fn received(log: &Mutex<ProbeLog>) -> Vec<(u64, Vec<u8>, u64)> {
    log.lock()
        .events
        .iter()
        .filter(|e| e["event"] == "pty.data")
        .map(|e| {
            let data = base64::engine::general_purpose::STANDARD
                .decode(e["payload"]["data_b64"].as_str().unwrap_or_default())
                .unwrap_or_default();
            (
                e["seq"].as_u64().unwrap_or_default(),
                data,
                e["payload"]["output_offset"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

async fn acked(rx: &std::sync::mpsc::Receiver<()>) {
    crate::testkit::wait_for("the reader's acknowledgement", || rx.try_recv().is_ok()).await;
}

#[actix::test]
async fn chunks_reach_a_viewer_in_order_numbered_from_the_clock_and_ack_the_reader() {
    let (pane, log, _) = attached(SeqClock::bounded(Seq(100), Seq(10_000))).await;
    for chunk in [&b"a"[..], b"bc", b"def"] {
        acked(&print(&pane, chunk).await).await;
    }
    crate::testkit::wait_for("three chunks", || received(&log).len() == 3).await;
    assert_eq!(
        received(&log),
        [
            (101, b"a".to_vec(), 1),
            (102, b"bc".to_vec(), 3),
            (103, b"def".to_vec(), 6)
        ]
    );
}

#[actix::test]
async fn a_chunk_without_a_reserved_number_holds_back_later_chunks_the_reader_and_the_exit() {
    let clock = SeqClock::bounded(Seq(0), Seq(1));
    let (pane, log, published) = attached(clock.clone()).await;
    acked(&print(&pane, b"one").await).await;
    let second = print(&pane, b"two").await;
    let third = print(&pane, b"three").await;
    pane.send(OutputEnded).await.expect("running");
    pane.send(ChildExited { code: Some(0) })
        .await
        .expect("running");
    let state = pane.send(GetPane).await.expect("running");
    assert_eq!(state.live, LiveState::Live, "the exit waits for the output");
    assert_eq!(received(&log).len(), 1);
    assert!(second.try_recv().is_err() && third.try_recv().is_err());

    clock.raise_to(Seq(2));
    acked(&second).await;
    assert!(
        third.recv_timeout(Duration::from_millis(50)).is_err(),
        "one number, one chunk"
    );
    clock.raise_to(Seq(10));
    acked(&third).await;
    published
        .wait_for("pane.exited", |l| l.names().contains(&"pane.exited"))
        .await;
    assert_eq!(
        received(&log),
        [
            (1, b"one".to_vec(), 3),
            (2, b"two".to_vec(), 6),
            (3, b"three".to_vec(), 11)
        ]
    );
}

#[actix::test]
async fn a_clear_replies_once_its_bytes_reached_the_viewers() {
    let (pane, log, _) = attached(SeqClock::bounded(Seq(0), Seq(100))).await;
    acked(&print(&pane, b"x").await).await;
    let offset = pane
        .send(ClearPane)
        .await
        .expect("running")
        .expect("cleared");
    assert_eq!(offset, 1 + 11);
    assert_eq!(
        received(&log).last(),
        Some(&(2, b"\x1b[H\x1b[2J\x1b[3J".to_vec(), offset))
    );
}

#[test]
fn a_line_is_the_event_frame_of_the_chunk() {
    let pane = PaneId("pane_\"odd\\id".into());
    for data in [&b""[..], b"a", b"ab", b"hello\r\n\x1b[31m\xff\x00"] {
        let event = Event::PtyData {
            pane_id: pane.clone(),
            data_b64: base64::engine::general_purpose::STANDARD.encode(data),
            output_offset: 12_345,
        };
        let expected = EventFrame::new(event.name(), 77, event.payload()).to_line();
        assert_eq!(
            line(&pane, Seq(77), data, 12_345),
            Bytes::from(expected),
            "{data:?}"
        );
    }
}
