//! Tests of path reservations: overlaps by path component, and entering and
//! removing checkouts against each other.

use super::*;

fn p(s: &str) -> &Path {
    Path::new(s)
}

#[test]
fn overlap_is_component_wise_not_by_string_prefix() {
    assert!(overlaps(p("/a/proj"), p("/a/proj")));
    assert!(overlaps(p("/a/proj"), p("/a/proj/src")));
    assert!(overlaps(p("/a/proj/src"), p("/a/proj")));
    assert!(overlaps(p("/a"), p("/a/proj/src")));
    assert!(!overlaps(p("/a/proj"), p("/a/proj-other")));
    assert!(!overlaps(p("/a/proj-other/x"), p("/a/proj")));
    assert!(is_within(p("/a/proj/x"), p("/a/proj")));
    assert!(!is_within(p("/a"), p("/a/proj")));
}

#[test]
fn a_removal_is_refused_while_an_overlapping_entering_reference_is_held() {
    let mut r = PathReservations::new();
    let launch = r.enter(p("/w/wt/src")).unwrap();
    assert_eq!(
        r.reserve_removal(p("/w/wt")),
        Err(Refusal::Entering(PathBuf::from("/w/wt/src")))
    );
    // An entering reference above the checkout overlaps too.
    let home = r.enter(p("/w")).unwrap();
    r.release(launch);
    assert!(matches!(
        r.reserve_removal(p("/w/wt")),
        Err(Refusal::Entering(_))
    ));
    r.release(home);
    assert!(r.reserve_removal(p("/w/wt")).is_ok());
}

#[test]
fn a_sibling_with_a_common_prefix_does_not_block_a_removal() {
    let mut r = PathReservations::new();
    r.enter(p("/w/proj-other")).unwrap();
    assert!(r.reserve_removal(p("/w/proj")).is_ok());
    assert!(r.enter(p("/w/proj-other/deeper")).is_ok());
}

#[test]
fn entering_a_checkout_being_removed_is_refused_and_allowed_after_release() {
    let mut r = PathReservations::new();
    let removal = r.reserve_removal(p("/w/wt")).unwrap();
    assert_eq!(
        r.enter(p("/w/wt")),
        Err(Refusal::BeingRemoved(PathBuf::from("/w/wt")))
    );
    assert!(matches!(
        r.enter(p("/w/wt/a/b")),
        Err(Refusal::BeingRemoved(_))
    ));
    assert_eq!(r.removal_covering(p("/w/wt/a")), Some(p("/w/wt")));
    // The parent is not inside the checkout: entering it is allowed.
    let parent = r.enter(p("/w")).unwrap();
    r.release(parent);
    r.release(removal);
    assert_eq!(r.removal_covering(p("/w/wt/a")), None);
    let t = r.enter(p("/w/wt")).unwrap();
    r.release(t);
    assert!(r.is_empty());
}

#[test]
fn two_overlapping_removals_exclude_each_other() {
    let mut r = PathReservations::new();
    let first = r.reserve_removal(p("/w/wt")).unwrap();
    assert_eq!(
        r.reserve_removal(p("/w/wt/nested")),
        Err(Refusal::Removing(PathBuf::from("/w/wt")))
    );
    assert!(r.reserve_removal(p("/w/wt2")).is_ok());
    r.release(first);
    assert!(r.reserve_removal(p("/w/wt/nested")).is_ok());
}

#[test]
fn releasing_twice_or_an_unknown_ticket_changes_nothing() {
    let mut r = PathReservations::new();
    let a = r.enter(p("/x")).unwrap();
    let b = r.enter(p("/x")).unwrap();
    assert_ne!(a, b);
    r.release(a);
    r.release(a);
    assert!(matches!(
        r.reserve_removal(p("/x")),
        Err(Refusal::Entering(_))
    ));
    r.release(b);
    assert!(r.is_empty());
}
