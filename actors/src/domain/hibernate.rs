//! Hibernation of idle agents (docs/restore.md#hibernation): whether a pane
//! may be stopped now and, if not, what keeps it awake or how long it still
//! has to stay quiet; and how its adapter stops an agent so that it saves its
//! session. Pure: the caller measures the quiet time on its own clock.

use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, LiveState, Pane};
use signaltty_protocol::signal::SignalName;
use std::time::Duration;

/// What the pane object does not say, measured by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Facts {
    /// The workspace's idle time; zero: hibernation is off.
    pub after: Duration,
    /// How long the pane has been quiet: no lifecycle or attention change, no
    /// look, no input.
    pub quiet_for: Duration,
    /// A terminal is attached (an interactive attach; a watch such as the
    /// board's preview neither keeps a pane awake nor wakes it).
    pub viewer: bool,
    /// Input was typed without its Enter.
    pub unsent_input: bool,
    /// A task that is not terminal has this pane as its worker.
    pub task_waits: bool,
}

/// Whether the pane may be hibernated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Now.
    Due,
    /// Once it has been quiet this much longer.
    Wait(Duration),
    /// Not while this holds.
    Never(Keep),
    /// Its workspace does not hibernate.
    Off,
}

/// What keeps a pane awake (docs/restore.md#what-keeps-a-pane-awake).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keep {
    /// No process runs (already hibernated, exited or restored).
    NotLive,
    /// Its agent reported no session, or no exact-session resume command.
    NoSession,
    /// It is working.
    Working,
    /// It is blocked on a question.
    Blocked,
    /// Its lifecycle is not `idle` or `done` (`unknown`, `failed`).
    NotIdle(Lifecycle),
    /// A decision waits for an answer.
    Decision,
    /// A person has not looked yet.
    Attention(Attention),
    /// A viewer is attached.
    Viewer,
    /// Typed input waits for its Enter.
    UnsentInput,
    /// A task is waiting on it.
    TaskWaits,
}

impl Keep {
    /// The rule in words, for `pane.explain`.
    pub fn words(&self) -> String {
        match self {
            Keep::NotLive => "no process runs".into(),
            Keep::NoSession => {
                "its agent reported no session that an exact resume command can start again".into()
            },
            Keep::Working => "the agent is working".into(),
            Keep::Blocked => "the agent is blocked on a question".into(),
            Keep::NotIdle(l) => format!("the agent is {}, not idle or done", l.as_str()),
            Keep::Decision => "a decision waits for an answer".into(),
            Keep::Attention(a) => format!("its attention is {}: nobody has looked", a.as_str()),
            Keep::Viewer => "a viewer is attached".into(),
            Keep::UnsentInput => "typed input waits for its Enter".into(),
            Keep::TaskWaits => "a task is waiting on it".into(),
        }
    }
}

/// Whether `pane` may be hibernated now (docs/restore.md#hibernation): a
/// live agent with an exact-session resume command, `idle` or `done`, no
/// decision, no attention, no viewer, no unsent input and no task waiting,
/// quiet for the workspace's idle time.
pub fn verdict(pane: &Pane, f: &Facts) -> Verdict {
    if f.after.is_zero() {
        return Verdict::Off;
    }
    if pane.live != LiveState::Live {
        return Verdict::Never(Keep::NotLive);
    }
    if pane.agent.agent_session_id.is_none() || pane.agent.resume_argv.is_none() {
        return Verdict::Never(Keep::NoSession);
    }
    let keep = match pane.lifecycle {
        Lifecycle::Working => Some(Keep::Working),
        Lifecycle::Blocked => Some(Keep::Blocked),
        Lifecycle::Idle | Lifecycle::Done => None,
        other => Some(Keep::NotIdle(other)),
    }
    .or_else(|| pane.pending_decision.is_some().then_some(Keep::Decision))
    .or_else(|| (pane.attention != Attention::None).then_some(Keep::Attention(pane.attention)))
    .or_else(|| f.viewer.then_some(Keep::Viewer))
    .or_else(|| f.unsent_input.then_some(Keep::UnsentInput))
    .or_else(|| f.task_waits.then_some(Keep::TaskWaits));
    if let Some(keep) = keep {
        return Verdict::Never(keep);
    }
    match f.after.checked_sub(f.quiet_for) {
        Some(left) if !left.is_zero() => Verdict::Wait(left),
        _ => Verdict::Due,
    }
}

/// Whether typed text waits for its Enter after `bytes` were written, given
/// whether it did before: a printable character leaves text in the input
/// box; Enter (CR or LF), Ctrl-C and Ctrl-U empty it; escape sequences
/// (arrows, bracketed-paste markers) and other control keys change nothing.
pub fn leaves_unsent(before: bool, bytes: &[u8]) -> bool {
    let mut unsent = before;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0x1b => {
                i += 1;
                match bytes.get(i) {
                    // CSI: parameters and intermediates up to a final byte.
                    Some(b'[') => {
                        i += 1;
                        while i < bytes.len() && !(0x40..=0x7e).contains(&bytes[i]) {
                            i += 1;
                        }
                    },
                    // SS3 (an arrow in application mode): one more byte.
                    Some(b'O') => i += 1,
                    _ => {},
                }
            },
            b'\r' | b'\n' | 0x03 | 0x15 => unsent = false,
            b if b >= 0x20 && b != 0x7f => unsent = true,
            _ => {},
        }
        i += 1;
    }
    unsent
}

/// Why a pane was hibernated, in words (the record's `reason`).
pub fn reason(pane: &Pane, after: Duration) -> String {
    format!(
        "{} for {} s with no attention, no viewer and no unsent input; session {} resumes it",
        pane.lifecycle.as_str(),
        after.as_secs(),
        pane.agent.agent_session_id.as_deref().unwrap_or("?")
    )
}

/// How an adapter stops its agent so that it saves its session
/// (docs/agents.md#hibernation): keys typed one `gap` apart, or a signal to
/// the process group; after `grace` without an exit, SIGTERM to the group,
/// and SIGKILL after `grace` more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopRecipe {
    /// Typed in order.
    pub keys: &'static [&'static [u8]],
    /// Between two keys.
    pub gap: Duration,
    /// Sent to the process group when there are no keys.
    pub signal: Option<SignalName>,
    /// How long an exit is waited for before the next step.
    pub grace: Duration,
}

const CTRL_C_TWICE: &[&[u8]] = &[b"\x03", b"\x03"];

/// The stop of `kind`'s adapter: the interactive agents quit on two Ctrl-C
/// at an empty prompt, as a person quits them, and keep their session; a
/// program signaltty knows only by its resume recipe gets SIGTERM.
pub fn stop_recipe(kind: AgentKind) -> StopRecipe {
    let grace = Duration::from_secs(5);
    match kind {
        AgentKind::Claude
        | AgentKind::Codex
        | AgentKind::Gemini
        | AgentKind::Cursor
        | AgentKind::Pi
        | AgentKind::Opencode => StopRecipe {
            keys: CTRL_C_TWICE,
            gap: Duration::from_millis(300),
            signal: None,
            grace,
        },
        AgentKind::Generic | AgentKind::None => StopRecipe {
            keys: &[],
            gap: Duration::ZERO,
            signal: Some(SignalName::Term),
            grace,
        },
    }
}

#[cfg(test)]
mod tests;
