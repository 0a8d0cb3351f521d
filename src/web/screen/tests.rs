use super::*;

#[test]
fn a_row_becomes_runs_of_one_style_without_trailing_blanks() {
    let mut t = Terminal::new(3, 20);
    let _ = t.feed(b"ab\x1b[1;31mRED\x1b[0m \x1b[38;2;1;2;3mx\x1b[0m");
    let runs = runs(&t.styled_row(0));
    assert_eq!(
        runs,
        vec![
            json!(["ab", -1, -1, 0]),
            json!(["RED", 1, -1, 1]),
            json!([" ", -1, -1, 0]),
            json!(["x", RGB + 0x010203, -1, 0]),
        ]
    );
    assert!(super::runs(&t.styled_row(1)).is_empty());
}

#[test]
fn the_screen_message_has_every_row_and_the_cursor() {
    let mut t = Terminal::new(2, 10);
    let _ = t.feed(b"hi");
    let m: Value =
        serde_json::from_str(&message("local", &PaneId("pane_1".into()), &t)).expect("json");
    assert_eq!(
        (m["rows"].as_u64(), m["cols"].as_u64()),
        (Some(2), Some(10))
    );
    assert_eq!(m["lines"][0], json!([["hi", -1, -1, 0]]));
    assert_eq!(m["cursor"], json!([0, 2]));
}
