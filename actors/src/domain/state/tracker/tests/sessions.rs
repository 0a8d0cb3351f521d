//! A session replaced in place (H5, `session.rs`): the unread a session end
//! raised is withdrawn when the next hook starts a new session.

use super::*;

#[test]
fn a_session_start_right_after_a_session_end_withdraws_its_unread() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("SessionStart", json!({"session_id": "a"}));
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    h.hook("SessionEnd", json!({"session_id": "a", "reason": "other"}));
    assert_eq!(h.lifecycle(), Lifecycle::Done);
    assert_eq!(h.attention(), Attention::Unread);
    let outcome = h.hook("SessionStart", json!({"session_id": "b"}));
    assert_eq!(h.lifecycle(), Lifecycle::Idle);
    assert_eq!(h.attention(), Attention::None);
    assert!(
        published(&outcome.effects).contains(&"attention.cleared"),
        "{:?}",
        outcome.effects
    );
}

/// A finished turn's unread is the turn's, not the session end's: it stays.
/// So does a session end's once another hook came between.
#[test]
fn an_unread_the_session_end_did_not_raise_stays() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", json!({}));
    h.hook("Stop", json!({}));
    assert_eq!(h.attention(), Attention::Unread);
    h.hook("SessionEnd", json!({"reason": "clear"}));
    h.hook("SessionStart", json!({"session_id": "b"}));
    assert_eq!(h.attention(), Attention::Unread);

    let mut h = Harness::new(AgentKind::Claude);
    h.hook("SessionEnd", json!({"reason": "other"}));
    h.hook("Notification", json!({"notification_type": "idle_prompt"}));
    h.hook("SessionStart", json!({"session_id": "b"}));
    assert_eq!(h.attention(), Attention::Unread);
}
