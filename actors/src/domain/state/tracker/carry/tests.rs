//! Tests of what an `AgentTracker` carries across an in-place upgrade.

use super::super::tests::{Harness, rules};
use super::*;
use signaltty_protocol::pane::{AgentKind, Lifecycle};

#[test]
fn a_hooked_working_pane_stays_hooked_and_working_across_an_upgrade() {
    let mut h = Harness::new(AgentKind::Claude);
    h.hook("UserPromptSubmit", serde_json::json!({}));
    assert!(h.tracker.hooked());
    let carry = h.tracker.carry();
    let json = serde_json::to_string(&carry).expect("serialises");
    let back: Carry = serde_json::from_str(&json).expect("parses");
    assert_eq!(back, carry);
    let pane = h.tracker.pane().clone();
    let mut next = AgentTracker::with_rules(pane, rules(), std::time::Duration::from_secs(10))
        .with_carry(back);
    assert!(next.hooked());
    assert_eq!(next.pane().lifecycle, Lifecycle::Working);
    assert_eq!(next.evidence(), h.tracker.evidence());
    // The screen rules stay off a hooked pane: a prompt does not end its turn.
    next.on_output(carry.output_offset + 10, std::time::Instant::now());
    let _ = next.on_screen(&"● Done.\n❯ ");
    assert_eq!(next.pane().lifecycle, Lifecycle::Working);
    // Its turn-end hook does.
    h.tracker = next;
    assert!(h.hook("Stop", serde_json::json!({})).reply.accepted);
    assert_eq!(h.lifecycle(), Lifecycle::Done);
}
