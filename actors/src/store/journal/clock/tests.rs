//! Tests of the `seq` clock: the ceiling panes number under, headroom, and
//! waiters.

use super::*;

#[test]
fn a_pane_takes_numbers_only_below_the_ceiling_and_state_events_take_any() {
    let clock = SeqClock::new(Seq(10));
    assert_eq!(clock.try_next(), None, "nothing before a ceiling is known");
    clock.raise(Some(Seq(12)));
    assert_eq!(clock.try_next(), Some(Seq(11)));
    assert_eq!(clock.next_state(), Seq(12));
    assert_eq!(clock.try_next(), None);
    assert_eq!(clock.next_state(), Seq(13), "the journal reserves for it");
    clock.raise(Some(Seq(20)));
    assert_eq!(clock.try_next(), Some(Seq(14)));
    assert_eq!(clock.next_states(3), Seq(15), "a batch is consecutive");
    assert_eq!(clock.try_next(), Some(Seq(18)));
    clock.raise(Some(Seq(15)));
    assert_eq!(clock.ceiling(), Some(Seq(20)), "a ceiling never falls");
}

#[test]
fn an_unbounded_clock_never_refuses() {
    let clock = SeqClock::unbounded();
    assert_eq!(clock.ceiling(), None);
    for n in 1..=10_000 {
        assert_eq!(clock.try_next(), Some(Seq(n)));
    }
}

#[test]
fn low_headroom_asks_the_journal_once_until_it_looks() {
    let clock = SeqClock::new(Seq(0));
    let (tx, rx) = mpsc::channel();
    clock.connect(tx);
    clock.raise(Some(Seq(LOW_WATER + 2)));
    assert!(clock.try_next().is_some());
    assert!(rx.try_recv().is_err(), "plenty of headroom");
    assert!(clock.try_next().is_some());
    assert!(clock.try_next().is_some());
    assert!(matches!(rx.try_recv(), Ok(super::super::Command::Reserve)));
    assert!(clock.try_next().is_some());
    assert!(rx.try_recv().is_err(), "asked once");
    assert!(clock.take_asked());
    clock.next_state();
    assert!(matches!(rx.try_recv(), Ok(super::super::Command::Reserve)));
}

#[actix_rt::test]
async fn a_waiter_wakes_when_the_ceiling_rises_or_the_journal_stops() {
    let clock = SeqClock::new(Seq(5));
    clock.raise(Some(Seq(5)));
    let waiting = clock.wait_issuable();
    let raiser = clock.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        raiser.raise(Some(Seq(6)));
    });
    assert!(waiting.await);
    assert_eq!(clock.try_next(), Some(Seq(6)));
    let waiting = clock.wait_issuable();
    clock.close();
    assert!(!waiting.await);
}
