//! Turn baselines (docs/diffs.md#turn-baselines): which turn started where,
//! and the tree its workspace's checkout had then, newest turn first. The
//! capture itself runs git (`os/git/turns.rs`); this is its record. Which
//! turn is newer is told by the seq of the `agent.working` that started it,
//! never by its wall-clock time: after a step of the clock back, an older
//! turn's baseline would otherwise win over every turn after it.

use signaltty_protocol::{PaneId, Seq, Timestamp, WorkspaceId};

/// A turn that started in a published batch (docs/states.md): its
/// workspace's checkout is to be captured.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnStart {
    /// The workspace.
    pub workspace: WorkspaceId,
    /// The pane whose agent started working.
    pub pane: PaneId,
    /// The seq of the `agent.working` that started it: the order of turns.
    pub seq: Seq,
    /// When it was published (for display).
    pub started_at: Timestamp,
}

/// The baseline of a workspace's latest turn (runtime only).
#[derive(Debug, Clone)]
pub struct TurnBaseline {
    /// The pane whose turn it is.
    pub pane: signaltty_protocol::PaneId,
    /// The checkout's tree when the turn started, or why it could not be written.
    pub tree: Result<String, String>,
    /// The seq of the `agent.working` that started it.
    pub seq: Seq,
    /// When the turn started.
    pub started_at: signaltty_protocol::Timestamp,
}

/// A turn whose capture finished: what `workspace.turn_started` says.
#[derive(Debug, Clone)]
pub struct TurnStarted {
    /// The workspace.
    pub workspace_id: signaltty_protocol::WorkspaceId,
    /// The pane whose agent started working.
    pub pane_id: signaltty_protocol::PaneId,
    /// When the turn started.
    pub started_at: signaltty_protocol::Timestamp,
}

impl TurnStarted {
    /// The `workspace.turn_started` event.
    pub fn event(self) -> signaltty_protocol::Event {
        signaltty_protocol::Event::WorkspaceTurnStarted {
            workspace_id: self.workspace_id,
            pane_id: self.pane_id,
            started_at: self.started_at,
        }
    }
}

/// The newest turn baseline of each workspace.
#[derive(Debug, Default)]
pub struct TurnBaselines {
    by_workspace: std::collections::HashMap<signaltty_protocol::WorkspaceId, TurnBaseline>,
}

impl TurnBaselines {
    /// Records the capture of `turn` unless a later turn's capture finished
    /// first (the newest start wins); returns what to announce either way.
    pub fn record(&mut self, turn: TurnStart, tree: Result<String, String>) -> TurnStarted {
        let TurnStart {
            workspace,
            pane,
            seq,
            started_at,
        } = turn;
        let newer = self
            .by_workspace
            .get(&workspace)
            .is_some_and(|b| b.seq > seq);
        if !newer {
            self.by_workspace.insert(
                workspace.clone(),
                TurnBaseline {
                    pane: pane.clone(),
                    tree,
                    seq,
                    started_at: started_at.clone(),
                },
            );
        }
        TurnStarted {
            workspace_id: workspace,
            pane_id: pane,
            started_at,
        }
    }

    /// The newest baseline of a workspace.
    pub fn get(&self, workspace: &signaltty_protocol::WorkspaceId) -> Option<&TurnBaseline> {
        self.by_workspace.get(workspace)
    }
}

#[cfg(test)]
mod tests;
