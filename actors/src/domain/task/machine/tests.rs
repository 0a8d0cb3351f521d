//! The task machine: the transition table, reports, and the worker pane's
//! events (docs/tasks.md#the-worker-and-its-task).

use super::*;
use crate::domain::state::tests::pane;
use signaltty_protocol::TaskId;
use signaltty_protocol::pane::{AgentKind, Lifecycle};
use signaltty_protocol::state::Decision;
use signaltty_protocol::task::ResultStatus;

fn task(state: TaskState) -> TaskMachine {
    TaskMachine::new(Task {
        pane_id: Some(PaneId("pane_1".into())),
        label: "worker-1".into(),
        agent: Some("claude".into()),
        source_repo: "/src/repo".into(),
        worktree_path: "/wt/x".into(),
        branch: "signaltty/x".into(),
        ..crate::domain::task::sample::task("1", state)
    })
}

fn now() -> Timestamp {
    Timestamp::from_unix_millis(2_000)
}

fn worker() -> Box<signaltty_protocol::pane::Pane> {
    let mut p = pane(AgentKind::Claude);
    p.last_message = Some("all done".into());
    Box::new(p)
}

fn done() -> Event {
    Event::AgentDone {
        pane_id: PaneId("pane_1".into()),
        lifecycle: Lifecycle::Done,
        prev: Lifecycle::Working,
        source: "hook:claude:Stop".into(),
        pane: worker(),
    }
}

fn working() -> Event {
    Event::AgentWorking {
        pane_id: PaneId("pane_1".into()),
        lifecycle: Lifecycle::Working,
        prev: Lifecycle::Idle,
        source: "hook:claude:UserPromptSubmit".into(),
        pane: worker(),
    }
}

fn decision(id: &str) -> Decision {
    Decision {
        id: id.into(),
        prompt: "Allow Bash?".into(),
        options: Vec::new(),
        answerable: true,
        received_at: now(),
    }
}

fn report(status: ResultStatus) -> TaskReportParams {
    TaskReportParams {
        task_id: None,
        pane_id: None,
        status,
        summary: "did it".into(),
        artifacts: None,
        evidence: None,
    }
}

fn reason(m: &TaskMachine) -> Value {
    m.task().status_reason.clone().unwrap_or(Value::Null)
}

#[test]
fn a_transition_is_stamped_and_names_the_state_before() {
    let mut m = task(TaskState::Pending);
    let e = m
        .transition(TaskState::Working, None, now())
        .expect("pending → working");
    match e {
        Event::TaskUpdated {
            prev_state, task, ..
        } => {
            assert_eq!(prev_state, Some(TaskState::Pending));
            assert_eq!(task.state, TaskState::Working);
            assert_eq!(task.updated_at, now());
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(
        m.transition(TaskState::Pending, None, now()),
        Err(Refused::NotAllowed {
            from: TaskState::Working,
            to: TaskState::Pending
        })
    );
}

/// docs/tasks.md#a-turn-that-ends-without-a-report.
#[test]
fn a_turn_without_a_report_needs_input_and_a_later_report_completes_it() {
    let mut m = task(TaskState::Working);
    let e = m.on_pane_event(&done(), now()).expect("turn end");
    assert_eq!(e.name(), "task.updated");
    assert_eq!(m.task().state, TaskState::InputRequired);
    assert_eq!(
        reason(&m),
        json!({"reason": "turn_ended_without_report", "last_message": "all done"})
    );
    // Idle never ends a turn; a second done changes nothing.
    assert!(m.on_pane_event(&done(), now()).is_none());
    let events = m
        .report(&report(ResultStatus::Completed), now())
        .expect("report");
    let names: Vec<&str> = events.iter().map(Event::name).collect();
    assert_eq!(names, ["task.result", "task.updated"]);
    assert_eq!(m.task().state, TaskState::Completed);
    assert_eq!(m.task().status_reason, None);
    assert_eq!(
        m.report(&report(ResultStatus::Failed), now()),
        Err(Refused::Terminal(TaskState::Completed)),
        "a terminal task takes no report"
    );
    assert!(m.on_pane_event(&done(), now()).is_none());
}

#[test]
fn a_report_may_come_while_pending_and_may_reject() {
    let mut m = task(TaskState::Pending);
    m.report(&report(ResultStatus::Rejected), now())
        .expect("report");
    assert_eq!(m.task().state, TaskState::Rejected);
    assert_eq!(
        m.task().result.as_ref().map(|r| r.status),
        Some(ResultStatus::Rejected)
    );
}

/// docs/tasks.md#decisions-in-a-worker.
#[test]
fn a_decision_needs_input_until_it_is_answered_not_merely_cleared() {
    let mut m = task(TaskState::Working);
    let created = Event::DecisionCreated {
        pane_id: PaneId("pane_1".into()),
        decision: decision("d1"),
        prev: None,
        pane: worker(),
    };
    m.on_pane_event(&created, now()).expect("decision");
    assert_eq!(m.task().state, TaskState::InputRequired);
    assert_eq!(
        reason(&m),
        json!({"reason": "decision_required", "decision_id": "d1"})
    );
    for cleared in ["timeout", "attention_cleared", "moved_on"] {
        let e = Event::DecisionCleared {
            pane_id: PaneId("pane_1".into()),
            decision_id: "d1".into(),
            reason: cleared.into(),
            pane: worker(),
        };
        assert!(m.on_pane_event(&e, now()).is_none(), "{cleared}");
    }
    // A turn end and another answer do not resume it either.
    assert!(m.on_pane_event(&done(), now()).is_none());
    let other = Event::DecisionAnswered {
        pane_id: PaneId("pane_1".into()),
        decision_id: "d0".into(),
        option_id: "once".into(),
        pane: worker(),
    };
    assert!(m.on_pane_event(&other, now()).is_none());
    let answered = Event::DecisionAnswered {
        pane_id: PaneId("pane_1".into()),
        decision_id: "d1".into(),
        option_id: "once".into(),
        pane: worker(),
    };
    m.on_pane_event(&answered, now()).expect("answered");
    assert_eq!(m.task().state, TaskState::Working);
    assert_eq!(m.task().status_reason, None);
}

#[test]
fn an_unconfirmed_first_prompt_resumes_when_the_worker_works() {
    let mut m = task(TaskState::Pending);
    m.transition(
        TaskState::InputRequired,
        Some(json!({"reason": "submit_unconfirmed", "stage": "activity_gate"})),
        now(),
    )
    .expect("parked");
    m.on_pane_event(&working(), now()).expect("resumed");
    assert_eq!(m.task().state, TaskState::Working);
    // Other reasons wait for an answer or a follow-up prompt.
    let mut m = task(TaskState::Working);
    m.on_pane_event(&done(), now());
    assert!(m.on_pane_event(&working(), now()).is_none());
}

/// docs/tasks.md#when-the-worker-dies.
#[test]
fn the_worker_dying_fails_the_task_once() {
    let mut m = task(TaskState::Working);
    let exited = Event::PaneExited {
        pane_id: PaneId("pane_1".into()),
        code: Some(3),
    };
    m.on_pane_event(&exited, now()).expect("exit");
    assert_eq!(m.task().state, TaskState::Failed);
    assert_eq!(reason(&m), json!({"reason": "pane_exited", "exit_code": 3}));
    let closed = Event::PaneClosed {
        pane_id: PaneId("pane_1".into()),
    };
    assert!(
        m.on_pane_event(&closed, now()).is_none(),
        "close after exit is silent"
    );
    let mut m = task(TaskState::InputRequired);
    m.on_pane_event(&closed, now()).expect("close");
    assert_eq!(reason(&m), json!({"reason": "pane_closed"}));
    // A canceled task's worker exit does not fail it.
    let mut m = task(TaskState::Working);
    m.transition(TaskState::Canceled, None, now())
        .expect("cancel");
    assert!(m.on_pane_event(&exited, now()).is_none());
    assert_eq!(m.task().state, TaskState::Canceled);
}

#[test]
fn a_queued_task_starts_as_the_task_it_was_queued_as() {
    let mut queued = task(TaskState::Queued).task().clone();
    queued.after = vec![TaskId("task_0".into())];
    queued.client_request_id = Some("key".into());
    queued.queued_start = Some(Box::new(
        serde_json::from_value(
            serde_json::json!({"repo": "/src/repo", "contract": {"objective": "fix it"}}),
        )
        .expect("params"),
    ));
    let mut m = TaskMachine::new(queued.clone());
    let mut fresh = task(TaskState::Pending).task().clone();
    fresh.id = TaskId("task_other".into());
    fresh.created_at = now();
    let event = m.start_queued(fresh, now()).expect("queued → pending");
    let t = m.task();
    assert_eq!(
        (t.state, &t.id, &t.created_at),
        (TaskState::Pending, &queued.id, &queued.created_at)
    );
    assert_eq!(t.after, queued.after);
    assert_eq!(t.client_request_id.as_deref(), Some("key"));
    assert!(t.queued_start.is_none());
    assert_eq!(t.worktree_path, "/wt/x", "the checkout is the new record's");
    let Event::TaskUpdated { prev_state, .. } = event else {
        panic!("{event:?}");
    };
    assert_eq!(prev_state, Some(TaskState::Queued));
    assert!(
        m.start_queued(task(TaskState::Pending).task().clone(), now())
            .is_err()
    );
}
