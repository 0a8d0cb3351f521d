//! The pure half of `layout.apply` (docs/layouts.md#the-launch-tree): a launch
//! tree checked whole and turned into the panes to start and the layout that
//! arranges them, before anything is started. No I/O: the router checks the
//! directories on a blocking thread and the names against the registry.

use crate::domain::launch;
use crate::domain::registry::valid_pane_name;
use signaltty_protocol::PaneId;
use signaltty_protocol::layout::LaunchNode;
use signaltty_protocol::workspace::Layout;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

/// The most panes one `layout.apply` starts.
pub const MAX_LEAVES: usize = 64;

/// One pane to start, with its defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedLeaf {
    /// The id the new pane gets.
    pub id: PaneId,
    /// The command (the user shell when the leaf gives none).
    pub argv: Vec<String>,
    /// Its directory: absolute (the workspace's when the leaf gives none).
    pub cwd: PathBuf,
    /// Its name, if kept.
    pub name: Option<String>,
    /// Its checked environment overrides.
    pub env: BTreeMap<String, String>,
}

/// What a leaf falls back to.
#[derive(Debug, Clone)]
pub struct Defaults<'a> {
    /// The workspace's cwd.
    pub cwd: &'a str,
    /// The user shell.
    pub shell: &'a str,
    /// Leave every leaf's name out instead of checking it.
    pub drop_names: bool,
}

/// Checks the whole tree and plans it: the layout over fresh pane ids (from
/// `new_id`, in leaf order) with every ratio clamped, and the leaves in leaf
/// order. The error says which leaf (1-based, in leaf order) is wrong and why;
/// names held by existing panes are the registry's to check.
pub fn plan(
    root: LaunchNode,
    defaults: &Defaults<'_>,
    new_id: &mut impl FnMut() -> PaneId,
) -> Result<(Layout, Vec<PlannedLeaf>), String> {
    let count = root.leaves().len();
    if count > MAX_LEAVES {
        return Err(format!(
            "the layout has {count} panes; at most {MAX_LEAVES} are started at once"
        ));
    }
    let mut leaves = Vec::with_capacity(count);
    let layout = walk(root, defaults, new_id, &mut leaves)?;
    let mut names = HashSet::new();
    for (i, leaf) in leaves.iter().enumerate() {
        if let Some(name) = &leaf.name
            && !names.insert(name.clone())
        {
            return Err(format!(
                "leaf {}: the name {name:?} is given to two panes",
                i + 1
            ));
        }
    }
    Ok((layout, leaves))
}

fn walk(
    node: LaunchNode,
    defaults: &Defaults<'_>,
    new_id: &mut impl FnMut() -> PaneId,
    leaves: &mut Vec<PlannedLeaf>,
) -> Result<Layout, String> {
    match node {
        LaunchNode::Split {
            dir,
            ratio,
            first,
            second,
        } => {
            let ratio = crate::domain::layout::clamp_ratio(ratio)?;
            let first = walk(*first, defaults, new_id, leaves)?;
            let second = walk(*second, defaults, new_id, leaves)?;
            Ok(Layout::Split {
                dir,
                ratio,
                first: Box::new(first),
                second: Box::new(second),
            })
        },
        LaunchNode::Pane(leaf) => {
            let n = leaves.len() + 1;
            let argv = match leaf.argv {
                Some(argv) if argv.first().is_none_or(String::is_empty) => {
                    return Err(format!("leaf {n}: argv must name a program"));
                },
                Some(argv) => argv,
                None => vec![defaults.shell.to_owned()],
            };
            let cwd = PathBuf::from(leaf.cwd.as_deref().unwrap_or(defaults.cwd));
            if !cwd.is_absolute() {
                return Err(format!(
                    "leaf {n}: cwd {} is not an absolute path",
                    cwd.display()
                ));
            }
            let env = leaf.env.unwrap_or_default();
            launch::check_overrides(&env).map_err(|why| format!("leaf {n}: {why}"))?;
            let name = if defaults.drop_names { None } else { leaf.name };
            if let Some(name) = &name
                && !valid_pane_name(name)
            {
                return Err(format!(
                    "leaf {n}: invalid pane name {name:?} (a lowercase letter, then lowercase letters, digits, _ or -)"
                ));
            }
            let id = new_id();
            leaves.push(PlannedLeaf {
                id: id.clone(),
                argv,
                cwd,
                name,
                env,
            });
            Ok(Layout::Pane { pane_id: id })
        },
    }
}

#[cfg(test)]
mod tests {
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
}
