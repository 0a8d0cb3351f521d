//! Episodes: when a pane starts waiting for a person or finishes unseen,
//! reported once, and what began while the board was away.

use super::*;

#[test]
fn entering_blocked_is_one_episode_and_staying_blocked_none() {
    let mut b = loaded(two_workspaces());
    let p = asking(b.panes[&pane_id(1)].clone(), decision("d1", "Run it?", T0));
    assert_eq!(
        b.apply(&blocked_event(p.clone(), 5)),
        Some(Episode {
            pane: pane_id(1),
            kind: EpisodeKind::Blocked,
        })
    );
    assert_eq!(b.apply(&blocked_event(p.clone(), 6)), None);
    assert_eq!(b.apply(&updated(p.clone(), 7)), None);
    // Answered, then asked again: a new episode.
    let mut free = p.clone();
    free.lifecycle = Lifecycle::Working;
    free.attention = Attention::None;
    free.pending_decision = None;
    assert_eq!(b.apply(&updated(free, 8)), None);
    assert!(b.apply(&blocked_event(p, 9)).is_some());
}

#[test]
fn done_and_unread_is_a_done_episode_once() {
    let mut b = loaded(two_workspaces());
    let mut p = b.panes[&pane_id(3)].clone();
    p.lifecycle = Lifecycle::Done;
    assert_eq!(b.apply(&updated(p.clone(), 5)), None, "seen: no news");
    p.attention = Attention::Unread;
    assert_eq!(
        b.apply(&updated(p.clone(), 6)),
        Some(Episode {
            pane: pane_id(3),
            kind: EpisodeKind::Done,
        })
    );
    assert_eq!(b.apply(&updated(p, 7)), None);
}

#[test]
fn a_restored_pane_with_a_question_is_no_episode() {
    let mut b = loaded(two_workspaces());
    let mut p = asking(b.panes[&pane_id(1)].clone(), decision("d1", "Run it?", T0));
    p.restore_state = RestoreState::Restored;
    assert_eq!(b.apply(&updated(p, 5)), None);
}

#[test]
fn the_first_load_reports_nothing_and_a_reload_what_began_meanwhile() {
    let mut world = two_workspaces();
    world[0].panes[0] = asking(world[0].panes[0].clone(), decision("d1", "a?", T0));
    let mut b = Board::new("s".into());
    assert!(b.load(world.clone(), 3).is_empty());
    b.conn = Conn::Reconnecting {
        since: Instant::now(),
        why: "closed".into(),
    };
    // Meanwhile pane 4 began waiting and pane 3 finished unseen; pane 1
    // still waits (no news).
    world[1].panes[0] = asking(world[1].panes[0].clone(), decision("d2", "b?", T0));
    world[0].panes[2].lifecycle = Lifecycle::Done;
    world[0].panes[2].attention = Attention::Unread;
    let began = b.load(world, 9);
    assert_eq!(
        began,
        vec![
            Episode {
                pane: pane_id(3),
                kind: EpisodeKind::Done,
            },
            Episode {
                pane: pane_id(4),
                kind: EpisodeKind::Blocked,
            },
        ]
    );
    assert_eq!(b.conn, Conn::Live);
    assert_eq!(b.seq, 9);
}
