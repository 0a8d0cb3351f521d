//! A board of several hosts as drawn: each host's heading with its link
//! before its workspaces, the rows of a host that is down dimmed under a
//! heading that says why, the queue and the prompts naming the host, the
//! status line summing the links up.

use crate::board::model::tests::*;
use crate::board::model::{Board, Mode, View};
use crate::board::preview::Preview;
use crate::board::view::tests::*;
use ratatui::style::Modifier;
use signaltty_protocol::task::TaskState;
use std::time::{Duration, Instant};

/// The fleet board: devbox dropped (build it after the test's clock is
/// set, so the drop is just after it), gpu never came up, and devbox's
/// `eval` asks a question.
fn troubled() -> Board {
    let mut b = fleet_board();
    let mut world = devbox_world();
    world[0].panes[1] = asking(world[0].panes[1].clone(), decision("d6", "rm -rf?", T0));
    b.load_from(1, world, 8);
    b.lose(2, "ssh failed: Connection refused".into());
    b.lose(1, "devbox: not answering (silent for 6 s)".into());
    b
}

/// The test's clock, 12 s after now: a drop made next is 12 s old.
fn later() -> crate::board::view::ViewOpts {
    let mut o = opts(true);
    o.now = Instant::now() + Duration::from_secs(12);
    o
}

#[test]
fn each_host_has_a_heading_with_its_link_before_its_workspaces() {
    let o = later();
    let board = troubled();
    let (buf, drawn) = render(&board, &Preview::empty(), 200, 40, &o);
    assert_shows(
        &buf,
        &[
            "local  connected",
            "devbox  reconnecting since 00:02:48 UTC: devbox: not answering (silent for 6 s)",
            "gpu  unreachable: ssh failed: Connection refused",
        ],
    );
    let screen = lines(&buf);
    let row = |needle: &str| row_with(&buf, needle).unwrap_or_else(|| panic!("{needle}"));
    // Fleet order, each host's workspaces under it, one step in.
    let (local, web, devbox, ml, gpu) = (
        row("local  connected"),
        row("  web  (web)"),
        row("devbox  reconnecting"),
        row("  ml  (ml)"),
        row("gpu  unreachable"),
    );
    assert!(local < web && web < devbox && devbox < ml && ml < gpu);
    assert!(screen[usize::from(ml)].starts_with("  ml"));
    // No stale banner over the whole list: the heading says it for devbox.
    assert!(!text(&buf).contains("showing the state as of"));
    // devbox's rows are dimmed, its heading and local's rows are not.
    let x = drawn.list.x;
    let trainer = pane_row(&buf, "trainer", "claude").unwrap();
    let front = pane_row(&buf, "front", "claude").unwrap();
    assert!(buf[(x + 6, trainer)].modifier.contains(Modifier::DIM));
    assert!(!buf[(x + 6, front)].modifier.contains(Modifier::DIM));
    assert!(!buf[(x, devbox)].modifier.contains(Modifier::DIM));
    // The status line sums the links up.
    assert_shows(&buf, &["! 1 of 3 hosts live · devbox, gpu down"]);
}

#[test]
fn the_queue_and_the_prompts_name_the_host() {
    let o = later();
    let mut board = troubled();
    board.select(&pane_id(6));
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &o);
    assert_shows(
        &buf,
        &[
            "devbox:eval · claude",
            "rm -rf?",
            // The preview of a pane whose host is down says so.
            "preview · devbox:eval",
            "no preview while not connected",
            // The status line says where the keys go.
            "host devbox (me@devbox)",
        ],
    );
    board.mode = Mode::Prompt {
        pane: pane_id(6),
        text: "go on".into(),
    };
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &o);
    assert_shows(&buf, &["prompt for devbox:eval: go on"]);
}

#[test]
fn the_status_line_says_how_many_hosts_are_live() {
    let mut board = fleet_board();
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(true));
    assert_shows(
        &buf,
        &["gpu  connecting…", "connecting… (2 of 3 hosts live)"],
    );
    board.load_from(2, vec![], 1);
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(false));
    assert_shows(&buf, &["gpu  connected", "● live · 3 hosts"]);
    // No pane at all on any host: the headings, then the hint.
    let mut empty = Board::fleet(vec![
        ("local".into(), "s".into()),
        ("devbox".into(), "d".into()),
    ]);
    empty.load_from(0, vec![], 1);
    let (buf, _) = render(&empty, &Preview::empty(), 80, 24, &opts(true));
    assert_shows(
        &buf,
        &[
            "local  connected",
            "devbox  connecting…",
            "no panes yet — start one with `signaltty new -- claude`",
        ],
    );
}

#[test]
fn the_tasks_view_has_a_host_column_with_several_hosts() {
    let mut board = fleet_board();
    board.load_tasks_from(0, vec![task(1, "parser", TaskState::Working)]);
    board.load_tasks_from(1, vec![task(5, "train", TaskState::Completed)]);
    board.view = View::Tasks;
    board.task_selected = Some(task_id(5));
    let (buf, _) = render(&board, &Preview::empty(), 120, 30, &opts(true));
    let screen = lines(&buf);
    assert!(screen.iter().any(|l| l.contains("✓ devbox claude train ")));
    assert!(screen.iter().any(|l| l.contains("● local  claude parser ")));
    // The status line says the selected task's host.
    assert_shows(&buf, &["host devbox (me@devbox)"]);
    assert_shows(&buf, &["task · devbox:train"]);
}

/// A pane waiting at its usage limit shows the time left to its reset
/// before its message (docs/states.md#usage-limits).
#[test]
fn a_rate_limited_pane_counts_down_to_its_reset() {
    let mut board = busy_board();
    let p = board.panes.get_mut(&pane_id(1)).unwrap();
    p.lifecycle = signaltty_protocol::pane::Lifecycle::Blocked;
    p.attention = signaltty_protocol::pane::Attention::RateLimited;
    p.resets_at = Some(ts(T0 + 180_000 + 7_380_000));
    p.last_message = Some("You've hit your session limit".into());
    let (buf, _) = render(&board, &Preview::empty(), 160, 30, &opts(false));
    let row = usize::from(pane_row(&buf, "front", "claude").unwrap());
    let line = &lines(&buf)[row];
    assert!(
        line.contains("◷ front") && line.contains("resets in 2h 03m You've hit"),
        "{line}"
    );
}
