use super::*;
use crate::board::model::tests::{asking, decision, loaded, two_workspaces};

#[test]
fn every_host_workspace_and_pane_is_an_item_with_its_order() {
    let board = loaded(two_workspaces());
    let items = of(&board);
    assert_eq!(items["host/local"]["state"], "live");
    let panes: Vec<&Value> = items
        .values()
        .map(|v| &**v)
        .filter(|i| i["kind"] == "pane")
        .collect();
    assert_eq!(panes.len(), board.panes.len());
    let mut orders: Vec<u64> = panes.iter().filter_map(|p| p["order"].as_u64()).collect();
    orders.sort();
    assert_eq!(orders, (0..panes.len() as u64).collect::<Vec<_>>());
    assert!(items.keys().any(|k| k.starts_with("ws/local/")));
}

#[test]
fn a_question_changes_only_its_panes_item() {
    let board = loaded(two_workspaces());
    let before = of(&board);
    let mut world = two_workspaces();
    world[0].panes[0] = asking(world[0].panes[0].clone(), decision("d1", "Run rm?", 5));
    let after = of(&loaded(world));
    let (set, del) = diff(&before, &after);
    assert!(del.is_empty(), "{del:?}");
    let keys: Vec<&str> = set.iter().filter_map(|i| i["key"].as_str()).collect();
    assert_eq!(keys, ["pane/local/pane_1"]);
    let q = set
        .iter()
        .find(|i| i["pane"]["pending_decision"]["id"] == "d1")
        .expect("the asking pane is sent");
    assert_eq!(q["pane"]["pending_decision"]["prompt"], "Run rm?");
}

#[test]
fn the_same_items_make_no_patch_and_a_gone_pane_is_deleted() {
    let board = loaded(two_workspaces());
    let a = of(&board);
    assert_eq!(diff(&a, &a), (vec![], vec![]));
    let mut fewer = a.clone();
    let gone = fewer
        .keys()
        .find(|k| k.starts_with("pane/"))
        .cloned()
        .expect("a pane");
    fewer.remove(&gone);
    assert_eq!(diff(&a, &fewer), (vec![], vec![gone]));
}

#[test]
fn a_maker_remakes_only_the_items_whose_model_changed() {
    let mut maker = Maker::default();
    let before = maker.of(&loaded(two_workspaces()));
    let mut world = two_workspaces();
    world[0].panes[0] = asking(world[0].panes[0].clone(), decision("d1", "Run rm?", 5));
    let after = maker.of(&loaded(world.clone()));
    let remade: Vec<&str> = after
        .iter()
        .filter(|(k, v)| k.starts_with("pane/") && !Arc::ptr_eq(v, &before[*k]))
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(remade, ["pane/local/pane_1"]);
    // What it makes is what a fresh start makes.
    assert_eq!(after, of(&loaded(world.clone())));
    // A gone pane is forgotten.
    let gone = world[0].panes.remove(0);
    maker.of(&loaded(world));
    assert!(
        !maker.panes.keys().any(|k| k.ends_with(gone.id.0.as_str())),
        "still remembered"
    );
}

#[test]
fn a_collision_is_an_item_and_its_clearing_deletes_it() {
    let mut board = loaded(two_workspaces());
    let before = of(&board);
    board.load_conflicts_from(
        0,
        vec![signaltty_protocol::task::conflict::TaskConflict {
            repo: "/src/app".into(),
            a: signaltty_protocol::TaskId("task_1".into()),
            b: None,
            target_branch: Some("main".into()),
            paths: vec!["README.md".into()],
            since: signaltty_protocol::time::Timestamp("2026-12-07T10:00:00.000Z".into()),
        }],
    );
    let with = of(&board);
    let (set, del) = diff(&before, &with);
    assert!(del.is_empty(), "{del:?}");
    assert_eq!(set.len(), 1, "{set:?}");
    assert_eq!(set[0]["key"], "conflict/local/task_1/target");
    assert_eq!(set[0]["kind"], "conflict");
    assert_eq!(set[0]["conflict"]["paths"][0], "README.md");
    board.load_conflicts_from(0, vec![]);
    let (set, del) = diff(&with, &of(&board));
    assert!(set.is_empty());
    assert_eq!(del, ["conflict/local/task_1/target"]);
}
