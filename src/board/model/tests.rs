//! The board's model without a terminal or a server. The fixtures are shared
//! with the view's rendering tests.

use super::*;
use signaltty_protocol::pane::{AgentInfo, AgentKind, LiveState, PtySize};
use signaltty_protocol::state::{Decision, DecisionOption};
use signaltty_protocol::workspace::GitInfo;
use signaltty_protocol::{Event, Timestamp};

/// 2026-01-01T00:00:00Z, the fixtures' "now" region.
pub const T0: i64 = 1_767_225_600_000;

pub fn ts(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms)
}

pub fn ws_id(n: u32) -> WorkspaceId {
    WorkspaceId(format!("ws_{n}"))
}

pub fn tab_id(n: u32) -> TabId {
    TabId(format!("tab_{n}"))
}

pub fn pane_id(n: u32) -> PaneId {
    PaneId(format!("pane_{n}"))
}

pub fn workspace(n: u32, name: &str, tabs: &[u32]) -> Workspace {
    Workspace {
        id: ws_id(n),
        name: name.into(),
        handle: name.to_lowercase().replace(' ', "-"),
        cwd: format!("/src/{name}"),
        git: GitInfo::default(),
        tabs: tabs.iter().map(|t| tab_id(*t)).collect(),
        active_tab_id: tabs.first().map(|t| tab_id(*t)),
        auto_resume: false,
        hibernate_after_s: None,
        auto_continue: false,
        auto_continue_prompt: None,
        created_at: ts(T0),
        updated_at: ts(T0),
    }
}

pub fn tab(n: u32, ws: u32, title: &str) -> Tab {
    Tab {
        id: tab_id(n),
        workspace_id: ws_id(ws),
        title: title.into(),
        layout: None,
        active_pane_id: None,
        created_at: ts(T0),
    }
}

/// A live, working claude pane `pane_<n>` named `name`, created `n` seconds
/// after T0 (so panes list in the order of their numbers).
pub fn pane(n: u32, ws: u32, tab: u32, name: &str) -> Pane {
    Pane {
        id: pane_id(n),
        workspace_id: ws_id(ws),
        tab_id: tab_id(tab),
        name: Some(name.into()),
        title: "claude".into(),
        cwd: "/src".into(),
        argv: vec!["claude".into()],
        pty_size: PtySize::DEFAULT,
        live: LiveState::Live,
        restore_state: RestoreState::Live,
        agent: AgentInfo {
            kind: AgentKind::Claude,
            agent_session_id: None,
            resume_argv: None,
            model: None,
            config_env: None,
            version: None,
            fidelity: None,
        },
        lifecycle: Lifecycle::Working,
        last_lifecycle: Lifecycle::Idle,
        lifecycle_since: Some(ts(T0)),
        last_run_secs: None,
        attention: Attention::None,
        attention_since: None,
        resets_at: None,
        last_message: None,
        created_at: ts(T0 + i64::from(n) * 1000),
        last_activity_at: ts(T0),
        last_seen_at: None,
        parent_pane_id: None,
        root_pane_id: None,
        label: None,
        relationship: None,
        task_id: None,
        pending_decision: None,
        hibernation: None,
    }
}

/// A permission question with Allow once / Deny, asked at `at_ms`.
pub fn decision(id: &str, prompt: &str, at_ms: i64) -> Decision {
    Decision {
        id: id.into(),
        prompt: prompt.into(),
        options: vec![
            DecisionOption {
                id: "once".into(),
                label: "Allow once".into(),
            },
            DecisionOption {
                id: "deny".into(),
                label: "Deny".into(),
            },
        ],
        answerable: true,
        received_at: ts(at_ms),
    }
}

/// `pane` waiting on `decision`: blocked, permission required.
pub fn asking(mut pane: Pane, decision: Decision) -> Pane {
    pane.lifecycle = Lifecycle::Blocked;
    pane.attention = Attention::PermissionRequired;
    pane.pending_decision = Some(Box::new(decision));
    pane
}

pub fn got(ws: Workspace, tabs: Vec<Tab>, panes: Vec<Pane>) -> WorkspaceGetResult {
    WorkspaceGetResult {
        workspace: ws,
        tabs,
        panes,
    }
}

/// Two workspaces: `web` with tabs `agents` (panes 1, 2) and `tests`
/// (pane 3), `api` with one tab (pane 4).
pub fn two_workspaces() -> Vec<WorkspaceGetResult> {
    vec![
        got(
            workspace(1, "web", &[1, 2]),
            vec![tab(1, 1, "agents"), tab(2, 1, "tests")],
            vec![
                pane(1, 1, 1, "front"),
                pane(2, 1, 1, "back"),
                pane(3, 1, 2, "e2e"),
            ],
        ),
        got(
            workspace(2, "api", &[3]),
            vec![tab(3, 2, "main")],
            vec![pane(4, 2, 3, "server")],
        ),
    ]
}

pub fn loaded(world: Vec<WorkspaceGetResult>) -> Board {
    let mut b = Board::new("/tmp/signaltty/test.sock".into());
    b.load(world, 1);
    b
}

pub fn frame(event: Event, seq: u64) -> EventFrame {
    EventFrame::new(event.name(), seq, event.payload())
}

fn blocked_event(pane: Pane, seq: u64) -> EventFrame {
    let prev = pane.last_lifecycle;
    frame(
        Event::lifecycle(pane, Lifecycle::Blocked, prev, "hook".into()),
        seq,
    )
}

fn updated(pane: Pane, seq: u64) -> EventFrame {
    frame(
        Event::PaneUpdated {
            pane_id: pane.id.clone(),
            pane,
        },
        seq,
    )
}

#[test]
fn load_groups_panes_by_workspace_and_tab_with_tab_rows_only_for_several_tabs() {
    let b = loaded(two_workspaces());
    assert_eq!(
        b.rows(),
        vec![
            Row::Workspace(ws_id(1)),
            Row::Tab(tab_id(1)),
            Row::Pane(pane_id(1)),
            Row::Pane(pane_id(2)),
            Row::Tab(tab_id(2)),
            Row::Pane(pane_id(3)),
            Row::Workspace(ws_id(2)),
            Row::Pane(pane_id(4)),
        ]
    );
    assert_eq!(b.conn, Conn::Live);
    assert_eq!(b.selected, Some(pane_id(1)));
    assert_eq!(b.seq, 1);
}

#[test]
fn panes_of_a_tab_list_in_creation_order_whatever_the_load_order() {
    let mut late = pane(1, 1, 1, "late");
    late.created_at = ts(T0 + 60_000);
    let world = vec![got(
        workspace(1, "web", &[1]),
        vec![tab(1, 1, "agents")],
        vec![late, pane(2, 1, 1, "early")],
    )];
    let b = loaded(world);
    assert_eq!(b.pane_order(), vec![pane_id(2), pane_id(1)]);
}

#[test]
fn an_empty_workspace_keeps_its_heading_unless_filtering() {
    let mut world = two_workspaces();
    world.push(got(
        workspace(3, "empty", &[4]),
        vec![tab(4, 3, "t")],
        vec![],
    ));
    let mut b = loaded(world);
    assert!(b.rows().contains(&Row::Workspace(ws_id(3))));
    b.filter_text = "front".into();
    assert!(!b.rows().contains(&Row::Workspace(ws_id(3))));
}

#[test]
fn the_text_filter_looks_at_name_title_message_cwd_and_id_and_hides_groups() {
    let mut world = two_workspaces();
    world[0].panes[1].last_message = Some("Refactoring the LOGIN form".into());
    world[1].panes[0].cwd = "/srv/billing".into();
    let mut b = loaded(world);
    b.filter_text = "front".into();
    assert_eq!(
        b.rows(),
        vec![
            Row::Workspace(ws_id(1)),
            Row::Tab(tab_id(1)),
            Row::Pane(pane_id(1)),
        ]
    );
    b.filter_text = "login".into();
    assert_eq!(b.pane_order(), vec![pane_id(2)]);
    b.filter_text = "BILLING".into();
    assert_eq!(
        b.rows(),
        vec![Row::Workspace(ws_id(2)), Row::Pane(pane_id(4))]
    );
    b.filter_text = "pane_3".into();
    assert_eq!(b.pane_order(), vec![pane_id(3)]);
    b.filter_text = "claude".into();
    assert_eq!(b.pane_order().len(), 4);
    b.filter_text = "nothing like it".into();
    assert!(b.rows().is_empty());
    b.filter_text = "   ".into();
    assert_eq!(b.rows().len(), 8);
}

#[test]
fn each_state_filter_keeps_its_panes() {
    let mut world = two_workspaces();
    // 1 working, 2 blocked, 3 done, 4 idle with a question.
    world[0].panes[1].lifecycle = Lifecycle::Blocked;
    world[0].panes[2].lifecycle = Lifecycle::Done;
    world[1].panes[0] = asking(world[1].panes[0].clone(), decision("d1", "ok?", T0));
    world[1].panes[0].lifecycle = Lifecycle::Idle;
    let mut b = loaded(world);
    b.state_filter = Some(StateFilter::Working);
    assert_eq!(b.pane_order(), vec![pane_id(1)]);
    b.state_filter = Some(StateFilter::Blocked);
    assert_eq!(b.pane_order(), vec![pane_id(2), pane_id(4)]);
    b.state_filter = Some(StateFilter::Done);
    assert_eq!(
        b.rows(),
        vec![
            Row::Workspace(ws_id(1)),
            Row::Tab(tab_id(2)),
            Row::Pane(pane_id(3)),
        ]
    );
    // Attention alone counts as waiting.
    b.panes.get_mut(&pane_id(1)).unwrap().attention = Attention::InputRequired;
    b.state_filter = Some(StateFilter::Blocked);
    assert_eq!(b.pane_order(), vec![pane_id(1), pane_id(2), pane_id(4)]);
    assert_eq!(StateFilter::Blocked.name(), "blocked");
    assert_eq!(StateFilter::Working.name(), "working");
    assert_eq!(StateFilter::Done.name(), "done");
}

#[test]
fn text_and_state_filters_combine() {
    let mut world = two_workspaces();
    world[0].panes[0].lifecycle = Lifecycle::Done;
    world[0].panes[2].lifecycle = Lifecycle::Done;
    let mut b = loaded(world);
    b.state_filter = Some(StateFilter::Done);
    b.filter_text = "e2e".into();
    assert_eq!(b.pane_order(), vec![pane_id(3)]);
}

#[test]
fn moving_the_selection_clamps_at_both_ends() {
    let mut b = loaded(two_workspaces());
    b.move_selection(-5);
    assert_eq!(b.selected, Some(pane_id(1)));
    b.move_selection(2);
    assert_eq!(b.selected, Some(pane_id(3)));
    b.move_selection(100);
    assert_eq!(b.selected, Some(pane_id(4)));
    b.move_selection(isize::MIN / 2);
    assert_eq!(b.selected, Some(pane_id(1)));
    let mut empty = loaded(vec![]);
    empty.move_selection(1);
    assert_eq!(empty.selected, None);
}

#[test]
fn the_selection_stays_on_its_pane_and_moves_to_the_first_when_it_closes() {
    let mut b = loaded(two_workspaces());
    b.select(&pane_id(3));
    // A reload keeps it.
    b.load(two_workspaces(), 2);
    assert_eq!(b.selected, Some(pane_id(3)));
    b.apply(&frame(
        Event::PaneClosed {
            pane_id: pane_id(3),
        },
        3,
    ));
    assert_eq!(b.selected, Some(pane_id(1)));
    // A filter hiding it moves it to the first shown pane.
    b.filter_text = "server".into();
    b.keep_selection();
    assert_eq!(b.selected, Some(pane_id(4)));
}

#[test]
fn selecting_a_pane_a_filter_hides_clears_the_filters() {
    let mut b = loaded(two_workspaces());
    b.filter_text = "front".into();
    b.state_filter = Some(StateFilter::Working);
    b.select(&pane_id(1));
    assert_eq!(b.filter_text, "front", "a shown pane keeps the filter");
    b.select(&pane_id(4));
    assert_eq!(b.selected, Some(pane_id(4)));
    assert!(b.filter_text.is_empty());
    assert_eq!(b.state_filter, None);
    // An unknown pane changes nothing.
    b.select(&pane_id(99));
    assert_eq!(b.selected, Some(pane_id(4)));
}

#[test]
fn workspace_events_add_update_and_close_with_their_tabs_and_panes() {
    let mut b = loaded(two_workspaces());
    let w = workspace(3, "docs", &[]);
    b.apply(&frame(
        Event::WorkspaceCreated {
            workspace: w.clone(),
        },
        5,
    ));
    assert_eq!(b.workspaces.len(), 3);
    assert_eq!(b.rows().last(), Some(&Row::Workspace(ws_id(3))));
    let mut renamed = w;
    renamed.name = "manual".into();
    b.apply(&frame(Event::WorkspaceUpdated { workspace: renamed }, 6));
    assert_eq!(b.workspaces.len(), 3);
    assert_eq!(b.workspace(&ws_id(3)).unwrap().name, "manual");
    b.apply(&frame(
        Event::WorkspaceClosed {
            workspace_id: ws_id(1),
        },
        7,
    ));
    assert!(b.workspace(&ws_id(1)).is_none());
    assert!(!b.tabs.contains_key(&tab_id(1)));
    assert!(!b.panes.contains_key(&pane_id(2)));
    assert_eq!(b.pane_order(), vec![pane_id(4)]);
    assert_eq!(b.selected, Some(pane_id(4)));
    assert_eq!(b.seq, 7);
}

#[test]
fn tab_events_add_update_and_close_with_their_panes() {
    let mut b = loaded(two_workspaces());
    b.apply(&frame(
        Event::TabCreated {
            tab: tab(9, 2, "review"),
        },
        5,
    ));
    assert_eq!(
        b.workspace(&ws_id(2)).unwrap().tabs,
        vec![tab_id(3), tab_id(9)]
    );
    // Two tabs now: the api workspace shows tab rows.
    assert!(b.rows().contains(&Row::Tab(tab_id(3))));
    assert!(b.rows().contains(&Row::Tab(tab_id(9))));
    b.apply(&frame(
        Event::TabUpdated {
            tab: tab(9, 2, "reviews"),
        },
        6,
    ));
    assert_eq!(b.tabs[&tab_id(9)].title, "reviews");
    assert_eq!(b.workspace(&ws_id(2)).unwrap().tabs.len(), 2);
    b.apply(&frame(Event::TabClosed { tab_id: tab_id(3) }, 7));
    assert!(!b.panes.contains_key(&pane_id(4)));
    assert_eq!(b.workspace(&ws_id(2)).unwrap().tabs, vec![tab_id(9)]);
    assert!(!b.rows().contains(&Row::Tab(tab_id(9))));
}

#[test]
fn pane_events_create_update_resize_and_close() {
    let mut b = loaded(two_workspaces());
    let p = pane(5, 2, 3, "worker");
    b.apply(&frame(
        Event::PaneCreated {
            pane: p.clone(),
            resumed: None,
        },
        5,
    ));
    assert_eq!(b.pane_order().last(), Some(&pane_id(5)));
    let mut p2 = p.clone();
    p2.last_message = Some("compiling".into());
    b.apply(&updated(p2, 6));
    assert_eq!(
        b.panes[&pane_id(5)].last_message.as_deref(),
        Some("compiling")
    );
    let mut p3 = b.panes[&pane_id(5)].clone();
    p3.pty_size = PtySize {
        cols: 120,
        rows: 40,
    };
    b.apply(&frame(Event::PaneResized { pane: p3 }, 7));
    assert_eq!(b.panes[&pane_id(5)].pty_size.cols, 120);
    b.apply(&frame(
        Event::PaneClosed {
            pane_id: pane_id(5),
        },
        8,
    ));
    assert!(!b.panes.contains_key(&pane_id(5)));
    assert_eq!(b.seq, 8);
}

#[test]
fn agent_and_attention_events_carry_the_pane() {
    let mut b = loaded(two_workspaces());
    let mut p = b.panes[&pane_id(2)].clone();
    p.lifecycle = Lifecycle::Done;
    p.last_message = Some("all green".into());
    b.apply(&frame(
        Event::lifecycle(
            p.clone(),
            Lifecycle::Done,
            Lifecycle::Working,
            "hook".into(),
        ),
        5,
    ));
    assert_eq!(b.panes[&pane_id(2)].lifecycle, Lifecycle::Done);
    assert_eq!(
        b.panes[&pane_id(2)].last_message.as_deref(),
        Some("all green")
    );
    p.attention = Attention::Warning;
    b.apply(&frame(
        Event::AttentionUpdated {
            pane_id: p.id.clone(),
            attention: Attention::Warning,
            prev: Attention::None,
            pane: Box::new(p),
        },
        6,
    ));
    assert_eq!(b.panes[&pane_id(2)].attention, Attention::Warning);
}

#[test]
fn an_unknown_event_changes_nothing_but_the_seq() {
    let mut b = loaded(two_workspaces());
    let rows = b.rows();
    let e = EventFrame::new("widget.sparkled", 42, serde_json::json!({"x": 1}));
    assert_eq!(b.apply(&e), None);
    assert_eq!(b.rows(), rows);
    assert_eq!(b.seq, 42);
}

#[test]
fn the_queue_lists_decisions_oldest_first() {
    let mut world = two_workspaces();
    world[0].panes[0] = asking(world[0].panes[0].clone(), decision("d1", "a?", T0 + 30_000));
    world[0].panes[2] = asking(world[0].panes[2].clone(), decision("d3", "c?", T0 + 10_000));
    world[1].panes[0] = asking(world[1].panes[0].clone(), decision("d4", "d?", T0 + 20_000));
    let b = loaded(world);
    let ids: Vec<&PaneId> = b.queue().iter().map(|p| &p.id).collect();
    assert_eq!(ids, vec![&pane_id(3), &pane_id(4), &pane_id(1)]);
}

#[test]
fn a_number_key_answers_the_selected_question_else_the_oldest_answerable_one() {
    let mut world = two_workspaces();
    world[0].panes[0] = asking(world[0].panes[0].clone(), decision("d1", "a?", T0 + 30_000));
    let mut read_only = decision("d3", "c?", T0 + 5_000);
    read_only.answerable = false;
    world[0].panes[2] = asking(world[0].panes[2].clone(), read_only);
    world[1].panes[0] = asking(world[1].panes[0].clone(), decision("d4", "d?", T0 + 20_000));
    let mut b = loaded(world);
    // Nothing selected, or a pane without a question: the oldest one the
    // board can answer (pane 3's is answered in its terminal).
    b.selected = None;
    assert_eq!(b.answer_target().map(|p| &p.id), Some(&pane_id(4)));
    b.select(&pane_id(2));
    assert_eq!(b.answer_target().map(|p| &p.id), Some(&pane_id(4)));
    // A selected pane with a question: that one.
    b.select(&pane_id(1));
    assert_eq!(b.answer_target().map(|p| &p.id), Some(&pane_id(1)));
    b.select(&pane_id(3));
    assert_eq!(b.answer_target().map(|p| &p.id), Some(&pane_id(3)));
    // No question anywhere: none.
    let b = loaded(two_workspaces());
    assert!(b.answer_target().is_none());
}

#[test]
fn a_pane_blocked_on_a_question_only_its_terminal_shows_is_queued_too() {
    let mut world = two_workspaces();
    world[0].panes[0] = asking(world[0].panes[0].clone(), decision("d1", "a?", T0 + 30_000));
    // Blocked by its screen (Codex's hook trust gate): no decision.
    let gate = &mut world[0].panes[1];
    gate.lifecycle = Lifecycle::Blocked;
    gate.attention = Attention::InputRequired;
    gate.attention_since = Some(ts(T0 + 10_000));
    // Blocked, but its question's attention was withdrawn, or it exited.
    world[0].panes[2].lifecycle = Lifecycle::Blocked;
    world[1].panes[0].lifecycle = Lifecycle::Blocked;
    world[1].panes[0].attention = Attention::InputRequired;
    world[1].panes[0].live = LiveState::Exited { code: Some(0) };
    let b = loaded(world);
    let ids: Vec<&PaneId> = b.queue().iter().map(|p| &p.id).collect();
    assert_eq!(ids, vec![&pane_id(2), &pane_id(1)]);
    assert!(asks_in_terminal(&b.panes[&pane_id(2)]));
    assert!(
        !asks_in_terminal(&b.panes[&pane_id(1)]),
        "it has a decision"
    );
}

#[test]
fn counts_per_state_and_unread() {
    let mut world = two_workspaces();
    world[0].panes[1].lifecycle = Lifecycle::Blocked;
    world[0].panes[2].lifecycle = Lifecycle::Done;
    world[0].panes[2].attention = Attention::Unread;
    world[1].panes[0].lifecycle = Lifecycle::Failed;
    let b = loaded(world);
    assert_eq!(
        b.counts(),
        Counts {
            working: 1,
            blocked: 1,
            done: 1,
            failed: 1,
            unread: 1,
            ..Counts::default()
        }
    );
}

#[test]
fn say_sets_the_flash() {
    let mut b = loaded(vec![]);
    b.say("answered", false);
    let f = b.flash.clone().unwrap();
    assert_eq!((f.text.as_str(), f.error), ("answered", false));
}

// The task fixtures live beside the task tests; the view tests use them too.
pub use super::tasks::tests::{reported, task, task_id};
// So are the fleet fixtures, beside the hosts' tests.
pub use super::hosts::tests::{devbox_world, fleet_board};

mod episodes;
