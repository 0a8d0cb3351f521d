//! Diffs on the wire: content tagged by kind, null line numbers, and how `turn`
//! is absent or null.

use super::*;

#[test]
fn content_is_tagged_by_kind_and_line_numbers_are_null_not_absent() {
    let c = FileContent::Text {
        hunks: vec![Hunk {
            old_start: 0,
            old_count: 0,
            new_start: 1,
            new_count: 1,
            heading: String::new(),
            lines: vec![DiffLine {
                kind: LineKind::Added,
                text: "x".into(),
                old_line: None,
                new_line: Some(1),
            }],
        }],
        truncated: false,
        notice: None,
    };
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["kind"], "text");
    assert!(v.get("notice").is_none());
    assert_eq!(
        v["hunks"][0]["lines"][0]["old_line"],
        serde_json::Value::Null
    );
    assert_eq!(v["hunks"][0]["lines"][0]["kind"], "added");
    assert_eq!(
        serde_json::to_value(FileContent::Unavailable { reason: "r".into() }).unwrap(),
        serde_json::json!({"kind": "unavailable", "reason": "r"})
    );
    assert_eq!(
        serde_json::to_value(FileContent::Binary {}).unwrap(),
        serde_json::json!({"kind": "binary"})
    );
}

#[test]
fn turn_is_absent_for_head_and_null_without_a_baseline() {
    let mut r = WorkspaceDiffResult {
        workspace_id: WorkspaceId("ws_1".into()),
        scope: DiffScope::Head,
        branch: None,
        files: vec![],
        dirs: vec![],
        added: 0,
        removed: 0,
        turn: None,
    };
    assert!(serde_json::to_value(&r).unwrap().get("turn").is_none());
    r.scope = DiffScope::Turn;
    r.turn = Some(None);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["turn"], serde_json::Value::Null);
    assert_eq!(v["scope"], "turn");
    let back: WorkspaceDiffResult = serde_json::from_value(v).unwrap();
    assert_eq!(back.turn, Some(None));
}
