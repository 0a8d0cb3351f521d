//! Round 3 of fidelity (docs/terminal.md#character-sets,
//! docs/terminal.md#where-we-differ-and-why): DEC special graphics through G0
//! and G1, one saved cursor per screen, and DECCOLM.

use super::*;

fn screen_of(bytes: &[u8]) -> String {
    let mut term = Terminal::new(6, 20);
    term.feed(bytes);
    term.screen_text()
}

#[test]
fn line_drawing_through_g0_and_g1_prints_boxes_not_letters() {
    // G0 designated, then back to ASCII.
    assert_eq!(
        screen_of(b"\x1b(0lqqk\x1b(B ok\r\nx\x1b(0x\x1b(Bx"),
        "┌──┐ ok\nx│x"
    );
    // G1 designated, invoked by SO and left by SI, as ncurses does.
    assert_eq!(
        screen_of(b"\x1b)0a\x0elqwqk\x0fb\r\n\x0etqnqu\x0f"),
        "a┌─┬─┐b\n├─┼─┤"
    );
    // Only `_` … `~` change: digits and capitals print as they are.
    assert_eq!(screen_of(b"\x1b(0AZ09`afg~\x1b(B"), "AZ09◆▒°±·");
    // A reset goes back to ASCII.
    assert_eq!(screen_of(b"\x1b(0\x1bcq"), "q");
}

#[test]
fn the_saved_cursor_keeps_the_character_sets() {
    assert_eq!(screen_of(b"\x1b(0\x1b7\x1b(Bq\x1b8q"), "─");
}

#[test]
fn a_client_attaching_gets_the_character_sets_in_force() {
    let mut live = Terminal::new(6, 20);
    live.feed(b"\x1b)0\x0elqk\x0f \x0e");
    let mut client = Terminal::new(6, 20);
    // A client left in line drawing by something else first.
    client.feed(b"\x1b(0");
    client.feed(&live.state_formatted());
    assert_eq!(client.screen_text(), live.screen_text());
    // What the program prints next reads the same on both.
    live.feed(b"x");
    client.feed(b"x");
    assert_eq!(client.screen_text(), "┌─┐ │");
    assert_eq!(live.screen_text(), "┌─┐ │");
}

#[test]
fn each_screen_keeps_its_own_saved_cursor_across_switches() {
    let mut term = Terminal::new(6, 20);
    term.feed(b"main\x1b[2;3H\x1b7");
    // Saved on the alternate screen, left, entered again: `ESC 8` goes where
    // it was saved there, not home.
    term.feed(b"\x1b[?1049h\x1b[4;10H\x1b7\x1b[?1049l\x1b[?1049h\x1b[H\x1b8X");
    assert_eq!(term.screen_text(), "\n\n\n         X");
    // The main screen's own is still its own.
    term.feed(b"\x1b[?1049l\x1b8M");
    assert_eq!(term.screen_text(), "main\n  M");
}

#[test]
fn deccolm_clears_homes_and_resets_the_margins() {
    for set in [b'h', b'l'] {
        let mut term = Terminal::new(6, 20);
        term.feed(b"text\r\nmore\x1b[2;3r\x1b[5;5H");
        term.feed(&[0x1b, b'[', b'?', b'3', set]);
        term.feed(b"X");
        assert_eq!(term.screen_text(), "X", "CSI ? 3 {}", set as char);
        // The margins are the whole screen again: a linefeed at the bottom
        // scrolls X away.
        term.feed(b"\x1b[6;1H\n\n\n\n\n\n");
        assert_eq!(term.screen_text(), "", "CSI ? 3 {}", set as char);
    }
}
