//! The message line and the status line: text fields, confirmations, the
//! flash, the filters and what the keys do.

use crate::board::model::tests::*;
use crate::board::model::{Flash, StateFilter};
use crate::board::view::tests::*;
use crate::board::view::*;
use std::time::Duration;

#[test]
fn the_text_fields_and_the_confirmation_show_on_the_message_line() {
    let mut board = busy_board();
    board.mode = Mode::Filter;
    board.filter_text = "fro".into();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "/fro▏");
    board.mode = Mode::Prompt {
        pane: pane_id(1),
        text: "fix the login form".into(),
    };
    board.filter_text.clear();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "prompt for front: fix the login form▏");
    // A long text keeps its end in view.
    board.mode = Mode::Prompt {
        pane: pane_id(1),
        text: format!("{}THE END", "x".repeat(200)),
    };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].ends_with("THE END▏"));
    board.mode = Mode::ConfirmClose { pane: pane_id(4) };
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert_eq!(lines(&buf)[22], "close server? y/N");
}

#[test]
fn the_flash_shows_for_five_seconds() {
    let mut board = busy_board();
    let at = Instant::now();
    board.flash = Some(Flash {
        text: "answered: Allow once".into(),
        error: false,
        at,
    });
    let mut o = opts(true);
    o.now = at + Duration::from_secs(4);
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &o);
    assert_shows(&buf, &["answered: Allow once"]);
    o.now = at + Duration::from_secs(6);
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &o);
    assert!(!text(&buf).contains("answered"));
    // Then the keys for the selected pane.
    assert_shows(&buf, &["Enter attach"]);
}

#[test]
fn the_status_line_shows_the_filters_and_the_notifications() {
    let mut board = busy_board();
    board.filter_text = "e".into();
    board.state_filter = Some(StateFilter::Working);
    let mut o = opts(true);
    o.notify = true;
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &o);
    let status = lines(&buf)[29].clone();
    assert!(status.contains("/e @working"), "{status}");
    assert!(status.contains("notify"), "{status}");
    // Narrow: the counts lose their names, the keys hint stays.
    let (buf, _) = render(&board, &Preview::empty(), 50, 24, &o);
    let status = lines(&buf)[23].clone();
    assert!(status.contains("◆2"), "{status}");
    assert!(status.ends_with("? keys"), "{status}");
}

#[test]
fn the_message_line_says_what_the_keys_do_for_the_selected_pane() {
    let mut board = busy_board();
    board.select(&pane_id(2));
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].starts_with("  1-2 answer · y/n allow/deny · Enter attach"));
    board.select(&pane_id(4));
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].starts_with("  Enter answer in the terminal · s prompt"));
    board.select(&pane_id(3));
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].contains("r resume"));
    board.filter_text = "e".into();
    let (buf, _) = render(&board, &Preview::empty(), 80, 24, &opts(true));
    assert!(lines(&buf)[22].contains("Esc clear the filters"));
}
