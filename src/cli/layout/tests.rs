//! `layout apply`'s input: an export's result or a bare launch tree.

use super::*;

#[test]
fn an_export_result_or_a_bare_tree_is_accepted() {
    let leaf = r#"{"type":"pane","argv":["sh"],"cwd":"/"}"#;
    let export = format!(r#"{{"workspace_id":"ws_1","tab_id":"tab_1","title":"t","root":{leaf}}}"#);
    assert_eq!(tree_of(leaf), tree_of(&export));
    assert!(tree_of(leaf).is_ok());
    assert!(tree_of(r#"{"root":null}"#).is_err());
    assert!(tree_of("[").is_err());
    assert!(tree_of(r#"{"type":"nope"}"#).is_err());
}
