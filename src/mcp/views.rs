//! The MCP tools that read across workspaces (docs/mcp.md#tools):
//! `list_panes` and `list_decisions`, each `workspace.list` and then one
//! `workspace.get` per workspace, as `signaltty pane list` and `signaltty
//! decisions` read them.

use super::tools::{Backend, Outcome, failed, pretty};
use serde_json::{Value, json};
use signaltty_protocol::ErrorCode;

/// Every pane (of `workspace`, when given), one row each.
pub fn list_panes(backend: &mut dyn Backend, workspace: Option<&str>) -> Outcome {
    let mut panes = Vec::new();
    for got in workspaces(backend, workspace)? {
        let ws = &got["workspace"];
        for p in got["panes"].as_array().into_iter().flatten() {
            panes.push(json!({
                "pane_id": p["id"],
                "name": p["name"],
                "workspace": {"id": ws["id"], "handle": ws["handle"], "name": ws["name"]},
                "agent": p["agent"]["kind"],
                "title": p["title"],
                "cwd": p["cwd"],
                "live": p["live"]["state"],
                "lifecycle": p["lifecycle"],
                "attention": p["attention"],
                "last_message": p["last_message"],
                "task_id": p["task_id"],
                "pending_decision": p["pending_decision"]["id"],
            }));
        }
    }
    let value = json!({ "panes": panes });
    Ok((pretty(&value), Some(value)))
}

/// Every pane's pending decision: its question and options.
pub fn list_decisions(backend: &mut dyn Backend) -> Outcome {
    let mut decisions = Vec::new();
    for got in workspaces(backend, None)? {
        for p in got["panes"].as_array().into_iter().flatten() {
            let d = &p["pending_decision"];
            if d.is_object() {
                decisions.push(json!({
                    "pane_id": p["id"], "name": p["name"], "agent": p["agent"]["kind"],
                    "workspace_id": p["workspace_id"], "lifecycle": p["lifecycle"],
                    "attention": p["attention"], "decision": d,
                }));
            }
        }
    }
    let value = json!({ "decisions": decisions });
    Ok((pretty(&value), Some(value)))
}

/// `workspace.get` of `only`, or of every workspace (one closed between the
/// two calls is left out).
fn workspaces(backend: &mut dyn Backend, only: Option<&str>) -> Result<Vec<Value>, String> {
    let get = |backend: &mut dyn Backend, id: &Value| {
        backend.call("workspace.get", json!({ "workspace_id": id }))
    };
    if let Some(w) = only {
        return get(backend, &json!(w)).map(|v| vec![v]).map_err(failed);
    }
    let list = backend.call("workspace.list", json!({})).map_err(failed)?;
    let mut all = Vec::new();
    for w in list["workspaces"].as_array().into_iter().flatten() {
        match get(backend, &w["id"]) {
            Ok(v) => all.push(v),
            Err(e) if e.code == ErrorCode::NoSuchWorkspace => {},
            Err(e) => return Err(failed(e)),
        }
    }
    Ok(all)
}
