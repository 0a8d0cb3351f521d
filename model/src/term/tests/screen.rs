//! The emulator's behaviours that the `vt100` comparison cannot check (that
//! crate lacks them or differs from xterm and tmux there), and the replay of
//! its state for `pane.attach`.

use super::props::{Rng, stream, vt_stream};
use super::*;

/// A terminal of `rows` × `cols` fed `bytes`, and its rows as text.
fn rows_after(rows: u16, cols: u16, bytes: &[u8]) -> Vec<String> {
    let mut term = Terminal::new(rows, cols);
    term.feed(bytes);
    let mut text: Vec<String> = (0..usize::from(rows))
        .map(|i| term.screen.row_text(i))
        .collect();
    while text.last().is_some_and(String::is_empty) {
        text.pop();
    }
    text
}

#[test]
fn a_wide_character_that_does_not_fit_wraps_first() {
    assert_eq!(rows_after(4, 5, "abcd表x".as_bytes()), ["abcd", "表x"]);
}

#[test]
fn a_combining_mark_joins_the_character_before_it() {
    let text = rows_after(2, 10, "e\u{301}te\u{301}\r\n".as_bytes());
    assert_eq!(text, ["e\u{301}te\u{301}"]);
    // Overwriting the base character drops its mark.
    assert_eq!(rows_after(2, 10, "e\u{301}\rx".as_bytes()), ["x"]);
}

#[test]
fn without_autowrap_the_last_column_is_overwritten() {
    assert_eq!(
        rows_after(3, 5, b"\x1b[?7labcdefg\x1b[?7h\r\nok"),
        ["abcdg", "ok"]
    );
}

#[test]
fn insert_mode_pushes_the_row_right() {
    assert_eq!(
        rows_after(2, 10, b"abcdef\r\x1b[4hXY\x1b[4lZ"),
        ["XYZbcdef"]
    );
}

#[test]
fn index_scrolls_at_the_bottom_and_next_line_returns_to_column_zero() {
    assert_eq!(
        rows_after(2, 10, b"one\x1bDtwo\x1bEthree"),
        ["   two", "three"]
    );
}

#[test]
fn reverse_index_scrolls_down_only_at_the_region_top() {
    // Above the region (row 0, region 2..3) it does nothing.
    assert_eq!(
        rows_after(4, 10, b"a\r\nb\r\nc\x1b[2;3r\x1b[1;1H\x1bMx"),
        ["x", "b", "c"]
    );
    // At the region top it scrolls the region down.
    assert_eq!(
        rows_after(4, 10, b"a\r\nb\r\nc\x1b[2;3r\x1b[2;1H\x1bMx"),
        ["a", "x", "b"]
    );
}

#[test]
fn origin_mode_addresses_rows_inside_the_region() {
    let bytes = b"\x1b[2;3r\x1b[?6hA\x1b[5;1HB\x1b[1dC\x1b[?6l\x1b[r\x1b[4;1HD";
    assert_eq!(rows_after(4, 10, bytes), ["", "AC", "B", "D"]);
}

#[test]
fn setting_a_scroll_region_homes_the_cursor_to_the_screen() {
    assert_eq!(
        rows_after(4, 10, b"\x1b[3;4HX\x1b[2;3rY"),
        ["Y", "", "   X"]
    );
}

#[test]
fn tab_stops_can_be_set_and_cleared() {
    let bytes = b"\x1b[3g\x1b[1;4H\x1bH\ra\tb\tc\r\n\x1b[0g";
    assert_eq!(rows_after(3, 20, bytes), ["a  b               c"]);
}

#[test]
fn repeat_prints_the_last_character_again() {
    assert_eq!(rows_after(2, 10, b"ab\x1b[3b"), ["abbbb"]);
}

#[test]
fn a_full_reset_clears_everything_and_leaves_the_alternate_screen() {
    let mut term = fed(b"text\x1b[?1049h\x1b[?1h\x1b[31malt\x1bc");
    assert!(!term.alternate_screen());
    assert_eq!(term.screen_text(), "");
    assert_eq!(term.screen.modes(), Terminal::new(24, 80).screen.modes());
    term.feed(b"after");
    assert_eq!(term.screen_formatted(), "after");
}

#[test]
fn the_alternate_grid_exists_only_while_shown() {
    let mut term = fed(b"\x1b[?1049hfull screen");
    assert!(term.screen.alternate_screen());
    term.feed(b"\x1b[?1049l");
    assert!(!term.screen.alternate_screen());
    assert_eq!(term.screen_text(), "");
}

#[test]
fn a_private_marker_keeps_csi_m_from_reading_as_sgr() {
    // `CSI > 4 ; 1 m` sets xterm's modifyOtherKeys, not underline and bold.
    let term = fed(b"\x1b[>4;1mplain");
    assert_eq!(term.screen_formatted(), "plain");
}

#[test]
fn screen_formatted_carries_colours_row_by_row() {
    let term = fed(b"\x1b[1;31mred\x1b[0m plain\r\n\x1b[38;5;208mx\x1b[48;2;1;2;3my");
    assert_eq!(
        term.screen_formatted(),
        "\x1b[0;1;31mred\x1b[0m plain\n\x1b[0;38;5;208mx\x1b[0;38;5;208;48;2;1;2;3my\x1b[0m"
    );
}

/// `state_formatted` replayed into a fresh terminal reproduces the cells with
/// their colours, the cursor, the input modes, and the main screen behind an
/// alternate one.
fn assert_replays(seed: u64, term: &Terminal) {
    let (rows, cols) = term.size();
    let mut replay = Terminal::new(rows, cols);
    replay.feed(&term.state_formatted());
    assert_eq!(
        replay.alternate_screen(),
        term.alternate_screen(),
        "seed {seed}"
    );
    assert_eq!(
        replay.screen_formatted(),
        term.screen_formatted(),
        "seed {seed}"
    );
    assert_eq!(
        replay.screen.cursor_position(),
        term.screen.cursor_position(),
        "seed {seed}"
    );
    assert_eq!(replay.screen.modes(), term.screen.modes(), "seed {seed}");
    if term.alternate_screen() {
        let mut original = Terminal::new(rows, cols);
        original.feed(&term.state_formatted());
        original.feed(b"\x1b[?1049l");
        replay.feed(b"\x1b[?1049l");
        assert_eq!(
            replay.screen_formatted(),
            original.screen_formatted(),
            "seed {seed}"
        );
    }
}

#[test]
fn the_replayed_state_reproduces_cells_cursor_and_modes() {
    for seed in 1..=80u64 {
        let mut rng = Rng::new(seed);
        let mut bytes = if seed % 2 == 0 {
            vt_stream(&mut rng, 200)
        } else {
            stream(&mut rng, 200)
        };
        let modes: &[&str] = &[
            "\x1b[?1h",
            "\x1b=",
            "\x1b[?2004h",
            "\x1b[?1002h\x1b[?1006h",
            "\x1b[?25l",
            "\x1b[?7l",
            "\x1b[4h",
            "\x1b[2;5r",
        ];
        bytes.extend_from_slice(rng.pick(modes).as_bytes());
        let (rows, cols) = (2 + rng.below(30) as u16, 4 + rng.below(100) as u16);
        let mut term = Terminal::new(rows, cols);
        term.checks.verify = false;
        term.feed(&bytes);
        assert_replays(seed, &term);
    }
}

#[test]
fn a_pending_wrap_survives_the_replay() {
    let term = fed(&[b'x'; 80]);
    assert_replays(0, &term);
    let mut replay = Terminal::new(24, 80);
    replay.feed(&term.state_formatted());
    replay.feed(b"y");
    assert_eq!(replay.screen_text(), format!("{}\ny", "x".repeat(80)));
}
