//! The state engine's wire types: `pane.mark_seen` (docs/methods.md#panemark_seen),
//! `notify`, `hook-event` and `report-session` (docs/methods.md#reporting), `wait`
//! (docs/methods.md#wait), the attention methods (docs/methods.md#attention),
//! notifications (docs/objects.md#notification) and wait baselines
//! (docs/states.md#the-wait-baseline).

use crate::ids::{PaneId, TabId, WorkspaceId};
use crate::pane::{Attention, Lifecycle, Pane, PaneRef};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Notification severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Raises `unread`.
    #[default]
    Info,
    /// Raises `warning`.
    Warning,
    /// Raises `error`.
    Error,
}

impl Severity {
    /// The attention a notification of this severity raises.
    pub fn attention(self) -> Attention {
        match self {
            Severity::Info => Attention::Unread,
            Severity::Warning => Attention::Warning,
            Severity::Error => Attention::Error,
        }
    }
}

/// A stored notification (docs/objects.md#notification).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// `notif_…`.
    pub id: String,
    /// The source pane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneId>,
    /// The pane's workspace at creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    /// Sanitized, at most 200 characters.
    pub title: String,
    /// Sanitized, at most 2000 characters; absent when empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Severity.
    pub severity: Severity,
    /// `osc9`, `osc99`, `osc777`, `cli`, `hook:<agent>:<event>`.
    pub source: String,
    /// Creation time.
    pub created_at: Timestamp,
    /// When a person marked it read (`notification.mark_read`, `pane.mark_seen`);
    /// absent while unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<Timestamp>,
}

/// `notify` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotifyParams {
    /// Target pane.
    pub pane_id: PaneRef,
    /// Non-empty title.
    pub title: String,
    /// Body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Severity, default `info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
}

/// `notify` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotifyResult {
    /// The stored notification.
    pub notification: Notification,
}

/// `focus.next_unread` params (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FocusNextUnreadParams {}

/// `focus.next_unread` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FocusNextUnreadResult {
    /// The pane needing a person most, or null.
    pub pane_id: Option<PaneId>,
}

/// `attention.pending` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AttentionPendingParams {
    /// At most this many panes, default 50, clamped to 1..=500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

/// One pane of `attention.pending`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttentionItem {
    /// The pane.
    pub pane_id: PaneId,
    /// Its workspace.
    pub workspace_id: WorkspaceId,
    /// Its tab.
    pub tab_id: TabId,
    /// Lifecycle.
    pub lifecycle: Lifecycle,
    /// Attention (never `none`).
    pub attention: Attention,
    /// Human label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Owning task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Latest explicit message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
    /// When attention was raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention_since: Option<Timestamp>,
    /// When a `rate_limited` pane's limit resets, if the agent said
    /// (docs/states.md#usage-limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<Timestamp>,
    /// The question waiting for an answer (our addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_decision: Option<Decision>,
}

/// `attention.pending` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttentionPendingResult {
    /// Ranked like `focus.next_unread`.
    pub panes: Vec<AttentionItem>,
}

/// The `wait_baseline` of `pane.get` (docs/states.md#the-wait-baseline).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitBaseline {
    /// The pane.
    pub pane_id: PaneId,
    /// Opaque; new on every process start and at every server start.
    pub process_instance: String,
    /// The current native session id.
    pub agent_session_id: Option<String>,
    /// +1 each time a known session id is replaced.
    pub session_generation: u64,
    /// Seq of the latest lifecycle transition.
    pub lifecycle_seq: u64,
    /// Seq of the latest attention transition.
    pub attention_seq: u64,
}

/// `wait.until`: one outcome or alternatives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Until {
    /// One outcome.
    One(String),
    /// Alternatives, checked in order.
    Any(Vec<String>),
}

impl Until {
    /// The outcomes in caller order.
    pub fn outcomes(&self) -> Vec<String> {
        match self {
            Until::One(o) => vec![o.clone()],
            Until::Any(v) => v.clone(),
        }
    }
}

/// `wait` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitParams {
    /// The pane.
    pub pane_id: PaneRef,
    /// Outcomes.
    pub until: Until,
    /// Baseline from `pane.get`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<WaitBaseline>,
    /// Default 3600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

/// `wait` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitResult {
    /// Always true.
    pub satisfied: bool,
    /// The matched outcome.
    pub outcome: String,
    /// Seq of the matched transition (0 when a current-state match has none).
    pub transition_seq: u64,
    /// Current lifecycle.
    pub lifecycle: Lifecycle,
    /// Current attention.
    pub attention: Attention,
}

/// A structured decision offered by a hook (validated by the server).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionInput {
    /// Decision id.
    pub id: String,
    /// The question.
    pub prompt: String,
    /// The options.
    pub options: Vec<DecisionOption>,
}

/// One option of a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionOption {
    /// Option id.
    pub id: String,
    /// Label.
    pub label: String,
}

/// A decision pending on a pane (docs/objects.md#decision).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The caller's id, or `permission_` + 32 hex for a native permission request.
    pub id: String,
    /// The question.
    pub prompt: String,
    /// The options, in order (a typed answer is the option's 1-based position).
    pub options: Vec<DecisionOption>,
    /// Captured at ingest: buttons can answer it (else "answer in the terminal").
    #[serde(default = "answerable_default")]
    pub answerable: bool,
    /// When it arrived.
    pub received_at: Timestamp,
}

fn answerable_default() -> bool {
    true
}

impl Decision {
    /// The prefix of native permission decision ids.
    pub const NATIVE_PREFIX: &'static str = "permission_";

    /// A native permission request, answered through its waiting reporter.
    pub fn is_native(&self) -> bool {
        self.id.starts_with(Self::NATIVE_PREFIX)
    }

    /// The 1-based position of an option.
    pub fn position(&self, option_id: &str) -> Option<usize> {
        self.options
            .iter()
            .position(|o| o.id == option_id)
            .map(|i| i + 1)
    }
}

/// The provider verdict a permission reporter prints
/// (docs/decisions.md#what-the-reporter-prints), with
/// the keys in the documented order: `allow` for Allow once, else deny.
pub fn native_verdict_line(allow: bool) -> String {
    let decision = if allow {
        r#"{"behavior":"allow"}"#
    } else {
        r#"{"behavior":"deny","message":"Denied in signaltty"}"#
    };
    format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{decision}}}}}"#
    )
}

/// `decision.answer` params (docs/methods.md#decisionanswer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionAnswerParams {
    /// The pane.
    pub pane_id: PaneRef,
    /// The pending decision's id.
    pub decision_id: String,
    /// The chosen option (`once` / `deny` for native permission requests).
    pub option_id: String,
}

/// `decision.answer` result: the states after the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionAnswerResult {
    /// Always true.
    pub answered: bool,
    /// Lifecycle after the answer.
    pub lifecycle: Lifecycle,
    /// Attention after the answer.
    pub attention: Attention,
}

/// The result of a waiting `hook-event` (`wait_for_answer: true`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookWaitResult {
    /// Always true.
    pub accepted: bool,
    /// Echo.
    pub agent: String,
    /// Echo.
    pub event: String,
    /// The pane that asked.
    pub pane_id: PaneId,
    /// The decision id the question got.
    pub decision_id: String,
    /// What the reporter prints for the provider; null when nobody answered.
    pub native_verdict: Option<Value>,
    /// Why the wait ended without an answer: `timeout`, `shutdown`, `moved_on`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
}

/// The whole result of a waiting `hook-event` (`wait_for_answer: true`,
/// docs/methods.md#hook-event): how the wait ended, or the hook dropped before any wait
/// began. Untagged: the wire carries either object as it is, told apart by
/// the wait's `decision_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HookWaitReply {
    /// The wait ended: answered (`native_verdict`) or cancelled.
    Waited(HookWaitResult),
    /// The pane dropped the hook (`harness_mismatch`): nothing waited.
    Dropped(HookEventResult),
}

impl HookWaitReply {
    /// The provider verdict a person's answer produced; `None` when nobody
    /// answered, which must never be read as Allow.
    pub fn native_verdict(&self) -> Option<&Value> {
        match self {
            HookWaitReply::Waited(r) => r.native_verdict.as_ref().filter(|v| !v.is_null()),
            HookWaitReply::Dropped(_) => None,
        }
    }

    /// Why nobody answered, when the server said: the wait's `cancelled`, or
    /// the drop's `reason`.
    pub fn unanswered_because(&self) -> Option<&str> {
        match self {
            HookWaitReply::Waited(r) => r.cancelled.as_deref(),
            HookWaitReply::Dropped(r) => r.reason.as_deref(),
        }
    }
}

/// `pane.submit` params (docs/methods.md#panesubmit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSubmitParams {
    /// The pane.
    pub pane_id: PaneRef,
    /// The prompt: 1 byte to 32 KiB, without bracketed-paste markers.
    pub text: String,
    /// Pause between the paste and Enter; default 300.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_delay_ms: Option<u64>,
    /// Budget of the activity gate; default 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_timeout_s: Option<u64>,
}

/// `pane.submit` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSubmitResult {
    /// Always true.
    pub submitted: bool,
    /// `working` or `blocked`: the transition that showed the prompt was taken.
    pub outcome: String,
    /// Its seq (0 when the pane already was in that state with none recorded).
    pub transition_seq: u64,
    /// Lifecycle now.
    pub lifecycle: Lifecycle,
    /// Attention now.
    pub attention: Attention,
}

/// `hook-event` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookEventParams {
    /// Agent kind name.
    pub agent: String,
    /// Native hook name.
    pub event: String,
    /// Explicit routing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneRef>,
    /// Routing by process ancestry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_pid: Option<u64>,
    /// The raw hook JSON.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub payload: Value,
    /// Explicit notification body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Alias of `message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Notification title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Notification severity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// A decision to set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionInput>,
    /// Waiting mode (native permission replies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_answer: Option<bool>,
    /// Waiting mode timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_timeout_s: Option<u64>,
}

/// `hook-event` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookEventResult {
    /// Whether the hook was applied (false when dropped).
    pub accepted: bool,
    /// Echo.
    pub agent: String,
    /// Echo.
    pub event: String,
    /// The routed pane, or null.
    pub pane_id: Option<PaneId>,
    /// Present when dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<bool>,
    /// Why it was dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The pane's lifecycle after processing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Lifecycle>,
    /// The pane's attention after processing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<Attention>,
}

/// `report-session` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSessionParams {
    /// The pane.
    pub pane_id: PaneRef,
    /// The native session id.
    pub agent_session_id: String,
    /// Agent kind; default the pane's current kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// Result of methods that answer with the pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneOnlyResult {
    /// The pane.
    pub pane: Pane,
}

/// What last moved one axis (our addition to `pane.explain`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxisEvidence {
    /// The current value (`working`, `unread`, …).
    pub state: String,
    /// The evidence that set it: `hook:<agent>:<event>`, `exit`, `bell`,
    /// `osc9`/`osc99`/`osc777`, `cli`, `mark_seen`, `attach`; null when it has
    /// not moved since the process started.
    pub source: Option<String>,
    /// When.
    pub since: Option<Timestamp>,
    /// What would move it next, in words.
    pub changes_with: Vec<String>,
}

/// `pane.explain` result (docs/methods.md#paneexplain) with the evidence of both axes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneExplainResult {
    /// Agent kind.
    pub kind: crate::pane::AgentKind,
    /// The program the pane runs now (script name for runtimes).
    pub process: String,
    /// Which screen-rule set applies: `bundled`, `user` or `none`.
    pub source: String,
    /// The process runs.
    pub live: bool,
    /// The current process has sent a hook (screen rules ignored).
    pub hooked: bool,
    /// Screen rules are active for this pane.
    pub classifies: bool,
    /// The winning screen rule.
    pub matched: Option<Value>,
    /// Every applicable screen rule, evaluated now.
    pub rules: Vec<Value>,
    /// What set the lifecycle.
    pub lifecycle: AxisEvidence,
    /// What set the attention.
    pub attention: AxisEvidence,
    /// Whether the pane hibernates, when and why (docs/restore.md#hibernation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernation: Option<HibernationExplain>,
    /// The running agent's version against those its rules were checked on:
    /// `{running, checked, fidelity, reason}` (docs/agents.md#checked-versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
}

/// The hibernation part of `pane.explain` (docs/restore.md#hibernation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HibernationExplain {
    /// `hibernated`, `due` (at the next check), `waiting` (until `at`),
    /// `never` (a rule keeps it awake now) or `off`.
    pub state: String,
    /// Why, in words.
    pub reason: String,
    /// `hibernated`: when it was; `waiting`: when it will be if nothing changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<crate::time::Timestamp>,
    /// The workspace's idle time in seconds; 0 when hibernation is off.
    pub after_s: u64,
}

/// `agents.list` and `agents.reload` params (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentsParams {}

/// One active manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestInfo {
    /// Its file name.
    pub file: String,
    /// The agent kind it is for.
    pub kind: crate::pane::AgentKind,
    /// Its `[[screen]]` rules.
    pub screen_rules: usize,
    /// Shipped in the binary (not an overlay).
    pub bundled: bool,
    /// Extra detection names.
    pub binaries: Vec<String>,
    /// Display name override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
}

/// A manifest file skipped as malformed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestFailure {
    /// Its file name.
    pub file: String,
    /// Why.
    pub error: String,
}

/// `agents.list` / `agents.reload` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentsResult {
    /// The agents directory.
    pub dir: Option<String>,
    /// The active manifests: bundled, then the directory's in file order.
    pub manifests: Vec<ManifestInfo>,
    /// Files skipped.
    pub failures: Vec<ManifestFailure>,
}

#[cfg(test)]
mod tests;
