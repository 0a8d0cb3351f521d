//! A subagent's question after the main turn ended (`subagent.rs`): blocked
//! like any question, and once answered back to the main turn's state.

use super::*;

fn after_a_finished_turn() -> Harness {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("SessionStart", json!({"session_id": "main"}));
    h.hook("UserPromptSubmit", json!({"session_id": "main"}));
    h.hook("Stop", json!({"session_id": "main"}));
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    h
}

#[test]
fn a_subagents_question_after_the_turn_is_answered_back_to_done() {
    let mut h = after_a_finished_turn();
    h.hook(
        "PermissionRequest",
        json!({"session_id": "main", "agent_id": "sub-1", "tool_name": "Bash"}),
    );
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    assert_eq!(h.attention(), Attention::PermissionRequired);
    let events = h.tracker.on_answer_delivered();
    assert_eq!(
        events.iter().map(Event::name).collect::<Vec<_>>(),
        ["agent.done"]
    );
    assert_eq!(h.lifecycle(), Lifecycle::Done);
}

#[test]
fn the_main_agents_question_is_answered_back_to_work() {
    let mut h = after_a_finished_turn();
    h.hook(
        "PermissionRequest",
        json!({"session_id": "main", "tool_name": "Bash"}),
    );
    assert_eq!(h.lifecycle(), Lifecycle::Blocked);
    h.tracker.on_answer_delivered();
    assert_eq!(h.lifecycle(), Lifecycle::Working);
    // A subagent asking during a turn goes back to work too.
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({"session_id": "main"}));
    h.hook(
        "PermissionRequest",
        json!({"session_id": "main", "agent_id": "sub-1", "tool_name": "Bash"}),
    );
    h.tracker.on_answer_delivered();
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}
