//! The JSON hook files as data (docs/integrations.md#how-files-are-edited):
//! merging the managed commands in, pruning them out, and reading what a file
//! holds. Pure: no file I/O. Foreign keys, groups, group metadata and commands
//! are never touched.
//!
//! ```text
//!   grouped (Claude, Codex, Gemini):
//!     {"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": …, "timeout": 10}]}]}}
//!   flat (Cursor):
//!     {"version": 1, "hooks": {"stop": [{"command": …, "timeout": 10}]}}
//! ```

use super::command::is_owned;
use serde_json::{Map, Value, json};

/// How a file nests its commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Event → groups → `hooks` → commands.
    Grouped,
    /// Event → commands (Cursor).
    Flat,
}

/// One installed hook: the event, its command, its timeout (in the file's unit).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub event: &'static str,
    pub command: String,
    pub timeout: u64,
}

/// What an agent's hook file should hold.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The `--agent` name in the commands.
    pub agent: &'static str,
    pub shape: Shape,
    pub entries: Vec<Entry>,
}

impl Plan {
    fn events(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.event).collect()
    }

    fn owned(&self, command: &Value) -> bool {
        command
            .as_str()
            .is_some_and(|c| is_owned(c, self.agent, &self.events()))
    }
}

/// What a parsed file holds for a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    /// Every planned hook, as planned.
    Installed,
    /// Some managed hooks, missing, stale or edited.
    NeedsRepair,
    /// No managed hook.
    NotInstalled,
}

/// Checks the parts of a file the plan touches: an object root, `hooks` an
/// object when present, each planned event an array when present.
pub fn check(root: &Value, plan: &Plan) -> Result<(), String> {
    let Some(obj) = root.as_object() else {
        return Err("the file's top level is not a JSON object".into());
    };
    match obj.get("hooks") {
        None => Ok(()),
        Some(Value::Object(hooks)) => {
            for (event, value) in hooks {
                if !value.is_array() && plan.entries.iter().any(|e| e.event == event) {
                    return Err(format!("hooks.{event} is not an array"));
                }
            }
            Ok(())
        },
        Some(_) => Err("\"hooks\" is not an object".into()),
    }
}

/// The commands of one event's array, wherever the shape keeps them.
fn commands_mut(shape: Shape, array: &mut [Value]) -> Vec<&mut Map<String, Value>> {
    match shape {
        Shape::Flat => array.iter_mut().filter_map(Value::as_object_mut).collect(),
        Shape::Grouped => array
            .iter_mut()
            .filter_map(|group| group.get_mut("hooks").and_then(Value::as_array_mut))
            .flat_map(|hooks| hooks.iter_mut().filter_map(Value::as_object_mut))
            .collect(),
    }
}

fn commands(shape: Shape, array: &[Value]) -> Vec<&Map<String, Value>> {
    match shape {
        Shape::Flat => array.iter().filter_map(Value::as_object).collect(),
        Shape::Grouped => array
            .iter()
            .filter_map(|group| group.get("hooks").and_then(Value::as_array))
            .flat_map(|hooks| hooks.iter().filter_map(Value::as_object))
            .collect(),
    }
}

/// Merges the plan into `root` (already `check`ed): every managed command of a
/// planned event is brought up to date in place (a stale reporter path is
/// refreshed); an event without one gets a new entry at the end.
pub fn merge(root: &mut Value, plan: &Plan) {
    let Some(obj) = root.as_object_mut() else {
        return;
    };
    if plan.shape == Shape::Flat && !obj.contains_key("version") {
        obj.insert("version".into(), json!(1));
    }
    let hooks = obj.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return;
    };
    for entry in &plan.entries {
        let array = hooks.entry(entry.event).or_insert_with(|| json!([]));
        let Some(array) = array.as_array_mut() else {
            continue;
        };
        let mut found = false;
        for command in commands_mut(plan.shape, array) {
            if command.get("command").is_some_and(|c| plan.owned(c)) {
                command.insert("command".into(), json!(entry.command));
                command.insert("timeout".into(), json!(entry.timeout));
                found = true;
            }
        }
        if !found {
            array.push(match plan.shape {
                Shape::Flat => json!({"command": entry.command, "timeout": entry.timeout}),
                Shape::Grouped => json!({"matcher": "", "hooks": [
                    {"type": "command", "command": entry.command, "timeout": entry.timeout}
                ]}),
            });
        }
    }
}

/// Removes every managed command of the plan's agent from `root` (already
/// `check`ed). A group goes only when pruning emptied it and it holds nothing
/// but an empty `matcher`; an event key goes only when pruning emptied it.
/// Returns whether anything was removed.
pub fn prune(root: &mut Value, plan: &Plan) -> bool {
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut removed_any = false;
    let mut emptied = Vec::new();
    for (event, array) in hooks.iter_mut() {
        let Some(array) = array.as_array_mut() else {
            continue;
        };
        let before = array.len();
        let mut removed_here = false;
        match plan.shape {
            Shape::Flat => array.retain(|c| {
                let ours = c.get("command").is_some_and(|c| plan.owned(c));
                removed_here |= ours;
                !ours
            }),
            Shape::Grouped => array.retain_mut(|group| {
                let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let len = list.len();
                list.retain(|c| !c.get("command").is_some_and(|c| plan.owned(c)));
                if list.len() == len {
                    return true;
                }
                removed_here = true;
                let bare = group.as_object().is_some_and(|g| {
                    g.iter()
                        .all(|(k, v)| k == "hooks" || (k == "matcher" && v.as_str() == Some("")))
                });
                !(list_is_empty(group) && bare)
            }),
        }
        removed_any |= removed_here;
        if removed_here && array.is_empty() && before > 0 {
            emptied.push(event.clone());
        }
    }
    for event in emptied {
        hooks.remove(&event);
    }
    removed_any
}

fn list_is_empty(group: &Value) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
}

/// What `root` holds of the plan.
pub fn holding(root: &Value, plan: &Plan) -> Holding {
    let hooks = root.get("hooks").and_then(Value::as_object);
    let mut exact = 0;
    let mut owned = 0;
    for entry in &plan.entries {
        let Some(array) = hooks
            .and_then(|h| h.get(entry.event))
            .and_then(Value::as_array)
        else {
            continue;
        };
        let mut this_exact = false;
        for command in commands(plan.shape, array) {
            let Some(c) = command.get("command") else {
                continue;
            };
            if plan.owned(c) {
                owned += 1;
                let same = c.as_str() == Some(entry.command.as_str())
                    && command.get("timeout").and_then(Value::as_u64) == Some(entry.timeout);
                this_exact |= same;
            }
        }
        exact += usize::from(this_exact);
    }
    if owned == 0 {
        Holding::NotInstalled
    } else if exact == plan.entries.len() && owned == exact {
        Holding::Installed
    } else {
        Holding::NeedsRepair
    }
}

#[cfg(test)]
mod tests;
