//! Tests of the layout tree operations: split, validate, set a ratio, remove
//! and swap.

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
