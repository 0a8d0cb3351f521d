//! The method table. Each wire name is written exactly once, in the `methods!`
//! invocation below; `Method::NAMES` (and so `server.schema.methods`), parsing and
//! serialization all derive from it. A method that is not implemented yet is not in
//! the table, so the server answers `UNKNOWN_METHOD` for it
//! (docs/protocol.md#versioning-and-capabilities).

use crate::diff::{WorkspaceDiffParams, WorkspaceFileDiffParams, WorkspaceRefreshGitParams};
use crate::layout::{LayoutApplyParams, LayoutExportParams};
use crate::notification::{NotificationListParams, NotificationMarkReadParams};
use crate::pane::{
    PaneAskParams, PaneAttachParams, PaneCloseParams, PaneInputParams, PaneMoveParams,
    PaneReadParams, PaneRenameParams, PaneResizeParams, PaneSignalParams, PaneSpawnParams,
    PaneSplitParams, PaneSwapParams, PaneTarget, PaneWaitForOutputParams,
};
use crate::server::{
    ServerSchemaParams, ServerShutdownParams, ServerStatusParams, ServerUpgradeParams,
};
use crate::state::{
    AgentsParams, AttentionPendingParams, DecisionAnswerParams, FocusNextUnreadParams,
    HookEventParams, NotifyParams, PaneSubmitParams, ReportSessionParams, WaitParams,
};
use crate::subscribe::SubscribeParams;
use crate::tab::{TabCloseParams, TabCreateParams, TabSetLayoutParams, TabSetRatioParams};
use crate::task::{
    TaskFileDiffParams, TaskFinishParams, TaskListParams, TaskReportParams, TaskStartParams,
    TaskTarget, TaskWaitParams,
};
use crate::workspace::{
    WorkspaceCloseParams, WorkspaceCreateParams, WorkspaceGetParams, WorkspaceListParams,
    WorkspaceRenameParams, WorkspaceSetAutoContinueParams, WorkspaceSetAutoResumeParams,
    WorkspaceSetHibernateParams,
};
use crate::worktree::{
    WorktreeCreateParams, WorktreeListParams, WorktreeOpenParams, WorktreeRemoveParams,
};
use serde_json::Value;

/// Why a method call could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamsError {
    /// No method of that name is dispatched.
    UnknownMethod,
    /// The params do not fit the method; the text names the field.
    Invalid(String),
}

macro_rules! methods {
    ($($variant:ident = $wire:literal ($params:ty),)*) => {
        /// A method call with its typed params, one variant per dispatched method.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Method {
            $(
                #[doc = concat!("`", $wire, "`")]
                $variant($params),
            )*
        }

        impl Method {
            /// Every dispatched method's wire name, in the order of the table of
            /// docs/methods.md#method-groups.
            pub const NAMES: &'static [&'static str] = &[$($wire,)*];

            /// The wire name of this call.
            pub fn name(&self) -> &'static str {
                match self { $(Method::$variant(_) => $wire,)* }
            }

            /// Parses `params` (already an object) for the method called `name`.
            pub fn parse(name: &str, params: Value) -> Result<Method, ParamsError> {
                match name {
                    $($wire => parse_params(params).map(Method::$variant),)*
                    _ => Err(ParamsError::UnknownMethod),
                }
            }

            /// The params as a JSON object, absent optionals left out.
            pub fn params_json(&self) -> Value {
                // Params structs hold only strings, numbers, booleans and lists of
                // them, which always serialize.
                match self {
                    $(Method::$variant(p) => serde_json::to_value(p).unwrap_or(Value::Null),)*
                }
            }
        }
    };
}

methods! {
    ServerStatus = "server.status" (ServerStatusParams),
    ServerShutdown = "server.shutdown" (ServerShutdownParams),
    ServerSchema = "server.schema" (ServerSchemaParams),
    ServerUpgrade = "server.upgrade" (ServerUpgradeParams),
    WorkspaceCreate = "workspace.create" (WorkspaceCreateParams),
    WorkspaceList = "workspace.list" (WorkspaceListParams),
    WorkspaceGet = "workspace.get" (WorkspaceGetParams),
    WorkspaceRename = "workspace.rename" (WorkspaceRenameParams),
    WorkspaceSetAutoResume = "workspace.set_auto_resume" (WorkspaceSetAutoResumeParams),
    WorkspaceSetHibernate = "workspace.set_hibernate" (WorkspaceSetHibernateParams),
    WorkspaceSetAutoContinue = "workspace.set_auto_continue" (WorkspaceSetAutoContinueParams),
    WorkspaceClose = "workspace.close" (WorkspaceCloseParams),
    WorkspaceRefreshGit = "workspace.refresh_git" (WorkspaceRefreshGitParams),
    WorkspaceDiff = "workspace.diff" (WorkspaceDiffParams),
    WorkspaceFileDiff = "workspace.file_diff" (WorkspaceFileDiffParams),
    WorktreeList = "worktree.list" (WorktreeListParams),
    WorktreeCreate = "worktree.create" (WorktreeCreateParams),
    WorktreeOpen = "worktree.open" (WorktreeOpenParams),
    WorktreeRemove = "worktree.remove" (WorktreeRemoveParams),
    TabCreate = "tab.create" (TabCreateParams),
    TabClose = "tab.close" (TabCloseParams),
    TabSetLayout = "tab.set_layout" (TabSetLayoutParams),
    TabSetRatio = "tab.set_ratio" (TabSetRatioParams),
    LayoutExport = "layout.export" (LayoutExportParams),
    LayoutApply = "layout.apply" (LayoutApplyParams),
    PaneSpawn = "pane.spawn" (PaneSpawnParams),
    PaneSplit = "pane.split" (PaneSplitParams),
    PaneSwap = "pane.swap" (PaneSwapParams),
    PaneRename = "pane.rename" (PaneRenameParams),
    PaneMove = "pane.move" (PaneMoveParams),
    PaneGet = "pane.get" (PaneTarget),
    PaneInput = "pane.input" (PaneInputParams),
    PaneResize = "pane.resize" (PaneResizeParams),
    PaneSignal = "pane.signal" (PaneSignalParams),
    PaneRead = "pane.read" (PaneReadParams),
    PaneWaitForOutput = "pane.wait_for_output" (PaneWaitForOutputParams),
    PaneClear = "pane.clear" (PaneTarget),
    PaneAttach = "pane.attach" (PaneAttachParams),
    PaneDetach = "pane.detach" (PaneTarget),
    PaneClose = "pane.close" (PaneCloseParams),
    PaneResume = "pane.resume" (PaneTarget),
    PaneMarkSeen = "pane.mark_seen" (PaneTarget),
    PaneExplain = "pane.explain" (PaneTarget),
    PaneSubmit = "pane.submit" (PaneSubmitParams),
    PaneAsk = "pane.ask" (PaneAskParams),
    DecisionAnswer = "decision.answer" (DecisionAnswerParams),
    Notify = "notify" (NotifyParams),
    NotificationList = "notification.list" (NotificationListParams),
    NotificationMarkRead = "notification.mark_read" (NotificationMarkReadParams),
    HookEvent = "hook-event" (HookEventParams),
    ReportSession = "report-session" (ReportSessionParams),
    Subscribe = "subscribe" (SubscribeParams),
    Wait = "wait" (WaitParams),
    FocusNextUnread = "focus.next_unread" (FocusNextUnreadParams),
    AttentionPending = "attention.pending" (AttentionPendingParams),
    AgentsList = "agents.list" (AgentsParams),
    AgentsReload = "agents.reload" (AgentsParams),
    TaskStart = "task.start" (TaskStartParams),
    TaskGet = "task.get" (TaskTarget),
    TaskList = "task.list" (TaskListParams),
    TaskWait = "task.wait" (TaskWaitParams),
    TaskReport = "task.report" (TaskReportParams),
    TaskDiff = "task.diff" (TaskTarget),
    TaskFileDiff = "task.file_diff" (TaskFileDiffParams),
    TaskFinish = "task.finish" (TaskFinishParams),
    TaskCancel = "task.cancel" (TaskTarget),
    TaskConflicts = "task.conflicts" (crate::task::conflict::TaskConflictsParams),
}

/// How a connection serves a request (docs/protocol.md#connection-rules): whether live events wait
/// for its reply, and whether a later line cancels it. The Connection asks
/// `Method::flow` instead of matching methods itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestFlow {
    /// Answered in turn; events are written as they come.
    Plain,
    /// `subscribe`: starts a new subscription generation (events of older ones
    /// are dropped) and, like `HoldsEvents`, holds live events until its reply
    /// and replay are written.
    Subscribe,
    /// `pane.attach`: live events that arrive meanwhile wait until its reply
    /// is written.
    HoldsEvents,
    /// `wait`: single-flight. Any further line or EOF cancels it and closes
    /// the connection without a response; so does shutdown.
    SingleFlight,
    /// `hook-event` with `wait_for_answer: true`: single-flight like `wait`,
    /// but at shutdown it is answered (`cancelled: "shutdown"`) rather than
    /// cut off, so the reporter can tell its agent to ask in the terminal.
    WaitForAnswer,
}

impl RequestFlow {
    /// Whether the request starts a new subscription generation.
    pub fn starts_subscription(self) -> bool {
        self == RequestFlow::Subscribe
    }

    /// Whether live events are held until the reply is written.
    pub fn holds_events(self) -> bool {
        matches!(self, RequestFlow::Subscribe | RequestFlow::HoldsEvents)
    }

    /// Whether a further line or EOF cancels the request.
    pub fn single_flight(self) -> bool {
        matches!(self, RequestFlow::SingleFlight | RequestFlow::WaitForAnswer)
    }

    /// Whether shutdown answers the request instead of cutting it off.
    pub fn answered_at_shutdown(self) -> bool {
        self == RequestFlow::WaitForAnswer
    }
}

impl Method {
    /// How a connection serves this call. Every method is listed, so a new
    /// one does not compile until someone decides its flow.
    pub fn flow(&self) -> RequestFlow {
        match self {
            Method::Subscribe(_) => RequestFlow::Subscribe,
            Method::PaneAttach(_) => RequestFlow::HoldsEvents,
            Method::Wait(_) | Method::TaskWait(_) | Method::PaneAsk(_) => RequestFlow::SingleFlight,
            Method::HookEvent(p) if p.wait_for_answer == Some(true) => RequestFlow::WaitForAnswer,
            Method::HookEvent(_)
            | Method::ServerStatus(_)
            | Method::ServerShutdown(_)
            | Method::ServerSchema(_)
            | Method::ServerUpgrade(_)
            | Method::WorkspaceCreate(_)
            | Method::WorkspaceList(_)
            | Method::WorkspaceGet(_)
            | Method::WorkspaceRename(_)
            | Method::WorkspaceSetAutoResume(_)
            | Method::WorkspaceSetHibernate(_)
            | Method::WorkspaceSetAutoContinue(_)
            | Method::WorkspaceClose(_)
            | Method::WorkspaceRefreshGit(_)
            | Method::WorkspaceDiff(_)
            | Method::WorkspaceFileDiff(_)
            | Method::WorktreeList(_)
            | Method::WorktreeCreate(_)
            | Method::WorktreeOpen(_)
            | Method::WorktreeRemove(_)
            | Method::TabCreate(_)
            | Method::TabClose(_)
            | Method::TabSetLayout(_)
            | Method::TabSetRatio(_)
            | Method::LayoutExport(_)
            | Method::LayoutApply(_)
            | Method::PaneSpawn(_)
            | Method::PaneSplit(_)
            | Method::PaneSwap(_)
            | Method::PaneRename(_)
            | Method::PaneMove(_)
            | Method::PaneGet(_)
            | Method::PaneInput(_)
            | Method::PaneResize(_)
            | Method::PaneSignal(_)
            | Method::PaneRead(_)
            | Method::PaneWaitForOutput(_)
            | Method::PaneClear(_)
            | Method::PaneDetach(_)
            | Method::PaneClose(_)
            | Method::PaneResume(_)
            | Method::PaneMarkSeen(_)
            | Method::PaneExplain(_)
            | Method::PaneSubmit(_)
            | Method::DecisionAnswer(_)
            | Method::Notify(_)
            | Method::NotificationList(_)
            | Method::NotificationMarkRead(_)
            | Method::ReportSession(_)
            | Method::FocusNextUnread(_)
            | Method::AttentionPending(_)
            | Method::TaskStart(_)
            | Method::TaskGet(_)
            | Method::TaskList(_)
            | Method::TaskReport(_)
            | Method::TaskFinish(_)
            | Method::TaskDiff(_)
            | Method::TaskFileDiff(_)
            | Method::TaskCancel(_)
            | Method::TaskConflicts(_)
            | Method::AgentsList(_)
            | Method::AgentsReload(_) => RequestFlow::Plain,
        }
    }
}

/// Deserializes params, naming the offending field on failure.
fn parse_params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, ParamsError> {
    // The plain deserializer is fast; the path-tracking one runs only to explain a
    // failure, on a second pass over the same params.
    if let Ok(parsed) = T::deserialize(&params) {
        return Ok(parsed);
    }
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            ParamsError::Invalid(inner.to_string())
        } else {
            ParamsError::Invalid(format!("field `{path}`: {inner}"))
        }
    })
}

#[cfg(test)]
mod tests;
