//! `signaltty pane list` without a workspace: every workspace of one server
//! with its panes, or with `--all-hosts` of every server (docs/remote.md).

use super::pane_text;
use crate::args::Global;
use crate::cli::{fail_call, typed};
use signaltty_model::client::{CallError, Client};
use signaltty_protocol::workspace::{WorkspaceGetParams, WorkspaceGetResult, WorkspaceListResult};
use signaltty_protocol::{ErrorCode, Method, WorkspaceRef};

/// `pane list` with no workspace: every workspace (workspace.list), then
/// each one's panes (workspace.get), grouped under its handle and name.
pub(super) fn list_all(global: &Global, all_hosts: bool) -> Result<i32, i32> {
    if all_hosts {
        return Ok(crate::remote::fleet::run(
            global,
            "workspaces",
            list_data,
            show_list,
        ));
    }
    let value = list_data(global).map_err(fail_call)?;
    if global.json {
        say!("{value}");
        return Ok(0);
    }
    show_list(value).map(|()| 0)
}

/// Every workspace of one server with its panes: `{"workspaces": [...]}`.
fn list_data(global: &Global) -> Result<serde_json::Value, CallError> {
    let mut client = Client::open(&crate::remote::resolve(global)?)?;
    let list = client.call(Method::WorkspaceList(Default::default()))?;
    let list: WorkspaceListResult = serde_json::from_value(list).map_err(|e| CallError {
        code: ErrorCode::Internal,
        message: format!("unexpected result shape: {e}"),
    })?;
    let mut all = Vec::new();
    for w in list.workspaces {
        let params = WorkspaceGetParams {
            workspace_id: WorkspaceRef(w.id.0.clone()),
        };
        match client.call(Method::WorkspaceGet(params)) {
            Ok(value) => all.push(value),
            // Closed between the two calls: it is no longer there to list.
            Err(e) if e.code == ErrorCode::NoSuchWorkspace => {},
            Err(e) => return Err(e),
        }
    }
    Ok(serde_json::json!({ "workspaces": all }))
}

fn show_list(value: serde_json::Value) -> Result<(), i32> {
    let all = match value.get("workspaces") {
        Some(serde_json::Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    if all.is_empty() {
        say!("no workspaces");
    }
    for value in all {
        let r: WorkspaceGetResult = typed(value)?;
        say!("{}  {}", r.workspace.handle, r.workspace.name);
        if r.panes.is_empty() {
            say!("  no panes");
        }
        for p in &r.panes {
            let line = pane_text(p);
            say!("  {line}");
        }
    }
    Ok(())
}
