//! The conflict radar in the CLI (docs/tasks.md#conflict-radar): `signaltty
//! task conflicts`, the mark `task list` puts on a task in a collision, and
//! the lines `task get` adds under a task.

use signaltty_protocol::TaskId;
use signaltty_protocol::task::conflict::{TaskConflict, TaskConflictsResult};

/// What `task list` puts at the end of a task's line when it is in a
/// collision.
pub fn mark(task: &TaskId, conflicts: &[TaskConflict]) -> &'static str {
    if conflicts.iter().any(|c| c.involves(task)) {
        "  [conflict]"
    } else {
        ""
    }
}

/// The other side of `c` seen from `task`, in words.
fn other(task: &TaskId, c: &TaskConflict) -> String {
    match c.other(task) {
        Some(t) => format!("task {t}"),
        None => format!(
            "its target branch {}",
            c.target_branch.as_deref().unwrap_or("?")
        ),
    }
}

/// The lines `task get` prints under `task`.
pub fn lines_for(task: &TaskId, conflicts: &[TaskConflict]) -> Vec<String> {
    conflicts
        .iter()
        .filter(|c| c.involves(task))
        .map(|c| {
            format!(
                "  conflicts with {} in {} (since {})",
                other(task, c),
                c.paths.join(", "),
                c.since.0
            )
        })
        .collect()
}

/// `task conflicts`' text: one line per collision, then the errors.
pub fn table(r: &TaskConflictsResult) -> Vec<String> {
    let mut out = Vec::new();
    if r.conflicts.is_empty() {
        out.push("no conflicts".to_owned());
    }
    for c in &r.conflicts {
        let b = match &c.b {
            Some(b) => b.0.clone(),
            None => format!("(target {})", c.target_branch.as_deref().unwrap_or("?")),
        };
        out.push(format!("{}  {}  {}  {}", c.a, b, c.paths.join(","), c.repo));
    }
    for e in &r.errors {
        out.push(format!("error: {e}"));
    }
    out
}
