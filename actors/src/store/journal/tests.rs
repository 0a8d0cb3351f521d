//! Tests of the journal: a journal the file store wrote verifies and its
//! damage is reported, and the journal thread keeps the sequence reservation
//! on disk ahead of the numbers panes take.

use super::clock::SeqClock;
use super::file::FileStore;
use super::{
    Journal, JournalAck, JournalFailed, JournalRecord, JournalStalled, JournalStore, Reports,
};
use crate::store::health::StorageHealth;
use actix::prelude::*;
use signaltty_model::journal::reservation::{self, BLOCK};
use signaltty_model::journal::verify::verify;
use signaltty_protocol::{Seq, Timestamp};

#[test]
fn a_journal_written_by_the_store_verifies_and_damage_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _, _) = FileStore::open(dir.path(), 300).unwrap();
    for s in 1..=12 {
        let r = JournalRecord {
            seq: Seq(s),
            event: "workspace.closed",
            payload: bytes::Bytes::from_static(b"{}"),
            at: Timestamp::now(),
        };
        store.append(&[r]).unwrap();
    }
    store.idle().unwrap();
    let report = verify(dir.path());
    assert!(report.ok(), "{:?}", report.problems);
    assert!(report.provable);
    assert_eq!(report.max_seq, Some(12));

    let current = dir.path().join("audit.jsonl");
    let mut text = std::fs::read_to_string(&current).unwrap();
    text.push_str("not json\n{\"seq\":1,\"event\":\"x\",\"payload\":{}}\n{\"seq\":");
    std::fs::write(&current, text).unwrap();
    let report = verify(dir.path());
    let all = report.problems.join("\n");
    assert!(all.contains("is not a journal record"), "{all}");
    assert!(all.contains("does not increase"), "{all}");
    assert!(all.contains("unfinished record"), "{all}");
}

/// Takes the journal's acknowledgements; fails the test on a failure.
struct Sink;

impl Actor for Sink {
    type Context = Context<Self>;
}

impl Handler<JournalAck> for Sink {
    type Result = ();
    fn handle(&mut self, _: JournalAck, _: &mut Self::Context) {}
}

impl Handler<JournalFailed> for Sink {
    type Result = ();
    fn handle(&mut self, msg: JournalFailed, _: &mut Self::Context) {
        panic!("the journal failed: {}", msg.error);
    }
}

impl Handler<JournalStalled> for Sink {
    type Result = ();
    fn handle(&mut self, msg: JournalStalled, _: &mut Self::Context) {
        panic!("the journal stalled: {:?}", msg.trouble);
    }
}

#[actix_rt::test]
async fn a_pane_takes_only_numbers_reserved_on_disk_and_the_journal_keeps_ahead_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("event-sequence.json");
    let (store, _, _) = FileStore::open(dir.path(), 1 << 20).unwrap();
    let clock = SeqClock::new(store.head());
    let sink = Sink.start();
    let mut journal = Journal::spawn(
        Box::new(store),
        clock.clone(),
        StorageHealth::new(dir.path(), 0),
        Reports {
            ack: sink.clone().recipient(),
            stalled: sink.clone().recipient(),
            failed: sink.recipient(),
        },
    )
    .unwrap();
    assert_eq!(
        clock.ceiling(),
        Some(Seq(BLOCK)),
        "the block reserved at open"
    );

    let mut waits = 0;
    let mut taken = 0;
    while taken < 3 * BLOCK {
        match clock.try_next() {
            Some(seq) => {
                let on_disk = reservation::read(&file).unwrap().unwrap_or_default();
                assert!(seq.0 <= on_disk, "{seq} issued above the durable {on_disk}");
                taken += 1;
            },
            None => {
                waits += 1;
                assert!(clock.wait_issuable().await, "the journal runs");
            },
        }
    }
    assert_eq!(clock.last(), Seq(3 * BLOCK));
    assert!(
        clock.ceiling().is_some_and(|c| c.0 >= 3 * BLOCK),
        "{:?}",
        clock.ceiling()
    );
    eprintln!("the pane waited {waits} time(s) for 3 blocks");

    // Once the journal stops, what is reserved is all there is.
    journal.close();
    while clock.try_next().is_some() {}
    assert!(!clock.wait_issuable().await, "no journal, no more numbers");
    assert_eq!(
        reservation::read(&file).unwrap(),
        clock.ceiling().map(|c| c.0)
    );
}
