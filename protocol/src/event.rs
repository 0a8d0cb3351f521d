//! State events (docs/events.md#event-list). Each wire name is written once, in the `events!`
//! invocation; `Event::NAMES` (and so `server.schema.events`) derives from it. An
//! event this server cannot emit yet is left out of the table.

use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::pane::{Attention, Lifecycle, Pane};
use crate::state::Notification;
use crate::workspace::{Tab, Workspace};
use serde::{Deserialize, Serialize};
use serde_json::Value;

macro_rules! events {
    ($($variant:ident = $wire:literal { $($(#[$attr:meta])* $field:ident : $ty:ty),* $(,)? },)*) => {
        /// A state event with its typed payload.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "event", content = "payload")]
        pub enum Event {
            $(
                #[doc = concat!("`", $wire, "`")]
                #[serde(rename = $wire)]
                $variant { $(#[allow(missing_docs)] $(#[$attr])* $field: $ty),* },
            )*
        }

        impl Event {
            /// Every event name the server can emit, in the order of
            /// docs/events.md#event-list.
            pub const NAMES: &'static [&'static str] = &[$($wire,)*];

            /// The wire name of this event.
            pub fn name(&self) -> &'static str {
                match self { $(Event::$variant { .. } => $wire,)* }
            }
        }
    };
}

events! {
    WorkspaceCreated = "workspace.created" { workspace: Workspace },
    WorkspaceUpdated = "workspace.updated" { workspace: Workspace },
    WorkspaceClosed = "workspace.closed" { workspace_id: WorkspaceId },
    WorktreeChanged = "worktree.changed" { operation: crate::worktree::WorktreeOperation, path: String, workspace_id: WorkspaceId },
    WorkspaceTurnStarted = "workspace.turn_started" { workspace_id: WorkspaceId, pane_id: PaneId, started_at: crate::time::Timestamp },
    TabCreated = "tab.created" { tab: Tab },
    TabUpdated = "tab.updated" { tab: Tab },
    TabClosed = "tab.closed" { tab_id: TabId },
    PaneCreated = "pane.created" {
        pane: Pane,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resumed: Option<bool>,
    },
    PaneUpdated = "pane.updated" { pane_id: PaneId, pane: Pane },
    PaneExited = "pane.exited" { pane_id: PaneId, code: Option<i32> },
    PaneClosed = "pane.closed" { pane_id: PaneId },
    PaneResized = "pane.resized" { pane: Pane },
    PaneHibernated = "pane.hibernated" { pane_id: PaneId, pane: Pane },
    PaneWoke = "pane.woke" { pane_id: PaneId, by: String },
    PaneAutoContinued = "pane.auto_continued" { pane_id: PaneId, resets_at: crate::time::Timestamp, prompt: String },
    DecisionCreated = "decision.created" { pane_id: PaneId, decision: crate::state::Decision, prev: Option<String>, pane: Box<Pane> },
    DecisionAnswered = "decision.answered" { pane_id: PaneId, decision_id: String, option_id: String, pane: Box<Pane> },
    DecisionCleared = "decision.cleared" { pane_id: PaneId, decision_id: String, reason: String, pane: Box<Pane> },
    PtyData = "pty.data" { pane_id: PaneId, data_b64: String, output_offset: u64 },
    AgentWorking = "agent.working" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AgentBlocked = "agent.blocked" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AgentDone = "agent.done" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AgentFailed = "agent.failed" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AgentIdle = "agent.idle" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AgentUnknown = "agent.unknown" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AgentExited = "agent.exited" { pane_id: PaneId, lifecycle: Lifecycle, prev: Lifecycle, source: String, pane: Box<Pane> },
    AttentionCreated = "attention.created" { pane_id: PaneId, attention: Attention, prev: Attention, pane: Box<Pane> },
    AttentionUpdated = "attention.updated" { pane_id: PaneId, attention: Attention, prev: Attention, pane: Box<Pane> },
    AttentionCleared = "attention.cleared" { pane_id: PaneId, reason: String, pane: Box<Pane> },
    NotificationCreated = "notification.created" { notification: Notification, pane: Box<Pane> },
    NotificationRead = "notification.read" { ids: Vec<String>, read_at: crate::time::Timestamp },
    TaskCreated = "task.created" { task: Box<crate::task::Task> },
    TaskUpdated = "task.updated" {
        task_id: crate::ids::TaskId,
        context_id: crate::ids::ContextId,
        task: Box<crate::task::Task>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prev_state: Option<crate::task::TaskState>,
    },
    TaskResult = "task.result" { task_id: crate::ids::TaskId, context_id: crate::ids::ContextId, result: crate::task::TaskResult },
    TaskConflict = "task.conflict" {
        repo: String,
        a: crate::ids::TaskId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<crate::ids::TaskId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_branch: Option<String>,
        paths: Vec<String>,
        state: crate::task::conflict::ConflictState,
        since: crate::time::Timestamp,
    },
    GitBranchChanged = "git.branch_changed" { workspace_id: WorkspaceId, branch: Option<String> },
    ServerWillShutdown = "server.will_shutdown" {},
    JournalGap = "journal.gap" { first_seq: u64, last_seq: u64, lost: u64, reason: String },
}

impl Event {
    /// The payload object as sent on the wire.
    pub fn payload(&self) -> Value {
        // An adjacently tagged enum serializes to {"event": …, "payload": …}; the
        // payload types hold only plain data, so serialization cannot fail.
        match serde_json::to_value(self) {
            Ok(Value::Object(mut m)) => m
                .remove("payload")
                .unwrap_or(Value::Object(Default::default())),
            _ => Value::Object(Default::default()),
        }
    }
}

impl Event {
    /// The `agent.<lifecycle>` event of a lifecycle change. Besides the payload of
    /// docs/events.md#event-list it carries the evidence `source`
    /// (docs/events.md#source-in-agent) and the pane
    /// as it is after the batch of changes it belongs to, from which the
    /// projection updates itself.
    pub fn lifecycle(pane: Pane, lifecycle: Lifecycle, prev: Lifecycle, source: String) -> Event {
        let pane_id = pane.id.clone();
        let pane = Box::new(pane);
        match lifecycle {
            Lifecycle::Working => Event::AgentWorking {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
            Lifecycle::Blocked => Event::AgentBlocked {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
            Lifecycle::Done => Event::AgentDone {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
            Lifecycle::Failed => Event::AgentFailed {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
            Lifecycle::Idle => Event::AgentIdle {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
            Lifecycle::Unknown => Event::AgentUnknown {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
            Lifecycle::Exited => Event::AgentExited {
                pane_id,
                lifecycle,
                prev,
                source,
                pane,
            },
        }
    }

    /// The pane object a state-engine event carries, if any.
    pub fn carried_pane(&self) -> Option<&Pane> {
        match self {
            Event::AgentWorking { pane, .. }
            | Event::AgentBlocked { pane, .. }
            | Event::AgentDone { pane, .. }
            | Event::AgentFailed { pane, .. }
            | Event::AgentIdle { pane, .. }
            | Event::AgentUnknown { pane, .. }
            | Event::AgentExited { pane, .. }
            | Event::AttentionCreated { pane, .. }
            | Event::AttentionUpdated { pane, .. }
            | Event::AttentionCleared { pane, .. }
            | Event::NotificationCreated { pane, .. }
            | Event::DecisionCreated { pane, .. }
            | Event::DecisionAnswered { pane, .. }
            | Event::DecisionCleared { pane, .. } => Some(pane),
            _ => None,
        }
    }
}

/// The name type used where an event name is carried without its payload.
pub type EventName = &'static str;

#[cfg(test)]
mod tests;
