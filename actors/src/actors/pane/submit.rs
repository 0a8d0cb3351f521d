//! `pane.submit` on the Pane actor (docs/methods.md#panesubmit): the readiness
//! gate and the paste, then the delayed Enter, each decided in the pane's own
//! turn so a decision that a hook sets is seen before the Enter byte or not at
//! all.

use super::Pane;
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::pane::{Attention, Lifecycle, LiveState};

/// The readiness gate, then the paste of `text` (bracketed when the program
/// asked for it).
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct SubmitPaste {
    /// The prompt.
    pub text: String,
}

/// The delayed Enter: re-checked, then written in the same turn.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct SubmitEnter;

/// The activity gate's one Enter retry: sent only into an untouched input box
/// (live, `idle`/`done`, no decision, no `permission_required`). Replies
/// whether it was sent.
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct SubmitRetry;

/// What the first-prompt gate asks the pane itself (`actors/submit.rs`):
/// its output is not published, so only the pane knows how long its screen
/// has been still.
#[derive(Debug, Message)]
#[rtype(result = "InputBoxNow")]
pub struct InputBox;

/// The pane's answer to [`InputBox`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputBoxNow {
    /// The program has asked for bracketed paste (DECSET 2004): an input box
    /// that reads keys turned it on (a woken agent's shorter wait,
    /// docs/restore.md#waking-up).
    pub takes_paste: bool,
    /// How long since the pane's last output.
    pub still_for: std::time::Duration,
}

type Reply = ResponseFuture<Result<(), Error>>;

fn refused(e: Error) -> Reply {
    Box::pin(async move { Err(e) })
}

fn busy(why: &str, details: Option<serde_json::Value>) -> Error {
    Error::AgentBusy {
        why: why.to_owned(),
        details,
    }
}

impl Pane {
    /// The readiness gate (step 2): `None` when a prompt may be pasted.
    fn submit_refusal(&self) -> Option<Error> {
        if self.hibernating() {
            return Some(self.being_hibernated());
        }
        let pane = self.state();
        let decision = pane.pending_decision.is_some();
        if self.pty.is_none() || pane.live != LiveState::Live || pane.lifecycle == Lifecycle::Exited
        {
            return Some(self.pane_exited(None));
        }
        match pane.lifecycle {
            Lifecycle::Working => Some(busy("the agent is working: wait for it", None)),
            // A screen's question, or the wait at a usage limit: the prompt
            // goes to the agent's input (docs/states.md#auto-continue).
            Lifecycle::Blocked
                if matches!(
                    pane.attention,
                    Attention::InputRequired | Attention::RateLimited
                ) && !decision =>
            {
                None
            },
            Lifecycle::Blocked => Some(busy(
                "the agent is asking something: answer its decision first",
                None,
            )),
            Lifecycle::Unknown | Lifecycle::Failed => Some(Error::AgentNotReady(format!(
                "the agent is {}: it has not shown it can take a prompt",
                pane.lifecycle.as_str()
            ))),
            Lifecycle::Idle | Lifecycle::Done
                if decision || pane.attention == Attention::PermissionRequired =>
            {
                Some(busy(
                    "a decision is pending: answer it before sending a prompt",
                    None,
                ))
            },
            Lifecycle::Idle | Lifecycle::Done | Lifecycle::Exited => None,
        }
    }

    /// Whether the input box may have been taken over since the paste (step 6).
    fn asks_since_paste(&self) -> bool {
        let pane = self.state();
        pane.pending_decision.is_some()
            || pane.attention == Attention::PermissionRequired
            || (pane.lifecycle == Lifecycle::Blocked
                && !matches!(
                    pane.attention,
                    Attention::InputRequired | Attention::RateLimited
                ))
    }
}

impl Handler<SubmitPaste> for Pane {
    type Result = Reply;

    fn handle(&mut self, msg: SubmitPaste, _ctx: &mut Self::Context) -> Self::Result {
        if let Some(e) = self.submit_refusal() {
            return refused(e);
        }
        let Some(pty) = self.pty.as_ref() else {
            return refused(self.pane_exited(None));
        };
        // Bracketed only for a program that asked for it (DECSET 2004), as a
        // terminal pastes: one that did not (Grok CLI, an Ink app) takes the
        // markers for typed text, and its prompt began with "[200~".
        let bracketed = self.term.bracketed_paste();
        let mut bytes = Vec::with_capacity(msg.text.len() + 12);
        if bracketed {
            bytes.extend_from_slice(b"\x1b[200~");
        }
        bytes.extend_from_slice(msg.text.as_bytes());
        if bracketed {
            bytes.extend_from_slice(b"\x1b[201~");
        }
        log::debug!(
            "submit: pane {} pasted {} bytes",
            self.state().id,
            msg.text.len()
        );
        let written = self.write_bound(pty.as_ref(), bytes);
        self.tracker.on_submitted(&msg.text);
        Box::pin(async move { written.await.map(drop) })
    }
}

impl Handler<SubmitEnter> for Pane {
    type Result = Reply;

    fn handle(&mut self, _msg: SubmitEnter, _ctx: &mut Self::Context) -> Self::Result {
        let Some(pty) = self.pty.as_ref() else {
            return refused(self.pane_exited(None));
        };
        if self.asks_since_paste() {
            return refused(busy(
                "agent requires a decision after paste; Enter was not sent",
                Some(serde_json::json!({"stage": "delayed_enter", "paste_delivered": true})),
            ));
        }
        // Checked and written in one turn: a hook that sets a decision is
        // handled before this or after the Enter byte is queued.
        let written = self.write_bound(pty.as_ref(), b"\r".to_vec());
        // The prompt left the input box: the quiet starts again.
        self.sent_prompt();
        Box::pin(async move { written.await.map(drop) })
    }
}

impl Handler<InputBox> for Pane {
    type Result = MessageResult<InputBox>;

    fn handle(&mut self, _msg: InputBox, _ctx: &mut Self::Context) -> Self::Result {
        MessageResult(InputBoxNow {
            takes_paste: self.pty.is_some() && self.term.bracketed_paste(),
            still_for: self.last_output.elapsed(),
        })
    }
}

impl Handler<SubmitRetry> for Pane {
    type Result = ResponseFuture<bool>;

    fn handle(&mut self, _msg: SubmitRetry, _ctx: &mut Self::Context) -> Self::Result {
        let untouched = matches!(self.state().lifecycle, Lifecycle::Idle | Lifecycle::Done)
            && !self.asks_since_paste();
        match self.pty.as_ref() {
            Some(pty) if untouched => {
                let written = self.write_bound(pty.as_ref(), b"\r".to_vec());
                Box::pin(async move { written.await.is_ok() })
            },
            _ => Box::pin(async { false }),
        }
    }
}
