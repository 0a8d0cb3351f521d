use super::due;
use crate::domain::state::tests::pane;
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, LiveState, Pane};
use std::time::Duration;

const MARGIN: Duration = Duration::from_secs(60);

fn at(secs: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_653_800_000 + secs * 1000)
}

/// A live pane waiting at its limit, which resets at `at(100)`.
fn limited() -> Pane {
    let mut p = pane(AgentKind::Claude);
    p.live = LiveState::Live;
    p.lifecycle = Lifecycle::Blocked;
    p.attention = Attention::RateLimited;
    p.resets_at = Some(at(100));
    p
}

#[test]
fn a_limited_pane_is_due_once_the_reset_and_the_margin_have_passed() {
    let p = limited();
    assert_eq!(due(&p, true, None, &at(0), MARGIN), None);
    assert_eq!(due(&p, true, None, &at(159), MARGIN), None);
    assert_eq!(due(&p, true, None, &at(160), MARGIN), Some(at(100)));
    assert_eq!(due(&p, true, None, &at(9_000), MARGIN), Some(at(100)));
}

#[test]
fn a_reset_already_continued_is_not_due_again_but_a_new_one_is() {
    let mut p = limited();
    assert_eq!(due(&p, true, Some(&at(100)), &at(200), MARGIN), None);
    p.resets_at = Some(at(500));
    assert_eq!(
        due(&p, true, Some(&at(100)), &at(600), MARGIN),
        Some(at(500))
    );
}

#[test]
fn nothing_else_is_due() {
    let now = at(10_000);
    // The workspace did not opt in.
    assert_eq!(due(&limited(), false, None, &now, MARGIN), None);
    // No reset time: nothing to wait for.
    let mut p = limited();
    p.resets_at = None;
    assert_eq!(due(&p, true, None, &now, MARGIN), None);
    // The pane left the limit before the time.
    let mut p = limited();
    p.lifecycle = Lifecycle::Working;
    assert_eq!(due(&p, true, None, &now, MARGIN), None);
    let mut p = limited();
    p.attention = Attention::InputRequired;
    assert_eq!(due(&p, true, None, &now, MARGIN), None);
    // Its process is gone (a tombstone after a restart).
    let mut p = limited();
    p.live = LiveState::Exited { code: Some(0) };
    assert_eq!(due(&p, true, None, &now, MARGIN), None);
}
