//! The `worktree.*` params and results: parsing, a missing field named, and
//! entries that leave out what they lack.

use super::*;
use crate::Method;
use crate::method::ParamsError;
use serde_json::json;

#[test]
fn the_worktree_methods_parse_and_a_missing_field_is_named() {
    let m = Method::parse(
        "worktree.create",
        json!({"workspace_id": "proj", "path": "/w/x", "branch": "b"}),
    )
    .unwrap();
    assert_eq!(m.name(), "worktree.create");
    assert!(matches!(
        Method::parse("worktree.open", json!({"workspace_id": "proj"})),
        Err(ParamsError::Invalid(m)) if m.contains("path")
    ));
    assert!(matches!(
        Method::parse("worktree.remove", json!({"workspace_id": 3, "path": "/x"})),
        Err(ParamsError::Invalid(_))
    ));
    assert!(Method::parse("worktree.list", json!({"workspace_id": "ws_1"})).is_ok());
}

#[test]
fn an_entry_leaves_out_what_it_lacks() {
    let w = Worktree {
        path: "/r".into(),
        branch: None,
        head: Some("abc".into()),
        main: true,
        bare: false,
        locked: false,
        prunable: false,
        workspace_id: None,
    };
    assert_eq!(
        serde_json::to_value(&w).unwrap(),
        json!({"path": "/r", "head": "abc", "main": true, "bare": false, "locked": false, "prunable": false})
    );
    assert_eq!(
        serde_json::to_value(WorktreeOperation::Remove).unwrap(),
        json!("remove")
    );
}
