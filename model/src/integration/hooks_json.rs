//! The JSON hook files as data (spec/agents.md §11.3, §11.6): merging the
//! managed commands in, pruning them out, and reading what a file holds. Pure:
//! no file I/O. Foreign keys, groups, group metadata and commands are never
//! touched.
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
mod tests {
    use super::*;

    fn plan(shape: Shape) -> Plan {
        let cmd = |e: &str| {
            super::super::command::managed(
                std::path::Path::new("/new/signaltty"),
                "claude",
                e,
                crate::agents::vocabulary::ReporterMode::Report,
            )
        };
        Plan {
            agent: "claude",
            shape,
            entries: vec![
                Entry {
                    event: "SessionStart",
                    command: cmd("SessionStart"),
                    timeout: 10,
                },
                Entry {
                    event: "Stop",
                    command: cmd("Stop"),
                    timeout: 10,
                },
            ],
        }
    }

    #[test]
    fn merge_adds_groups_keeps_foreign_ones_and_refreshes_stale_paths() {
        let p = plan(Shape::Grouped);
        let mut root = json!({
            "model": "opus",
            "hooks": {
                "Stop": [
                    {"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]},
                    {"matcher": "", "hooks": [{"type": "command",
                        "command": "'/old/signaltty' hook-event --agent claude --event Stop --payload-stdin # signaltty hook-event (managed)",
                        "timeout": 3}]}
                ],
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]
            }
        });
        check(&root, &p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(holding(&root, &p), Holding::NeedsRepair);
        merge(&mut root, &p);
        assert_eq!(holding(&root, &p), Holding::Installed);
        assert_eq!(root["model"], "opus");
        assert_eq!(
            root["hooks"]["Stop"][0]["hooks"][0]["command"],
            "notify-send done"
        );
        assert_eq!(
            root["hooks"]["Stop"][1]["hooks"][0]["command"],
            p.entries[1].command
        );
        assert_eq!(root["hooks"]["Stop"][1]["hooks"][0]["timeout"], 10);
        assert_eq!(
            root["hooks"]["Stop"].as_array().map(Vec::len),
            Some(2),
            "refreshed in place"
        );
        assert_eq!(
            root["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            p.entries[0].command
        );
        assert_eq!(root["hooks"]["PreToolUse"][0]["matcher"], "Bash");
        let again = root.clone();
        merge(&mut root, &p);
        assert_eq!(root, again, "a second merge changes nothing");
    }

    #[test]
    fn prune_removes_only_managed_commands_and_keeps_metadata_and_empty_arrays() {
        let p = plan(Shape::Grouped);
        let original = json!({
            "disableAllHooks": false,
            "hooks": {
                "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
                "Notification": []
            }
        });
        let mut root = original.clone();
        merge(&mut root, &p);
        // A managed command inside a mixed group with metadata of its own.
        root["hooks"]["Stop"][0]["hooks"]
            .as_array_mut()
            .unwrap_or_else(|| panic!("array"))
            .push(json!({"type": "command", "command": p.entries[1].command, "timeout": 10}));
        root["hooks"]["SessionStart"][0]["description"] = json!("kept");
        assert!(prune(&mut root, &p));
        assert_eq!(root["hooks"]["Stop"], original["hooks"]["Stop"]);
        assert_eq!(
            root["hooks"]["Notification"],
            json!([]),
            "already empty: kept"
        );
        assert_eq!(
            root["hooks"]["SessionStart"],
            json!([{"matcher": "", "hooks": [], "description": "kept"}]),
            "a group with metadata stays"
        );
        assert_eq!(holding(&root, &p), Holding::NotInstalled);
        assert!(!prune(&mut root, &p));
    }

    #[test]
    fn a_full_round_trip_leaves_the_original() {
        for shape in [Shape::Grouped, Shape::Flat] {
            let p = plan(shape);
            let original = match shape {
                Shape::Grouped => {
                    json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}, "env": {"A": "1"}})
                },
                Shape::Flat => json!({"version": 1, "hooks": {"stop": [{"command": "x"}]}}),
            };
            let mut root = original.clone();
            merge(&mut root, &p);
            assert_eq!(holding(&root, &p), Holding::Installed, "{shape:?}");
            prune(&mut root, &p);
            assert_eq!(root, original, "{shape:?}");
        }
    }

    #[test]
    fn flat_files_get_a_version_and_flat_entries() {
        let p = plan(Shape::Flat);
        let mut root = json!({});
        merge(&mut root, &p);
        assert_eq!(root["version"], 1);
        assert_eq!(
            root["hooks"]["Stop"],
            json!([{"command": p.entries[1].command, "timeout": 10}])
        );
    }

    #[test]
    fn malformed_shapes_are_refused() {
        let p = plan(Shape::Grouped);
        for bad in [
            json!(null),
            json!([]),
            json!("x"),
            json!({"hooks": false}),
            json!({"hooks": {"Stop": false}}),
        ] {
            assert!(check(&bad, &p).is_err(), "{bad}");
        }
        assert!(
            check(&json!({"hooks": {"Unrelated": 3}}), &p).is_ok(),
            "not ours to judge"
        );
    }

    #[test]
    fn a_hand_edited_managed_entry_needs_repair() {
        let p = plan(Shape::Grouped);
        let mut root = json!({});
        merge(&mut root, &p);
        root["hooks"]["Stop"][0]["hooks"][0]["timeout"] = json!(99);
        assert_eq!(holding(&root, &p), Holding::NeedsRepair);
        let mut partial = json!({});
        merge(&mut partial, &p);
        partial["hooks"].as_object_mut().map(|h| h.remove("Stop"));
        assert_eq!(holding(&partial, &p), Holding::NeedsRepair);
    }
}
