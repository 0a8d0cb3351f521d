//! The OSC scanner cases of docs/terminal.md#acceptance-cases and the carry rules
//! of docs/terminal.md#the-osc-scanner-and-the-bell.

use super::super::scanner::*;

fn scan_chunks(chunks: &[&[u8]]) -> Vec<TermEvent> {
    let mut scanner = OscScanner::new();
    let mut events = Vec::new();
    for chunk in chunks {
        scanner.scan(chunk, &mut events);
    }
    events
}

fn scan(bytes: &[u8]) -> Vec<TermEvent> {
    scan_chunks(&[bytes])
}

fn note(source: NotificationSource, title: Option<&str>, body: &str) -> TermEvent {
    TermEvent::Notification {
        source,
        title: title.map(str::to_owned),
        body: body.to_owned(),
    }
}

fn title(text: &str) -> TermEvent {
    TermEvent::Title(text.to_owned())
}

#[test]
fn an_aborted_osc_is_dropped_and_the_next_title_and_notification_arrive() {
    let events = scan(b"\x1b]0;lost\x1b]2;kept\x07 output \x1b]9;later\x07");
    assert_eq!(
        events,
        [title("kept"), note(NotificationSource::Osc9, None, "later")]
    );
}

#[test]
fn osc_9_terminated_by_bel_is_a_notification_not_a_bell() {
    assert_eq!(
        scan(b"\x1b]9;Build finished\x07"),
        [note(NotificationSource::Osc9, None, "Build finished")]
    );
}

#[test]
fn osc_777_carries_a_title_and_a_body() {
    assert_eq!(
        scan(b"\x1b]777;notify;Claude;Needs your input\x1b\\"),
        [note(
            NotificationSource::Osc777,
            Some("Claude"),
            "Needs your input"
        )]
    );
}

#[test]
fn osc_777_keeps_semicolons_in_the_body() {
    assert_eq!(
        scan(b"\x1b]777;notify;T;a;b\x07"),
        [note(NotificationSource::Osc777, Some("T"), "a;b")]
    );
}

#[test]
fn osc_777_without_notify_or_parts_is_ignored() {
    assert!(scan(b"\x1b]777;other;T;B\x07").is_empty());
    assert!(scan(b"\x1b]777;notify;only\x07").is_empty());
}

#[test]
fn osc_99_metadata_form_has_no_title() {
    assert_eq!(
        scan(b"\x1b]99;i=1:d=0;Hello from kitty\x1b\\"),
        [note(NotificationSource::Osc99, None, "Hello from kitty")]
    );
}

#[test]
fn osc_99_plain_forms_give_title_and_body_or_body_alone() {
    assert_eq!(
        scan(b"\x1b]99; Title ;Body\x07\x1b]99;just body\x07\x1b]99;  ;b\x07"),
        [
            note(NotificationSource::Osc99, Some("Title"), "Body"),
            note(NotificationSource::Osc99, None, "just body"),
            note(NotificationSource::Osc99, None, "b"),
        ]
    );
    assert!(scan(b"\x1b]99;i=1;\x07").is_empty());
}

#[test]
fn a_title_and_a_bare_bel_give_a_title_then_a_bell() {
    assert_eq!(
        scan(b"\x1b]0;my title\x07prompt\x07"),
        [title("my title"), TermEvent::Bell]
    );
}

#[test]
fn osc_777_split_across_chunks_is_reassembled() {
    let events = scan_chunks(&[b"\x1b]77", b"7;notify;Ti", b"tle;Bo", b"dy\x1b", b"\\"]);
    assert_eq!(
        events,
        [note(NotificationSource::Osc777, Some("Title"), "Body")]
    );
}

#[test]
fn csi_colours_and_osc_8_hyperlinks_are_ignored() {
    assert!(scan(b"\x1b[31mred\x1b[0m \x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\").is_empty());
}

#[test]
fn osc_9_progress_reports_are_not_notifications() {
    assert!(scan(b"\x1b]9;4;1;50\x07\x1b]9;4;0;\x1b\\").is_empty());
}

#[test]
fn empty_titles_and_bodies_are_ignored() {
    assert!(scan(b"\x1b]0;\x07\x1b]2;  \x1b[1m \x07\x1b]9;\x07").is_empty());
}

#[test]
fn titles_and_bodies_are_sanitized() {
    assert_eq!(scan(b"\x1b]2;\x01 a\x1b[1mb \x07"), [title("ab")]);
    let long = format!("\x1b]0;{}\x07", "t".repeat(500));
    assert_eq!(scan(long.as_bytes()), [title(&"t".repeat(200))]);
}

#[test]
fn a_lone_trailing_esc_is_carried_into_the_next_chunk() {
    assert_eq!(scan_chunks(&[b"text\x1b", b"]0;t\x07"]), [title("t")]);
    assert_eq!(scan_chunks(&[b"\x1b]0;t\x1b", b"\\"]), [title("t")]);
}

#[test]
fn a_bel_after_a_plain_escape_is_still_a_bell() {
    assert_eq!(scan(b"\x1b\x07"), [TermEvent::Bell]);
    assert_eq!(scan(b"\x1b[31m\x07"), [TermEvent::Bell]);
}

#[test]
fn a_sequence_longer_than_the_carry_limit_is_discarded_whole() {
    let mut long = b"\x1b]0;".to_vec();
    long.extend(std::iter::repeat_n(b'x', MAX_OSC_CARRY_BYTES));
    long.extend_from_slice(b"\x07\x1b]0;next\x07\x07");
    // The BEL closing the discarded sequence is no bell.
    assert_eq!(scan(&long), [title("next"), TermEvent::Bell]);
    let chunks: Vec<&[u8]> = long.chunks(1000).collect();
    assert_eq!(scan_chunks(&chunks), [title("next"), TermEvent::Bell]);
}

#[test]
fn a_sequence_at_the_carry_limit_is_kept() {
    let body = "y".repeat(MAX_OSC_CARRY_BYTES - 2 - 2);
    let bytes = format!("\x1b]9;{body}\x07");
    let events = scan(bytes.as_bytes());
    assert_eq!(events.len(), 1);
    let over = format!("\x1b]9;{body}y\x07");
    assert!(scan(over.as_bytes()).is_empty());
}

#[test]
fn notification_sources_have_their_wire_names() {
    assert_eq!(NotificationSource::Osc9.as_str(), "osc9");
    assert_eq!(NotificationSource::Osc99.as_str(), "osc99");
    assert_eq!(NotificationSource::Osc777.as_str(), "osc777");
}
