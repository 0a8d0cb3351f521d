//! The hook rows of docs/states.md#master-transition-table, with the exceptions
//! decided there, as one table: (agent, event, payload, from) → to. Every row
//! also checks that exactly the axes that moved emitted events.

use super::*;
use crate::domain::state::apply::{Applied, HookInput, apply_hook};
use serde_json::{Value, json};
use signaltty_protocol::pane::Attention as A;
use signaltty_protocol::pane::Lifecycle as L;

struct Row {
    what: &'static str,
    agent: &'static str,
    event: &'static str,
    payload: Value,
    from: (L, A),
    to: (L, A),
}

fn row(
    what: &'static str,
    agent: &'static str,
    event: &'static str,
    payload: Value,
    from: (L, A),
    to: (L, A),
) -> Row {
    Row {
        what,
        agent,
        event,
        payload,
        from,
        to,
    }
}

fn rows() -> Vec<Row> {
    let s = json!({"session_id": "s"});
    let bg =
        json!({"session_id": "s", "background_tasks": [{"type": "subagent", "status": "running"}]});
    vec![
        row(
            "prompt clears attention",
            "claude",
            "UserPromptSubmit",
            s.clone(),
            (L::Done, A::Unread),
            (L::Working, A::None),
        ),
        row(
            "cursor prompt",
            "cursor",
            "beforeSubmitPrompt",
            json!({"conversation_id": "c"}),
            (L::Idle, A::Warning),
            (L::Working, A::None),
        ),
        row(
            "opencode busy",
            "opencode",
            "session.status",
            json!({"sessionID": "o", "status": "busy"}),
            (L::Done, A::Unread),
            (L::Working, A::None),
        ),
        row(
            "codex tool traffic",
            "codex",
            "PreToolUse",
            s.clone(),
            (L::Idle, A::None),
            (L::Working, A::None),
        ),
        row(
            "codex tool traffic while blocked",
            "codex",
            "PostToolUse",
            s.clone(),
            (L::Blocked, A::PermissionRequired),
            (L::Blocked, A::PermissionRequired),
        ),
        row(
            "cursor tool traffic while blocked",
            "cursor",
            "postToolUse",
            json!({"conversation_id": "c"}),
            (L::Blocked, A::PermissionRequired),
            (L::Blocked, A::PermissionRequired),
        ),
        row(
            "claude tool traffic",
            "claude",
            "PreToolUse",
            s.clone(),
            (L::Working, A::None),
            (L::Working, A::None),
        ),
        row(
            "claude permission",
            "claude",
            "PermissionRequest",
            json!({"session_id": "s", "tool_name": "Bash", "tool_input": {}}),
            (L::Working, A::None),
            (L::Blocked, A::PermissionRequired),
        ),
        row(
            "codex permission",
            "codex",
            "PermissionRequest",
            json!({"session_id": "s", "tool_name": "shell"}),
            (L::Working, A::None),
            (L::Blocked, A::PermissionRequired),
        ),
        row(
            "claude question",
            "claude",
            "Notification",
            json!({"session_id": "s", "notification_type": "agent_needs_input"}),
            (L::Working, A::None),
            (L::Blocked, A::InputRequired),
        ),
        row(
            "claude permission notification",
            "claude",
            "Notification",
            json!({"session_id": "s", "notification_type": "permission_prompt"}),
            (L::Working, A::None),
            (L::Blocked, A::PermissionRequired),
        ),
        row(
            "claude idle_prompt",
            "claude",
            "Notification",
            json!({"session_id": "s", "notification_type": "idle_prompt"}),
            (L::Done, A::Unread),
            (L::Done, A::Unread),
        ),
        row(
            "session start",
            "claude",
            "SessionStart",
            s.clone(),
            (L::Unknown, A::None),
            (L::Idle, A::None),
        ),
        row(
            "cursor session start",
            "cursor",
            "sessionStart",
            json!({"conversation_id": "c"}),
            (L::Unknown, A::None),
            (L::Idle, A::None),
        ),
        row(
            "opencode session created",
            "opencode",
            "session.created",
            json!({"sessionID": "o"}),
            (L::Unknown, A::None),
            (L::Idle, A::None),
        ),
        row(
            "claude turn end",
            "claude",
            "Stop",
            s.clone(),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "codex notify turn end",
            "codex",
            "agent-turn-complete",
            json!({"thread-id": "t"}),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "cursor turn end",
            "cursor",
            "stop",
            json!({"conversation_id": "c", "status": "completed"}),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "opencode idle",
            "opencode",
            "session.idle",
            json!({"sessionID": "o"}),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "claude stop with a running subagent",
            "claude",
            "Stop",
            bg,
            (L::Working, A::None),
            (L::Working, A::None),
        ),
        row(
            "cursor aborted",
            "cursor",
            "stop",
            json!({"conversation_id": "c", "status": "aborted"}),
            (L::Working, A::None),
            (L::Idle, A::None),
        ),
        row(
            "cursor error",
            "cursor",
            "stop",
            json!({"conversation_id": "c", "status": "error"}),
            (L::Working, A::None),
            (L::Failed, A::Error),
        ),
        row(
            "opencode idle after an error",
            "opencode",
            "session.idle",
            json!({"sessionID": "o"}),
            (L::Failed, A::Error),
            (L::Failed, A::Error),
        ),
        row(
            "opencode error",
            "opencode",
            "session.error",
            json!({"sessionID": "o", "message": "boom"}),
            (L::Working, A::None),
            (L::Failed, A::Error),
        ),
        row(
            "opencode aborted by Esc: interrupted, not failed",
            "opencode",
            "session.error",
            json!({"sessionID": "o", "message": "The operation was aborted.", "name": "MessageAbortedError"}),
            (L::Working, A::None),
            (L::Idle, A::None),
        ),
        row(
            "opencode idle after an interruption is no turn end",
            "opencode",
            "session.idle",
            json!({"sessionID": "o"}),
            (L::Idle, A::None),
            (L::Idle, A::None),
        ),
        row(
            "session end mid-turn",
            "claude",
            "SessionEnd",
            s.clone(),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "session end after review",
            "claude",
            "SessionEnd",
            s.clone(),
            (L::Done, A::None),
            (L::Done, A::None),
        ),
        row(
            "session end after a failure",
            "cursor",
            "sessionEnd",
            json!({"conversation_id": "c"}),
            (L::Failed, A::Error),
            (L::Failed, A::Error),
        ),
        // Issue 16 (unlike the reference design's row, which kept the
        // question's attention): the agent left its question, answered in
        // its own UI or dropped, so it is withdrawn; the turn end raises
        // unread.
        row(
            "a turn end after the question was left withdraws it",
            "claude",
            "Stop",
            s.clone(),
            (L::Blocked, A::PermissionRequired),
            (L::Done, A::Unread),
        ),
        row(
            "an interrupt at the question ends idle with the question withdrawn",
            "codex",
            "Interrupt",
            json!({"session_id": "c"}),
            (L::Blocked, A::PermissionRequired),
            (L::Idle, A::None),
        ),
        row(
            "opencode's permission.replied: answered in its own UI",
            "opencode",
            "permission.replied",
            json!({"sessionID": "o"}),
            (L::Blocked, A::PermissionRequired),
            (L::Working, A::None),
        ),
        row(
            "pi's extension: a turn starts",
            "pi",
            "agent_start",
            json!({"session_id": "p"}),
            (L::Idle, A::None),
            (L::Working, A::None),
        ),
        row(
            "pi's extension: the turn ends",
            "pi",
            "agent_end",
            json!({"session_id": "p"}),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "pi's extension: Esc aborted the turn",
            "pi",
            "agent_end",
            json!({"session_id": "p", "stop_reason": "aborted", "error": "Request was aborted"}),
            (L::Working, A::None),
            (L::Idle, A::None),
        ),
        row(
            "pi's extension: the model failed the turn",
            "pi",
            "agent_end",
            json!({"session_id": "p", "stop_reason": "error", "error": "429 rate limited"}),
            (L::Working, A::None),
            (L::Failed, A::Error),
        ),
        row(
            "pi: unknown extension events change nothing",
            "pi",
            "message_update",
            json!({"session_id": "p"}),
            (L::Working, A::None),
            (L::Working, A::None),
        ),
        row(
            "gemini: a turn cancelled before any answer has nothing to read",
            "gemini",
            "AfterAgent",
            json!({"session_id": "g", "prompt_response": "[no response text]"}),
            (L::Working, A::None),
            (L::Idle, A::None),
        ),
        row(
            "gemini: a prompt starts a turn",
            "gemini",
            "BeforeAgent",
            json!({"session_id": "g"}),
            (L::Idle, A::None),
            (L::Working, A::None),
        ),
        row(
            "gemini: ToolPermission blocks",
            "gemini",
            "Notification",
            json!({"session_id": "g", "notification_type": "ToolPermission", "message": "Tool Confirm Shell Command requires execution"}),
            (L::Working, A::None),
            (L::Blocked, A::PermissionRequired),
        ),
        row(
            "gemini: AfterTool ends a permission wait",
            "gemini",
            "AfterTool",
            json!({"session_id": "g"}),
            (L::Blocked, A::PermissionRequired),
            (L::Working, A::None),
        ),
        row(
            "gemini: AfterTool outside a wait changes nothing",
            "gemini",
            "AfterTool",
            json!({"session_id": "g"}),
            (L::Working, A::None),
            (L::Working, A::None),
        ),
        row(
            "gemini: AfterAgent ends the turn",
            "gemini",
            "AfterAgent",
            json!({"session_id": "g", "prompt_response": "done: wrote out.txt"}),
            (L::Working, A::None),
            (L::Done, A::Unread),
        ),
        row(
            "claude: StopFailure at the usage limit waits for the reset",
            "claude",
            "StopFailure",
            json!({"error": "rate_limit", "last_assistant_message": "You've hit your limit · resets 3pm"}),
            (L::Working, A::None),
            (L::Blocked, A::RateLimited),
        ),
        row(
            "claude: any other StopFailure fails",
            "claude",
            "StopFailure",
            json!({"error": "server_error"}),
            (L::Working, A::None),
            (L::Failed, A::Error),
        ),
        row(
            "a prompt ends the wait at a usage limit",
            "claude",
            "UserPromptSubmit",
            json!({"session_id": "s"}),
            (L::Blocked, A::RateLimited),
            (L::Working, A::None),
        ),
        row(
            "a turn end leaves the wait at a usage limit for a result",
            "codex",
            "Stop",
            json!({"session_id": "s"}),
            (L::Blocked, A::RateLimited),
            (L::Done, A::Unread),
        ),
        row(
            "generic hooks change no state",
            "generic",
            "Stop",
            s,
            (L::Working, A::None),
            (L::Working, A::None),
        ),
    ]
}

#[test]
fn every_hook_row_of_the_master_table_holds() {
    for r in rows() {
        let mut p = pane(AgentKind::Generic);
        (p.lifecycle, p.attention) = r.from;
        let input = HookInput {
            kind: AgentKind::parse(r.agent).expect("a kind"),
            agent: r.agent,
            event: r.event,
            payload: &r.payload,
            message: None,
            title: None,
            severity: Severity::Info,
            decision: None,
            notification_id: "notif_x".into(),
            overlay: None,
        };
        let Applied::Accepted(events) = apply_hook(&mut p, &input, at(5)) else {
            panic!("{}: dropped", r.what);
        };
        assert_eq!((p.lifecycle, p.attention), r.to, "{}", r.what);
        let moved = events.iter().any(|e| e.name().starts_with("agent."));
        assert_eq!(
            moved,
            r.from.0 != r.to.0,
            "{}: agent.* iff the lifecycle moved",
            r.what
        );
        let raised = events.iter().any(|e| e.name().starts_with("attention."));
        assert_eq!(
            raised,
            r.from.1 != r.to.1,
            "{}: attention.* iff attention moved",
            r.what
        );
    }
}

#[test]
fn drops_change_nothing() {
    let mut p = pane(AgentKind::Generic);
    let payload = json!({"agent": "codex"});
    let input = HookInput {
        kind: AgentKind::Claude,
        agent: "claude",
        event: "Stop",
        payload: &payload,
        message: None,
        title: None,
        severity: Severity::Info,
        decision: None,
        notification_id: "n".into(),
        overlay: None,
    };
    let before = p.clone();
    assert_eq!(
        apply_hook(&mut p, &input, at(1)),
        Applied::Dropped("harness_mismatch")
    );
    let empty = json!({});
    let unknown = HookInput {
        event: "Nope",
        payload: &empty,
        ..input
    };
    assert_eq!(
        apply_hook(&mut p, &unknown, at(1)),
        Applied::Dropped("unrecognized_hook")
    );
    assert_eq!(p, before);
}
