//! Layout trees (docs/objects.md#layout, docs/layouts.md#layout-operations): pure
//! operations on the binary split tree of a tab. The Workspace actor owns the
//! trees; these functions only compute.
//!
//! ```text
//!   split(right, 0.5)            [a b c] as one "right" run:
//!   ├── first:  pane a             root ratio 1/3
//!   └── second: split(down, 0.5)   ├── a
//!       ├── first:  pane b         └── split(right, 1/2)
//!       └── second: pane c             ├── b
//!                                      └── c
//! ```

use signaltty_protocol::PaneId;
use signaltty_protocol::workspace::{Layout, SplitDir};
use std::collections::HashSet;

/// The smallest share a split may give either side.
pub const MIN_RATIO: f32 = 0.05;
/// The largest share a split may give its first side.
pub const MAX_RATIO: f32 = 0.95;

/// Clamps a finite ratio into [0.05, 0.95]; a non-finite one is an error.
pub fn clamp_ratio(ratio: f32) -> Result<f32, String> {
    if ratio.is_finite() {
        Ok(ratio.clamp(MIN_RATIO, MAX_RATIO))
    } else {
        Err(format!("ratio {ratio} is not a finite number"))
    }
}

/// The pane leaves, depth first, `first` before `second`: the pane order.
pub fn leaves(layout: &Layout) -> Vec<PaneId> {
    let mut out = Vec::new();
    collect(layout, &mut out);
    out
}

fn collect(node: &Layout, out: &mut Vec<PaneId>) {
    match node {
        Layout::Pane { pane_id } => out.push(pane_id.clone()),
        Layout::Split { first, second, .. } => {
            collect(first, out);
            collect(second, out);
        },
    }
}

/// Checks a replacement layout for a tab owning exactly `owned`: every ratio finite
/// (then clamped), no pane twice, and the leaves equal to the owned set. Returns the
/// clamped layout; nothing is changed on error.
pub fn validate(layout: Layout, owned: &HashSet<PaneId>) -> Result<Layout, String> {
    let layout = clamp_all(layout)?;
    let ids = leaves(&layout);
    let mut seen = HashSet::new();
    for id in &ids {
        if !seen.insert(id) {
            return Err(format!("pane {id} appears more than once in the layout"));
        }
        if !owned.contains(id) {
            return Err(format!("pane {id} does not belong to this tab"));
        }
    }
    if let Some(missing) = owned.iter().find(|id| !seen.contains(id)) {
        return Err(format!("the layout leaves out pane {missing} of this tab"));
    }
    Ok(layout)
}

fn clamp_all(node: Layout) -> Result<Layout, String> {
    Ok(match node {
        Layout::Pane { .. } => node,
        Layout::Split {
            dir,
            ratio,
            first,
            second,
        } => Layout::Split {
            dir,
            ratio: clamp_ratio(ratio)?,
            first: Box::new(clamp_all(*first)?),
            second: Box::new(clamp_all(*second)?),
        },
    })
}

/// Sets the ratio of the split at `path` (0 = first, 1 = second, from the root).
pub fn set_ratio(layout: &mut Layout, path: &[u8], ratio: f32) -> Result<(), String> {
    let ratio = clamp_ratio(ratio)?;
    let mut node = layout;
    for (depth, step) in path.iter().enumerate() {
        node = match (node, step) {
            (Layout::Split { first, .. }, 0) => first,
            (Layout::Split { second, .. }, 1) => second,
            (Layout::Split { .. }, other) => {
                return Err(format!(
                    "path element {other} at position {depth} must be 0 or 1"
                ));
            },
            (Layout::Pane { .. }, _) => {
                return Err(format!("path leaves the tree at position {depth}"));
            },
        };
    }
    match node {
        Layout::Split { ratio: r, .. } => {
            *r = ratio;
            Ok(())
        },
        Layout::Pane { .. } => Err("the path ends on a pane, not a split".to_owned()),
    }
}

/// Splits `target` in `dir`, putting `new` second, then evens out the run of
/// same-direction splits that holds `new` (docs/layouts.md#layout-operations). With
/// no layout yet, `new` becomes the only leaf.
pub fn split(
    layout: Option<Layout>,
    target: Option<&PaneId>,
    dir: SplitDir,
    new: PaneId,
) -> Result<Layout, String> {
    let Some(mut layout) = layout else {
        return Ok(Layout::Pane { pane_id: new });
    };
    let target = match target {
        Some(t) => t.clone(),
        None => leaves(&layout).pop().ok_or("empty layout")?,
    };
    if !replace_leaf(&mut layout, &target, dir, &new) {
        return Err(format!("pane {target} is not in this tab's layout"));
    }
    let path = path_to(&layout, &new).ok_or("split lost the new pane")?;
    equalize_run(&mut layout, &path, dir);
    Ok(layout)
}

fn replace_leaf(node: &mut Layout, target: &PaneId, dir: SplitDir, new: &PaneId) -> bool {
    match node {
        Layout::Pane { pane_id } if pane_id == target => {
            let old = Layout::Pane {
                pane_id: pane_id.clone(),
            };
            *node = Layout::Split {
                dir,
                ratio: 0.5,
                first: Box::new(old),
                second: Box::new(Layout::Pane {
                    pane_id: new.clone(),
                }),
            };
            true
        },
        Layout::Pane { .. } => false,
        Layout::Split { first, second, .. } => {
            replace_leaf(first, target, dir, new) || replace_leaf(second, target, dir, new)
        },
    }
}

fn path_to(node: &Layout, pane: &PaneId) -> Option<Vec<u8>> {
    match node {
        Layout::Pane { pane_id } => (pane_id == pane).then(Vec::new),
        Layout::Split { first, second, .. } => {
            for (step, child) in [(0u8, first), (1u8, second)] {
                if let Some(mut rest) = path_to(child, pane) {
                    rest.insert(0, step);
                    return Some(rest);
                }
            }
            None
        },
    }
}

/// Evens out the run containing the leaf at `path`: the run starts below the last
/// split on the path whose direction differs from `dir` (or at the root).
fn equalize_run(layout: &mut Layout, path: &[u8], dir: SplitDir) {
    let mut run_start = 0;
    let mut node = &*layout;
    for (depth, step) in path.iter().enumerate() {
        let Layout::Split {
            dir: d,
            first,
            second,
            ..
        } = node
        else {
            break;
        };
        if *d != dir {
            run_start = depth + 1;
        }
        node = if *step == 0 { first } else { second };
    }
    let mut run = layout;
    for step in &path[..run_start] {
        run = match run {
            Layout::Split { first, second, .. } => {
                if *step == 0 {
                    first
                } else {
                    second
                }
            },
            Layout::Pane { .. } => return,
        };
    }
    equalize(run, dir);
}

/// Same-direction leaf weight: a cross-direction subtree counts as one.
fn weight(node: &Layout, dir: SplitDir) -> u32 {
    match node {
        Layout::Split {
            dir: d,
            first,
            second,
            ..
        } if *d == dir => weight(first, dir) + weight(second, dir),
        _ => 1,
    }
}

fn equalize(node: &mut Layout, dir: SplitDir) {
    if let Layout::Split {
        dir: d,
        ratio,
        first,
        second,
    } = node
        && *d == dir
    {
        equalize(first, dir);
        equalize(second, dir);
        let (a, b) = (weight(first, dir), weight(second, dir));
        *ratio = a as f32 / (a + b) as f32;
    }
}

/// Removes a pane: its parent split is replaced by the sibling subtree; the last
/// pane leaves no layout (the tab stays, empty).
pub fn remove(layout: Layout, pane: &PaneId) -> Option<Layout> {
    match layout {
        Layout::Pane { ref pane_id } if pane_id == pane => None,
        Layout::Pane { .. } => Some(layout),
        Layout::Split {
            dir,
            ratio,
            first,
            second,
        } => match (remove(*first, pane), remove(*second, pane)) {
            (Some(f), Some(s)) => Some(Layout::Split {
                dir,
                ratio,
                first: Box::new(f),
                second: Box::new(s),
            }),
            (Some(only), None) | (None, Some(only)) => Some(only),
            (None, None) => None,
        },
    }
}

/// Exchanges two panes' places; shape and ratios stay.
pub fn swap(layout: &mut Layout, a: &PaneId, b: &PaneId) {
    match layout {
        Layout::Pane { pane_id } => {
            if pane_id == a {
                *pane_id = b.clone();
            } else if pane_id == b {
                *pane_id = a.clone();
            }
        },
        Layout::Split { first, second, .. } => {
            swap(first, a, b);
            swap(second, a, b);
        },
    }
}

#[cfg(test)]
mod tests;
