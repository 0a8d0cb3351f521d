//! A board of several hosts: each host's world replaces only its own part,
//! events mark what they bring as their host's, the rows come under the
//! hosts' headings in fleet order, the links read as a person reads them,
//! and the queue runs across the hosts. The fleet fixtures are here, shared
//! with the routing and the view tests.

use super::*;
use crate::board::model::tests::*;
use crate::board::model::{LinkState, Row};
use signaltty_protocol::pane::{Lifecycle, Pane};
use signaltty_protocol::task::TaskState;
use signaltty_protocol::{Event, EventFrame, PaneId};

/// `devbox`'s world: workspace `ml` (ws_5) with one tab (tab_5) and the
/// panes `trainer` (pane_5) and `eval` (pane_6).
pub fn devbox_world() -> Vec<WorkspaceGetResult> {
    vec![got(
        workspace(5, "ml", &[5]),
        vec![tab(5, 5, "main")],
        vec![pane(5, 5, 5, "trainer"), pane(6, 5, 5, "eval")],
    )]
}

/// Three hosts: `local` with the two workspaces of the fixtures (seq 5),
/// `devbox` with `devbox_world` (seq 7), `gpu` still connecting.
pub fn fleet_board() -> Board {
    let mut b = Board::fleet(vec![
        ("local".into(), "/tmp/s.sock".into()),
        ("devbox".into(), "host devbox (me@devbox)".into()),
        ("gpu".into(), "host gpu (gpu.example)".into()),
    ]);
    b.load_from(0, two_workspaces(), 5);
    b.load_from(1, devbox_world(), 7);
    b
}

fn created(pane: Pane, seq: u64) -> EventFrame {
    frame(
        Event::PaneCreated {
            pane,
            resumed: None,
        },
        seq,
    )
}

fn pane_ids(b: &Board) -> Vec<PaneId> {
    let mut ids: Vec<PaneId> = b.panes.keys().cloned().collect();
    ids.sort();
    ids
}

#[test]
fn a_world_from_one_host_replaces_its_part_and_leaves_the_others() {
    let mut b = fleet_board();
    assert_eq!(b.panes.len(), 6);
    // devbox reconnects with one pane gone: local's four stay as they were.
    let mut world = devbox_world();
    world[0].panes.remove(1);
    b.load_from(1, world, 9);
    assert_eq!(
        pane_ids(&b),
        [1, 2, 3, 4, 5].map(pane_id).to_vec(),
        "only devbox's eval went"
    );
    assert_eq!(b.workspaces.len(), 3);
    // And local's fresh world leaves devbox's.
    b.load_from(0, vec![], 6);
    assert_eq!(pane_ids(&b), vec![pane_id(5)]);
    assert_eq!(b.tabs.len(), 1);
    assert_eq!(b.host_of_pane(&pane_id(5)), 1);
    // Each host keeps its own seq.
    assert_eq!((b.seq_of(0), b.seq_of(1), b.seq_of(2)), (6, 9, 0));
    assert_eq!(b.seq, 6, "host 0's seq is the board's own");
}

#[test]
fn an_event_marks_what_it_brings_as_its_hosts() {
    let mut b = fleet_board();
    b.apply_from(1, &created(pane(7, 5, 5, "lint"), 8));
    assert_eq!(b.host_of_pane(&pane_id(7)), 1);
    assert_eq!(b.seq_of(1), 8);
    assert_eq!(b.seq_of(0), 5, "another host's seq does not move");
    // local's reload keeps devbox's new pane; devbox's own reload drops it.
    b.load_from(0, two_workspaces(), 6);
    assert!(b.panes.contains_key(&pane_id(7)));
    b.load_from(1, devbox_world(), 9);
    assert!(!b.panes.contains_key(&pane_id(7)));
    // A closed pane is forgotten, owner and all.
    b.apply_from(
        1,
        &frame(
            Event::PaneClosed {
                pane_id: pane_id(6),
            },
            10,
        ),
    );
    assert!(!b.hosts.panes.contains_key(&pane_id(6)));
}

#[test]
fn the_rows_come_under_each_hosts_heading_in_fleet_order() {
    let b = fleet_board();
    let rows = b.rows();
    let at = |r: &Row| rows.iter().position(|x| x == r);
    assert_eq!(rows.first(), Some(&Row::Host(0)));
    let (local, devbox, gpu) = (at(&Row::Host(0)), at(&Row::Host(1)), at(&Row::Host(2)));
    let (web, ml) = (at(&Row::Workspace(ws_id(1))), at(&Row::Workspace(ws_id(5))));
    assert!(local < web && web < devbox && devbox < ml && ml < gpu);
    // gpu has nothing yet: its heading alone, last.
    assert_eq!(gpu, Some(rows.len() - 1));
    // The panes in list order: local's, then devbox's.
    assert_eq!(b.pane_order(), [1, 2, 3, 4, 5, 6].map(pane_id).to_vec());
    // A filter keeps the headings (their links are worth seeing).
    let mut b = b;
    b.filter_text = "trainer".into();
    let rows = b.rows();
    assert_eq!(rows.iter().filter(|r| matches!(r, Row::Host(_))).count(), 3);
    assert_eq!(b.pane_order(), vec![pane_id(5)]);
    // And the host's name is something to filter by.
    b.filter_text = "devbox".into();
    assert_eq!(b.pane_order(), vec![pane_id(5), pane_id(6)]);
}

#[test]
fn one_host_has_no_heading() {
    let mut b = Board::fleet(vec![("devbox".into(), "host devbox (me@devbox)".into())]);
    b.load_from(0, devbox_world(), 3);
    assert!(!b.several_hosts());
    assert_eq!(b.rows().first(), Some(&Row::Workspace(ws_id(5))));
    assert_eq!(b.host_tag(&pane_id(5)), None);
    assert_eq!(b.socket, "host devbox (me@devbox)");
    // "devbox" is not a filter word on a single-host board.
    b.filter_text = "devbox".into();
    assert!(b.pane_order().is_empty());
}

#[test]
fn the_links_read_connecting_connected_reconnecting_and_unreachable() {
    let mut b = fleet_board();
    assert_eq!(b.link(0), LinkState::Connected);
    assert_eq!(b.link(2), LinkState::Connecting);
    // gpu fails before it was ever live: unreachable, and stays so.
    b.lose(2, "ssh failed: Connection refused".into());
    assert_eq!(
        b.link(2),
        LinkState::Unreachable {
            why: "ssh failed: Connection refused"
        }
    );
    // devbox drops after being live: reconnecting since then, with the
    // first reason; a second failure keeps both.
    b.lose(1, "devbox: not answering (silent for 6 s)".into());
    let LinkState::Reconnecting { since, why } = b.link(1) else {
        panic!("{:?}", b.link(1));
    };
    assert_eq!(why, "devbox: not answering (silent for 6 s)");
    b.lose(1, "ssh failed".into());
    assert_eq!(
        b.link(1),
        LinkState::Reconnecting {
            since,
            why: "devbox: not answering (silent for 6 s)"
        }
    );
    // Its panes stay listed, as last known; local is untouched.
    assert_eq!(b.panes.len(), 6);
    assert!(b.is_live(0) && !b.is_live(1));
    assert_eq!(b.conn, Conn::Live);
    // Back: connected again.
    b.load_from(1, devbox_world(), 12);
    assert_eq!(b.link(1), LinkState::Connected);
}

#[test]
fn the_queue_runs_oldest_first_across_the_hosts_and_names_them() {
    let mut b = fleet_board();
    let mut world = devbox_world();
    world[0].panes[1] = asking(world[0].panes[1].clone(), decision("d6", "rm?", T0 + 5_000));
    b.load_from(1, world, 8);
    let ask = |p: Pane, at: i64| asking(p, decision("d2", "push?", at));
    b.apply_from(0, &created(ask(pane(2, 1, 1, "back"), T0 + 9_000), 6));
    b.apply_from(1, &created(ask(pane(5, 5, 5, "trainer"), T0 + 1_000), 9));
    let ids: Vec<&PaneId> = b.queue().iter().map(|p| &p.id).collect();
    assert_eq!(ids, vec![&pane_id(5), &pane_id(6), &pane_id(2)]);
    assert_eq!(b.host_tag(&pane_id(6)), Some("devbox"));
    assert_eq!(b.host_tag(&pane_id(2)), Some("local"));
    // The counts are the whole fleet's.
    assert_eq!(b.counts().blocked, 3);
    assert_eq!(b.counts().working, 3);
}

#[test]
fn a_hosts_first_load_is_not_news_even_when_another_host_was_live() {
    let mut b = fleet_board();
    let mut world = devbox_world();
    world[0].panes[0].lifecycle = Lifecycle::Blocked;
    let mut b2 = Board::fleet(vec![
        ("local".into(), "s".into()),
        ("devbox".into(), "d".into()),
    ]);
    b2.load_from(0, two_workspaces(), 1);
    assert!(b2.load_from(1, world.clone(), 1).is_empty());
    // A reload after a drop reports what began meanwhile, on that host.
    b.lose(1, "gone".into());
    let began = b.load_from(1, world, 9);
    assert_eq!(began.len(), 1);
    assert_eq!(began[0].pane, pane_id(5));
}

#[test]
fn each_hosts_tasks_replace_only_its_own() {
    let mut b = fleet_board();
    b.load_tasks_from(0, vec![task(1, "parser", TaskState::Working)]);
    b.load_tasks_from(1, vec![task(5, "train", TaskState::Working)]);
    assert_eq!(b.tasks.len(), 2);
    assert_eq!(b.host_of_task(&task_id(5)), 1);
    b.load_tasks_from(1, vec![]);
    assert_eq!(b.tasks.len(), 1);
    assert_eq!(b.tasks[0].id, task_id(1));
    // A task an event brings is its host's.
    let t = task(6, "eval", TaskState::Working);
    let created = Event::TaskCreated { task: Box::new(t) };
    b.apply_from(1, &frame(created, 10));
    assert_eq!(b.host_of_task(&task_id(6)), 1);
}

#[test]
fn storage_and_labels_are_per_host() {
    let mut b = fleet_board();
    let full: signaltty_protocol::server::StorageStatus = serde_json::from_value(
        serde_json::json!({"state": "degraded", "dir": "/data/stt", "reason": "no_space"}),
    )
    .unwrap();
    b.set_storage(1, Some(full.clone()));
    assert_eq!(b.storage_of(1), Some(&full));
    assert_eq!(b.storage, None, "host 0's stays fine");
    assert_eq!(b.host_label(1), "host devbox (me@devbox)");
    assert_eq!(b.host_label(0), "/tmp/s.sock");
    b.select(&pane_id(6));
    assert_eq!(b.selected_host(), 1);
    assert_eq!(b.host_of_row(&Row::Tab(tab_id(5))), 1);
    assert_eq!(b.host_of_row(&Row::Workspace(ws_id(2))), 0);
}
