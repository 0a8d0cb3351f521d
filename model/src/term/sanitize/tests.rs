//! Text cleaning: escapes and controls stripped with newlines and tabs kept,
//! trimming, the length cap in characters, multibyte input, and idempotence.

use super::*;

#[test]
fn sanitizer_strips_escapes_and_controls_but_keeps_newlines() {
    assert_eq!(sanitize("\x01hi\x1b[1m\x07\nthere\x7f", 200), "hi\nthere");
}

#[test]
fn sanitizer_keeps_tabs_and_trims_both_ends() {
    assert_eq!(sanitize("  \ta\tb \n ", 200), "a\tb");
}

#[test]
fn sanitizer_caps_the_length_in_characters_not_bytes() {
    assert_eq!(sanitize("ééééé", 3), "ééé");
    assert_eq!(sanitize(&"x".repeat(5000), MAX_TITLE_CHARS).len(), 200);
    assert_eq!(sanitize("ab   cd", 3), "ab");
}

#[test]
fn escape_before_a_multibyte_character_never_panics() {
    assert_eq!(sanitize("a\x1bé", 10), "aé");
    assert_eq!(sanitize("\x1b", 10), "");
    assert_eq!(sanitize("\x1b[", 10), "");
    assert_eq!(sanitize("\x1b[1;é", 10), "é");
    assert_eq!(sanitize("\x1b]0;é", 10), "");
    assert_eq!(sanitize("x\x1b(é", 10), "xé");
}

#[test]
fn sanitizer_strips_osc_dcs_and_two_byte_escapes() {
    assert_eq!(
        sanitize("a\x1b]8;;http://x\x07link\x1b]8;;\x1b\\b", 100),
        "alinkb"
    );
    assert_eq!(sanitize("a\x1bPq#0\x1b\\b", 100), "ab");
    assert_eq!(sanitize("a\x1b(Bb\x1b7c", 100), "abc");
    assert_eq!(sanitize("a\u{9b}31mb", 100), "ab");
}

#[test]
fn sanitizing_twice_changes_nothing() {
    for text in ["  a\x1b[1mb \t", "x\u{7f}y\u{85}z", &"é ".repeat(300)] {
        let once = sanitize(text, 200);
        assert_eq!(sanitize(&once, 200), once);
    }
}
