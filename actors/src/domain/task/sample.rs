//! A task record for tests: `task_<n>`, labelled `n`, on branch `n` in
//! `/wt/<n>`, cut from `/repo` for `main`, created at 1 s past the epoch.
//! Tests change what they look at with struct update syntax.

use signaltty_protocol::pane::Relationship;
use signaltty_protocol::task::{Contract, Disposition, Task, TaskState};
use signaltty_protocol::{ContextId, TaskId, Timestamp};

/// The record of task `task_<n>` in `state`.
pub(crate) fn task(n: &str, state: TaskState) -> Task {
    let at = Timestamp::from_unix_millis(1_000);
    Task {
        id: TaskId(format!("task_{n}")),
        context_id: ContextId("tctx_1".into()),
        parent_task_id: None,
        pane_id: None,
        parent_pane_id: None,
        root_pane_id: None,
        relationship: Relationship::Subagent,
        label: n.into(),
        contract: Contract {
            objective: "fix it".into(),
            constraints: None,
            acceptance_criteria: None,
            output_format: None,
        },
        agent: None,
        source_repo: "/repo".into(),
        target_branch: Some("main".into()),
        worktree_path: format!("/wt/{n}"),
        branch: n.into(),
        preexisting_branch: false,
        base_ref: "HEAD".into(),
        base_sha: "0".repeat(40),
        state,
        result: None,
        disposition: Disposition::default(),
        pr: None,
        status_reason: None,
        finish_error: None,
        worker_pid: None,
        worker_cmd: None,
        client_request_id: None,
        after: Vec::new(),
        queued_start: None,
        queue_position: None,
        created_at: at.clone(),
        updated_at: at,
    }
}
