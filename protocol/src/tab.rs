//! `tab.*` params and results (docs/methods.md#tabs-and-layouts).

use crate::WorkspaceRef;
use crate::ids::TabId;
use crate::signal::SignalName;
use crate::workspace::{Layout, Tab};
use serde::{Deserialize, Serialize};

/// `tab.create` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabCreateParams {
    /// Workspace id or handle.
    pub workspace_id: WorkspaceRef,
    /// Title; default `"tab"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// `tab.close` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabCloseParams {
    /// The tab.
    pub tab_id: TabId,
    /// Signal for each live child; default `TERM`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<SignalName>,
}

/// `tab.set_layout` params. Leaves may name panes by id or by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabSetLayoutParams {
    /// The tab.
    pub tab_id: TabId,
    /// The new arrangement of exactly the tab's panes.
    pub layout: Layout,
}

/// `tab.set_ratio` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabSetRatioParams {
    /// The tab.
    pub tab_id: TabId,
    /// Choices from the root: 0 = first, 1 = second; `[]` is the root.
    pub path: Vec<u8>,
    /// The first side's share; clamped to 0.05–0.95.
    pub ratio: f32,
}

/// `{tab}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabResult {
    /// The affected tab.
    pub tab: Tab,
}
