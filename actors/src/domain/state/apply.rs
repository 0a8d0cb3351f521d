//! One hook event applied to a pane (H1–H10 of
//! docs/states.md#hook-processing-rules): a pure function from the pane's state
//! and the hook to its new state and the events to publish. The Pane actor
//! calls it; the master transition table of
//! docs/states.md#master-transition-table is its test table.

use super::axes::Now;
use super::hooks::{
    AttentionEffect, Classification, classify, is_liveness, is_session_end, is_tool_traffic,
    resume_argv, session_id,
};
use super::{Axes, Draft, NewNotification};
use serde_json::Value;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, Pane};
use signaltty_protocol::state::Severity;
use signaltty_protocol::{Event, Timestamp};

/// A routed, validated hook.
#[derive(Debug, Clone)]
pub struct HookInput<'a> {
    /// The adapter's kind.
    pub kind: AgentKind,
    /// The `agent` param as given.
    pub agent: &'a str,
    pub event: &'a str,
    pub payload: &'a Value,
    /// An explicit notification body.
    pub message: Option<&'a str>,
    pub title: Option<&'a str>,
    pub severity: Severity,
    /// The decision the hook carries (explicit, or synthesized from a native
    /// permission request), with its `answerable` already captured.
    pub decision: Option<&'a signaltty_protocol::state::Decision>,
    /// The id a notification made from this hook gets.
    pub notification_id: String,
    /// The user manifest overlaying this kind's adapter
    /// (docs/agents.md#how-a-manifest-overlays-an-adapter), or the bundled
    /// manifest of a generic program that names its vocabulary.
    pub overlay: Option<&'a signaltty_model::agents::manifest::Manifest>,
}

impl HookInput<'_> {
    /// The kind whose hook table reads this hook: the hook's own, or the
    /// vocabulary a generic program's manifest names (Qwen Code speaks
    /// Claude Code's hooks).
    fn adapter(&self) -> AgentKind {
        self.overlay.and_then(|m| m.vocabulary).unwrap_or(self.kind)
    }

    /// The session id: the overlay's payload key, else the adapter's.
    fn session(&self) -> Option<String> {
        let from_key = self
            .overlay
            .and_then(|m| m.session_key.as_deref())
            .and_then(|key| {
                self.payload
                    .get(key)
                    .and_then(Value::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .map(str::to_owned)
            });
        from_key.or_else(|| session_id(self.adapter(), self.payload))
    }

    /// The adapter's classification with the overlay's fields for this hook
    /// laid over it; unmapped hooks and absent fields fall through.
    fn classify(&self, lifecycle: Lifecycle) -> Classification {
        let mut class = classify(self.adapter(), self.event, self.payload, lifecycle);
        if let Some(o) = self.overlay.and_then(|m| m.lifecycle.get(self.event)) {
            if o.lifecycle.is_some() {
                class.lifecycle = o.lifecycle;
            }
            if let Some(a) = o.attention {
                class.attention = Some(if a == signaltty_protocol::pane::Attention::None {
                    AttentionEffect::Clear
                } else {
                    AttentionEffect::Raise(a)
                });
            }
            if o.message.is_some() {
                class.message = o.message.clone();
            }
        }
        class
    }
}

#[cfg(test)]
/// What a hook did.
#[derive(Debug, Clone, PartialEq)]
pub enum Applied {
    /// Nothing changed, for this reason (`harness_mismatch`, `unrecognized_hook`).
    Dropped(&'static str),
    /// The hook was taken (the process is now hooked); these events record it.
    Accepted(Vec<Event>),
}

/// H1: a payload naming another agent or harness.
fn harness_mismatch(input: &HookInput<'_>) -> bool {
    let kind = serde_json::to_value(input.kind).ok();
    ["agent", "harness"].iter().any(|key| {
        input
            .payload
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|named| {
                named != input.agent && kind.as_ref().and_then(Value::as_str) != Some(named)
            })
    })
}

/// A hook that passed H1 for a pane, with the classification the check made:
/// only `check_hook` makes one, so a hook is checked once and applied at most
/// once.
#[derive(Debug)]
pub struct CheckedHook<'i, 'a> {
    input: &'i HookInput<'a>,
    /// The classification against the pane's lifecycle at the check.
    class: Classification,
}

impl CheckedHook<'_, '_> {
    /// The hook ends a turn `done` (a session's end is not a turn's).
    pub fn ends_turn_done(&self) -> bool {
        self.class.lifecycle == Some(Lifecycle::Done) && !is_session_end(self.input.event)
    }

    /// The hook ends the turn, `done` or `failed` (a session's end is not a
    /// turn's).
    pub fn ends_turn(&self) -> bool {
        matches!(
            self.class.lifecycle,
            Some(Lifecycle::Done | Lifecycle::Failed)
        ) && self.class.limit.is_none()
            && !is_session_end(self.input.event)
    }

    /// What the hook means to its adapter, if its table knows it.
    pub fn role(&self) -> Option<signaltty_model::agents::vocabulary::Role> {
        signaltty_model::agents::vocabulary::find(self.input.adapter(), self.input.event)
            .map(|h| h.role)
    }

    /// The screen shows the agent's usage limit, in these words, as the hook
    /// ends the turn (Gemini CLI and Codex end a turn the limit stopped as
    /// any other): `blocked` + `rate_limited`
    /// (docs/screen-rules.md#a-usage-limit-is-rate-limited).
    pub fn read_as_rate_limited(&mut self, words: String) {
        self.class = super::hooks::rate_limited("usage limit reached", Some(words));
    }

    /// The screen says the turn this hook ends was interrupted (Gemini CLI
    /// fires its turn end for a cancelled turn too): `idle`, with nothing to
    /// read and no notification
    /// (docs/screen-rules.md#an-interrupted-turn-is-idle).
    pub fn read_as_interrupted(&mut self) {
        self.class = super::hooks::interrupted();
    }
}

/// H1: the hook as it will be applied, or why it is dropped
/// (`harness_mismatch`, `unrecognized_hook`). The pane's lifecycle must not
/// change between this check and `apply_checked`.
pub fn check_hook<'i, 'a>(
    pane: &Pane,
    input: &'i HookInput<'a>,
) -> Result<CheckedHook<'i, 'a>, &'static str> {
    if harness_mismatch(input) {
        return Err("harness_mismatch");
    }
    let class = input.classify(pane.lifecycle);
    let recognized = !class.is_empty()
        || class.known_noop
        || input.session().is_some()
        || input.message.is_some()
        || input.decision.is_some()
        || is_liveness(input.event);
    if recognized {
        Ok(CheckedHook { input, class })
    } else {
        Err("unrecognized_hook")
    }
}

#[cfg(test)]
/// Why a hook would be dropped (H1), if it would.
pub fn drop_reason(pane: &Pane, input: &HookInput<'_>) -> Option<&'static str> {
    check_hook(pane, input).err()
}

#[cfg(test)]
/// Applies `input` to `pane` at `now`.
pub fn apply_hook(pane: &mut Pane, input: &HookInput<'_>, now: Timestamp) -> Applied {
    match check_hook(pane, input) {
        Ok(checked) => Applied::Accepted(apply_checked(pane, checked, now)),
        Err(reason) => Applied::Dropped(reason),
    }
}

/// Applies a checked hook to `pane` at `now` (H2–H10) and returns the events
/// that record it.
pub fn apply_checked(
    pane: &mut Pane,
    checked: CheckedHook<'_, '_>,
    now: impl Into<Now>,
) -> Vec<Event> {
    let now = now.into();
    let CheckedHook { input, mut class } = checked;
    let session = input.session();
    let mut events = Vec::new();
    // H2: session identity, recorded even when the rest is suppressed.
    if let Some(id) = session {
        events.extend(record_session(
            pane,
            input.kind,
            &id,
            input.overlay,
            &now.wall,
        ));
    }
    // H4: tool traffic cannot move a blocked pane.
    if pane.lifecycle == Lifecycle::Blocked && is_tool_traffic(input.event) {
        class.lifecycle = None;
        class.attention = None;
    }
    // H5: a session end after a finished turn changes nothing.
    if is_session_end(input.event)
        && class.lifecycle == Some(Lifecycle::Done)
        && matches!(pane.lifecycle, Lifecycle::Done | Lifecycle::Failed)
    {
        class = Classification::default();
    }
    let source = format!("hook:{}:{}", input.agent, input.event);
    let notification = notification(pane, input, &class, &source, &now.wall);
    let mut axes = Axes::new(pane, now);
    // H6: apply.
    if let Some(message) = &class.message {
        axes.set_message(message);
    }
    if class.lifecycle == Some(Lifecycle::Blocked) && class.limit.is_none() {
        axes.leave_limit_for_question(&source);
    }
    if let Some(lifecycle) = class.lifecycle {
        let left_question = axes.pane.lifecycle == Lifecycle::Blocked
            && lifecycle != Lifecycle::Blocked
            && input.decision.is_none();
        axes.set_lifecycle(lifecycle, &source);
        // The agent left its question: answered in its own UI (OpenCode's
        // `permission.replied`, a dialog answered by keys) or interrupted. The
        // question's attention is withdrawn, as a screen rule's is
        // (docs/screen-rules.md#withdrawing-a-screen-question): whoever
        // answered needs no reminder to look. A question still pending as a
        // decision keeps it (a turn end never drops an unanswered decision,
        // H8), unless the agent works again.
        let decision_stays =
            axes.pane.pending_decision.is_some() && lifecycle != Lifecycle::Working;
        if left_question
            && !decision_stays
            && matches!(
                axes.pane.attention,
                Attention::PermissionRequired | Attention::InputRequired
            )
        {
            axes.clear("question_left");
        }
    }
    if let Some(words) = &class.limit {
        axes.rate_limit_said(words, &source);
    }
    match class.attention {
        Some(AttentionEffect::Clear) => {
            // A prompt was submitted: the question on screen is gone too.
            axes.clear("hook");
            axes.clear_decision("attention_cleared");
        },
        Some(AttentionEffect::Raise(to)) => {
            axes.raise(to);
        },
        None => {},
    }
    // H8: set or supersede; without one, a pane that went back to work has moved
    // on from its question, while a turn end keeps an unanswered one.
    match input.decision {
        Some(decision) => axes.set_decision(decision.clone()),
        None if axes.pane.lifecycle == Lifecycle::Working => {
            axes.clear_decision("moved_on");
        },
        None => {},
    }
    if class.message.is_none()
        && let Some(decision) = input.decision
    {
        axes.set_message(decision.prompt.trim());
    }
    // H9, H10.
    if let Some(new) = notification {
        axes.notify(new);
    }
    axes.touch();
    events.extend(axes.into_events());
    events
}

/// Records an agent session (H2, `report-session`): the kind, the resume
/// command and the id. Returns `pane.updated` when something changed.
pub fn record_session(
    pane: &mut Pane,
    kind: AgentKind,
    id: &str,
    overlay: Option<&signaltty_model::agents::manifest::Manifest>,
    now: &Timestamp,
) -> Option<Event> {
    let resume = overlay
        .and_then(|m| m.resume_for(id))
        .or_else(|| resume_argv(kind, id, &pane.argv));
    let agent = &mut pane.agent;
    if agent.kind == kind
        && agent.agent_session_id.as_deref() == Some(id)
        && agent.resume_argv == resume
    {
        return None;
    }
    agent.kind = kind;
    agent.agent_session_id = Some(id.to_owned());
    agent.resume_argv = resume;
    pane.last_activity_at = now.clone();
    Some(Event::PaneUpdated {
        pane_id: pane.id.clone(),
        pane: pane.clone(),
    })
}

/// H9: an explicit message wins (with the `title` and `severity` params);
/// otherwise the adapter's draft, whose title the `title` param overrides.
fn notification(
    pane: &Pane,
    input: &HookInput<'_>,
    class: &Classification,
    source: &str,
    now: &Timestamp,
) -> Option<NewNotification> {
    // A borrowed vocabulary's titles name its agent ("Claude needs
    // approval"): they name the program that sent the hook instead.
    let retitled = class.draft.as_ref().and_then(|d| {
        let name = input.overlay.filter(|m| m.vocabulary.is_some())?;
        let (_, rest) = d.title.split_once(' ')?;
        Some(format!("{} {rest}", name.display_name.as_deref()?))
    });
    let draft = match (input.message, &class.draft) {
        (Some(message), _) => Draft {
            title: input.title,
            draft_title: None,
            body: message,
            severity: input.severity,
            source: source.to_owned(),
        },
        (None, Some(d)) => Draft {
            title: input.title,
            draft_title: Some(retitled.as_deref().unwrap_or(d.title)),
            body: &d.body,
            severity: d.severity,
            source: source.to_owned(),
        },
        (None, None) => return None,
    };
    Some(NewNotification::new(
        input.notification_id.clone(),
        pane,
        draft,
        now.clone(),
    ))
}

#[cfg(test)]
/// Applies a winning screen rule
/// (docs/screen-rules.md#what-the-winning-rule-does,
/// docs/screen-rules.md#withdrawing-a-screen-question). `screen_raised`
/// remembers whether the pane's `input_required` came from the screen, so that
/// leaving `blocked` withdraws only what the screen raised. `prompted`: input
/// was written to the pane's process since it started.
pub fn apply_screen(
    pane: &mut Pane,
    state: signaltty_model::agents::screen::ScreenState,
    rule: &str,
    screen_raised: &mut bool,
    prompted: bool,
    now: Timestamp,
) -> Vec<Event> {
    apply_screen_seen(pane, state, rule, screen_raised, prompted, false, now)
}

/// `apply_screen` for a pane whose screen, between two ticks, read working
/// while it was blocked (`worked_since_blocked`). Where the plain rule says
/// "idle after blocked: idle", the question was answered and the whole turn ran
/// between two ticks (a fast tool and a fast model), so the idle screen ends a
/// turn, `done` with its result `unread`, rather than reading as a dismissed
/// question
/// (docs/screen-rules.md#an-answered-question-whose-turn-ends-between-two-ticks-is-a-finished-turn)
/// — unless the question came before the agent was ever ready (a startup gate),
/// when no turn ran.
pub fn apply_screen_seen(
    pane: &mut Pane,
    state: signaltty_model::agents::screen::ScreenState,
    rule: &str,
    screen_raised: &mut bool,
    prompted: bool,
    worked_since_blocked: bool,
    now: impl Into<Now>,
) -> Vec<Event> {
    use signaltty_model::agents::screen::ScreenState;
    use signaltty_protocol::pane::Attention;
    let source = format!("screen:{rule}");
    let mut axes = Axes::new(pane, now);
    let withdraw = |axes: &mut Axes<'_>, raised: &mut bool| {
        if *raised && axes.pane.attention == Attention::InputRequired {
            axes.clear("screen");
        }
        *raised = false;
    };
    match (state, axes.pane.lifecycle) {
        (ScreenState::Working, Lifecycle::Working) => {},
        (ScreenState::Working, from) => {
            if from == Lifecycle::Blocked {
                withdraw(&mut axes, screen_raised);
            }
            axes.set_lifecycle(Lifecycle::Working, &source);
        },
        (ScreenState::Blocked, _) => {
            axes.leave_limit_for_question(&source);
            axes.set_lifecycle(Lifecycle::Blocked, &source);
            if axes.raise(Attention::InputRequired) {
                *screen_raised = true;
            }
        },
        // signaltty's own reading
        // (docs/screen-rules.md#an-agent-starting-up-is-not-a-turn): work that
        // began before the agent was ever ready, with nothing typed into it,
        // was the agent starting (Codex spins its title while it boots), not a
        // turn: it ends `idle`, with nothing to read.
        (ScreenState::Idle, Lifecycle::Working)
            if axes.pane.last_lifecycle == Lifecycle::Unknown && !prompted =>
        {
            axes.set_lifecycle(Lifecycle::Idle, &source);
        },
        (ScreenState::Idle, Lifecycle::Working) => {
            axes.set_lifecycle(Lifecycle::Done, &source);
            axes.raise(Attention::Unread);
        },
        // A question before the agent was ever ready (Codex's hook trust
        // gate on start) was not asked in a turn: the loading that follows
        // its answer ends `idle`, as a boot spinner does.
        (ScreenState::Idle, Lifecycle::Blocked)
            if worked_since_blocked && axes.pane.last_lifecycle != Lifecycle::Unknown =>
        {
            withdraw(&mut axes, screen_raised);
            axes.set_lifecycle(Lifecycle::Done, &source);
            axes.raise(Attention::Unread);
        },
        (ScreenState::Idle, Lifecycle::Blocked) => {
            withdraw(&mut axes, screen_raised);
            axes.set_lifecycle(Lifecycle::Idle, &source);
        },
        // A known agent whose screen shows its prompt before any signal is
        // ready for one (docs/screen-rules.md#a-fresh-agent-whose-prompt-is-on-screen-is-idle).
        // Codex sends its first hook only with the first prompt; without
        // this its pane stays `unknown`, so `pane.submit` and a task's ready
        // wait refuse it forever.
        (ScreenState::Idle, Lifecycle::Unknown) => {
            axes.set_lifecycle(Lifecycle::Idle, &source);
        },
        // The agent says the turn was interrupted: nothing to read, and no
        // question left (docs/screen-rules.md#an-interrupted-turn-is-idle).
        (
            ScreenState::Interrupted,
            Lifecycle::Working | Lifecycle::Blocked | Lifecycle::Unknown,
        ) => {
            withdraw(&mut axes, screen_raised);
            axes.set_lifecycle(Lifecycle::Idle, &source);
        },
        // A frame without the agent's word came first (OpenCode's footer
        // says "interrupted" a moment after its progress bar goes) and ended
        // the turn `done`: the word takes the unread result back.
        (ScreenState::Interrupted, Lifecycle::Done) if axes.pane.attention == Attention::Unread => {
            axes.clear("interrupted");
            axes.set_lifecycle(Lifecycle::Idle, &source);
        },
        // The tracker reads the reset time from the rule's region
        // (`tracker/limit.rs`); without the words there is none.
        (ScreenState::RateLimited, _) => {
            withdraw(&mut axes, screen_raised);
            axes.rate_limit(None, &source);
        },
        (ScreenState::Idle | ScreenState::Interrupted | ScreenState::Hold, _) => {},
    }
    axes.into_events()
}
