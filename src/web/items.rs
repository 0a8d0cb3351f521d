//! What the page is sent, as plain data: the board's model (the world each
//! server last told, kept current by its events) turned into keyed items —
//! one per host, workspace, pane, task and collision — and the difference between two
//! such sets, which is what a patch carries. Pure: tested without a server,
//! a socket or a browser.

use crate::board::model::Board;
use crate::board::model::hosts::LinkState;
use crate::board::model::tasks::{TaskNote, disposition, task_note};
use serde_json::{Value, json};
use signaltty_protocol::pane::Pane;
use signaltty_protocol::task::Task;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// Every item by its key. Shared: an item that did not change is the same
/// allocation from one picture to the next.
pub type Items = BTreeMap<String, Arc<Value>>;

/// The items of everything the board holds now, made afresh.
#[cfg(test)]
pub fn of(board: &Board) -> Items {
    Maker::default().of(board)
}

/// Makes the items of a board, remembering what each pane's and task's item
/// was made from: one that did not change since the last picture costs a
/// comparison of its model, not a serialization (with hundreds of panes
/// and one change at a time, the serialization was most of the work).
#[derive(Default)]
pub struct Maker {
    panes: HashMap<String, Made<Pane>>,
    tasks: HashMap<String, Made<Task>>,
}

/// An item and what it was made from: the model, its order and its host.
struct Made<T> {
    from: T,
    order: usize,
    host: String,
    item: Arc<Value>,
}

/// The remembered item of `key` when it was made from the same things, else
/// a new one from `make`, remembered.
fn remembered<T: Clone + PartialEq>(
    made: &mut HashMap<String, Made<T>>,
    key: &str,
    (from, order, host): (&T, usize, &str),
    make: impl FnOnce() -> Value,
) -> Arc<Value> {
    if let Some(m) = made.get(key)
        && m.order == order
        && m.host == host
        && m.from == *from
    {
        return m.item.clone();
    }
    let item = Arc::new(make());
    made.insert(
        key.to_owned(),
        Made {
            from: from.clone(),
            order,
            host: host.to_owned(),
            item: item.clone(),
        },
    );
    item
}

impl Maker {
    /// The items of everything the board holds now.
    pub fn of(&mut self, board: &Board) -> Items {
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
        let mut seen = HashSet::new();
        for (order, id) in board.pane_order().iter().enumerate() {
            let Some(pane) = board.panes.get(id) else {
                continue;
            };
            let host = board.host_name(board.host_of_pane(id));
            let key = format!("pane/{host}/{}", id.0);
            let item = remembered(&mut self.panes, &key, (pane, order, host), || {
                json!({
                    "key": key, "kind": "pane", "host": host, "order": order, "pane": pane,
                })
            });
            seen.insert(key.clone());
            out.insert(key, item);
        }
        self.panes.retain(|k, _| seen.contains(k));
        seen.clear();
        for (order, task) in board.tasks.iter().enumerate() {
            let host = board.host_name(board.host_of_task(&task.id));
            let key = format!("task/{host}/{}", task.id.0);
            let item = remembered(&mut self.tasks, &key, (task, order, host), || {
                let note = match task_note(task) {
                    TaskNote::Summary(s) | TaskNote::Reason(s) => Value::String(s),
                    TaskNote::Nothing => Value::Null,
                };
                json!({
                    "key": key, "kind": "task", "host": host, "order": order, "task": task,
                    "note": note, "finishable": disposition(task).is_none(),
                })
            });
            seen.insert(key.clone());
            out.insert(key, item);
        }
        self.tasks.retain(|k, _| seen.contains(k));
        // The conflict radar's collisions (docs/tasks.md#conflict-radar):
        // one item each, which the page shows under both tasks.
        for c in &board.conflicts {
            let host = board.host_name(board.host_of_task(&c.a));
            let b = c.b.as_ref().map_or("target", |b| b.0.as_str());
            insert(
                &mut out,
                json!({
                    "key": format!("conflict/{host}/{}/{b}", c.a.0), "kind": "conflict",
                    "host": host, "conflict": c,
                }),
            );
        }
        out
    }
}

fn insert(items: &mut Items, item: Value) {
    if let Some(key) = item["key"].as_str() {
        items.insert(key.to_owned(), Arc::new(item));
    }
}

/// What changed from `old` to `new`: the items to set (new or different)
/// and the keys to delete, each in key order.
pub fn diff(old: &Items, new: &Items) -> (Vec<Arc<Value>>, Vec<String>) {
    let set = new
        .iter()
        .filter(|(k, v)| !old.get(*k).is_some_and(|o| Arc::ptr_eq(o, v) || o == *v))
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
