//! `signaltty restore`: what came back after the last start, per workspace
//! and per restore state, what can be resumed, and the commands to resume it
//! (docs/restore.md). Reads only: `server.status`, `workspace.list` and
//! `workspace.get`.

use crate::args::Global;
use crate::cli::{connect, fetch};
use serde_json::{Value, json};
use signaltty_protocol::pane::{Pane, RestoreState};
use signaltty_protocol::server::ServerStatusResult;
use signaltty_protocol::workspace::{WorkspaceGetParams, WorkspaceGetResult, WorkspaceListResult};
use signaltty_protocol::{Method, WorkspaceRef};

/// How a restored pane can come back, if it can.
fn how(pane: &Pane) -> Option<&'static str> {
    signaltty_model::agents::programs::resume_command(pane)?;
    Some(if pane.agent.resume_argv.is_some() {
        "its agent session"
    } else {
        "its shell"
    })
}

/// `signaltty restore`.
pub fn restore(global: &Global) -> i32 {
    match restore_inner(global) {
        Ok(code) | Err(code) => code,
    }
}

fn restore_inner(global: &Global) -> Result<i32, i32> {
    let mut client = connect(global)?;
    let status: ServerStatusResult = fetch(&mut client, Method::ServerStatus(Default::default()))?;
    let list: WorkspaceListResult = fetch(&mut client, Method::WorkspaceList(Default::default()))?;
    let mut workspaces = Vec::new();
    for w in list.workspaces {
        let got: WorkspaceGetResult = fetch(
            &mut client,
            Method::WorkspaceGet(WorkspaceGetParams {
                workspace_id: WorkspaceRef(w.id.0.clone()),
            }),
        )?;
        workspaces.push(got);
    }
    if global.json {
        let items: Vec<Value> = workspaces
            .iter()
            .map(|w| {
                let panes: Vec<Value> = w
                    .panes
                    .iter()
                    .map(|p| {
                        json!({
                            "pane_id": p.id, "name": p.name, "restore_state": p.restore_state,
                            "resumable_as": how(p), "title": p.title,
                        })
                    })
                    .collect();
                json!({"workspace_id": w.workspace.id, "handle": w.workspace.handle, "panes": panes})
            })
            .collect();
        say!(
            "{}",
            json!({"restore": status.restore, "workspaces": items})
        );
        return Ok(0);
    }
    match &status.restore {
        Some(r) => {
            match r.snapshot_seq {
                Some(seq) => say!(
                    "restored from the snapshot at seq {seq} and {} later journal event(s)",
                    r.journal_events
                ),
                None => say!(
                    "restored from the journal alone ({} event(s))",
                    r.journal_events
                ),
            }
            if let Some(problem) = &r.problem {
                say!("! {problem}");
            }
        },
        None => say!("this server reports nothing about its restore"),
    }
    for w in &workspaces {
        let count = |s: RestoreState| w.panes.iter().filter(|p| p.restore_state == s).count();
        say!(
            "{}  {}  live {}  resumable {}  restored {}  exited {}",
            w.workspace.handle,
            w.workspace.name,
            count(RestoreState::Live),
            count(RestoreState::Resumable),
            count(RestoreState::Restored),
            count(RestoreState::Exited)
        );
        let mut resume = Vec::new();
        for p in &w.panes {
            if p.restore_state == RestoreState::Live {
                continue;
            }
            let state = match p.restore_state {
                RestoreState::Resumable => "RESUMABLE",
                RestoreState::Restored => "RESTORED",
                RestoreState::Hibernated => "HIBERNATED",
                _ => "EXITED",
            };
            // What `server.status` counts as resumable is what is offered
            // here, and in `all of`: the panes whose restore state says so.
            let with = match (how(p), p.restore_state) {
                (Some(_), RestoreState::Hibernated) => {
                    "hibernated: its next prompt, input or attach wakes it".to_owned()
                },
                (Some(what), RestoreState::Resumable) => {
                    resume.push(p.id.to_string());
                    format!("resume with {what}: signaltty pane resume {}", p.id)
                },
                (Some(what), _) => format!(
                    "exited by itself; {what} can still be resumed: signaltty pane resume {}",
                    p.id
                ),
                (None, _) => "not resumable".to_owned(),
            };
            say!(
                "  {}  {:<9}  {:<12}  {}",
                p.id,
                state,
                p.name.as_deref().unwrap_or(&p.title),
                with
            );
        }
        if resume.len() > 1 {
            let all: Vec<String> = resume
                .iter()
                .map(|id| format!("signaltty pane resume {id}"))
                .collect();
            say!("  all of {}: {}", w.workspace.handle, all.join(" && "));
        }
    }
    Ok(0)
}
