//! Typing a prompt into an agent's pane and holding the activity gate: the
//! one implementation behind `pane.submit` (docs/methods.md#panesubmit,
//! docs/decisions.md#prompts-that-cannot-answer-a-question) and a task's
//! first prompt (docs/tasks.md#delivering-the-prompt). The caller takes the
//! wait baseline before the paste; the pane decides the paste and the
//! re-checked Enter in its own turns; the gate is a wait of the Sequencer,
//! registered after the Enter through [`RegisterWait`].
//!
//! ```text
//!   baseline (caller) ─ SubmitPaste ─ delay ─ SubmitEnter ─ RegisterWait
//!        ─ half the stall: SubmitRetry (one Enter) ─ the rest ─ outcome
//! ```

use crate::actors::pane::{InputBox, InputBoxNow, Pane, SubmitEnter, SubmitPaste, SubmitRetry};
use crate::actors::services::{RegisterWait, ViewPane};
use crate::domain::ages::Ages;
use crate::domain::state::Outcome;
use crate::domain::waits::Wanted;
use crate::error::Error;
use crate::ids::ConnId;
use actix::prelude::*;
use signaltty_protocol::PaneId;
use signaltty_protocol::pane::{Lifecycle, Pane as PaneObject};
use signaltty_protocol::state::{PaneSubmitResult, WaitBaseline, WaitResult};
use std::time::Duration;

/// The connection the server's own waits are filed under: no client has it,
/// so none of them is ever cancelled by a client going away.
pub const SERVER_CONN: ConnId = ConnId(u64::MAX);

/// How long an idle agent's screen must have been quiet before a prompt is
/// typed into it.
const QUIET: Duration = Duration::from_millis(500);

/// The same for an agent woken from hibernation whose input box has asked
/// for bracketed paste: its session and first-launch questions are behind
/// it, and a program that turned paste on reads keys
/// (docs/restore.md#waking-up).
const WOKEN_QUIET: Duration = Duration::from_millis(50);

/// How long an idle agent is waited for to go quiet at most: an agent whose
/// idle screen animates is typed into after this.
const IDLE_AT_MOST: Duration = Duration::from_millis(3000);

/// The moments of a pane the ready wait times, by their monotonic ages
/// (docs/tasks.md#the-silent-worker-watchdog).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Moment {
    /// Its last output or hook.
    LastActivity,
    /// Its last lifecycle change.
    LifecycleSince,
}

/// Whether an idle agent is ready to be typed into (the first-prompt gate,
/// docs/tasks.md#the-first-prompt): still for [`QUIET`] (no output, from
/// the pane's `input`, and no hook or state change, from the projection),
/// or idle for `IDLE_AT_MOST` whatever it draws. A screen rule can read a
/// booting agent as idle before its input box reads keys (Codex's idle
/// fallback matches any screen); a prompt pasted then is lost. A `woken`
/// agent whose input box asked for bracketed paste needs only
/// [`WOKEN_QUIET`].
pub fn settled(
    pane: &PaneObject,
    ages: &mut Ages<Moment>,
    now: std::time::Instant,
    input: InputBoxNow,
    woken: bool,
) -> bool {
    let quiet = if woken && input.takes_paste {
        WOKEN_QUIET
    } else {
        QUIET
    };
    let still = ages
        .age(&Moment::LastActivity, Some(&pane.last_activity_at), now)
        .min(input.still_for);
    let idle = ages.age(&Moment::LifecycleSince, pane.lifecycle_since.as_ref(), now);
    still >= quiet || idle >= IDLE_AT_MOST
}

/// The pane's own answer to the gate, or, with no actor to ask, one that
/// leaves the projection to decide.
pub async fn input_box(addr: Option<&Addr<Pane>>) -> InputBoxNow {
    let unknown = InputBoxNow {
        takes_paste: false,
        still_for: Duration::MAX,
    };
    match addr {
        Some(addr) => addr.send(InputBox).await.unwrap_or(unknown),
        None => unknown,
    }
}

/// Why typing a prompt stopped.
#[derive(Debug)]
pub enum Typed {
    /// The paste was refused: nothing was written.
    Before(Error),
    /// The paste is in, the Enter was not sent.
    After(Error),
}

impl Typed {
    /// The error, whichever step it stopped at.
    pub fn into_error(self) -> Error {
        match self {
            Typed::Before(e) | Typed::After(e) => e,
        }
    }
}

/// The paste through the pane's readiness gate, the pause, then the
/// re-checked Enter. `lost` names a pane whose actor is gone.
pub async fn type_prompt(
    pane: &Addr<Pane>,
    text: String,
    delay: Duration,
    lost: impl Fn(MailboxError) -> Error,
) -> Result<(), Typed> {
    pane.send(SubmitPaste { text })
        .await
        .map_err(&lost)
        .and_then(|r| r)
        .map_err(Typed::Before)?;
    tokio::time::sleep(delay).await;
    pane.send(SubmitEnter)
        .await
        .map_err(&lost)
        .and_then(|r| r)
        .map_err(Typed::After)
}

/// An activity gate to hold.
pub struct Gate {
    /// The connection the wait is filed under.
    pub conn: ConnId,
    /// The pane.
    pub pane: PaneId,
    /// Its actor (for the Enter retry).
    pub addr: Addr<Pane>,
    /// The baseline taken before the paste.
    pub baseline: Option<WaitBaseline>,
    /// How long the agent may take to show it took the prompt.
    pub stall: Duration,
    /// The Sequencer's waits.
    pub waits: Recipient<RegisterWait>,
    /// The pane now, for a new agent session met by the wait.
    pub view: Recipient<ViewPane>,
}

/// The outcomes that show the prompt was taken (or that it never can be).
fn taken() -> Vec<(String, Outcome)> {
    [Lifecycle::Working, Lifecycle::Blocked, Lifecycle::Exited]
        .into_iter()
        .map(|l| (l.as_str().to_owned(), Outcome::Lifecycle(l)))
        .collect()
}

/// A `working` or `blocked` transition newer than the baseline, with one
/// Enter retry halfway into an untouched input box. `STALLED` when none
/// comes, `PANE_EXITED` when the pane exits instead.
pub async fn activity_gate(g: Gate) -> Result<PaneSubmitResult, Error> {
    let wanted = Wanted {
        pane: g.pane.clone(),
        until: taken(),
        after: g.baseline,
    };
    let Ok(mut first) = g
        .waits
        .send(RegisterWait {
            conn: g.conn,
            wanted,
        })
        .await
    else {
        return Err(Error::ShuttingDown);
    };
    let half = g.stall / 2;
    let settled = match tokio::time::timeout(half, &mut first).await {
        Ok(settled) => Some(settled),
        Err(_) => {
            let _ = g.addr.send(SubmitRetry).await;
            tokio::time::timeout(g.stall - half, first).await.ok()
        },
    };
    let result = match settled {
        None => Err(stalled()),
        Some(Err(_)) => Err(Error::ShuttingDown),
        // A new agent session is activity too: judge the state now.
        Some(Ok(Err(Error::IdentityChanged(_)))) => {
            match g.view.send(ViewPane(g.pane.clone())).await.map(|v| v.pane) {
                Ok(Some(p)) if matches!(p.lifecycle, Lifecycle::Working | Lifecycle::Blocked) => {
                    Ok(WaitResult {
                        satisfied: true,
                        outcome: p.lifecycle.as_str().to_owned(),
                        transition_seq: 0,
                        lifecycle: p.lifecycle,
                        attention: p.attention,
                    })
                },
                Ok(Some(_)) => Err(stalled()),
                Ok(None) => Err(Error::NoSuchPane(g.pane.0.clone())),
                Err(_) => Err(Error::ShuttingDown),
            }
        },
        Some(Ok(result)) => result,
    };
    let w = result?;
    if w.outcome == Lifecycle::Exited.as_str() {
        return Err(Error::PaneExited {
            pane: g.pane.0.clone(),
            written: None,
        });
    }
    Ok(PaneSubmitResult {
        submitted: true,
        outcome: w.outcome,
        transition_seq: w.transition_seq,
        lifecycle: w.lifecycle,
        attention: w.attention,
    })
}

fn stalled() -> Error {
    Error::Stalled {
        what: "no working or blocked transition after Enter".into(),
        stage: "activity_gate",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::state::tests::pane;
    use signaltty_protocol::pane::AgentKind;
    use std::time::Instant;

    fn input(takes_paste: bool, still_ms: u64) -> InputBoxNow {
        InputBoxNow {
            takes_paste,
            still_for: Duration::from_millis(still_ms),
        }
    }

    /// The gate's ages as of `at` after a first look at `p`.
    fn looked_at(p: &PaneObject, at: Duration) -> (Ages<Moment>, Instant) {
        let mut ages = Ages::default();
        let first = Instant::now();
        let _ = settled(p, &mut ages, first, input(false, 0), false);
        (ages, first + at)
    }

    #[test]
    fn the_quiet_counts_the_panes_own_output_and_a_woken_box_that_takes_paste_needs_less() {
        let p = pane(AgentKind::Claude);
        let ms = Duration::from_millis;
        // Nothing published for 600 ms, but output 100 ms ago: not still.
        let (mut ages, now) = looked_at(&p, ms(600));
        assert!(!settled(&p, &mut ages, now, input(false, 100), false));
        // Still for 600 ms both ways: ready.
        assert!(settled(&p, &mut ages, now, input(false, 600), false));
        // A woken agent's box that took paste: 50 ms are enough...
        let (mut ages, now) = looked_at(&p, ms(60));
        assert!(settled(&p, &mut ages, now, input(true, 60), true));
        // ...but not for a first start, nor for a box that never asked.
        assert!(!settled(&p, &mut ages, now, input(true, 60), false));
        assert!(!settled(&p, &mut ages, now, input(false, 60), true));
        // An idle screen that never stops moving is typed into after 3 s.
        let (mut ages, now) = looked_at(&p, IDLE_AT_MOST);
        assert!(settled(&p, &mut ages, now, input(false, 10), false));
    }
}
