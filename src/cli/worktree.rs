//! `signaltty worktree list|create|open|remove`: one `worktree.*` call each
//! (docs/worktrees.md); `--json` prints the raw result.

use crate::args::Global;
use crate::cli::{call, fail_with};
use signaltty_protocol::worktree::{
    WorktreeBindResult, WorktreeCreateParams, WorktreeListParams, WorktreeListResult,
    WorktreeOpenParams, WorktreeRemoveParams, WorktreeRemoveResult,
};
use signaltty_protocol::{ErrorCode, Method, WorkspaceRef};
use std::path::{Path, PathBuf};

/// `signaltty worktree …`.
#[derive(Debug, clap::Subcommand)]
pub enum WorktreeCommand {
    /// The source workspace's checkouts, as git lists them (worktree.list).
    List {
        /// Source workspace id or handle.
        workspace: String,
    },
    /// A new branch at the source HEAD, checked out at PATH, with a workspace
    /// (worktree.create).
    Create {
        /// Source workspace id or handle.
        workspace: String,
        /// The new checkout's path (made absolute); it must not exist.
        path: PathBuf,
        /// The new branch.
        #[arg(long)]
        branch: String,
        /// The new workspace's name (default: the branch).
        #[arg(long)]
        name: Option<String>,
    },
    /// A workspace for a registered checkout, or the one already open there
    /// (worktree.open).
    Open {
        /// Source workspace id or handle.
        workspace: String,
        /// The checkout's path.
        path: PathBuf,
        /// The workspace's name (default: the branch, else the directory name).
        #[arg(long)]
        name: Option<String>,
    },
    /// Remove a clean checkout nobody works in; the branch is kept
    /// (worktree.remove).
    Remove {
        /// Source workspace id or handle.
        workspace: String,
        /// The checkout's path.
        path: PathBuf,
    },
}

/// Makes a path absolute against the current directory, as the server wants.
fn absolute(path: &Path) -> Result<String, i32> {
    let abs = std::path::absolute(path)
        .map_err(|e| fail_with(ErrorCode::IoError, format!("{}: {e}", path.display())))?;
    abs.to_str().map(str::to_owned).ok_or_else(|| {
        fail_with(
            ErrorCode::BadParams,
            format!("{} is not valid UTF-8", abs.display()),
        )
    })
}

/// Runs one `worktree` command.
pub fn run(global: &Global, cmd: WorktreeCommand) -> i32 {
    match run_worktree(global, cmd) {
        Ok(code) | Err(code) => code,
    }
}

fn run_worktree(global: &Global, cmd: WorktreeCommand) -> Result<i32, i32> {
    Ok(match cmd {
        WorktreeCommand::List { workspace } => call(
            global,
            Method::WorktreeList(WorktreeListParams {
                workspace_id: WorkspaceRef(workspace),
            }),
            |r: WorktreeListResult| {
                for w in r.worktrees {
                    let what = match (&w.branch, w.bare) {
                        (_, true) => "(bare)".to_owned(),
                        (Some(b), _) => b.clone(),
                        (None, _) => format!(
                            "(detached at {})",
                            w.head.as_deref().map_or("?", |h| h.get(..12).unwrap_or(h))
                        ),
                    };
                    let mut flags = Vec::new();
                    if w.main {
                        flags.push("main".to_owned());
                    }
                    if w.locked {
                        flags.push("locked".to_owned());
                    }
                    if w.prunable {
                        flags.push("prunable".to_owned());
                    }
                    if let Some(ws) = &w.workspace_id {
                        flags.push(format!("workspace {ws}"));
                    }
                    let flags = if flags.is_empty() {
                        String::new()
                    } else {
                        format!("  [{}]", flags.join(", "))
                    };
                    say!("{}  {what}{flags}", w.path);
                }
            },
        ),
        WorktreeCommand::Create {
            workspace,
            path,
            branch,
            name,
        } => call(
            global,
            Method::WorktreeCreate(WorktreeCreateParams {
                workspace_id: WorkspaceRef(workspace),
                path: absolute(&path)?,
                branch,
                name,
            }),
            show_bound,
        ),
        WorktreeCommand::Open {
            workspace,
            path,
            name,
        } => call(
            global,
            Method::WorktreeOpen(WorktreeOpenParams {
                workspace_id: WorkspaceRef(workspace),
                path: absolute(&path)?,
                name,
            }),
            show_bound,
        ),
        WorktreeCommand::Remove { workspace, path } => call(
            global,
            Method::WorktreeRemove(WorktreeRemoveParams {
                workspace_id: WorkspaceRef(workspace),
                path: absolute(&path)?,
            }),
            |r: WorktreeRemoveResult| say!("removed {} (branch kept)", r.path),
        ),
    })
}

fn show_bound(r: WorktreeBindResult) {
    let how = if r.reused { "reused" } else { "created" };
    say!(
        "{} {how} workspace {} ({}) at {}",
        r.workspace.handle,
        r.workspace.id,
        r.workspace.name,
        r.path
    );
}
