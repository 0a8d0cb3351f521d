//! Colour and width: `--color` against the terminal and `NO_COLOR`, SGR
//! wrapping, wrapping at spaces, and cuts to a width.

use super::*;

#[test]
fn colour_follows_the_flag_then_the_terminal_and_no_color() {
    // (when, terminal, NO_COLOR set) → colour
    let table = [
        (ColorWhen::Always, false, true, true),
        (ColorWhen::Always, true, true, true),
        (ColorWhen::Never, true, false, false),
        (ColorWhen::Auto, true, false, true),
        (ColorWhen::Auto, true, true, false),
        (ColorWhen::Auto, false, false, false),
    ];
    for (when, terminal, no_color, want) in table {
        assert_eq!(
            decide(when, terminal, no_color),
            want,
            "{when:?} terminal={terminal} NO_COLOR={no_color}"
        );
    }
}

#[test]
fn paint_wraps_in_sgr_only_when_colouring() {
    assert_eq!(
        Paint::new(true, None).paint("done", Color::Green, false),
        "\x1b[32mdone\x1b[0m"
    );
    assert_eq!(
        Paint::new(true, None).paint("x", Color::LightRed, true),
        "\x1b[1;91mx\x1b[0m"
    );
    assert_eq!(
        Paint::new(false, None).paint("done", Color::Green, true),
        "done"
    );
}

#[test]
fn wrapping_breaks_at_spaces_within_the_width() {
    let lines = Paint::new(false, Some(20)).wrap("    ", "one two three four five six seven");
    assert_eq!(
        lines,
        ["    one two three", "    four five six", "    seven"]
    );
    assert_eq!(Paint::new(false, None).wrap("  ", "a b"), ["  a b"]);
    let long = Paint::new(false, Some(10)).wrap("", "abcdefghijklmnop q");
    assert_eq!(long, ["abcdefghi…", "q"]);
}

#[test]
fn cuts_keep_to_the_columns_asked() {
    assert_eq!(cut("hello", 10), "hello");
    assert_eq!(cut("hello world", 6), "hello…");
    assert_eq!(columns(&cut("日本語のテキスト", 7)), 7);
    assert_eq!(cut_left("/home/me/src/api", 9), "…/src/api");
    assert_eq!(cut_left("/a", 9), "/a");
    assert!(columns(&cut_left("/home/me/日本/api", 8)) <= 8);
}
