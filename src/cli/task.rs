//! The task commands (docs/tasks.md#commands): `signaltty task start|get|
//! list|wait|finish|diff|file-diff|cancel|conflicts` and `signaltty report`, each one
//! method call; `--json` prints the raw result.

use crate::args::Global;
use crate::cli::{call, fail, fail_with};
use clap::{Args, Subcommand};
use signaltty_protocol::task::conflict::{TaskConflictsParams, TaskConflictsResult};
use signaltty_protocol::task::{
    Artifact, Contract, ResultStatus, Task, TaskDiffResult, TaskFileDiffParams, TaskFinishParams,
    TaskFinishResult, TaskListParams, TaskListResult, TaskReportParams, TaskResultReply,
    TaskStartParams, TaskStartResult, TaskState, TaskTarget, TaskWaitParams, TaskWaitResult,
};
use signaltty_protocol::{ContextId, ErrorCode, Method, PaneRef, TaskId};
use std::path::PathBuf;

mod conflicts;

/// `signaltty task …`.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Start a worker agent in its own git worktree (task.start); the worker
    /// command follows `--`.
    Start(Box<StartArgs>),
    /// Show a task (task.get).
    Get {
        /// Task id.
        task: String,
    },
    /// List tasks, oldest first (task.list).
    List {
        /// Only this context.
        #[arg(long)]
        context: Option<String>,
        /// Only this state (pending, working, input_required, completed, failed, canceled, rejected).
        #[arg(long)]
        state: Option<String>,
        /// At most this many (default 100, max 1000).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Wait until a task (or every task of a context) is settled, terminal or
    /// in a state (task.wait).
    Wait {
        /// Task id (or --context).
        #[arg(required_unless_present = "context", conflicts_with = "context")]
        task: Option<String>,
        /// Every task of this context.
        #[arg(long)]
        context: Option<String>,
        /// A task state, terminal or settled (repeatable; default settled).
        #[arg(long)]
        until: Vec<String>,
        /// Give up after this many seconds (default 3600).
        #[arg(long, value_name = "S")]
        timeout: Option<u64>,
    },
    /// Finish a task: merge its branch into the target, or discard it; the
    /// checkout is removed (task.finish).
    Finish {
        /// Task id.
        task: String,
        /// Merge the task branch into the target (the task must be completed).
        #[arg(long, conflicts_with = "discard", required_unless_present = "discard")]
        merge: bool,
        /// Throw the work away.
        #[arg(long)]
        discard: bool,
        /// The branch to merge into (default: the branch checked out at start).
        #[arg(long)]
        target: Option<String>,
        /// Delete the task branch (the default for --merge).
        #[arg(long, conflicts_with = "keep_branch")]
        delete_branch: bool,
        /// Keep the task branch (the default for --discard).
        #[arg(long)]
        keep_branch: bool,
        /// Merge even with uncommitted changes in the checkout (they are lost).
        #[arg(long)]
        ignore_dirty: bool,
    },
    /// What the task changed against its base, committed work included
    /// (task.diff).
    Diff {
        /// Task id.
        task: String,
    },
    /// One file of the task's change (task.file_diff).
    FileDiff {
        /// Task id.
        task: String,
        /// The path, relative to the checkout.
        path: String,
    },
    /// Cancel a task: its worker is stopped, its checkout kept (task.cancel).
    Cancel {
        /// Task id.
        task: String,
    },
    /// Which active tasks would conflict if merged, with each other or with
    /// their target branch (task.conflicts, docs/tasks.md#conflict-radar).
    Conflicts {
        /// Only the tasks of this repository.
        #[arg(long)]
        repo: Option<PathBuf>,
    },
}

/// `signaltty task start`.
#[derive(Debug, Args)]
pub struct StartArgs {
    /// The source repository (absolute or relative to here).
    #[arg(long)]
    repo: PathBuf,
    /// What to do.
    #[arg(
        long,
        conflicts_with = "objective_file",
        required_unless_present = "objective_file"
    )]
    objective: Option<String>,
    /// Read the objective from this file.
    #[arg(long, value_name = "FILE")]
    objective_file: Option<PathBuf>,
    /// Constraints on the work.
    #[arg(long)]
    constraints: Option<String>,
    /// An acceptance criterion (repeatable).
    #[arg(long = "acceptance", value_name = "CRITERION")]
    acceptance: Vec<String>,
    /// The output format expected.
    #[arg(long)]
    output_format: Option<String>,
    /// Agent kind (claude, codex, …); without a command, its program is run.
    #[arg(long)]
    agent: Option<String>,
    /// Label (also names the default branch and workspace).
    #[arg(long)]
    label: Option<String>,
    /// Branch (default signaltty/<label>-<short id>).
    #[arg(long)]
    branch: Option<String>,
    /// Checkout path (default under $XDG_DATA_HOME/signaltty/worktrees).
    #[arg(long)]
    path: Option<PathBuf>,
    /// Base ref (default HEAD).
    #[arg(long)]
    base_ref: Option<String>,
    /// `git fetch origin` before resolving the base.
    #[arg(long)]
    fetch_first: bool,
    /// Join this context.
    #[arg(long)]
    context: Option<String>,
    /// Idempotency key: the same key returns the same task.
    #[arg(long)]
    client_request_id: Option<String>,
    /// Lineage parent pane.
    #[arg(long)]
    parent_pane: Option<String>,
    /// Start only once this task has completed (repeat for several; the
    /// task waits `queued` until then).
    #[arg(long, value_name = "TASK")]
    after: Vec<String>,
    /// Refuse the start when the parallel cap is reached instead of queuing it.
    #[arg(long)]
    no_queue: bool,
    /// The worker command.
    #[arg(last = true)]
    argv: Vec<String>,
}

/// `signaltty report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// completed, failed or rejected.
    #[arg(long)]
    status: String,
    /// What the work came to.
    #[arg(long)]
    summary: String,
    /// Artifacts as JSON: [{"name":…,"path":…}].
    #[arg(long, value_name = "JSON")]
    artifacts: Option<String>,
    /// Evidence as JSON.
    #[arg(long, value_name = "JSON")]
    evidence: Option<String>,
    /// The task (default: $SIGNALTTY_TASK).
    #[arg(long)]
    task: Option<String>,
    /// The worker pane (default: $SIGNALTTY_PANE), when no task is named.
    #[arg(long)]
    pane: Option<String>,
}

/// One line about a task.
fn line(t: &Task) -> String {
    let result = t
        .result
        .as_ref()
        .map(|r| format!("  {}", r.summary.lines().next().unwrap_or("")))
        .unwrap_or_default();
    if t.state == TaskState::Queued {
        // No branch nor checkout yet: its place, and what it waits for.
        let place = t.queue_position.map_or(String::new(), |n| format!(" #{n}"));
        let after = if t.after.is_empty() {
            String::new()
        } else {
            let ids: Vec<&str> = t.after.iter().map(|id| id.0.as_str()).collect();
            format!("  after {}", ids.join(", "))
        };
        return format!(
            "{}  {:<14} {:<10} queued{place}{after}",
            t.id,
            t.state.as_str(),
            t.agent.as_deref().unwrap_or("-"),
        );
    }
    format!(
        "{}  {:<14} {:<10} {}  {}{result}",
        t.id,
        t.state.as_str(),
        t.agent.as_deref().unwrap_or("-"),
        t.branch,
        t.worktree_path
    )
}

fn show(t: &Task) {
    say!("{}", line(t));
    if let Some(reason) = &t.status_reason {
        // The hint is for a person: its own line, as words.
        let mut reason = reason.clone();
        let hint = reason.as_object_mut().and_then(|r| r.remove("hint"));
        say!("  why: {reason}");
        if let Some(hint) = hint.as_ref().and_then(|h| h.as_str()) {
            say!("  hint: {hint}");
        }
    }
}

/// Runs a `task` subcommand.
pub fn run(global: &Global, cmd: TaskCommand) -> i32 {
    match cmd {
        TaskCommand::Start(a) => start(global, *a),
        TaskCommand::Get { task } => call(
            global,
            Method::TaskGet(TaskTarget {
                task_id: TaskId(task),
            }),
            |r: TaskResultReply| {
                show(&r.task);
                for l in conflicts::lines_for(&r.task.id, &r.conflicts) {
                    say!("{l}");
                }
            },
        ),
        TaskCommand::List {
            context,
            state,
            limit,
        } => {
            let state = match state.as_deref().map(|s| (s, TaskState::parse(s))) {
                Some((s, None)) => {
                    return fail_with(ErrorCode::BadParams, format!("unknown task state {s:?}"));
                },
                Some((_, Some(state))) => Some(state),
                None => None,
            };
            call(
                global,
                Method::TaskList(TaskListParams {
                    context_id: context.map(ContextId),
                    state,
                    limit,
                }),
                |r: TaskListResult| {
                    if r.tasks.is_empty() {
                        say!("no tasks");
                    }
                    for t in &r.tasks {
                        say!("{}{}", line(t), conflicts::mark(&t.id, &r.conflicts));
                    }
                },
            )
        },
        TaskCommand::Wait {
            task,
            context,
            until,
            timeout,
        } => {
            let until = match until.len() {
                0 => None,
                1 => Some(serde_json::json!(until[0])),
                _ => Some(serde_json::json!(until)),
            };
            call(
                global,
                Method::TaskWait(TaskWaitParams {
                    task_id: task.map(TaskId),
                    context_id: context.map(ContextId),
                    until,
                    timeout_s: timeout,
                }),
                |r: TaskWaitResult| {
                    for t in &r.tasks {
                        show(t);
                    }
                },
            )
        },
        TaskCommand::Finish {
            task,
            merge,
            discard: _,
            target,
            delete_branch,
            keep_branch,
            ignore_dirty,
        } => call(
            global,
            Method::TaskFinish(TaskFinishParams {
                task_id: TaskId(task),
                mode: if merge { "merge" } else { "discard" }.to_owned(),
                target_ref: target,
                delete_branch: if delete_branch {
                    Some(true)
                } else if keep_branch {
                    Some(false)
                } else {
                    None
                },
                ignore_dirty: ignore_dirty.then_some(true),
            }),
            |r: TaskFinishResult| {
                show(&r.task);
                let branch = match r.task.disposition.branch_deleted {
                    Some(true) => "deleted",
                    _ => "kept",
                };
                match &r.merge {
                    Some(m) => say!(
                        "  merged into {} at {}; branch {} {branch}",
                        m.target,
                        m.sha,
                        r.task.branch
                    ),
                    None if r.cleanup_error.is_none() => say!(
                        "  discarded: checkout {} removed, branch {} {branch}",
                        r.task.worktree_path,
                        r.task.branch
                    ),
                    None => say!("  discarded; branch {} {branch}", r.task.branch),
                }
                if let Some(e) = &r.cleanup_error {
                    say!("  cleanup: {e}");
                }
                for c in &r.conflicts {
                    say!(
                        "  task {} now conflicts with {} in {}",
                        c.a,
                        c.target_branch.as_deref().unwrap_or("the target"),
                        c.paths.join(", ")
                    );
                }
            },
        ),
        TaskCommand::Diff { task } => call(
            global,
            Method::TaskDiff(TaskTarget {
                task_id: TaskId(task),
            }),
            |r: TaskDiffResult| {
                for f in &r.files {
                    let counts = if f.binary {
                        "binary".to_owned()
                    } else {
                        format!("+{} -{}", f.added, f.removed)
                    };
                    let new = if f.untracked { "  (untracked)" } else { "" };
                    say!("{counts:>12}  {}{new}", f.path);
                }
                say!(
                    "{} file(s), +{} -{} since {}",
                    r.files.len(),
                    r.added,
                    r.removed,
                    &r.base_sha[..r.base_sha.len().min(12)]
                );
                match &r.merge_preview {
                    Some(m) if m.clean => say!("merges cleanly into {}", m.target),
                    Some(m) => say!(
                        "conflicts with {} in: {}",
                        m.target,
                        m.conflicted.join(", ")
                    ),
                    None => say!("merge preview unavailable"),
                }
            },
        ),
        TaskCommand::FileDiff { task, path } => call(
            global,
            Method::TaskFileDiff(TaskFileDiffParams {
                task_id: TaskId(task),
                path,
            }),
            |r: serde_json::Value| {
                say!(
                    "{}",
                    serde_json::to_string_pretty(&r["content"]).unwrap_or_default()
                )
            },
        ),
        TaskCommand::Cancel { task } => call(
            global,
            Method::TaskCancel(TaskTarget {
                task_id: TaskId(task),
            }),
            |r: TaskResultReply| show(&r.task),
        ),
        TaskCommand::Conflicts { repo } => {
            let repo = match repo.map(std::path::absolute).transpose() {
                Ok(repo) => repo.map(|r| r.to_string_lossy().into_owned()),
                Err(e) => return fail_with(ErrorCode::BadParams, format!("--repo: {e}")),
            };
            call(
                global,
                Method::TaskConflicts(TaskConflictsParams {
                    workspace_id: None,
                    repo,
                }),
                |r: TaskConflictsResult| {
                    for l in conflicts::table(&r) {
                        say!("{l}");
                    }
                },
            )
        },
    }
}

fn start(global: &Global, a: StartArgs) -> i32 {
    let objective = match (a.objective, a.objective_file) {
        (Some(o), _) => o,
        (None, Some(file)) => match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) => return fail(&format!("cannot read {}: {e}", file.display())),
        },
        (None, None) => {
            return fail_with(
                ErrorCode::BadParams,
                "--objective or --objective-file is required",
            );
        },
    };
    let absolute = |p: PathBuf| {
        if p.is_absolute() {
            p
        } else {
            std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
        }
    };
    let params = TaskStartParams {
        repo: absolute(a.repo).to_string_lossy().into_owned(),
        contract: Contract {
            objective,
            constraints: a.constraints,
            acceptance_criteria: (!a.acceptance.is_empty()).then_some(a.acceptance),
            output_format: a.output_format,
        },
        agent: a.agent,
        argv: (!a.argv.is_empty()).then_some(a.argv),
        label: a.label,
        parent_pane_id: a.parent_pane.map(PaneRef),
        context_id: a.context.map(ContextId),
        relationship: None,
        client_request_id: a.client_request_id,
        base_ref: a.base_ref,
        fetch_first: a.fetch_first.then_some(true),
        branch: a.branch,
        path: a.path.map(|p| absolute(p).to_string_lossy().into_owned()),
        ready_timeout_s: None,
        stall_timeout_s: None,
        submit_delay_ms: None,
        after: (!a.after.is_empty()).then(|| a.after.into_iter().map(TaskId).collect()),
        queue: a.no_queue.then_some(false),
    };
    call(global, Method::TaskStart(params), |r: TaskStartResult| {
        show(&r.task);
        if let Some(pane) = r.pane {
            say!("  worker pane {}", pane.id);
        }
    })
}

/// `signaltty report`: the task from `--task`, else `$SIGNALTTY_TASK`,
/// else the pane from `--pane` or `$SIGNALTTY_PANE`.
pub fn report(global: &Global, a: ReportArgs) -> i32 {
    let status = match a.status.as_str() {
        "completed" => ResultStatus::Completed,
        "failed" => ResultStatus::Failed,
        "rejected" => ResultStatus::Rejected,
        other => {
            return fail_with(
                ErrorCode::BadParams,
                format!("--status must be completed, failed or rejected, not {other:?}"),
            );
        },
    };
    let json_arg = |what: &str, text: Option<String>| -> Result<Option<serde_json::Value>, i32> {
        text.map(|t| {
            serde_json::from_str(&t)
                .map_err(|e| fail_with(ErrorCode::BadParams, format!("--{what} is not JSON: {e}")))
        })
        .transpose()
    };
    let artifacts = match json_arg("artifacts", a.artifacts) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let artifacts: Option<Vec<Artifact>> = match artifacts.map(serde_json::from_value).transpose() {
        Ok(a) => a,
        Err(e) => return fail_with(ErrorCode::BadParams, format!("--artifacts: {e}")),
    };
    let evidence = match json_arg("evidence", a.evidence) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let task = a.task.or_else(|| var("SIGNALTTY_TASK"));
    let pane = if task.is_none() {
        a.pane.or_else(|| var("SIGNALTTY_PANE"))
    } else {
        None
    };
    if task.is_none() && pane.is_none() {
        return fail_with(
            ErrorCode::BadParams,
            "no task: pass --task or run inside a task's worker ($SIGNALTTY_TASK)",
        );
    }
    let params = TaskReportParams {
        task_id: task.map(TaskId),
        pane_id: pane.map(PaneRef),
        status,
        summary: a.summary,
        artifacts,
        evidence,
    };
    call(global, Method::TaskReport(params), |r: TaskResultReply| {
        show(&r.task)
    })
}
