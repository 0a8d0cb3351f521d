//! The newest turn is the one with the higher seq, whatever the wall clock
//! said when each started.

use super::*;

fn turn(ws: &WorkspaceId, pane: &str, seq: u64, ms: i64) -> TurnStart {
    TurnStart {
        workspace: ws.clone(),
        pane: PaneId(pane.to_owned()),
        seq: Seq(seq),
        started_at: Timestamp::from_unix_millis(ms),
    }
}

fn baseline_pane(turns: &TurnBaselines, ws: &WorkspaceId) -> Option<String> {
    turns.get(ws).map(|b| b.pane.0.clone())
}

#[test]
fn a_later_turn_replaces_the_baseline_after_the_wall_clock_stepped_back() {
    let ws = WorkspaceId("ws_a".into());
    let mut turns = TurnBaselines::default();
    let hour = 3_600_000;
    turns.record(turn(&ws, "pane_1", 10, 5 * hour), Ok("tree1".into()));
    // The clock stepped back two hours before the next turn started.
    let started = turns.record(turn(&ws, "pane_2", 20, 3 * hour), Ok("tree2".into()));
    assert_eq!(started.pane_id.0, "pane_2");
    assert_eq!(baseline_pane(&turns, &ws).as_deref(), Some("pane_2"));
    assert_eq!(
        turns.get(&ws).map(|b| b.tree.clone()),
        Some(Ok("tree2".into()))
    );
    assert_eq!(
        turns.get(&ws).map(|b| b.started_at.clone()),
        Some(Timestamp::from_unix_millis(3 * hour)),
        "the wall-clock time is kept for display"
    );
}

#[test]
fn an_earlier_turn_whose_capture_finishes_last_does_not_win_even_if_its_clock_was_ahead() {
    let ws = WorkspaceId("ws_a".into());
    let other = WorkspaceId("ws_b".into());
    let mut turns = TurnBaselines::default();
    let hour = 3_600_000;
    // Turn 20 started after turn 10 (a step back in between), and its capture
    // finished first.
    turns.record(turn(&ws, "pane_new", 20, hour), Ok("new".into()));
    let late = turns.record(turn(&ws, "pane_old", 10, 9 * hour), Ok("old".into()));
    assert_eq!(late.pane_id.0, "pane_old", "it is still announced");
    assert_eq!(baseline_pane(&turns, &ws).as_deref(), Some("pane_new"));
    // Each workspace keeps its own.
    turns.record(turn(&other, "pane_b", 5, 0), Err("no checkout".into()));
    assert_eq!(baseline_pane(&turns, &other).as_deref(), Some("pane_b"));
    assert_eq!(baseline_pane(&turns, &ws).as_deref(), Some("pane_new"));
}
