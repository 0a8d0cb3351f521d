//! Launch trees: a round trip that leaves out what a node does not say.

use super::*;
use serde_json::json;

#[test]
fn a_launch_tree_round_trips_and_leaves_out_what_it_does_not_say() {
    let wire = json!({"type": "split", "dir": "right", "ratio": 0.25,
        "first": {"type": "pane", "pane_id": "pane_a", "argv": ["vim"], "cwd": "/w", "name": "ed"},
        "second": {"type": "pane"}});
    let tree: LaunchNode = serde_json::from_value(wire.clone()).expect("a tree");
    assert_eq!(serde_json::to_value(&tree).ok(), Some(wire));
    let leaves = tree.leaves();
    assert_eq!(leaves.len(), 2);
    assert_eq!(leaves[0].name.as_deref(), Some("ed"));
    assert_eq!(leaves[1], &LaunchLeaf::default());
    assert!(serde_json::from_value::<LaunchNode>(json!({"type": "tab"})).is_err());
}
