//! `signaltty workspace create|list|get|rename|auto-resume|close`: one
//! `workspace.*` call each. The workspace's git commands (`workspace diff`,
//! `file-diff`, `refresh-git`) are `diff.rs`'s.

use crate::args::{Global, ManageCommand};
use crate::cli::{absolute_cwd, call, parse_signal, print_workspace};
use signaltty_protocol::workspace::{
    ClosedResult, WorkspaceCloseParams, WorkspaceCreateParams, WorkspaceGetParams,
    WorkspaceGetResult, WorkspaceListResult, WorkspaceRenameParams, WorkspaceResult,
    WorkspaceSetAutoContinueParams, WorkspaceSetAutoResumeParams, WorkspaceSetHibernateParams,
};
use signaltty_protocol::{Method, WorkspaceRef};

/// `signaltty workspace …`.
pub fn run(global: &Global, cmd: ManageCommand) -> i32 {
    match cmd {
        ManageCommand::Create { name, cwd } => {
            let cwd = match absolute_cwd(cwd) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let params = WorkspaceCreateParams { name, cwd };
            call(
                global,
                Method::WorkspaceCreate(params),
                |r: WorkspaceResult| print_workspace(&r.workspace),
            )
        },
        ManageCommand::List => call(
            global,
            Method::WorkspaceList(Default::default()),
            |r: WorkspaceListResult| {
                if r.workspaces.is_empty() {
                    say!("no workspaces");
                    return;
                }
                let width = r
                    .workspaces
                    .iter()
                    .map(|w| w.handle.len())
                    .max()
                    .unwrap_or(6)
                    .max(6);
                say!("{:width$}  {:4}  {:<24}  CWD", "HANDLE", "TABS", "NAME");
                for w in &r.workspaces {
                    say!(
                        "{:width$}  {:4}  {:<24}  {}",
                        w.handle,
                        w.tabs.len(),
                        w.name,
                        w.cwd
                    );
                }
            },
        ),
        ManageCommand::Get { workspace } => {
            let params = WorkspaceGetParams {
                workspace_id: WorkspaceRef(workspace),
            };
            call(
                global,
                Method::WorkspaceGet(params),
                |r: WorkspaceGetResult| {
                    print_workspace(&r.workspace);
                    say!("  tabs {}  panes {}", r.tabs.len(), r.panes.len());
                    // Each tab's id: what `tab …` and `layout export` take.
                    for t in &r.tabs {
                        let panes = r.panes.iter().filter(|p| p.tab_id == t.id).count();
                        say!("  {}  {}  ({panes} pane(s))", t.id, t.title);
                    }
                },
            )
        },
        ManageCommand::Rename { workspace, name } => {
            let params = WorkspaceRenameParams {
                workspace_id: WorkspaceRef(workspace),
                name,
            };
            call(
                global,
                Method::WorkspaceRename(params),
                |r: WorkspaceResult| print_workspace(&r.workspace),
            )
        },
        ManageCommand::AutoResume { workspace, state } => {
            let params = WorkspaceSetAutoResumeParams {
                workspace_id: WorkspaceRef(workspace),
                auto_resume: state == "on",
            };
            call(
                global,
                Method::WorkspaceSetAutoResume(params),
                |r: WorkspaceResult| {
                    print_workspace(&r.workspace);
                    say!(
                        "  auto-resume {}",
                        if r.workspace.auto_resume { "on" } else { "off" }
                    );
                },
            )
        },
        ManageCommand::Hibernate { workspace, after } => {
            let params = WorkspaceSetHibernateParams {
                workspace_id: WorkspaceRef(workspace),
                after_s: after,
            };
            call(
                global,
                Method::WorkspaceSetHibernate(params),
                |r: WorkspaceResult| {
                    print_workspace(&r.workspace);
                    match r.workspace.hibernate_after_s {
                        Some(0) => say!("  hibernate off"),
                        Some(s) => say!("  hibernate after {s} s idle"),
                        None => say!("  hibernate: the server's default"),
                    }
                },
            )
        },
        ManageCommand::AutoContinue {
            workspace,
            state,
            prompt,
        } => {
            let params = WorkspaceSetAutoContinueParams {
                workspace_id: WorkspaceRef(workspace),
                enabled: state == "on",
                prompt,
            };
            call(
                global,
                Method::WorkspaceSetAutoContinue(params),
                |r: WorkspaceResult| {
                    print_workspace(&r.workspace);
                    match (r.workspace.auto_continue, &r.workspace.auto_continue_prompt) {
                        (false, _) => say!("  auto-continue off"),
                        (true, Some(p)) => say!("  auto-continue on, typing {p:?}"),
                        (true, None) => say!("  auto-continue on, typing the agent's prompt"),
                    }
                },
            )
        },
        ManageCommand::Close { workspace, signal } => {
            let signal = match parse_signal(&signal) {
                Ok(s) => s,
                Err(code) => return code,
            };
            let params = WorkspaceCloseParams {
                workspace_id: WorkspaceRef(workspace.clone()),
                signal: Some(signal),
            };
            call(global, Method::WorkspaceClose(params), |_: ClosedResult| {
                say!("closed {workspace}")
            })
        },
    }
}
