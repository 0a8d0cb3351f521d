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
mod tests {
    use super::*;

    fn p(id: &str) -> PaneId {
        PaneId(id.to_owned())
    }

    fn ratio_at(layout: &Layout, path: &[u8]) -> f32 {
        let mut node = layout;
        for step in path {
            node = match node {
                Layout::Split { first, second, .. } => {
                    if *step == 0 {
                        first
                    } else {
                        second
                    }
                },
                Layout::Pane { .. } => panic!("path leaves the tree"),
            };
        }
        match node {
            Layout::Split { ratio, .. } => *ratio,
            Layout::Pane { .. } => panic!("not a split"),
        }
    }

    /// Widths of the leaves of a pure `right` run, left to right.
    fn widths(node: &Layout, share: f32, out: &mut Vec<f32>) {
        match node {
            Layout::Pane { .. } => out.push(share),
            Layout::Split {
                ratio,
                first,
                second,
                ..
            } => {
                widths(first, share * ratio, out);
                widths(second, share * (1.0 - ratio), out);
            },
        }
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    fn all_close(got: &[f32], want: &[f32]) -> bool {
        got.len() == want.len() && got.iter().zip(want).all(|(a, b)| close(*a, *b))
    }

    #[test]
    fn splitting_a_run_evens_it_out_as_in_the_data_model_examples() {
        let l = split(None, None, SplitDir::Right, p("a")).unwrap();
        let l = split(Some(l), Some(&p("a")), SplitDir::Right, p("b")).unwrap();
        let mut w = Vec::new();
        widths(&l, 1.0, &mut w);
        assert!(all_close(&w, &[0.5, 0.5]), "{w:?}");
        let l = split(Some(l), Some(&p("b")), SplitDir::Right, p("c")).unwrap();
        let mut w = Vec::new();
        widths(&l, 1.0, &mut w);
        assert!(all_close(&w, &[1.0 / 3.0; 3]), "{w:?}");
        let four = split(Some(l.clone()), Some(&p("c")), SplitDir::Right, p("d")).unwrap();
        let mut w = Vec::new();
        widths(&four, 1.0, &mut w);
        assert!(all_close(&w, &[0.25; 4]), "{w:?}");
        let middle = split(Some(l.clone()), Some(&p("b")), SplitDir::Right, p("n")).unwrap();
        let mut w = Vec::new();
        widths(&middle, 1.0, &mut w);
        assert!(
            all_close(&w, &[0.25; 4]),
            "splitting the middle column: {w:?}"
        );
        assert_eq!(leaves(&middle), vec![p("a"), p("b"), p("n"), p("c")]);

        // [a b c] then c split down: the right run keeps thirds, the new split halves.
        let down = split(Some(l), Some(&p("c")), SplitDir::Down, p("d")).unwrap();
        assert!(close(ratio_at(&down, &[]), 1.0 / 3.0));
        assert!(close(ratio_at(&down, &[1]), 0.5));
        assert!(close(ratio_at(&down, &[1, 1]), 0.5));
    }

    #[test]
    fn a_nested_right_pair_then_a_split_gives_four_quarters() {
        // `[x y] p`: two nested right splits, then p split right.
        let inner = Layout::Split {
            dir: SplitDir::Right,
            ratio: 0.5,
            first: Box::new(Layout::Pane { pane_id: p("x") }),
            second: Box::new(Layout::Pane { pane_id: p("y") }),
        };
        let l = Layout::Split {
            dir: SplitDir::Right,
            ratio: 0.5,
            first: Box::new(inner),
            second: Box::new(Layout::Pane { pane_id: p("p") }),
        };
        let l = split(Some(l), Some(&p("p")), SplitDir::Right, p("q")).unwrap();
        let mut w = Vec::new();
        widths(&l, 1.0, &mut w);
        assert!(all_close(&w, &[0.25; 4]), "{w:?}");
    }

    #[test]
    fn splits_outside_the_run_keep_their_dragged_ratios() {
        let l = split(None, None, SplitDir::Right, p("a")).unwrap();
        let mut l = split(Some(l), Some(&p("a")), SplitDir::Down, p("b")).unwrap();
        set_ratio(&mut l, &[], 0.8).unwrap();
        let l = split(Some(l), Some(&p("b")), SplitDir::Right, p("c")).unwrap();
        assert!(
            close(ratio_at(&l, &[]), 0.8),
            "the down split outside the new run keeps its drag"
        );
        assert!(close(ratio_at(&l, &[1]), 0.5));
    }

    #[test]
    fn validate_requires_exactly_the_owned_panes_once_and_clamps_ratios() {
        let owned: HashSet<PaneId> = [p("a"), p("b")].into_iter().collect();
        let good = Layout::Split {
            dir: SplitDir::Down,
            ratio: 0.99,
            first: Box::new(Layout::Pane { pane_id: p("b") }),
            second: Box::new(Layout::Pane { pane_id: p("a") }),
        };
        let clamped = validate(good, &owned).unwrap();
        assert!(close(ratio_at(&clamped, &[]), MAX_RATIO));
        let twice = Layout::Split {
            dir: SplitDir::Down,
            ratio: 0.5,
            first: Box::new(Layout::Pane { pane_id: p("a") }),
            second: Box::new(Layout::Pane { pane_id: p("a") }),
        };
        assert!(
            validate(twice, &owned)
                .unwrap_err()
                .contains("more than once")
        );
        assert!(
            validate(Layout::Pane { pane_id: p("a") }, &owned)
                .unwrap_err()
                .contains("leaves out")
        );
        assert!(
            validate(Layout::Pane { pane_id: p("z") }, &owned)
                .unwrap_err()
                .contains("does not belong")
        );
        let nan = Layout::Split {
            dir: SplitDir::Down,
            ratio: f32::NAN,
            first: Box::new(Layout::Pane { pane_id: p("a") }),
            second: Box::new(Layout::Pane { pane_id: p("b") }),
        };
        assert!(validate(nan, &owned).is_err());
    }

    #[test]
    fn set_ratio_needs_a_path_to_a_split_and_clamps() {
        let l = split(None, None, SplitDir::Right, p("a")).unwrap();
        let mut l = split(Some(l), Some(&p("a")), SplitDir::Right, p("b")).unwrap();
        set_ratio(&mut l, &[], 0.01).unwrap();
        assert!(close(ratio_at(&l, &[]), MIN_RATIO));
        assert!(set_ratio(&mut l, &[0], 0.5).unwrap_err().contains("pane"));
        assert!(set_ratio(&mut l, &[2], 0.5).unwrap_err().contains("0 or 1"));
        assert!(set_ratio(&mut l, &[0, 0], 0.5).is_err());
        assert!(set_ratio(&mut l, &[], f32::INFINITY).is_err());
    }

    #[test]
    fn removing_collapses_the_parent_and_the_last_pane_empties_the_tab() {
        let l = split(None, None, SplitDir::Right, p("a")).unwrap();
        let l = split(Some(l), Some(&p("a")), SplitDir::Right, p("b")).unwrap();
        let l = split(Some(l), Some(&p("b")), SplitDir::Down, p("c")).unwrap();
        let l = remove(l, &p("b")).unwrap();
        assert_eq!(leaves(&l), vec![p("a"), p("c")]);
        let l = remove(l, &p("a")).unwrap();
        assert_eq!(l, Layout::Pane { pane_id: p("c") });
        assert_eq!(remove(l, &p("c")), None);
    }

    #[test]
    fn swapping_exchanges_places_and_keeps_the_shape() {
        let l = split(None, None, SplitDir::Right, p("a")).unwrap();
        let mut l = split(Some(l), Some(&p("a")), SplitDir::Right, p("b")).unwrap();
        set_ratio(&mut l, &[], 0.3).unwrap();
        swap(&mut l, &p("a"), &p("b"));
        assert_eq!(leaves(&l), vec![p("b"), p("a")]);
        assert!(close(ratio_at(&l, &[]), 0.3));
    }
}
