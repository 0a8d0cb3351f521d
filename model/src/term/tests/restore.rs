//! What the ring keeps and what cursors read after the history is rewritten:
//! a restore from saved scrollback, a clear, a screen pushed into history for a
//! new process, and earlier cursors dropped.

use super::*;

#[test]
fn restore_marks_old_cursors_dropped_and_returns_the_text_from_zero() {
    let old = fed(b"before restart\r\n");
    let old_cursor = old.head();
    let mut term = Terminal::new(24, 80);
    let saved = vec![
        "\x1b[1mfirst\x1b[0m".to_owned(),
        "second".to_owned(),
        "third   ".to_owned(),
    ];
    term.restore(&saved);
    assert!(term.rendered(old_cursor, 200).dropped);
    assert!(term.rendered(1, 200).dropped);
    let all = term.rendered(0, 200);
    assert_eq!(all.text, "first\nsecond\nthird");
    assert_eq!(all.seq, 1);
    assert!(!all.dropped);
    // A cursor at or below the floor reads dropped, even the head the read from
    // 0 just returned; once new output moves the head, deltas work
    // (docs/terminal.md#reads-of-the-ring).
    assert!(term.rendered(all.next_seq, 200).dropped);
    term.feed(b"after\r\n");
    let again = term.rendered(0, 200);
    assert_eq!(again.text, "first\nsecond\nthird\nafter");
    term.feed(b"more\r\n");
    let next = term.rendered(again.next_seq, 200);
    assert_eq!(next.text, "more");
    assert!(!next.dropped);
}

#[test]
fn pushing_the_screen_into_history_leaves_a_clean_screen_and_keeps_the_text() {
    let mut term = Terminal::new(5, 20);
    term.feed(b"one\r\ntwo\r\n? for shortcuts\r\n");
    term.push_screen_into_history();
    assert_eq!(term.screen_text(), "");
    assert_eq!(term.tail(10).text, "one\ntwo\n? for shortcuts");
    term.feed(b"new process\r\n");
    assert_eq!(term.screen_text(), "new process");
    assert_eq!(term.tail(10).text, "one\ntwo\n? for shortcuts\nnew process");
    // A cursor mid-row counts its row; an empty screen has nothing to push.
    let mut half = Terminal::new(5, 20);
    half.feed(b"prompt $ ");
    half.push_screen_into_history();
    assert_eq!(half.screen_text(), "");
    assert_eq!(half.tail(10).text, "prompt $");
    let mut blank = Terminal::new(5, 20);
    blank.push_screen_into_history();
    assert_eq!(blank.ring_len(), 0);
}

#[test]
fn dropping_earlier_cursors_keeps_the_text_readable_from_zero() {
    let mut term = Terminal::new(5, 20);
    term.feed(b"restored line\r\n");
    let before = term.head();
    term.drop_earlier_cursors();
    assert!(term.rendered(before, 50).dropped);
    assert!(
        term.rendered(before + 40, 50).dropped,
        "a cursor past the head"
    );
    assert_eq!(term.rendered(0, 50).text, "restored line");
    term.feed(b"new\r\n");
    let cursor = term.head();
    term.feed(b"newer\r\n");
    let next = term.rendered(cursor, 50);
    assert!(!next.dropped);
    assert_eq!(next.text, "newer");
}

#[test]
fn restore_keeps_the_newest_five_thousand_lines() {
    let saved: Vec<String> = (0..6000).map(|i| format!("saved {i}")).collect();
    let mut term = Terminal::new(24, 80);
    term.restore(&saved);
    assert_eq!(term.ring_len(), 5000);
    let all = term.rendered(0, 5000);
    assert!(all.text.starts_with("saved 1000\n"));
    assert_eq!(all.seq, 1);
}

#[test]
fn clear_history_drops_history_and_marks_earlier_cursors_dropped() {
    let bytes: String = (0..40).map(|i| format!("line {i}\r\n")).collect();
    let mut term = fed(bytes.as_bytes());
    let cursor = term.head();
    term.feed(b"\x1b[H\x1b[2J\x1b[3J");
    term.clear_history();
    assert_eq!(term.ring_len(), 0);
    assert!(term.rendered(cursor, 200).dropped);
    assert_eq!(term.rendered(0, 200).text, "");
    term.feed(b"fresh\r\n");
    assert_eq!(term.rendered(0, 200).text, "fresh");
}
