//! Where a person's actions go on a board of several hosts: to the host of
//! the pane or task they are about; `Tab` to the selected pane's host first.

use super::*;
use crate::board::model::tests::*;
use signaltty_protocol::task::TaskState;

/// The fleet board with devbox's `eval` (pane_6) asking, selected on
/// local's `front` (pane_1), which asks nothing.
fn asking_on_devbox() -> Board {
    let mut b = fleet_board();
    let mut world = devbox_world();
    world[0].panes[1] = asking(world[0].panes[1].clone(), decision("d6", "rm?", T0));
    b.load_from(1, world, 8);
    b.select(&pane_id(1));
    b
}

#[test]
fn an_answer_goes_to_the_host_of_the_pane_it_answers() {
    let mut b = asking_on_devbox();
    let job = answer_job(&mut b, |d| d.options.first()).unwrap();
    assert_eq!(
        job,
        Job::Answer {
            pane: pane_id(6),
            decision: "d6".into(),
            option: "once".into(),
            label: "Allow once".into(),
        }
    );
    assert_eq!(host_of_job(&b, &job), 1);
    // The oldest question's pane is selected, on its host.
    assert_eq!(b.selected, Some(pane_id(6)));
    assert_eq!(b.selected_host(), 1);
    // With nothing to answer anywhere, why.
    let mut b = fleet_board();
    assert_eq!(
        answer_job(&mut b, |d| d.options.first()),
        Err("no question waits for an answer (Tab: the next pane that needs you)")
    );
}

#[test]
fn pane_and_task_jobs_go_to_their_owners_host() {
    let mut b = fleet_board();
    b.load_tasks_from(1, vec![task(5, "train", TaskState::Completed)]);
    b.load_tasks_from(0, vec![task(1, "parser", TaskState::Completed)]);
    let on = |job: Job| host_of_job(&b, &job);
    assert_eq!(on(Job::MarkSeen { pane: pane_id(5) }), 1);
    assert_eq!(on(Job::Close { pane: pane_id(4) }), 0);
    assert_eq!(on(Job::Resume { pane: pane_id(6) }), 1);
    let submit = Job::Submit {
        pane: pane_id(5),
        text: "go".into(),
    };
    assert_eq!(on(submit), 1);
    assert_eq!(on(Job::TaskDiff { task: task_id(5) }), 1);
    let finish = |task| Job::Finish {
        task,
        label: "x".into(),
        merge: true,
    };
    assert_eq!(on(finish(task_id(5))), 1);
    assert_eq!(on(finish(task_id(1))), 0);
}

#[test]
fn tab_asks_the_selected_host_first_then_the_other_live_ones() {
    let mut b = fleet_board();
    b.select(&pane_id(5));
    // gpu is still connecting: not asked.
    assert_eq!(unread_order(&b), vec![1, 0]);
    assert_eq!(host_of_job(&b, &Job::NextUnread), 1);
    b.load_from(2, vec![], 3);
    assert_eq!(unread_order(&b), vec![1, 2, 0]);
    b.lose(1, "gone".into());
    assert_eq!(unread_order(&b), vec![2, 0]);
    // A single-host board asks its server whatever its link says.
    let mut one = loaded(two_workspaces());
    one.lose(0, "gone".into());
    assert_eq!(unread_order(&one), vec![0]);
}
