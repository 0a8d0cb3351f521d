//! The radar's bookkeeping: which pairs a pass checks, and what appeared or
//! cleared (docs/tasks.md#conflict-radar).

use super::*;

fn id(n: &str) -> TaskId {
    TaskId(format!("task_{n}"))
}

fn tip(commit: &str, target: Option<(&str, &str)>) -> Tip {
    Tip {
        commit: commit.to_owned(),
        target: target.map(|(b, t)| (b.to_owned(), t.to_owned())),
    }
}

fn tips(list: &[(&str, Tip)]) -> BTreeMap<TaskId, Tip> {
    list.iter().map(|(n, t)| (id(n), t.clone())).collect()
}

fn now() -> Timestamp {
    Timestamp("2026-12-07T10:00:00.000Z".into())
}

fn conflict_on(paths: &[&str]) -> Found {
    Found::Conflict(paths.iter().map(|p| p.to_string()).collect())
}

/// Runs a pass where every planned check finds `found(check)`.
fn pass(
    radar: &mut Radar,
    t: &BTreeMap<TaskId, Tip>,
    found: impl Fn(&Check) -> Found,
) -> (Vec<PairKey>, Vec<Change>) {
    let plan = radar.plan(t);
    let keys = plan.iter().map(|c| c.key.clone()).collect();
    let results = plan.into_iter().map(|c| (c.clone(), found(&c))).collect();
    (keys, radar.apply(t, results, &now()))
}

#[test]
fn the_first_pass_checks_every_pair_and_each_task_against_its_target() {
    let radar = Radar::new("/r");
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
        ("c", tip("3", Some(("main", "m")))),
    ]);
    let keys: Vec<PairKey> = radar.plan(&t).into_iter().map(|c| c.key).collect();
    assert_eq!(
        keys,
        vec![
            (id("a"), None),
            (id("a"), Some(id("b"))),
            (id("a"), Some(id("c"))),
            (id("b"), None),
            (id("b"), Some(id("c"))),
            (id("c"), None),
        ]
    );
}

#[test]
fn only_the_pairs_of_a_moved_tip_are_checked_again() {
    let mut radar = Radar::new("/r");
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
        ("c", tip("3", Some(("main", "m")))),
    ]);
    pass(&mut radar, &t, |_| Found::Clean);
    assert!(radar.plan(&t).is_empty(), "nothing moved, nothing to check");
    let moved = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2b", Some(("main", "m")))),
        ("c", tip("3", Some(("main", "m")))),
    ]);
    let keys: Vec<PairKey> = radar.plan(&moved).into_iter().map(|c| c.key).collect();
    assert_eq!(
        keys,
        vec![
            (id("a"), Some(id("b"))),
            (id("b"), None),
            (id("b"), Some(id("c")))
        ]
    );
    // The target moving checks every task against it, and no pair.
    let target_moved = tips(&[
        ("a", tip("1", Some(("main", "m2")))),
        ("b", tip("2", Some(("main", "m2")))),
        ("c", tip("3", Some(("main", "m2")))),
    ]);
    let keys: Vec<PairKey> = radar
        .plan(&target_moved)
        .into_iter()
        .map(|c| c.key)
        .collect();
    assert_eq!(
        keys,
        vec![(id("a"), None), (id("b"), None), (id("c"), None)]
    );
}

#[test]
fn tasks_with_different_targets_are_not_paired() {
    let radar = Radar::new("/r");
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("dev", "d")))),
        ("c", tip("3", None)),
    ]);
    let keys: Vec<PairKey> = radar.plan(&t).into_iter().map(|c| c.key).collect();
    assert_eq!(keys, vec![(id("a"), None), (id("b"), None)]);
}

#[test]
fn a_collision_appears_once_follows_its_paths_and_clears_once() {
    let mut radar = Radar::new("/r");
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
    ]);
    let pair = (id("a"), Some(id("b")));
    let (_, changes) = pass(&mut radar, &t, |c| {
        if c.key.1.is_some() {
            conflict_on(&["x.txt"])
        } else {
            Found::Clean
        }
    });
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].state, ConflictState::Appeared);
    assert_eq!(changes[0].conflict.a, id("a"));
    assert_eq!(changes[0].conflict.b, Some(id("b")));
    assert_eq!(changes[0].conflict.paths, vec!["x.txt"]);
    assert_eq!(changes[0].conflict.repo, "/r");

    // b moves and still collides, on more paths: no event, the paths follow.
    let t2 = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2b", Some(("main", "m")))),
    ]);
    let (_, changes) = pass(&mut radar, &t2, |c| {
        if c.key == pair {
            conflict_on(&["x.txt", "y.txt"])
        } else {
            Found::Clean
        }
    });
    assert!(changes.is_empty(), "{changes:?}");
    let now: Vec<&TaskConflict> = radar.conflicts().collect();
    assert_eq!(now[0].paths, vec!["x.txt", "y.txt"]);

    // b moves again and merges cleanly: cleared, once.
    let t3 = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2c", Some(("main", "m")))),
    ]);
    let (_, changes) = pass(&mut radar, &t3, |_| Found::Clean);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].state, ConflictState::Cleared);
    assert_eq!(radar.conflicts().count(), 0);
    let (_, changes) = pass(&mut radar, &t3, |_| Found::Clean);
    assert!(changes.is_empty());
}

#[test]
fn a_conflict_with_the_target_names_the_branch() {
    let mut radar = Radar::new("/r");
    let t = tips(&[("a", tip("1", Some(("main", "m"))))]);
    let (_, changes) = pass(&mut radar, &t, |_| conflict_on(&["f"]));
    assert_eq!(changes[0].conflict.b, None);
    assert_eq!(changes[0].conflict.target_branch.as_deref(), Some("main"));
}

#[test]
fn a_failed_check_keeps_the_last_result_and_is_tried_again() {
    let mut radar = Radar::new("/r");
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
    ]);
    pass(&mut radar, &t, |c| {
        if c.key.1.is_some() {
            conflict_on(&["x"])
        } else {
            Found::Clean
        }
    });
    let t2 = tips(&[
        ("a", tip("1b", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
    ]);
    let (_, changes) = pass(&mut radar, &t2, |_| Found::Failed("git broke".into()));
    assert!(changes.is_empty());
    assert_eq!(radar.conflicts().count(), 1);
    assert_eq!(radar.plan(&t2).len(), 2, "the failed checks come back");
}

#[test]
fn a_task_leaving_clears_its_collisions() {
    let mut radar = Radar::new("/r");
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
        ("c", tip("3", Some(("main", "m")))),
    ]);
    pass(&mut radar, &t, |c| {
        if c.key.1.is_some() {
            conflict_on(&["x"])
        } else {
            Found::Clean
        }
    });
    assert_eq!(radar.conflicts().count(), 3);
    // c is no longer watched: its two pairs clear, with nothing checked.
    let t2 = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
    ]);
    let (checked, changes) = pass(&mut radar, &t2, |_| Found::Clean);
    assert!(checked.is_empty());
    assert_eq!(changes.len(), 2);
    assert!(
        changes
            .iter()
            .all(|c| c.state == ConflictState::Cleared && c.conflict.involves(&id("c")))
    );
}

#[test]
fn seeded_collisions_are_checked_and_cleared_when_gone() {
    let mut radar = Radar::new("/r");
    let old = TaskConflict {
        repo: "/r".into(),
        a: id("a"),
        b: Some(id("b")),
        target_branch: None,
        paths: vec!["x".into()],
        since: now(),
    };
    let elsewhere = TaskConflict {
        repo: "/other".into(),
        ..old.clone()
    };
    radar.seed([old, elsewhere]);
    assert_eq!(radar.conflicts().count(), 1);
    let t = tips(&[
        ("a", tip("1", Some(("main", "m")))),
        ("b", tip("2", Some(("main", "m")))),
    ]);
    let (_, changes) = pass(&mut radar, &t, |_| Found::Clean);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].state, ConflictState::Cleared);
}
