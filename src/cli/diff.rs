//! `signaltty workspace diff | file-diff | refresh-git`: one call each; text
//! for people, the raw result with `--json`.

use crate::args::{DiffCommand, Global};
use crate::cli::{call, print_workspace};
use signaltty_protocol::diff::{
    DiffScope, FileContent, LineKind, WorkspaceDiffParams, WorkspaceDiffResult,
    WorkspaceFileDiffParams, WorkspaceFileDiffResult, WorkspaceRefreshGitParams,
};
use signaltty_protocol::workspace::WorkspaceResult;
use signaltty_protocol::{Method, WorkspaceRef};

/// `signaltty workspace refresh-git|diff|file-diff …`.
pub fn run(global: &Global, cmd: DiffCommand) -> i32 {
    match cmd {
        DiffCommand::RefreshGit { workspace } => refresh_git(global, workspace),
        DiffCommand::Diff { workspace, turn } => diff(global, workspace, turn),
        DiffCommand::FileDiff {
            workspace,
            path,
            turn,
        } => file_diff(global, workspace, path, turn),
    }
}

fn scope(turn: bool) -> Option<DiffScope> {
    turn.then_some(DiffScope::Turn)
}

/// `signaltty workspace refresh-git <ws>`.
fn refresh_git(global: &Global, workspace: String) -> i32 {
    let params = WorkspaceRefreshGitParams {
        workspace_id: WorkspaceRef(workspace),
    };
    call(
        global,
        Method::WorkspaceRefreshGit(params),
        |r: WorkspaceResult| {
            print_workspace(&r.workspace);
            match r.workspace.git.dirty {
                Some(true) => say!("  dirty"),
                Some(false) => say!("  clean"),
                None => {},
            }
        },
    )
}

/// `signaltty workspace diff <ws> [--turn]`.
fn diff(global: &Global, workspace: String, turn: bool) -> i32 {
    let params = WorkspaceDiffParams {
        workspace_id: WorkspaceRef(workspace),
        scope: scope(turn),
    };
    call(
        global,
        Method::WorkspaceDiff(params),
        |r: WorkspaceDiffResult| {
            if r.turn == Some(None) {
                say!("no turn baseline: no agent turn started since the server started");
                return;
            }
            if let Some(Some(t)) = &r.turn {
                say!(
                    "since the turn of {} started at {}",
                    t.pane_id,
                    t.started_at.0
                );
            }
            if r.files.is_empty() {
                say!("no changes");
                return;
            }
            for f in &r.files {
                let counts = if f.binary {
                    "   bin".to_owned()
                } else if f.untracked && r.scope == DiffScope::Head {
                    "     ?".to_owned()
                } else {
                    format!("+{:<5} -{:<5}", f.added, f.removed)
                };
                let mark = if f.untracked { " (untracked)" } else { "" };
                say!("{counts:>14}  {}{mark}", f.path);
            }
            say!(
                "{} file(s), +{} -{}{}",
                r.files.len(),
                r.added,
                r.removed,
                r.branch
                    .as_deref()
                    .map(|b| format!("  [{b}]"))
                    .unwrap_or_default()
            );
        },
    )
}

/// `signaltty workspace file-diff <ws> <path> [--turn]`.
fn file_diff(global: &Global, workspace: String, path: String, turn: bool) -> i32 {
    let params = WorkspaceFileDiffParams {
        workspace_id: WorkspaceRef(workspace),
        path,
        scope: scope(turn),
    };
    call(
        global,
        Method::WorkspaceFileDiff(params),
        |r: WorkspaceFileDiffResult| {
            let mark = if r.untracked { " (untracked)" } else { "" };
            say!("{}{mark}", r.path);
            match r.content {
                FileContent::Binary {} => say!("binary file changed"),
                FileContent::Unchanged {} => say!("unchanged"),
                FileContent::Unavailable { reason } => say!("unavailable: {reason}"),
                FileContent::Text {
                    hunks,
                    truncated,
                    notice,
                } => {
                    if let Some(notice) = notice {
                        say!("{notice}");
                    }
                    for h in hunks {
                        say!(
                            "@@ -{},{} +{},{} @@ {}",
                            h.old_start,
                            h.old_count,
                            h.new_start,
                            h.new_count,
                            h.heading
                        );
                        for l in h.lines {
                            match l.kind {
                                LineKind::Context => say!(" {}", l.text),
                                LineKind::Added => say!("+{}", l.text),
                                LineKind::Removed => say!("-{}", l.text),
                                LineKind::NoNewline => say!("\\ {}", l.text),
                            }
                        }
                    }
                    if truncated {
                        say!("… cut at 10000 lines");
                    }
                },
            }
        },
    )
}
