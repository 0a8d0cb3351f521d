use super::*;

#[test]
fn items_and_their_panes_are_tagged() {
    let mut ws = json!({"workspace": {"id": "ws_1"}, "panes": [{"id": "p1"}, {"id": "p2"}]});
    tag(&mut ws, "devbox");
    assert_eq!(ws["host"], "devbox");
    assert_eq!(ws["panes"][1]["host"], "devbox");
    let line = r#"{"protocol":"signaltty/1","seq":4,"event":"pane.exited"}"#;
    let tagged = tag_line(line, "gpu");
    let v: Value = serde_json::from_str(&tagged).expect("json");
    assert_eq!(v["host"], "gpu");
    assert_eq!(v["seq"], 4);
}
