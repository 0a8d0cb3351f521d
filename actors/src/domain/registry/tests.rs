//! Registry invariants, without an actor system: the actors are stood in for
//! by plain numbers.

use super::*;
use signaltty_protocol::PaneRef;

type Reg = Registry<u32, u32>;

fn ws(n: u128) -> WorkspaceId {
    WorkspaceId::from_random(n)
}

fn tab(n: u128) -> TabId {
    TabId::from_random(n)
}

fn pane_id(n: u128) -> PaneId {
    PaneId::from_random(n)
}

fn pane_ref(s: &str) -> PaneRef {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).unwrap()
}

fn entry(n: u128, workspace: &WorkspaceId, t: &TabId) -> PaneEntry<u32> {
    PaneEntry {
        id: pane_id(n),
        addr: n as u32,
        workspace: workspace.clone(),
        tab: t.clone(),
        pid: 1000 + n as u32,
        tail: Default::default(),
    }
}

/// One workspace `my-api` with tab 1 holding panes 1 and 2.
fn one_workspace() -> (Reg, WorkspaceId) {
    let mut reg = Reg::new();
    let id = ws(1);
    let handle = reg.free_handle("My API");
    reg.add_workspace(id.clone(), handle, 7).unwrap();
    reg.add_pane(entry(1, &id, &tab(1)));
    reg.add_pane(entry(2, &id, &tab(1)));
    reg.check_invariants().unwrap();
    (reg, id)
}

#[test]
fn a_workspace_resolves_by_id_and_by_its_handle_derived_once() {
    let (mut reg, id) = one_workspace();
    assert_eq!(
        reg.workspace(&WorkspaceRef("my-api".into())).unwrap(),
        (id.clone(), 7)
    );
    assert_eq!(reg.workspace(&WorkspaceRef(id.0.clone())).unwrap().0, id);
    // A second workspace of the same name gets the next free handle.
    let handle = reg.free_handle("My API");
    assert_eq!(handle, "my-api-2");
    reg.add_workspace(ws(2), handle, 8).unwrap();
    assert_eq!(
        reg.workspace(&WorkspaceRef("my-api-2".into())).unwrap().1,
        8
    );
    assert!(matches!(
        reg.workspace(&WorkspaceRef("nope".into())),
        Err(Error::NoSuchWorkspace(_))
    ));
    reg.check_invariants().unwrap();
}

#[test]
fn a_handle_taken_between_choosing_and_adding_is_refused() {
    let (mut reg, _) = one_workspace();
    assert!(reg.add_workspace(ws(9), "my-api".into(), 9).is_err());
    reg.check_invariants().unwrap();
}

#[test]
fn closing_a_workspace_removes_its_handle_tabs_panes_and_names() {
    let (mut reg, id) = one_workspace();
    reg.set_pane_name(&pane_id(1), Some("web")).unwrap();
    reg.attach(ConnId(1), &pane_id(2));
    let other = ws(2);
    reg.add_workspace(other.clone(), reg.free_handle("other"), 8)
        .unwrap();
    reg.add_pane(entry(3, &other, &tab(3)));

    let removed = reg.remove_workspace(&id);
    let mut gone: Vec<u32> = removed.iter().map(|e| e.addr).collect();
    gone.sort();
    assert_eq!(gone, vec![1, 2]);
    assert!(reg.workspace(&WorkspaceRef("my-api".into())).is_err());
    assert!(matches!(reg.tab(&tab(1)), Err(Error::NoSuchTab(_))));
    assert!(reg.resolve(&pane_ref("web")).is_err());
    assert!(reg.disconnect(ConnId(1)).is_empty());
    // The handle is free again, and the other workspace is untouched.
    assert_eq!(reg.free_handle("My API"), "my-api");
    assert_eq!(reg.pane(&pane_ref(pane_id(3).as_str())).unwrap().addr, 3);
    reg.check_invariants().unwrap();
}

#[test]
fn closing_a_tab_removes_its_panes_and_frees_their_names() {
    let (mut reg, id) = one_workspace();
    reg.add_pane(entry(3, &id, &tab(2)));
    reg.set_pane_name(&pane_id(1), Some("web")).unwrap();
    let removed = reg.remove_tab(&tab(1));
    assert_eq!(removed.len(), 2);
    assert!(reg.resolve(&pane_ref("web")).is_err());
    assert_eq!(reg.tab(&tab(2)).unwrap(), (tab(2), 7));
    reg.set_pane_name(&pane_id(3), Some("web")).unwrap();
    reg.check_invariants().unwrap();
}

#[test]
fn a_pane_resolves_by_id_then_by_name() {
    let (mut reg, _) = one_workspace();
    reg.set_pane_name(&pane_id(2), Some("api-1")).unwrap();
    assert_eq!(reg.resolve(&pane_ref("api-1")).unwrap(), pane_id(2));
    assert_eq!(
        reg.resolve(&pane_ref(pane_id(1).as_str())).unwrap(),
        pane_id(1)
    );
    let Err(Error::NoSuchPane(what)) = reg.resolve(&pane_ref("missing")) else {
        panic!("an unknown name must be NO_SUCH_PANE");
    };
    assert_eq!(what, "missing");
}

#[test]
fn a_pane_name_is_unique_and_renaming_frees_the_old_one() {
    let (mut reg, _) = one_workspace();
    reg.set_pane_name(&pane_id(1), Some("web")).unwrap();
    let taken = reg.set_pane_name(&pane_id(2), Some("web")).unwrap_err();
    assert!(
        taken.to_string().contains("taken by another pane"),
        "{taken}"
    );
    // Renaming to the same name is fine; a new name frees the old one.
    reg.set_pane_name(&pane_id(1), Some("web")).unwrap();
    reg.set_pane_name(&pane_id(1), Some("www")).unwrap();
    reg.set_pane_name(&pane_id(2), Some("web")).unwrap();
    assert_eq!(reg.pane_name(&pane_id(1)), Some("www"));
    // Clearing frees it too.
    reg.set_pane_name(&pane_id(1), None).unwrap();
    assert_eq!(reg.pane_name(&pane_id(1)), None);
    reg.set_pane_name(&pane_id(2), Some("www")).unwrap();
    assert!(reg.resolve(&pane_ref("web")).is_err());
    reg.check_invariants().unwrap();
}

#[test]
fn invalid_pane_names_are_refused_with_the_rule() {
    let (mut reg, _) = one_workspace();
    for bad in [
        "",
        "Web",
        "1st",
        "a b",
        "pane_x_but-way-too-long-for-a-pane-name",
        "é",
    ] {
        let e = reg.set_pane_name(&pane_id(1), Some(bad)).unwrap_err();
        assert!(matches!(e, Error::BadParams(_)), "{bad:?}: {e}");
    }
    assert!(valid_pane_name("a"));
    assert!(valid_pane_name("web-1_x"));
    assert_eq!(reg.pane_name(&pane_id(1)), None);
}

#[test]
fn a_removed_pane_frees_its_name_and_its_attachments() {
    let (mut reg, _) = one_workspace();
    reg.set_pane_name(&pane_id(1), Some("web")).unwrap();
    reg.attach(ConnId(4), &pane_id(1));
    reg.attach(ConnId(4), &pane_id(2));
    assert_eq!(reg.remove_pane(&pane_id(1)).unwrap().addr, 1);
    assert!(reg.remove_pane(&pane_id(1)).is_none());
    assert!(reg.resolve(&pane_ref("web")).is_err());
    let told: Vec<u32> = reg.disconnect(ConnId(4)).iter().map(|e| e.addr).collect();
    assert_eq!(told, vec![2]);
    reg.check_invariants().unwrap();
}

#[test]
fn attachments_are_per_connection_and_idempotent() {
    let (mut reg, _) = one_workspace();
    reg.attach(ConnId(1), &pane_id(1));
    reg.attach(ConnId(1), &pane_id(1));
    reg.attach(ConnId(2), &pane_id(1));
    reg.detach(ConnId(2), &pane_id(1));
    assert!(reg.disconnect(ConnId(2)).is_empty());
    assert_eq!(reg.disconnect(ConnId(1)).len(), 1);
    // Gone once told.
    assert!(reg.disconnect(ConnId(1)).is_empty());
    // An unknown pane is never recorded.
    reg.attach(ConnId(3), &pane_id(99));
    assert!(reg.disconnect(ConnId(3)).is_empty());
}

#[test]
fn a_pane_placed_after_its_workspace_closed_is_not_registered() {
    let (mut reg, id) = one_workspace();
    reg.remove_workspace(&id);
    reg.add_pane(entry(5, &id, &tab(5)));
    assert!(reg.pane_by_id(&pane_id(5)).is_none());
    assert!(reg.tab(&tab(5)).is_err());
    reg.check_invariants().unwrap();
}

#[test]
fn moving_a_pane_changes_its_tab_and_resume_its_pid() {
    let (mut reg, id) = one_workspace();
    reg.add_tab(tab(2), id.clone());
    reg.move_pane(&pane_id(1), tab(2));
    reg.set_pid(&pane_id(1), 42);
    let e = reg.pane_by_id(&pane_id(1)).unwrap();
    assert_eq!((e.tab.clone(), e.pid), (tab(2), 42));
    assert_eq!(reg.remove_tab(&tab(2)).len(), 1);
    reg.check_invariants().unwrap();
}

#[test]
fn the_shape_round_trips_through_json() {
    let (mut reg, id) = one_workspace();
    reg.set_pane_name(&pane_id(2), Some("web")).unwrap();
    let shape = reg.shape();
    assert_eq!(shape.workspaces[&id].handle, "my-api");
    assert_eq!(shape.workspaces[&id].tabs, vec![tab(1)]);
    assert_eq!(shape.panes[&pane_id(2)].name.as_deref(), Some("web"));
    let json = serde_json::to_string(&shape).unwrap();
    let back: RegistryShape = serde_json::from_str(&json).unwrap();
    assert_eq!(back, shape);
}

#[test]
fn reserved_names_are_all_or_none_and_no_rename_takes_them() {
    let (mut reg, _) = one_workspace();
    reg.set_pane_name(&pane_id(1), Some("held")).unwrap();
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    // Held by a pane, repeated or invalid: nothing is reserved.
    assert!(reg.reserve_names(&names(&["free", "held"])).is_err());
    assert!(reg.reserve_names(&names(&["twice", "twice"])).is_err());
    assert!(reg.reserve_names(&names(&["Bad"])).is_err());
    reg.set_pane_name(&pane_id(2), Some("free")).unwrap();
    reg.set_pane_name(&pane_id(2), None).unwrap();
    // Reserved: refused to renames and to a second reservation until released.
    reg.reserve_names(&names(&["free"])).unwrap();
    assert!(reg.set_pane_name(&pane_id(2), Some("free")).is_err());
    assert!(reg.reserve_names(&names(&["free"])).is_err());
    reg.release_names(&names(&["free"]));
    reg.set_pane_name(&pane_id(2), Some("free")).unwrap();
    reg.check_invariants().unwrap();
}

#[test]
fn a_shortened_id_names_the_one_pane_workspace_or_tab_it_starts_and_no_other() {
    // Ids that differ from their first characters, as random ones do.
    let big = |n: u128| n << 96 | 0x5a5a;
    let mut reg = Reg::new();
    let id = ws(big(0xa1b2_c3d4));
    let t = tab(big(0xb1b2_c3d4));
    reg.add_workspace(id.clone(), reg.free_handle("w"), 7)
        .unwrap();
    let p1 = pane_id(big(0xc1c2_c3c4));
    reg.add_pane(PaneEntry {
        id: p1.clone(),
        ..entry(1, &id, &t)
    });
    let short = |id: &str| id[..id.find('_').unwrap() + 1 + 8].to_owned();
    assert_eq!(reg.resolve(&pane_ref(&short(p1.as_str()))).unwrap(), p1);
    assert_eq!(
        reg.resolve(&pane_ref(&format!("{}…", short(p1.as_str()))))
            .unwrap(),
        p1,
        "as ids are printed cut"
    );
    assert_eq!(reg.workspace(&WorkspaceRef(short(&id.0))).unwrap().0, id);
    assert_eq!(reg.tab(&TabId(short(&t.0))).unwrap().0, t);
    // Too short to be taken for an id: `pane_` and three characters.
    let three = &p1.as_str()[.."pane_".len() + 3];
    assert!(matches!(
        reg.resolve(&pane_ref(three)),
        Err(Error::NoSuchPane(_))
    ));
    // Two panes whose ids start alike: the prefix is ambiguous.
    let twin = PaneId(format!("{}ffff", short(p1.as_str())));
    reg.add_pane(PaneEntry {
        id: twin.clone(),
        ..entry(3, &id, &t)
    });
    match reg.resolve(&pane_ref(&short(p1.as_str()))) {
        Err(Error::BadParams(m)) => assert!(m.contains("ambiguous"), "{m}"),
        other => panic!("expected an ambiguous prefix, got {other:?}"),
    }
    assert_eq!(reg.resolve(&pane_ref(twin.as_str())).unwrap(), twin);
    reg.check_invariants().unwrap();
}
