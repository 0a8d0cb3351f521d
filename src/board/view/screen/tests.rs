//! The preview: the cells with their colours, the rows it shows, and what
//! it says while it cannot show a screen.

use crate::board::model::tests::*;
use crate::board::preview::PreviewState;
use crate::board::view::tests::*;
use crate::board::view::*;
use ratatui::style::Color;
use signaltty_model::term::Terminal;

#[test]
fn the_preview_draws_the_cells_with_their_colours() {
    let mut board = busy_board();
    board.select(&pane_id(1));
    let preview = live_preview(
        pane_id(1),
        b"plain \x1b[31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[1;4mbold\x1b[0m \xe6\x97\xa5\xe6\x9c\xac!\r\n",
    );
    let (buf, _) = render(&board, &preview, 200, 50, &opts(true));
    let y = row_with(&buf, "plain").unwrap();
    let x = cell_of(&buf, y, "plain");
    assert_eq!(buf[(x, y)].fg, Color::Reset);
    assert_eq!(buf[(cell_of(&buf, y, "red"), y)].fg, Color::Indexed(1));
    assert_eq!(buf[(cell_of(&buf, y, "rgb"), y)].fg, Color::Rgb(1, 2, 3));
    let b = cell_of(&buf, y, "bold");
    assert!(
        buf[(b, y)]
            .modifier
            .contains(Modifier::BOLD | Modifier::UNDERLINED)
    );
    // A wide character takes two cells: the next character comes after both.
    let wide = cell_of(&buf, y, "日");
    assert_eq!(buf[(wide + 2, y)].symbol(), "本");
    assert_eq!(buf[(wide + 4, y)].symbol(), "!");
    // The cursor, at the start of the next row, is reverse video.
    let x = cell_of(&buf, y, "plain");
    assert!(buf[(x, y + 1)].modifier.contains(Modifier::REVERSED));
    assert!(!buf[(x + 1, y + 1)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn the_preview_shows_the_bottom_rows_ending_at_the_cursor_or_the_last_text() {
    let mut term = Terminal::new(10, 20);
    let _ = term.feed(b"one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n");
    // The cursor is on the blank row under "five".
    assert_eq!(screen::shown_rows(&term, 3), 3..6);
    assert_eq!(screen::shown_rows(&term, 20), 0..6);
    // Text under a hidden cursor counts.
    let _ = term.feed(b"\x1b[?25l\x1b[9;1Hbottom\x1b[1;1H");
    assert_eq!(screen::shown_rows(&term, 2), 7..9);
    let blank = Terminal::new(5, 20);
    assert_eq!(screen::shown_rows(&blank, 3), 0..1);

    let mut board = busy_board();
    board.select(&pane_id(1));
    let mut lots = Vec::new();
    for i in 1..=20 {
        lots.extend(format!("line {i}\r\n").bytes());
    }
    let preview = live_preview(pane_id(1), &lots);
    let (buf, _) = render(&board, &preview, 80, 24, &opts(true));
    assert_shows(&buf, &["line 20"]);
    assert!(!text(&buf).contains("line 1\n"));
}

#[test]
fn the_preview_says_what_it_is_doing() {
    let mut board = busy_board();
    board.select(&pane_id(1));
    for (state, want) in [
        (PreviewState::Attaching, "attaching…"),
        (
            PreviewState::Failed("pane not found".into()),
            "no preview: pane not found",
        ),
        (PreviewState::Empty, "no pane selected"),
    ] {
        let preview = Preview {
            pane: Some(pane_id(1)),
            term: None,
            state,
        };
        let (buf, _) = render(&board, &preview, 80, 24, &opts(true));
        assert_shows(&buf, &[want]);
    }
}
