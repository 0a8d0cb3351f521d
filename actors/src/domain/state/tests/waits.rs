//! Tests of the progress record a wait is judged by: session generations, and a
//! match after a baseline needing a newer transition on its own axis
//! (docs/states.md#the-progress-record).

use super::*;
use crate::domain::state::progress::{Outcome, Progress, WaitError, evaluate};

fn until(names: &[&str]) -> Vec<(String, Outcome)> {
    names
        .iter()
        .map(|n| (n.to_string(), Outcome::parse(n).expect("an outcome")))
        .collect()
}

/// Session generations (docs/states.md#the-progress-record).
#[test]
fn replacing_a_known_session_counts_generations_even_back_to_the_first() {
    let p = pane(AgentKind::Claude);
    let mut progress = Progress::start("i-1".into(), 5, &p);
    progress.session(Some("one"));
    assert_eq!(progress.session_generation, 0, "first discovery");
    let mut with_one = p.clone();
    with_one.agent.agent_session_id = Some("one".into());
    let at_zero = progress.baseline(&with_one);
    progress.session(Some("two"));
    progress.session(Some("two"));
    assert_eq!(progress.session_generation, 1);
    progress.session(Some("one"));
    assert_eq!(progress.session_generation, 2);
    assert_eq!(
        evaluate(
            Some(&with_one),
            Some(&progress),
            &until(&["done"]),
            Some(&at_zero)
        ),
        Err(WaitError::IdentityChanged("the agent session was replaced"))
    );
}

/// docs/states.md#waiting-after-a-baseline: an old `done` and a later
/// attention change do not match; a `done` after the baseline matches
/// although the pane is working again.
#[test]
fn a_match_needs_a_newer_transition_on_its_own_axis() {
    let mut p = pane(AgentKind::Claude);
    let mut progress = Progress::start("i-1".into(), 1, &p);
    p.lifecycle = Lifecycle::Done;
    progress.lifecycle(Lifecycle::Done, 2);
    let b = progress.baseline(&p);
    p.attention = Attention::Unread;
    progress.attention(Attention::Unread, 3);
    let done = until(&["done"]);
    assert_eq!(
        evaluate(Some(&p), Some(&progress), &done, Some(&b)),
        Ok(None)
    );
    progress.lifecycle(Lifecycle::Working, 4);
    progress.lifecycle(Lifecycle::Done, 5);
    progress.lifecycle(Lifecycle::Working, 6);
    p.lifecycle = Lifecycle::Working;
    let hit = evaluate(Some(&p), Some(&progress), &done, Some(&b))
        .expect("no error")
        .expect("satisfied");
    assert_eq!(hit.transition_seq, 5);
    // Without a baseline only the current state counts.
    assert_eq!(evaluate(Some(&p), Some(&progress), &done, None), Ok(None));
}
