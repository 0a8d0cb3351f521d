//! The agent probes: each agent's newest hook found from the journal's end, and
//! an executable for every agent the integration knows.

use super::*;

fn line(seq: u64, event: &str, payload: Value, at: &str) -> String {
    serde_json::json!({"seq": seq, "event": event, "payload": payload, "at": at}).to_string()
}

#[test]
fn the_newest_hook_of_each_agent_is_found_from_the_end_of_the_journal() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let programs = vec![("qwen", vec!["qwen".to_owned()])];
    let now = Timestamp("2026-12-01T12:10:00.000Z".into());
    assert!(
        last_hooks(dir.path(), &programs, &now).is_none(),
        "no journal"
    );
    let old = line(
        1,
        "agent.working",
        serde_json::json!({"source": "hook:claude:UserPromptSubmit"}),
        "2026-12-01T11:00:00.000Z",
    );
    let qwen = line(
        2,
        "notification.created",
        serde_json::json!({"notification": {"source": "hook:generic:Notification"}, "pane": {"argv": ["/usr/bin/qwen"]}}),
        "2026-12-01T12:00:00.000Z",
    );
    let newer = line(
        3,
        "agent.done",
        serde_json::json!({"source": "hook:claude:Stop"}),
        "2026-12-01T12:07:00.000Z",
    );
    let screen = line(
        4,
        "agent.working",
        serde_json::json!({"source": "screen:codex_working"}),
        "2026-12-01T12:09:00.000Z",
    );
    std::fs::write(dir.path().join("audit.jsonl.1"), format!("{old}\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.path().join("audit.jsonl"),
        format!("{qwen}\n{newer}\n{screen}\n{{\"seq\":"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let found = last_hooks(dir.path(), &programs, &now).unwrap_or_default();
    assert_eq!(
        found.get("claude"),
        Some(&LastHook {
            source: "hook:claude:Stop".into(),
            age_s: 180
        })
    );
    assert_eq!(found.get("qwen").map(|l| l.age_s), Some(600));
    assert!(!found.contains_key("codex"), "a screen rule is not a hook");
}

#[test]
fn every_agent_integration_knows_has_an_executable() {
    let agents = list();
    assert!(agents.len() >= 8, "{agents:?}");
    for (agent, names) in &agents {
        assert!(!names.is_empty(), "{}", agent.name());
    }
    let cursor = agents.iter().find(|(a, _)| a.name() == "cursor");
    assert_eq!(
        cursor.map(|(_, n)| n.clone()),
        Some(vec!["cursor-agent".to_owned()])
    );
}
