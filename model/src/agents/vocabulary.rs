//! The native hook vocabulary of each builtin agent
//! (docs/agents.md#per-agent-hooks, docs/integrations.md#per-agent): one table
//! per agent kind of the hooks signaltty knows, with what each one means (its
//! role) and whether and how `signaltty integration install` subscribes to it.
//! The installer (`integration/`) writes the installed rows; the classifier
//! (`state/hooks.rs`) reads a hook's meaning from its row, so a name missing
//! here is unrecognized, and an installed hook cannot go unread.
//!
//! ```text
//!   hook name ──► vocabulary::find(kind, name) ──► Role ──► state::hooks::classify
//!                         │
//!                         └── Install::Command{timeout, mode} ──► integration::install
//! ```
//!
//! The tables hold only hooks of the builtin adapters. The H1 liveness names
//! and the H4 tool-traffic names (docs/states.md#hook-processing-rules) are
//! names, not rows: they hold for any pane kind, since a generic pane or a
//! user's manifest can send them too.

use Install::{No, Shim};
// The tables below read as name, role, install: the variants stay unqualified.
use Role::*;
use signaltty_protocol::pane::AgentKind;

/// What a native hook means to its adapter. The classifier turns a role into
/// lifecycle, attention and message for each agent, reading the payload where
/// one role covers several outcomes (a `Notification`, a `stop` status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A session began: `idle`, its id recorded.
    SessionStart,
    /// A prompt was submitted: `working`, attention cleared.
    TurnStart,
    /// The turn ended: `done` + unread (Cursor's `stop` reads its status).
    TurnEnd,
    /// The turn or session failed: `failed` + error.
    TurnFailed,
    /// The agent asks permission: `blocked` + permission_required.
    Permission,
    /// The agent asks a question: `blocked` + input_required.
    Question,
    /// A permission or question was answered: back to `working`.
    Answered,
    /// A notification whose payload says what it is (permission, input, idle).
    Notification,
    /// A status report whose payload says busy or idle (OpenCode).
    Status,
    /// Tool or compaction traffic: `working` for some adapters, nothing for
    /// others, never able to move a `blocked` pane (H4).
    Tool,
    /// A tool finished, which ends a permission wait (Gemini's `AfterTool`:
    /// deliberately not tool traffic).
    ToolDone,
    /// A subagent finished: accepted as liveness only.
    Subagent,
    /// The turn was interrupted: `idle`, not a success.
    Interrupt,
    /// Known and deliberately changes nothing.
    Quiet,
    /// The session ended: `done` + unread, unless a turn already finished (H5).
    SessionEnd,
}

/// Which reporter a managed hook command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReporterMode {
    /// Report the hook and return at once.
    Report,
    /// The waiting permission reporter (`--wait-for-answer`,
    /// docs/decisions.md#the-waiting-reporter).
    WaitForAnswer,
}

/// Whether and how `signaltty integration install` subscribes to a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Install {
    /// Not installed: classified when it arrives anyway (a user's own hook
    /// entry, another version of the agent).
    No,
    /// A managed command in the agent's JSON hook file.
    Command {
        /// The hook's timeout in the file's own unit: seconds, except Gemini
        /// CLI's milliseconds.
        timeout: u64,
        /// The reporter the command runs.
        mode: ReporterMode,
    },
    /// Reported by the whole file signaltty owns for the agent (the OpenCode
    /// plugin, the Pi extension), whose text names the hook.
    Shim,
}

/// One native hook of an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeHook {
    /// The hook's name exactly as the agent spells it (the `--event` of its
    /// command, the `event` of `hook-event`).
    pub name: &'static str,
    /// What it means.
    pub role: Role,
    /// How it is installed.
    pub install: Install,
}

const fn hook(name: &'static str, role: Role, install: Install) -> NativeHook {
    NativeHook {
        name,
        role,
        install,
    }
}

/// A reporting command with this timeout.
const fn report(timeout: u64) -> Install {
    Install::Command {
        timeout,
        mode: ReporterMode::Report,
    }
}

/// The waiting permission reporter: 125 s, around the server's 120 s wait.
const WAIT_FOR_ANSWER: Install = Install::Command {
    timeout: 125,
    mode: ReporterMode::WaitForAnswer,
};

/// Claude Code (docs/agents.md#claude-code). Installed rows keep the order they
/// are written to `settings.json`.
const CLAUDE: &[NativeHook] = &[
    hook("SessionStart", SessionStart, report(10)),
    hook("UserPromptSubmit", TurnStart, report(10)),
    // Permission, input and `idle_prompt` notifications share one hook; the
    // payload's `notification_type` tells them apart.
    hook("Notification", Notification, report(10)),
    hook("PermissionRequest", Permission, WAIT_FOR_ANSWER),
    // A `Stop` while background subagents still run keeps the pane working.
    hook("Stop", TurnEnd, report(10)),
    // Installed (docs/integrations.md#claude-code): an API error ends Claude's
    // turn with StopFailure and no Stop, and without it the pane stayed
    // `working` for ever.
    hook("StopFailure", TurnFailed, report(10)),
    hook("SessionEnd", SessionEnd, report(10)),
    // Tool traffic changes nothing for Claude: accepted as liveness (H1).
    hook("PreToolUse", Tool, No),
    hook("PostToolUse", Tool, No),
    hook("PreCompact", Tool, No),
    hook("PostCompact", Tool, No),
    hook("SubagentStop", Subagent, No),
];

/// Codex (docs/agents.md#codex).
const CODEX: &[NativeHook] = &[
    hook("SessionStart", SessionStart, report(3)),
    hook("UserPromptSubmit", TurnStart, report(3)),
    hook("PermissionRequest", Permission, WAIT_FOR_ANSWER),
    hook("Stop", TurnEnd, report(3)),
    hook("SessionEnd", SessionEnd, report(3)),
    // Codex's legacy `notify` program reports the turn end under this name.
    hook("agent-turn-complete", TurnEnd, No),
    // Esc at a turn or its approval: `idle`, the question withdrawn (issue 16;
    // docs/agents.md#codex). Codex clamps its timeout to 3 s.
    hook("Interrupt", Interrupt, report(3)),
    // Not installed (docs/integrations.md#codex): the mapping is for user-added
    // entries.
    hook("PreToolUse", Tool, No),
    hook("PostToolUse", Tool, No),
    hook("PreCompact", Tool, No),
    hook("PostCompact", Tool, No),
    hook("SubagentStop", Subagent, No),
];

/// Cursor Agent (docs/agents.md#cursor-agent): camelCase names, one flat file.
const CURSOR: &[NativeHook] = &[
    hook("sessionStart", SessionStart, report(10)),
    hook("beforeSubmitPrompt", TurnStart, report(10)),
    // Seed 002: tool hooks are installed so that work between prompts shows.
    hook("preToolUse", Tool, report(10)),
    hook("postToolUse", Tool, report(10)),
    hook("postToolUseFailure", Tool, report(10)),
    // The payload's `status` says whether the turn completed, aborted or failed.
    hook("stop", TurnEnd, report(10)),
    hook("sessionEnd", SessionEnd, report(10)),
    hook("beforeShellExecution", Quiet, No),
    hook("afterShellExecution", Quiet, No),
];

/// Gemini CLI (docs/agents.md#gemini-cli): timeouts in milliseconds.
const GEMINI: &[NativeHook] = &[
    hook("SessionStart", SessionStart, report(10_000)),
    hook("BeforeAgent", TurnStart, report(10_000)),
    hook("AfterAgent", TurnEnd, report(10_000)),
    // `notification_type: ToolPermission` is a permission prompt; any other
    // notification only sets the message.
    hook("Notification", Notification, report(10_000)),
    // Installed so that a permission wait ends when the tool runs.
    hook("AfterTool", ToolDone, report(10_000)),
    hook("SessionEnd", SessionEnd, report(10_000)),
    hook("BeforeTool", Quiet, No),
    hook("PreCompress", Quiet, No),
    hook("BeforeModel", Quiet, No),
    hook("AfterModel", Quiet, No),
    hook("BeforeToolSelection", Quiet, No),
];

/// OpenCode, through signaltty's plugin (docs/agents.md#opencode). The plugin
/// also reports `session.execution.failed` as `session.error`.
const OPENCODE: &[NativeHook] = &[
    hook("session.created", SessionStart, Shim),
    // Reported only for `busy` and `idle`.
    hook("session.status", Status, Shim),
    hook("session.idle", TurnEnd, Shim),
    hook("session.error", TurnFailed, Shim),
    hook("permission.asked", Permission, Shim),
    hook("permission.replied", Answered, Shim),
    hook("question.asked", Question, Shim),
    hook("question.replied", Answered, Shim),
    hook("question.rejected", Answered, Shim),
];

/// Pi, through signaltty's extension (docs/agents.md#pi).
const PI: &[NativeHook] = &[
    hook("session_start", SessionStart, Shim),
    hook("agent_start", TurnStart, Shim),
    hook("agent_end", TurnEnd, Shim),
    hook("session_shutdown", SessionEnd, Shim),
];

/// The native hooks of `kind`'s builtin adapter; empty for `generic` and
/// `none`, whose hooks never change lifecycle or attention.
pub fn hooks(kind: AgentKind) -> &'static [NativeHook] {
    match kind {
        AgentKind::Claude => CLAUDE,
        AgentKind::Codex => CODEX,
        AgentKind::Cursor => CURSOR,
        AgentKind::Gemini => GEMINI,
        AgentKind::Opencode => OPENCODE,
        AgentKind::Pi => PI,
        AgentKind::Generic | AgentKind::None => &[],
    }
}

/// The row of `kind`'s hook called `name` (exact, case-sensitive).
pub fn find(kind: AgentKind, name: &str) -> Option<&'static NativeHook> {
    hooks(kind).iter().find(|h| h.name == name)
}

/// Whether `name` is `kind`'s native permission request: the hook whose
/// reporter waits for a person's answer (Claude Code's and Codex's
/// `PermissionRequest`).
pub fn asks_permission(kind: AgentKind, name: &str) -> bool {
    find(kind, name).is_some_and(|h| {
        h.role == Role::Permission
            && matches!(
                h.install,
                Install::Command {
                    mode: ReporterMode::WaitForAnswer,
                    ..
                }
            )
    })
}

/// The hooks `signaltty integration install` subscribes `kind` to, in the
/// order they are written.
pub fn installed(kind: AgentKind) -> impl Iterator<Item = &'static NativeHook> {
    hooks(kind).iter().filter(|h| h.install != Install::No)
}

/// H4's tool and compaction hooks (docs/states.md#hook-processing-rules), for
/// any pane kind: the `Tool` rows' names.
pub const TOOL_TRAFFIC: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
];

/// H1's hooks accepted as liveness even when they change nothing, for any pane
/// kind (H1 of docs/states.md#hook-processing-rules names exactly these).
/// Cursor's camelCase tool hooks are not among them: the rule lists only the
/// PascalCase ones.
pub const LIVENESS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SubagentStop",
];
