//! The builtin adapters' reading of hook events
//! (docs/agents.md#per-agent-hooks, docs/states.md#hook-processing-rules): for
//! each agent kind, what a native hook means for the pane's lifecycle,
//! attention and message, the notification it drafts, and where its session id
//! is. Pure functions of (kind, event name, payload). A hook's meaning is its
//! row's role in `agents::vocabulary`, the table the installer writes from;
//! this module says what each role does per agent.

use serde_json::Value;
use signaltty_model::agents::vocabulary::{self, LIVENESS, Role, TOOL_TRAFFIC};
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle};
use signaltty_protocol::state::Severity;

/// What a hook does to attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionEffect {
    /// Clear to `none` (a prompt was submitted: the person is there).
    Clear,
    /// Raise to at least this.
    Raise(Attention),
}

/// A notification an adapter proposes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftNotification {
    pub title: &'static str,
    pub severity: Severity,
    pub body: String,
}

/// An adapter's classification of one hook (each field optional = no change).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classification {
    pub lifecycle: Option<Lifecycle>,
    pub attention: Option<AttentionEffect>,
    pub message: Option<String>,
    pub draft: Option<DraftNotification>,
    /// The hook is known and deliberately changes nothing (Claude's
    /// `idle_prompt`): accepted, not dropped as unrecognised.
    pub known_noop: bool,
    /// The agent stopped at its usage limit; these are its words, where the
    /// reset time is read from (docs/states.md#usage-limits).
    pub limit: Option<String>,
}

impl Classification {
    fn state(
        lifecycle: Lifecycle,
        attention: Option<AttentionEffect>,
        message: Option<String>,
    ) -> Self {
        Classification {
            lifecycle: Some(lifecycle),
            attention,
            message,
            ..Classification::default()
        }
    }

    fn draft(mut self, title: &'static str, severity: Severity, body: Option<String>) -> Self {
        self.draft = Some(DraftNotification {
            title,
            severity,
            body: body.unwrap_or_default(),
        });
        self
    }

    /// Only a message (no state change).
    fn state_message(message: String) -> Self {
        Classification {
            message: Some(message),
            ..Classification::default()
        }
    }

    fn noop() -> Self {
        Classification {
            known_noop: true,
            ..Classification::default()
        }
    }

    /// Whether it changes anything at all (H1's "yields nothing").
    pub fn is_empty(&self) -> bool {
        self.lifecycle.is_none()
            && self.attention.is_none()
            && self.message.is_none()
            && self.draft.is_none()
    }
}

use AttentionEffect::{Clear, Raise};

/// Tool and compaction hooks: they cannot move a `blocked` pane (H4).
pub fn is_tool_traffic(event: &str) -> bool {
    TOOL_TRAFFIC.contains(&event)
}

/// Hooks accepted as liveness even when they change nothing (H1).
pub fn is_liveness(event: &str) -> bool {
    LIVENESS.contains(&event)
}

/// `SessionEnd` / `sessionEnd`, compared case-insensitively (H5).
pub fn is_session_end(event: &str) -> bool {
    event.eq_ignore_ascii_case("sessionend") || event == "session_shutdown"
}

/// A non-empty string field of the payload.
fn text(payload: &Value, key: &str) -> Option<String> {
    payload
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn first_text(payload: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| text(payload, k))
}

/// The session id an adapter reads from a payload.
pub fn session_id(kind: AgentKind, payload: &Value) -> Option<String> {
    let keys: &[&str] = match kind {
        AgentKind::Codex => &["session_id", "thread-id", "thread_id"],
        AgentKind::Cursor => &["session_id", "sessionId", "conversation_id", "chatId"],
        AgentKind::Opencode => &["session_id", "sessionID"],
        AgentKind::Claude
        | AgentKind::Pi
        | AgentKind::Gemini
        | AgentKind::Generic
        | AgentKind::None => &["session_id"],
    };
    first_text(payload, keys)
}

/// How an adapter answers a decision in the terminal (docs/agents.md#adapters):
/// Codex reads the option's 1-based number and a newline; the others have no
/// such channel (Claude answers only through its native permission reply).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerChannel {
    TypeText,
}

/// The answer channel of a kind's adapter.
pub fn answer_channel(kind: AgentKind) -> Option<AnswerChannel> {
    (kind == AgentKind::Codex).then_some(AnswerChannel::TypeText)
}

/// Resume recipes of agents that run as `generic` panes, by program name
/// (docs/agents.md#other-agents): `program ARGS… ID`.
const GENERIC_RESUME: &[(&str, &[&str])] = &[
    ("droid", &["--resume"]),
    ("qodercli", &["--resume"]),
    ("qoderclicn", &["--resume"]),
    ("kilo", &["--session"]),
    ("kilo-code", &["--session"]),
    ("kilocode", &["--session"]),
    ("qwen", &["--resume"]),
    ("grok", &["--resume"]),
    ("grok-build", &["--resume"]),
    ("hermes", &["--resume"]),
    ("hermes-agent", &["--resume"]),
    ("kimi", &["--session"]),
    ("kimi-code", &["--session"]),
    ("kiro-cli", &["chat", "--resume-id"]),
    ("kiro", &["chat", "--resume-id"]),
    ("muse", &["resume"]),
];

/// The official resume command for a session (docs/agents.md#resume-commands),
/// using the pane's own program path when it is the agent's binary. A generic
/// pane gets one when its program is an agent with a recipe
/// (docs/agents.md#other-agents).
pub fn resume_argv(kind: AgentKind, id: &str, pane_argv: &[String]) -> Option<Vec<String>> {
    let program_name = pane_argv
        .first()
        .and_then(|p| std::path::Path::new(p).file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let (binary, args): (&str, &[&str]) = match kind {
        AgentKind::Claude => ("claude", &["--resume"]),
        AgentKind::Codex => ("codex", &["resume"]),
        AgentKind::Opencode => ("opencode", &["--session"]),
        AgentKind::Cursor => ("cursor-agent", &["--resume"]),
        AgentKind::Pi => ("pi", &["--session"]),
        // `gemini --resume=<id>`: one argument (docs/agents.md#gemini-cli).
        AgentKind::Gemini => ("gemini", &[]),
        AgentKind::Generic => match GENERIC_RESUME
            .iter()
            .find(|(name, _)| *name == program_name)
        {
            Some((name, args)) => (*name, *args),
            None => return None,
        },
        AgentKind::None => return None,
    };
    let program = pane_argv
        .first()
        .filter(|p| std::path::Path::new(p).file_name().and_then(|n| n.to_str()) == Some(binary))
        .cloned()
        .unwrap_or_else(|| binary.to_owned());
    let mut argv = vec![program];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    argv.push(match kind {
        AgentKind::Gemini => format!("--resume={id}"),
        _ => id.to_owned(),
    });
    Some(argv)
}

/// The builtin classification of `event` for `kind`. `lifecycle` is the pane's
/// current lifecycle (OpenCode's idle never turns `failed` into `done`).
pub fn classify(
    kind: AgentKind,
    event: &str,
    payload: &Value,
    lifecycle: Lifecycle,
) -> Classification {
    // A name the kind's table lacks is unrecognized; generic and none have no
    // table, so their hooks never change lifecycle or attention.
    let Some(role) = vocabulary::find(kind, event).map(|h| h.role) else {
        return Classification::default();
    };
    match kind {
        AgentKind::Claude => claude(role, payload),
        AgentKind::Codex => codex(role, payload),
        AgentKind::Cursor => cursor(role, payload),
        AgentKind::Opencode => opencode(role, payload, lifecycle),
        AgentKind::Pi => pi(role, payload),
        AgentKind::Gemini => gemini(role, payload, lifecycle),
        AgentKind::Generic | AgentKind::None => Classification::default(),
    }
}

/// Pi, through signaltty's extension (docs/agents.md#pi: the extension is what
/// `signaltty integration install pi` writes).
fn pi(role: Role, p: &Value) -> Classification {
    match role {
        Role::SessionStart => session_started(),
        Role::TurnStart => prompt_submitted(),
        // How the run's last model reply ended (docs/agents.md#pi): Esc
        // aborts it, a model error ends it with the error's text.
        Role::TurnEnd => match text(p, "stop_reason").as_deref() {
            Some("aborted") => interrupted(),
            Some("error") => {
                let error = first_text(p, &["error"]);
                Classification::state(
                    Lifecycle::Failed,
                    Some(Raise(Attention::Error)),
                    Some(error.clone().unwrap_or_else(|| "turn failed".into())),
                )
                .draft("Pi turn failed", Severity::Error, error)
            },
            _ => turn_complete("Pi turn complete", first_text(p, &["last_message"])),
        },
        Role::SessionEnd => session_ended(),
        _ => Classification::default(),
    }
}

/// What Gemini CLI's AfterAgent says for a turn that produced no text.
const GEMINI_NO_RESPONSE: &str = "[no response text]";

/// Gemini CLI's hooks (docs/agents.md#gemini-cli).
fn gemini(role: Role, p: &Value, lifecycle: Lifecycle) -> Classification {
    match role {
        Role::SessionStart => session_started(),
        Role::TurnStart => prompt_submitted(),
        // Gemini CLI fills this in for a turn that produced no text: the
        // turn cancelled before the model answered (AfterAgent fires for it
        // as for any other) has nothing to read (docs/agents.md#gemini-cli).
        Role::TurnEnd if text(p, "prompt_response").as_deref() == Some(GEMINI_NO_RESPONSE) => {
            interrupted()
        },
        Role::TurnEnd => turn_complete("Gemini turn complete", first_text(p, &["prompt_response"])),
        Role::Notification if text(p, "notification_type").as_deref() == Some("ToolPermission") => {
            permission_asked("Gemini needs approval", first_text(p, &["message"]))
        },
        Role::Notification => match first_text(p, &["message"]) {
            Some(m) => Classification::state_message(m),
            None => Classification::noop(),
        },
        // The tool ran: a permission wait is over (the only tool event that
        // may end it).
        Role::ToolDone if lifecycle == Lifecycle::Blocked => prompt_submitted(),
        Role::ToolDone | Role::Quiet => Classification::noop(),
        Role::SessionEnd => session_ended(),
        _ => Classification::default(),
    }
}

fn session_started() -> Classification {
    Classification::state(Lifecycle::Idle, None, Some("session started".into()))
}

fn session_ended() -> Classification {
    Classification::state(
        Lifecycle::Done,
        Some(Raise(Attention::Unread)),
        Some("session ended".into()),
    )
}

/// The turn was interrupted: `idle`, nothing to read.
pub(super) fn interrupted() -> Classification {
    Classification::state(Lifecycle::Idle, None, Some("interrupted".into()))
}

/// The agent stopped at its usage limit (docs/states.md#usage-limits):
/// `blocked` + `rate_limited`, its words as message and as the source of the
/// reset time, and a warning notification.
pub(super) fn rate_limited(title: &'static str, words: Option<String>) -> Classification {
    let message = words
        .clone()
        .unwrap_or_else(|| "usage limit reached".into());
    let mut class = Classification::state(Lifecycle::Blocked, None, Some(message.clone())).draft(
        title,
        Severity::Warning,
        words,
    );
    class.limit = Some(message);
    class
}

fn prompt_submitted() -> Classification {
    Classification::state(Lifecycle::Working, Some(Clear), None)
}

/// A turn's end: done + unread, the agent's last words (if any) as message
/// and notification body.
fn turn_complete(title: &'static str, last: Option<String>) -> Classification {
    Classification::state(
        Lifecycle::Done,
        Some(Raise(Attention::Unread)),
        Some(last.clone().unwrap_or_else(|| "turn complete".into())),
    )
    .draft(title, Severity::Info, last)
}

/// A permission the agent asks for: blocked + permission_required, its own
/// words (if any) as message and notification body.
fn permission_asked(title: &'static str, asked: Option<String>) -> Classification {
    Classification::state(
        Lifecycle::Blocked,
        Some(Raise(Attention::PermissionRequired)),
        Some(
            asked
                .clone()
                .unwrap_or_else(|| "permission requested".into()),
        ),
    )
    .draft(title, Severity::Warning, asked)
}

fn claude(role: Role, p: &Value) -> Classification {
    match role {
        Role::SessionStart => session_started(),
        Role::TurnStart => prompt_submitted(),
        Role::Permission => permission_asked(
            "Claude needs approval",
            first_text(p, &["prompt", "message"]),
        ),
        Role::Notification => {
            let kind = text(p, "notification_type").unwrap_or_default();
            let message = text(p, "message");
            if kind == "idle_prompt" {
                // Fires about a minute after `Stop`: not a question
                // (docs/agents.md#claude-code).
                Classification::noop()
            } else if kind.contains("permission") {
                permission_asked("Claude needs approval", message)
            } else {
                Classification::state(
                    Lifecycle::Blocked,
                    Some(Raise(Attention::InputRequired)),
                    Some(message.clone().unwrap_or_else(|| "input requested".into())),
                )
                .draft("Claude needs input", Severity::Info, message)
            }
        },
        Role::TurnEnd if background_work_in_flight(p) => Classification::state(
            Lifecycle::Working,
            None,
            Some("waiting for background agents".into()),
        ),
        Role::TurnEnd => turn_complete("Claude turn complete", text(p, "last_assistant_message")),
        Role::SessionEnd => session_ended(),
        // StopFailure's `error` names the kind of failure; `rate_limit` is
        // the usage limit, whose words (`error_details`, else the message
        // Claude showed) say when it resets (docs/agents.md#usage-limits).
        Role::TurnFailed if text(p, "error").as_deref() == Some("rate_limit") => rate_limited(
            "Claude hit its usage limit",
            first_text(p, &["error_details", "last_assistant_message"]),
        ),
        Role::TurnFailed => {
            let error = first_text(p, &["error", "message"]);
            Classification::state(
                Lifecycle::Failed,
                Some(Raise(Attention::Error)),
                Some(error.clone().unwrap_or_else(|| "turn failed".into())),
            )
            .draft("Claude turn failed", Severity::Error, error)
        },
        // Tool traffic and subagents change nothing: liveness only (H1).
        _ => Classification::default(),
    }
}

/// Claude's `Stop` while a subagent or workflow still runs
/// (docs/agents.md#claude-code): an entry counts when its `type`/`kind` is
/// `subagent` or `workflow` and its `status`/`state`, if any, is not a finished
/// one.
fn background_work_in_flight(p: &Value) -> bool {
    const FINISHED: &[&str] = &[
        "completed",
        "done",
        "finished",
        "failed",
        "error",
        "cancelled",
        "canceled",
        "killed",
        "stopped",
    ];
    let Some(tasks) = p.get("background_tasks").and_then(Value::as_array) else {
        return false;
    };
    tasks.iter().any(|t| {
        let kind = first_text(t, &["type", "kind"])
            .unwrap_or_default()
            .to_ascii_lowercase();
        let status = first_text(t, &["status", "state"]).map(|s| s.to_ascii_lowercase());
        (kind == "subagent" || kind == "workflow")
            && !status.is_some_and(|s| FINISHED.contains(&s.as_str()))
    })
}

fn codex(role: Role, p: &Value) -> Classification {
    match role {
        Role::SessionStart => session_started(),
        Role::TurnStart => prompt_submitted(),
        Role::Permission => Classification::state(
            Lifecycle::Blocked,
            Some(Raise(Attention::PermissionRequired)),
            Some("approval requested".into()),
        )
        .draft(
            "Codex needs approval",
            Severity::Warning,
            first_text(p, &["tool_name", "description"]),
        ),
        Role::TurnEnd => turn_complete(
            "Codex turn complete",
            first_text(p, &["last_assistant_message", "last-assistant-message"]),
        ),
        Role::SessionEnd => session_ended(),
        // Some versions report an interruption: not a success
        // (docs/agents.md#codex).
        Role::Interrupt => interrupted(),
        Role::Tool => Classification::state(Lifecycle::Working, None, None),
        _ => Classification::default(),
    }
}

fn cursor(role: Role, p: &Value) -> Classification {
    match role {
        Role::SessionStart => session_started(),
        Role::TurnStart => prompt_submitted(),
        Role::Tool => Classification::state(Lifecycle::Working, None, None),
        Role::TurnEnd => match text(p, "status").as_deref() {
            Some("aborted") => {
                Classification::state(Lifecycle::Idle, None, Some("turn aborted".into()))
            },
            Some("error") => Classification::state(
                Lifecycle::Failed,
                Some(Raise(Attention::Error)),
                Some("turn failed".into()),
            )
            .draft("Cursor turn failed", Severity::Error, None),
            _ => Classification::state(
                Lifecycle::Done,
                Some(Raise(Attention::Unread)),
                Some("turn complete".into()),
            )
            .draft("Cursor turn complete", Severity::Info, None),
        },
        Role::SessionEnd => session_ended(),
        Role::Quiet => Classification::noop(),
        _ => Classification::default(),
    }
}

fn opencode(role: Role, p: &Value, lifecycle: Lifecycle) -> Classification {
    let idle = |draft: bool| {
        if matches!(lifecycle, Lifecycle::Failed | Lifecycle::Idle) {
            // An error stays `failed`, an interrupted turn `idle`: only a new
            // busy starts the next turn.
            return Classification::noop();
        }
        let c = Classification::state(
            Lifecycle::Done,
            Some(Raise(Attention::Unread)),
            Some("session idle".into()),
        );
        if draft {
            c.draft("OpenCode session idle", Severity::Info, None)
        } else {
            c
        }
    };
    match role {
        Role::SessionStart => session_started(),
        Role::Status => match text(p, "status").as_deref() {
            Some("busy") => prompt_submitted(),
            Some("idle") => idle(false),
            _ => Classification::default(),
        },
        Role::TurnEnd => idle(true),
        // Esc mid-turn aborts it with this error: an interruption, not a
        // failure (docs/agents.md#opencode).
        Role::TurnFailed if text(p, "name").as_deref() == Some("MessageAbortedError") => {
            interrupted()
        },
        Role::TurnFailed => Classification::state(
            Lifecycle::Failed,
            Some(Raise(Attention::Error)),
            Some("session error".into()),
        )
        .draft(
            "OpenCode session error",
            Severity::Error,
            text(p, "message"),
        ),
        Role::Permission => Classification::state(
            Lifecycle::Blocked,
            Some(Raise(Attention::PermissionRequired)),
            Some("permission requested".into()),
        ),
        Role::Question => Classification::state(
            Lifecycle::Blocked,
            Some(Raise(Attention::InputRequired)),
            Some("question asked".into()),
        ),
        Role::Answered => Classification::state(Lifecycle::Working, None, None),
        _ => Classification::default(),
    }
}

#[cfg(test)]
mod tests;
