//! Tests of checking a launch tree and turning it into panes and a layout.

use super::*;
use serde_json::json;

fn tree(v: serde_json::Value) -> LaunchNode {
    serde_json::from_value(v).expect("a launch tree")
}

fn ids() -> impl FnMut() -> PaneId {
    let mut n = 0;
    move || {
        n += 1;
        PaneId(format!("pane_{n}"))
    }
}

const DEFAULTS: Defaults<'static> = Defaults {
    cwd: "/w",
    shell: "sh",
    drop_names: false,
};

#[test]
fn a_nested_tree_keeps_dirs_and_ratios_and_fills_defaults_in_leaf_order() {
    let root = tree(json!({"type": "split", "dir": "right", "ratio": 0.3,
        "first": {"type": "pane", "pane_id": "pane_old", "argv": ["vim"], "cwd": "/a", "name": "ed"},
        "second": {"type": "split", "dir": "down", "ratio": 2.0,
            "first": {"type": "pane"},
            "second": {"type": "pane", "argv": ["top"], "env": {"K": "v"}}}}));
    let (layout, leaves) = plan(root, &DEFAULTS, &mut ids()).unwrap();
    let want: Layout =
        serde_json::from_value(json!({"type": "split", "dir": "right", "ratio": 0.3,
        "first": {"type": "pane", "pane_id": "pane_1"},
        "second": {"type": "split", "dir": "down", "ratio": 0.95,
            "first": {"type": "pane", "pane_id": "pane_2"},
            "second": {"type": "pane", "pane_id": "pane_3"}}}))
        .unwrap();
    assert_eq!(layout, want);
    assert_eq!(leaves.len(), 3);
    assert_eq!(leaves[0].argv, vec!["vim"]);
    assert_eq!(leaves[0].cwd, PathBuf::from("/a"));
    assert_eq!(leaves[0].name.as_deref(), Some("ed"));
    assert_eq!(leaves[1].argv, vec!["sh"], "the shell by default");
    assert_eq!(leaves[1].cwd, PathBuf::from("/w"), "the workspace's cwd");
    assert_eq!(leaves[2].env["K"], "v");
}

#[test]
fn every_bad_leaf_is_refused_with_its_number() {
    let bad = [
        (json!({"type": "pane", "argv": []}), "leaf 1: argv"),
        (json!({"type": "pane", "argv": [""]}), "leaf 1: argv"),
        (
            json!({"type": "pane", "cwd": "rel"}),
            "not an absolute path",
        ),
        (
            json!({"type": "pane", "name": "Bad Name"}),
            "invalid pane name",
        ),
        (
            json!({"type": "pane", "env": {"LD_PRELOAD": "x"}}),
            "LD_PRELOAD",
        ),
        (
            json!({"type": "split", "dir": "down", "ratio": 0.5,
                "first": {"type": "pane", "name": "a"},
                "second": {"type": "pane", "name": "a"}}),
            "leaf 2: the name \"a\" is given to two panes",
        ),
    ];
    for (root, want) in bad {
        let why = plan(tree(root.clone()), &DEFAULTS, &mut ids()).unwrap_err();
        assert!(why.contains(want), "{root}: {why}");
    }
}

#[test]
fn dropped_names_are_not_checked_and_a_huge_tree_is_refused() {
    let root = tree(json!({"type": "split", "dir": "down", "ratio": 0.5,
        "first": {"type": "pane", "name": "a"},
        "second": {"type": "pane", "name": "a"}}));
    let drop = Defaults {
        drop_names: true,
        ..DEFAULTS
    };
    let (_, leaves) = plan(root, &drop, &mut ids()).unwrap();
    assert!(leaves.iter().all(|l| l.name.is_none()));
    let mut root = tree(json!({"type": "pane"}));
    for _ in 0..MAX_LEAVES {
        root = LaunchNode::Split {
            dir: signaltty_protocol::workspace::SplitDir::Right,
            ratio: 0.5,
            first: Box::new(root),
            second: Box::new(tree(json!({"type": "pane"}))),
        };
    }
    assert!(plan(root, &DEFAULTS, &mut ids()).is_err());
}

#[test]
fn a_non_finite_ratio_is_refused() {
    let root = LaunchNode::Split {
        dir: signaltty_protocol::workspace::SplitDir::Right,
        ratio: f32::NAN,
        first: Box::new(tree(json!({"type": "pane"}))),
        second: Box::new(tree(json!({"type": "pane"}))),
    };
    assert!(plan(root, &DEFAULTS, &mut ids()).is_err());
}
