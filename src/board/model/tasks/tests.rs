//! The tasks of the board's model: their load order and selection across a
//! reload, `task.created` and `task.updated`, the line's note, the selected
//! task's worker and diff. The task fixtures are here, shared with the view.

use super::*;
use crate::board::model::tests::*;
use signaltty_protocol::task::{TaskDiffResult, TaskState};
use signaltty_protocol::{Event, EventFrame};

pub fn task_id(n: u32) -> TaskId {
    TaskId(format!("task_{n}"))
}

/// A task `task_<n>` labelled `label` in `state`, created `n` seconds after
/// T0 and last changed at T0 + n s, its worker `pane_<n>`.
pub fn task(n: u32, label: &str, state: TaskState) -> Task {
    Task {
        id: task_id(n),
        context_id: signaltty_protocol::ContextId(format!("tctx_{n}")),
        parent_task_id: None,
        pane_id: Some(pane_id(n)),
        parent_pane_id: None,
        root_pane_id: None,
        relationship: signaltty_protocol::pane::Relationship::Subagent,
        label: label.into(),
        contract: signaltty_protocol::task::Contract {
            objective: format!("do the {label} work"),
            constraints: None,
            acceptance_criteria: None,
            output_format: None,
        },
        agent: Some("claude".into()),
        source_repo: "/src/app".into(),
        target_branch: Some("main".into()),
        worktree_path: format!("/data/worktrees/app/{label}"),
        branch: format!("signaltty/{label}-{n:08}"),
        preexisting_branch: false,
        base_ref: "HEAD".into(),
        base_sha: "0123456789abcdef0123456789abcdef01234567".into(),
        state,
        result: None,
        disposition: Default::default(),
        pr: None,
        status_reason: None,
        finish_error: None,
        worker_pid: None,
        worker_cmd: None,
        client_request_id: None,
        after: Vec::new(),
        queued_start: None,
        queue_position: None,
        created_at: ts(T0 + i64::from(n) * 1000),
        updated_at: ts(T0 + i64::from(n) * 1000),
    }
}

pub fn reported(mut t: Task, summary: &str) -> Task {
    t.result = Some(signaltty_protocol::task::TaskResult {
        status: signaltty_protocol::task::ResultStatus::Completed,
        summary: summary.into(),
        artifacts: Vec::new(),
        evidence: None,
        reported_at: t.updated_at.clone(),
    });
    t
}

fn task_updated(t: Task, prev: Option<TaskState>, seq: u64) -> EventFrame {
    frame(
        Event::TaskUpdated {
            task_id: t.id.clone(),
            context_id: t.context_id.clone(),
            task: Box::new(t),
            prev_state: prev,
        },
        seq,
    )
}

#[test]
fn tasks_load_in_creation_order_and_keep_their_selection_across_a_reload() {
    let mut b = loaded(vec![]);
    assert_eq!(b.task_selected, None);
    b.load_tasks(vec![
        task(2, "docs", TaskState::Working),
        task(1, "parser", TaskState::Pending),
    ]);
    let ids: Vec<&TaskId> = b.tasks.iter().map(|t| &t.id).collect();
    assert_eq!(ids, [&task_id(1), &task_id(2)]);
    assert_eq!(b.task_selected, Some(task_id(1)), "the first is selected");
    b.move_task_selection(1);
    assert_eq!(b.task_selected, Some(task_id(2)));
    b.move_task_selection(5);
    assert_eq!(b.task_selected, Some(task_id(2)), "clamped at the end");
    b.move_task_selection(-9);
    assert_eq!(b.task_selected, Some(task_id(1)), "clamped at the start");
    b.move_task_selection(1);
    // A reload (a reconnect) replaces them; the selection stays on its task.
    b.load_tasks(vec![
        task(3, "tests", TaskState::Working),
        task(2, "docs", TaskState::Completed),
    ]);
    assert_eq!(b.tasks.len(), 2);
    assert_eq!(b.task_selected, Some(task_id(2)));
    assert_eq!(b.selected_task().unwrap().state, TaskState::Completed);
    // Its task gone, the first is selected.
    b.load_tasks(vec![task(3, "tests", TaskState::Working)]);
    assert_eq!(b.task_selected, Some(task_id(3)));
    b.load_tasks(vec![]);
    assert_eq!(b.task_selected, None);
    b.move_task_selection(1);
    assert_eq!(b.task_selected, None);
}

#[test]
fn task_created_and_updated_events_keep_the_tasks_current() {
    let mut b = loaded(vec![]);
    b.load_tasks(vec![task(2, "docs", TaskState::Working)]);
    // Created: inserted in creation order, not at the end.
    let created = frame(
        Event::TaskCreated {
            task: Box::new(task(1, "parser", TaskState::Pending)),
        },
        5,
    );
    assert_eq!(b.apply(&created), None, "a task is no pane episode");
    assert_eq!(b.seq, 5);
    let ids: Vec<&TaskId> = b.tasks.iter().map(|t| &t.id).collect();
    assert_eq!(ids, [&task_id(1), &task_id(2)]);
    // Updated: replaced whole, in place.
    let mut working = task(1, "parser", TaskState::Working);
    working.worker_pid = Some(42);
    b.apply(&task_updated(working, Some(TaskState::Pending), 6));
    assert_eq!(b.tasks.len(), 2);
    assert_eq!(b.task(&task_id(1)).unwrap().state, TaskState::Working);
    assert_eq!(b.task(&task_id(1)).unwrap().worker_pid, Some(42));
    let done = reported(task(1, "parser", TaskState::Completed), "fixed it");
    b.apply(&task_updated(done, Some(TaskState::Working), 7));
    assert_eq!(
        task_note(b.task(&task_id(1)).unwrap()),
        TaskNote::Summary("fixed it".into())
    );
    // task.result changes nothing by itself: its task.updated follows.
    let result = frame(
        Event::TaskResult {
            task_id: task_id(2),
            context_id: signaltty_protocol::ContextId("tctx_2".into()),
            result: reported(task(2, "docs", TaskState::Completed), "x")
                .result
                .unwrap(),
        },
        8,
    );
    b.apply(&result);
    assert_eq!(b.task(&task_id(2)).unwrap().state, TaskState::Working);
    // An update of a task the board did not know adds it (it was created
    // while the list was read).
    b.apply(&task_updated(task(3, "tests", TaskState::Failed), None, 9));
    assert_eq!(b.tasks.len(), 3);
    assert_eq!(b.seq, 9);
    // The disposition comes with a later update.
    let mut merged = reported(task(1, "parser", TaskState::Completed), "fixed it");
    merged.disposition.outcome = signaltty_protocol::task::Outcome::Merged;
    b.apply(&task_updated(merged, None, 10));
    assert_eq!(disposition(b.task(&task_id(1)).unwrap()), Some("merged"));
}

#[test]
fn the_task_note_is_the_summary_else_the_reason_else_the_finish_error() {
    let t = task(1, "p", TaskState::InputRequired);
    assert_eq!(task_note(&t), TaskNote::Nothing);
    let mut t2 = t.clone();
    t2.status_reason = Some(serde_json::json!({"reason": "turn_ended_without_report"}));
    assert_eq!(
        task_note(&t2),
        TaskNote::Reason("turn_ended_without_report".into())
    );
    t2.status_reason = Some(serde_json::json!({"stage": "spawn", "error": "no such file"}));
    assert_eq!(
        task_note(&t2),
        TaskNote::Reason("spawn: no such file".into())
    );
    let mut t3 = reported(t.clone(), "done");
    t3.status_reason = Some(serde_json::json!({"reason": "x"}));
    assert_eq!(task_note(&t3), TaskNote::Summary("done".into()));
    let mut t4 = t;
    t4.finish_error = Some(serde_json::json!({"code": "MERGE_CONFLICT"}));
    assert_eq!(
        task_note(&t4),
        TaskNote::Reason("finish failed: MERGE_CONFLICT".into())
    );
}

#[test]
fn a_queued_task_says_what_it_waits_for() {
    let mut t = task(1, "q", TaskState::Queued);
    assert_eq!(
        task_note(&t),
        TaskNote::Reason("queued: waiting for a free slot".into())
    );
    t.after = vec![TaskId("task_0123456789abcdef".into()), task_id(2)];
    assert_eq!(
        task_note(&t),
        TaskNote::Reason("queued: after task_01234567, task_2".into())
    );
}

#[test]
fn the_selected_worker_and_diff_belong_to_the_selected_task() {
    let mut b = loaded(two_workspaces());
    let mut gone = task(9, "gone", TaskState::Failed);
    gone.pane_id = Some(pane_id(99));
    b.load_tasks(vec![task(2, "back", TaskState::Working), gone]);
    assert_eq!(b.selected_worker(), Some(&pane_id(2)));
    b.task_diff = Some(TaskDiffResult {
        task_id: task_id(2),
        base_sha: "0".into(),
        branch: "b".into(),
        files: Vec::new(),
        dirs: Vec::new(),
        added: 0,
        removed: 0,
        merge_preview: None,
    });
    assert!(b.selected_diff().is_some());
    b.move_task_selection(1);
    assert_eq!(b.selected_worker(), None, "its pane is not on the board");
    assert!(b.selected_diff().is_none(), "the diff is the other task's");
}

fn conflict(a: u32, b: Option<u32>) -> signaltty_protocol::task::conflict::TaskConflict {
    signaltty_protocol::task::conflict::TaskConflict {
        repo: "/src/app".into(),
        a: task_id(a),
        b: b.map(task_id),
        target_branch: b.is_none().then(|| "main".to_owned()),
        paths: vec!["README.md".into()],
        since: ts(T0),
    }
}

fn conflict_event(
    c: signaltty_protocol::task::conflict::TaskConflict,
    state: signaltty_protocol::task::conflict::ConflictState,
    seq: u64,
) -> EventFrame {
    frame(
        Event::TaskConflict {
            repo: c.repo,
            a: c.a,
            b: c.b,
            target_branch: c.target_branch,
            paths: c.paths,
            state,
            since: c.since,
        },
        seq,
    )
}

#[test]
fn the_conflict_radars_collisions_load_and_follow_their_events() {
    use signaltty_protocol::task::conflict::ConflictState;
    let mut b = loaded(vec![]);
    b.load_tasks(vec![
        task(1, "parser", TaskState::Working),
        task(2, "docs", TaskState::Working),
        task(3, "api", TaskState::Working),
    ]);
    b.load_conflicts_from(0, vec![conflict(1, Some(2))]);
    assert_eq!(b.conflicts_of(&task_id(2)).count(), 1);
    assert_eq!(b.conflicts_of(&task_id(3)).count(), 0);
    b.apply(&conflict_event(
        conflict(3, None),
        ConflictState::Appeared,
        5,
    ));
    assert_eq!(b.conflicts_of(&task_id(3)).count(), 1);
    // An appeared one already known is replaced, not doubled.
    b.apply(&conflict_event(
        conflict(3, None),
        ConflictState::Appeared,
        6,
    ));
    assert_eq!(b.conflicts.len(), 2);
    b.apply(&conflict_event(
        conflict(1, Some(2)),
        ConflictState::Cleared,
        7,
    ));
    assert_eq!(b.conflicts_of(&task_id(1)).count(), 0);
    assert_eq!(b.conflicts.len(), 1);
    // A reload replaces them.
    b.load_conflicts_from(0, vec![]);
    assert!(b.conflicts.is_empty());
}
