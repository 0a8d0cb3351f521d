//! `layout.export` / `layout.apply` params and results (docs/layouts.md): a
//! tab's layout tree whose leaves are launch descriptions.

use crate::ids::{TabId, WorkspaceId};
use crate::pane::PaneLaunchResult;
use crate::workspace::{SplitDir, Tab};
use crate::{PaneId, WorkspaceRef};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A node of a launch tree: a leaf that says what to start, or a split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LaunchNode {
    /// One pane to start.
    Pane(LaunchLeaf),
    /// Two nodes side by side (`right`) or stacked (`down`).
    Split {
        /// Split direction.
        dir: SplitDir,
        /// Share of `first` (clamped to 0.05–0.95; must be finite).
        ratio: f32,
        /// Left or top.
        first: Box<LaunchNode>,
        /// Right or bottom.
        second: Box<LaunchNode>,
    },
}

/// What one leaf starts. `layout.export` fills `pane_id`, `argv` and `cwd`
/// (and `name` when the pane has one); `layout.apply` ignores `pane_id`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchLeaf {
    /// The exported pane (ignored by `layout.apply`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneId>,
    /// The command; default the user shell; non-empty when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// The directory; default the workspace's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// A pane name, free and unique in the tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Environment overrides, as `pane.spawn`'s (`layout.apply` only; never
    /// exported, since they are never kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
}

impl LaunchNode {
    /// The leaves in layout order (depth-first, `first` before `second`).
    pub fn leaves(&self) -> Vec<&LaunchLeaf> {
        let mut out = Vec::new();
        fn walk<'a>(node: &'a LaunchNode, out: &mut Vec<&'a LaunchLeaf>) {
            match node {
                LaunchNode::Pane(leaf) => out.push(leaf),
                LaunchNode::Split { first, second, .. } => {
                    walk(first, out);
                    walk(second, out);
                },
            }
        }
        walk(self, &mut out);
        out
    }
}

/// `layout.export` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutExportParams {
    /// The tab.
    pub tab_id: TabId,
}

/// `layout.export` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutExportResult {
    /// The tab's workspace.
    pub workspace_id: WorkspaceId,
    /// The tab (echoed; an extension of this server,
    /// docs/protocol.md#extensions-of-this-server).
    pub tab_id: TabId,
    /// Its title (echoed).
    pub title: String,
    /// The launch tree; absent for an empty tab.
    pub root: Option<LaunchNode>,
}

/// `layout.apply` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutApplyParams {
    /// The target workspace.
    pub workspace_id: WorkspaceRef,
    /// The new tab's title; default `"tab"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The launch tree.
    pub root: LaunchNode,
    /// Start the panes without the leaves' names instead of refusing names
    /// other panes hold (an extension; default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_names: Option<bool>,
}

/// `layout.apply` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutApplyResult {
    /// The new tab, with its layout.
    pub tab: Tab,
    /// One per leaf, in leaf order.
    pub panes: Vec<PaneLaunchResult>,
}

#[cfg(test)]
mod tests;
