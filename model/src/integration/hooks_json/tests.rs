//! JSON hook files: merging and pruning managed entries among foreign ones,
//! round trips, flat files, malformed shapes, and hand-edited entries that need
//! repair.

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
