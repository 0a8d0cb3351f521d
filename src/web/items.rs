//! What the page is sent, as plain data: the board's model (the world each
//! server last told, kept current by its events) turned into keyed items —
//! one per host, workspace, pane and task — and the difference between two
//! such sets, which is what a patch carries. Pure: tested without a server,
//! a socket or a browser.

use crate::board::model::Board;
use crate::board::model::hosts::LinkState;
use crate::board::model::tasks::{TaskNote, disposition, task_note};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Every item by its key.
pub type Items = BTreeMap<String, Value>;

/// The items of everything the board holds now.
pub fn of(board: &Board) -> Items {
    let mut out = Items::new();
    for host in 0..board.host_count() {
        let name = board.host_name(host).to_owned();
        let (state, why) = match board.link(host) {
            LinkState::Connecting => ("connecting", None),
            LinkState::Connected => ("live", None),
            LinkState::Reconnecting { why, .. } => ("reconnecting", Some(why.to_owned())),
            LinkState::Unreachable { why } => ("unreachable", Some(why.to_owned())),
        };
        let mut item = json!({
            "key": format!("host/{name}"), "kind": "host", "host": name,
            "order": host, "state": state,
        });
        if let Some(why) = why {
            item["why"] = Value::String(why);
        }
        insert(&mut out, item);
    }
    for (order, ws) in board.workspaces.iter().enumerate() {
        let host = board.host_name(board.host_of_workspace(&ws.id));
        insert(
            &mut out,
            json!({
                "key": format!("ws/{host}/{}", ws.id.0), "kind": "workspace",
                "host": host, "order": order, "workspace": ws,
            }),
        );
    }
    for (order, id) in board.pane_order().iter().enumerate() {
        let Some(pane) = board.panes.get(id) else {
            continue;
        };
        let host = board.host_name(board.host_of_pane(id));
        insert(
            &mut out,
            json!({
                "key": format!("pane/{host}/{}", id.0), "kind": "pane",
                "host": host, "order": order, "pane": pane,
            }),
        );
    }
    for (order, task) in board.tasks.iter().enumerate() {
        let host = board.host_name(board.host_of_task(&task.id));
        let note = match task_note(task) {
            TaskNote::Summary(s) | TaskNote::Reason(s) => Value::String(s),
            TaskNote::Nothing => Value::Null,
        };
        insert(
            &mut out,
            json!({
                "key": format!("task/{host}/{}", task.id.0), "kind": "task",
                "host": host, "order": order, "task": task, "note": note,
                "finishable": disposition(task).is_none(),
            }),
        );
    }
    out
}

fn insert(items: &mut Items, item: Value) {
    if let Some(key) = item["key"].as_str() {
        items.insert(key.to_owned(), item);
    }
}

/// What changed from `old` to `new`: the items to set (new or different)
/// and the keys to delete, each in key order.
pub fn diff(old: &Items, new: &Items) -> (Vec<Value>, Vec<String>) {
    let set = new
        .iter()
        .filter(|(k, v)| old.get(*k) != Some(*v))
        .map(|(_, v)| v.clone())
        .collect();
    let del = old
        .keys()
        .filter(|k| !new.contains_key(*k))
        .cloned()
        .collect();
    (set, del)
}

#[cfg(test)]
mod tests;
