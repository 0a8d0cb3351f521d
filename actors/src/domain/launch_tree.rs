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
mod tests;
