//! The "what would change it" part of `pane.explain`: plain words from the
//! rules of docs/states.md (the evidence ladder, hooks, screens, terminal
//! signals, exits and a person's actions), for a person reading the answer.

use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle, Pane};

/// What can move the pane's lifecycle from where it is.
pub fn lifecycle_hints(pane: &Pane, live: bool, hooked: bool) -> Vec<String> {
    if !live {
        return vec!["nothing: the process exited (pane.resume starts a new one)".into()];
    }
    let mut hints = Vec::new();
    let agent = pane.agent.kind.is_agent();
    match pane.lifecycle {
        Lifecycle::Blocked => hints.push(
            "a delivered answer, or the agent's next prompt or turn-end hook; tool hooks cannot unblock it".into(),
        ),
        Lifecycle::Working => hints.push("the agent's turn-end, question or permission hook".into()),
        Lifecycle::Done | Lifecycle::Idle | Lifecycle::Failed => {
            hints.push("a new prompt (UserPromptSubmit, beforeSubmitPrompt, session.status busy)".into())
        },
        Lifecycle::Unknown | Lifecycle::Exited => {
            hints.push("the agent's first hook (SessionStart, a prompt, …)".into())
        },
    }
    if !hooked && !matches!(pane.agent.kind, AgentKind::Pi) {
        hints.push(
            "no hook from this process yet: with the agent's hook integration installed its hooks report here"
                .into(),
        );
    }
    hints.push(if agent {
        "the exit makes it exited".into()
    } else {
        "the exit makes it done (code 0) or failed".into()
    });
    hints
}

/// What can move the pane's attention from where it is.
pub fn attention_hints(pane: &Pane, decision_pending: bool) -> Vec<String> {
    match pane.attention {
        Attention::None => vec![
            "a bell, an OSC 9/99/777 notification, notify, or an agent hook raises it".into(),
        ],
        _ if decision_pending => vec![
            "answering the pending decision; reading or attaching keeps it while a decision is open".into(),
        ],
        Attention::InputRequired | Attention::PermissionRequired => vec![
            "pane.mark_seen or attaching clears it; a new prompt clears it; the exit lowers it to unread".into(),
        ],
        _ => vec![
            "pane.mark_seen or attaching clears it; a new prompt clears it; only a higher severity raises it".into(),
        ],
    }
}
