//! Cursor's tool calls: a call whose post hook does not come in time is taken
//! as waiting for approval, a post hook in time cancels the timer, and the end
//! of a run forgets its calls.

use super::*;

#[test]
fn a_cursor_tool_call_without_its_post_hook_is_taken_as_waiting_for_approval() {
    let mut h = Harness::new(AgentKind::Cursor);
    h.hook("beforeSubmitPrompt", json!({}));
    let outcome = h.hook(
        "preToolUse",
        json!({"tool_use_id": "call_1", "tool_name": "Shell"}),
    );
    let [(timer @ Timer::Approval(_), after)] = armed(&outcome.effects)[..] else {
        panic!("preToolUse arms one approval timer: {:?}", outcome.effects);
    };
    assert_eq!(after, APPROVAL_WAIT);
    assert_eq!(h.lifecycle(), Lifecycle::Working);

    let effects = h.fire(timer);
    assert_eq!(published(&effects), ["agent.blocked", "attention.created"]);
    assert_eq!(h.attention(), Attention::PermissionRequired);
    assert_eq!(
        h.tracker.pane().last_message.as_deref(),
        Some("waiting for approval: Shell")
    );

    let outcome = h.hook("postToolUse", json!({"tool_use_id": "call_1"}));
    assert_eq!(
        published(&outcome.effects),
        ["agent.working", "attention.cleared"]
    );
    assert_eq!(cleared_reasons(&outcome.effects), ["approval_resolved"]);
    let sources: Vec<&str> = outcome
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Publish(events) => Some(events.iter().filter_map(|e| match e {
                Event::AgentWorking { source, .. } => Some(source.as_str()),
                _ => None,
            })),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(sources, ["hook:cursor:approval_resolved"]);
}

#[test]
fn a_cursor_post_hook_in_time_cancels_the_approval_timer() {
    let mut h = Harness::new(AgentKind::Cursor);
    let outcome = h.hook("preToolUse", json!({"tool_use_id": "call_1"}));
    let [(timer, _)] = armed(&outcome.effects)[..] else {
        panic!("one timer: {:?}", outcome.effects);
    };
    let outcome = h.hook("postToolUse", json!({"tool_use_id": "call_1"}));
    assert_eq!(cancelled(&outcome.effects), [timer]);
    assert!(
        published(&h.fire(timer)).is_empty(),
        "a timer that fires late anyway finds no call"
    );
    assert_eq!(h.lifecycle(), Lifecycle::Working);
}

#[test]
fn the_end_of_a_cursor_run_forgets_its_calls() {
    let mut h = Harness::new(AgentKind::Cursor);
    let outcome = h.hook("preToolUse", json!({"tool_use_id": "call_1"}));
    let [(timer, _)] = armed(&outcome.effects)[..] else {
        panic!("one timer: {:?}", outcome.effects);
    };
    let outcome = h.hook("stop", json!({}));
    assert_eq!(cancelled(&outcome.effects), [timer]);
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert!(published(&h.fire(timer)).is_empty());
    assert_eq!(h.lifecycle(), Lifecycle::Done);
}
