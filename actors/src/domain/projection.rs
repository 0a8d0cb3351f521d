//! The read model: the state every read (`workspace.list`, `workspace.get`,
//! `server.status`) answers from. It changes only by applying published events in
//! seq order, so it is always "the state at seq N", and replaying the journal
//! rebuilds it.
//!
//! Workspaces, tabs and panes are held behind `Arc`: a snapshot copies pointers
//! (the whole state is read at once,
//! docs/persistence.md#how-a-snapshot-is-written) in a few microseconds, whatever
//! the objects hold; an event replaces an object whole, and the few changes made
//! in place copy it first only while a snapshot still holds the old one
//! (`Arc::make_mut`).

use crate::domain::layout;
use crate::domain::state::Progress;
use signaltty_protocol::pane::{Attention, LiveState, Pane, RestoreState};
use signaltty_protocol::state::{AttentionItem, Notification};
use signaltty_protocol::task::Task;
use signaltty_protocol::task::conflict::{ConflictState, TaskConflict};
use signaltty_protocol::workspace::{Layout, Tab, Workspace};
use signaltty_protocol::{Event, PaneId, Seq, TabId, TaskId, WorkspaceId};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// How many notifications the server keeps (docs/notifications.md#the-ring).
pub const KEPT_NOTIFICATIONS: usize = 200;

/// The state as of `seq`.
#[derive(Debug, Default)]
pub struct Projection {
    seq: Seq,
    workspaces: HashMap<WorkspaceId, Arc<Workspace>>,
    /// Workspace ids in creation order.
    order: Vec<WorkspaceId>,
    tabs: HashMap<TabId, Arc<Tab>>,
    panes: HashMap<PaneId, Arc<Pane>>,
    /// The progress record of each pane's process
    /// (docs/states.md#the-progress-record).
    progress: HashMap<PaneId, Progress>,
    /// The newest notifications, oldest first (at most `KEPT_NOTIFICATIONS`).
    notifications: VecDeque<Notification>,
    /// Every task, terminal ones included (they are finished, not forgotten).
    tasks: HashMap<TaskId, Arc<Task>>,
    /// The conflict radar's current collisions, by `(a, b)`
    /// (docs/tasks.md#conflict-radar).
    conflicts: std::collections::BTreeMap<(TaskId, Option<TaskId>), TaskConflict>,
    /// Makes process instances unique across server runs.
    instance_prefix: String,
    /// The reset each pane was last given its continue prompt for
    /// (docs/states.md#auto-continue).
    auto_continued: HashMap<PaneId, signaltty_protocol::Timestamp>,
}

impl Projection {
    /// An empty projection at `seq`.
    pub fn new(seq: Seq) -> Projection {
        Projection {
            seq,
            instance_prefix: format!("{:08x}", crate::ids::random_u128() as u32),
            ..Projection::default()
        }
    }

    /// The seq of the last applied event.
    pub fn seq(&self) -> Seq {
        self.seq
    }

    /// A projection holding a snapshot's state as of `seq` (restore,
    /// docs/restore.md#rebuilding-the-world); the journal's later events are
    /// applied on top.
    pub fn restored(
        seq: Seq,
        workspaces: Vec<Arc<Workspace>>,
        tabs: Vec<Arc<Tab>>,
        panes: Vec<Arc<Pane>>,
    ) -> Projection {
        let mut p = Projection::new(seq);
        for w in workspaces {
            if !p.workspaces.contains_key(&w.id) {
                p.order.push(w.id.clone());
            }
            p.workspaces.insert(w.id.clone(), w);
        }
        for t in tabs {
            if p.workspaces.contains_key(&t.workspace_id) {
                p.tabs.insert(t.id.clone(), t);
            }
        }
        for pane in panes {
            if p.tabs.contains_key(&pane.tab_id) {
                p.panes.insert(pane.id.clone(), pane);
            }
        }
        p
    }

    /// Ends a restore: every pane becomes a tombstone of its last state
    /// (`tombstone`), gets a fresh process record, and the projection moves to
    /// `head`, the first seq this run's events come after. No event is emitted
    /// for any of it (docs/restore.md#tombstones).
    pub fn finish_restore(&mut self, head: Seq, tombstone: impl Fn(&mut Pane)) {
        self.seq = self.seq.max(head);
        self.progress.clear();
        for (id, pane) in &mut self.panes {
            let pane = Arc::make_mut(pane);
            tombstone(pane);
            let instance = format!("{}-restored-{}", self.instance_prefix, self.seq.0);
            self.progress
                .insert(id.clone(), Progress::start(instance, self.seq.0, pane));
        }
    }

    /// The panes of `kind` that hold agent session `session`.
    pub fn panes_with_session(
        &self,
        kind: signaltty_protocol::pane::AgentKind,
        session: &str,
    ) -> Vec<&Pane> {
        self.panes()
            .filter(|p| {
                p.agent.kind == kind && p.agent.agent_session_id.as_deref() == Some(session)
            })
            .collect()
    }

    /// How many panes are in restore state `state` (no copy of them: this
    /// answers every `server.status`).
    pub fn count_restore_state(&self, state: RestoreState) -> usize {
        self.panes
            .values()
            .filter(|p| p.restore_state == state)
            .count()
    }

    /// Every workspace in creation order, shared (for the snapshot: no
    /// object is copied).
    pub fn shared_workspaces(&self) -> Vec<Arc<Workspace>> {
        self.order
            .iter()
            .filter_map(|id| self.workspaces.get(id))
            .cloned()
            .collect()
    }

    /// Every tab, in no particular order, shared (for the snapshot).
    pub fn all_tabs(&self) -> Vec<Arc<Tab>> {
        self.tabs.values().cloned().collect()
    }

    /// Every pane, in no particular order, shared (for the snapshot).
    pub fn all_panes(&self) -> Vec<Arc<Pane>> {
        self.panes.values().cloned().collect()
    }

    /// Every pane, in no particular order.
    pub fn panes(&self) -> impl Iterator<Item = &Pane> {
        self.panes.values().map(Arc::as_ref)
    }

    /// Applies one published event, taking ownership so objects move in uncopied.
    pub fn apply(&mut self, seq: Seq, event: Event) {
        self.seq = seq;
        // Objects that replace a stored one are moved in; the rest read by reference.
        match event {
            Event::WorkspaceCreated { workspace } | Event::WorkspaceUpdated { workspace } => {
                if !self.workspaces.contains_key(&workspace.id) {
                    self.order.push(workspace.id.clone());
                }
                self.workspaces
                    .insert(workspace.id.clone(), Arc::new(workspace));
                return;
            },
            Event::TabUpdated { tab } => {
                self.tabs.insert(tab.id.clone(), Arc::new(tab));
                return;
            },
            Event::PaneUpdated { pane, .. }
            | Event::PaneResized { pane }
            | Event::PaneHibernated { pane, .. } => {
                if let Some(progress) = self.progress.get_mut(&pane.id) {
                    progress.session(pane.agent.agent_session_id.as_deref());
                }
                self.panes.insert(pane.id.clone(), Arc::new(pane));
                return;
            },
            Event::TaskCreated { task } | Event::TaskUpdated { task, .. } => {
                self.tasks.insert(task.id.clone(), Arc::new(*task));
                return;
            },
            Event::TaskResult { .. } => return,
            Event::TaskConflict {
                repo,
                a,
                b,
                target_branch,
                paths,
                state,
                since,
            } => {
                let key = (a.clone(), b.clone());
                match state {
                    ConflictState::Cleared => drop(self.conflicts.remove(&key)),
                    ConflictState::Appeared => drop(self.conflicts.insert(
                        key,
                        TaskConflict {
                            repo,
                            a,
                            b,
                            target_branch,
                            paths,
                            since,
                        },
                    )),
                }
                return;
            },
            Event::NotificationRead { ids, read_at } => {
                self.mark_notifications_read(&ids, &read_at);
                return;
            },
            _ => {},
        }
        if let Event::NotificationCreated { notification, .. } = &event {
            self.keep_notification(notification.clone());
        }
        if let Some(pane) = event.carried_pane() {
            // State-engine events carry the pane as its actor has it after the
            // change; the record of transitions follows the event.
            let id = pane.id.clone();
            if let Some(progress) = self.progress.get_mut(&id) {
                match &event {
                    Event::AttentionCreated { attention, .. }
                    | Event::AttentionUpdated { attention, .. } => {
                        progress.attention(*attention, seq.0);
                    },
                    Event::AttentionCleared { .. } => progress.attention(Attention::None, seq.0),
                    Event::AgentWorking { lifecycle, .. }
                    | Event::AgentBlocked { lifecycle, .. }
                    | Event::AgentDone { lifecycle, .. }
                    | Event::AgentFailed { lifecycle, .. }
                    | Event::AgentIdle { lifecycle, .. }
                    | Event::AgentUnknown { lifecycle, .. }
                    | Event::AgentExited { lifecycle, .. } => progress.lifecycle(*lifecycle, seq.0),
                    _ => {},
                }
            }
            if let Some(stored) = self.panes.get_mut(&id) {
                *stored = Arc::new(pane.clone());
            }
            return;
        }
        match &event {
            Event::WorkspaceTurnStarted { .. } | Event::GitBranchChanged { .. } => {},
            Event::WorkspaceCreated { .. }
            | Event::WorkspaceUpdated { .. }
            | Event::TabUpdated { .. }
            | Event::PaneUpdated { .. }
            | Event::PaneResized { .. }
            | Event::PaneHibernated { .. }
            // The resumed `pane.created` in the same batch carries the pane.
            | Event::PaneWoke { .. } => {},
            Event::PaneAutoContinued {
                pane_id, resets_at, ..
            } => {
                self.auto_continued
                    .insert(pane_id.clone(), resets_at.clone());
            },
            Event::WorkspaceClosed { workspace_id } => {
                self.workspaces.remove(workspace_id);
                self.order.retain(|id| id != workspace_id);
                self.tabs.retain(|_, t| t.workspace_id != *workspace_id);
                self.panes.retain(|_, p| p.workspace_id != *workspace_id);
                let panes = &self.panes;
                self.progress.retain(|id, _| panes.contains_key(id));
            },
            Event::TabCreated { tab } => {
                // The workspace's tab list and active tab change without a
                // `workspace.updated` (docs/methods.md#tabcreate); the projection
                // follows.
                if let Some(w) = self
                    .workspaces
                    .get_mut(&tab.workspace_id)
                    .map(Arc::make_mut)
                {
                    w.tabs.push(tab.id.clone());
                    w.active_tab_id = Some(tab.id.clone());
                }
                self.tabs.insert(tab.id.clone(), Arc::new(tab.clone()));
            },
            Event::TabClosed { tab_id } => {
                self.panes.retain(|_, p| p.tab_id != *tab_id);
                let panes = &self.panes;
                self.progress.retain(|id, _| panes.contains_key(id));
                if let Some(tab) = self.tabs.remove(tab_id)
                    && let Some(w) = self
                        .workspaces
                        .get_mut(&tab.workspace_id)
                        .map(Arc::make_mut)
                {
                    w.tabs.retain(|id| id != tab_id);
                    if w.active_tab_id.as_ref() == Some(tab_id) {
                        w.active_tab_id = w.tabs.last().cloned();
                    }
                }
            },
            Event::PaneCreated { pane, resumed } => {
                // A pane spawned into an empty tab becomes its only leaf; a split
                // already arrived as `tab.updated` with the new layout. A resumed
                // pane keeps its place; only its process (and record) is new.
                if resumed.is_none()
                    && let Some(tab) = self.tabs.get_mut(&pane.tab_id).map(Arc::make_mut)
                {
                    if tab.layout.is_none() {
                        tab.layout = Some(Layout::Pane {
                            pane_id: pane.id.clone(),
                        });
                    }
                    tab.active_pane_id = Some(pane.id.clone());
                }
                let instance = format!("{}-{}", self.instance_prefix, seq.0);
                self.progress
                    .insert(pane.id.clone(), Progress::start(instance, seq.0, pane));
                self.panes.insert(pane.id.clone(), Arc::new(pane.clone()));
            },
            Event::PaneExited { pane_id, code } => {
                if let Some(progress) = self.progress.get_mut(pane_id) {
                    progress.exited(seq.0);
                }
                if let Some(p) = self.panes.get_mut(pane_id).map(Arc::make_mut) {
                    p.live = LiveState::Exited { code: *code };
                    p.restore_state = RestoreState::Exited;
                }
            },
            Event::PaneClosed { pane_id } => {
                // The tab's layout collapses around the closed pane without a
                // `tab.updated` (docs/methods.md#paneclose).
                self.progress.remove(pane_id);
                self.auto_continued.remove(pane_id);
                if let Some(p) = self.panes.remove(pane_id)
                    && let Some(tab) = self.tabs.get_mut(&p.tab_id).map(Arc::make_mut)
                {
                    tab.layout = tab.layout.take().and_then(|l| layout::remove(l, pane_id));
                    if tab.active_pane_id.as_ref() == Some(pane_id) {
                        tab.active_pane_id = tab
                            .layout
                            .as_ref()
                            .and_then(|l| layout::leaves(l).into_iter().next());
                    }
                }
            },
            // Never journaled or applied: it only reaches attached viewers.
            Event::PtyData { .. } => {},
            // Applied above, from the pane they carry.
            Event::AgentWorking { .. }
            | Event::AgentBlocked { .. }
            | Event::AgentDone { .. }
            | Event::AgentFailed { .. }
            | Event::AgentIdle { .. }
            | Event::AgentUnknown { .. }
            | Event::AgentExited { .. }
            | Event::AttentionCreated { .. }
            | Event::AttentionUpdated { .. }
            | Event::AttentionCleared { .. }
            | Event::NotificationCreated { .. }
            | Event::DecisionCreated { .. }
            | Event::DecisionAnswered { .. }
            | Event::DecisionCleared { .. } => {},
            Event::TaskCreated { .. }
            | Event::TaskUpdated { .. }
            | Event::TaskResult { .. }
            | Event::TaskConflict { .. } => {},
            Event::ServerWillShutdown {}
            | Event::JournalGap { .. }
            | Event::WorktreeChanged { .. }
            | Event::NotificationRead { .. } => {},
        }
    }

    /// Keeps `notification` as the newest, dropping the oldest past the cap.
    fn keep_notification(&mut self, notification: Notification) {
        if self.notifications.len() == KEPT_NOTIFICATIONS {
            self.notifications.pop_front();
        }
        self.notifications.push_back(notification);
    }

    /// Takes a snapshot's notifications (oldest first) as the kept ones.
    pub fn restore_notifications(&mut self, notifications: Vec<Notification>) {
        for n in notifications {
            self.keep_notification(n);
        }
    }

    /// The kept notifications, oldest first.
    pub fn notifications(&self) -> Vec<Notification> {
        self.notifications.iter().cloned().collect()
    }

    /// Sets `read_at` on the kept notifications among `ids` that are unread;
    /// one already read keeps its first `read_at`.
    fn mark_notifications_read(&mut self, ids: &[String], read_at: &signaltty_protocol::Timestamp) {
        let ids: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        for n in &mut self.notifications {
            if n.read_at.is_none() && ids.contains(n.id.as_str()) {
                n.read_at = Some(read_at.clone());
            }
        }
    }

    /// The kept notifications that pass `keep`, newest first, at most `limit`.
    pub fn notifications_newest(
        &self,
        keep: impl Fn(&Notification) -> bool,
        limit: usize,
    ) -> Vec<Notification> {
        self.notifications
            .iter()
            .rev()
            .filter(|n| keep(n))
            .take(limit)
            .cloned()
            .collect()
    }

    /// Every workspace in creation order.
    pub fn workspaces(&self) -> Vec<Workspace> {
        self.order
            .iter()
            .filter_map(|id| self.workspaces.get(id))
            .map(|w| Workspace::clone(w))
            .collect()
    }

    /// One workspace.
    pub fn workspace(&self, id: &WorkspaceId) -> Option<&Workspace> {
        self.workspaces.get(id).map(Arc::as_ref)
    }

    /// Number of workspaces.
    pub fn workspace_count(&self) -> usize {
        self.workspaces.len()
    }

    /// Number of tabs across all workspaces.
    pub fn tab_count(&self) -> usize {
        self.tabs.len()
    }

    /// Takes a snapshot's tasks (restore).
    pub fn restore_tasks(&mut self, tasks: Vec<Arc<Task>>) {
        self.tasks = tasks.into_iter().map(|t| (t.id.clone(), t)).collect();
    }

    /// One tab.
    pub fn tab(&self, id: &TabId) -> Option<&Tab> {
        self.tabs.get(id).map(Arc::as_ref)
    }

    /// One task.
    pub fn task(&self, id: &TaskId) -> Option<&Task> {
        self.tasks.get(id).map(Arc::as_ref)
    }

    /// The id of every task, in no order.
    pub fn task_ids(&self) -> impl Iterator<Item = &TaskId> {
        self.tasks.keys()
    }

    /// Every task, ordered by creation (then id).
    pub fn tasks(&self) -> Vec<&Task> {
        let mut tasks: Vec<&Task> = self.tasks.values().map(Arc::as_ref).collect();
        tasks.sort_by(|a, b| (&a.created_at, &a.id.0).cmp(&(&b.created_at, &b.id.0)));
        tasks
    }

    /// The conflict radar's collisions as last published, by `a` then `b`.
    pub fn conflicts(&self) -> impl Iterator<Item = &TaskConflict> {
        self.conflicts.values()
    }

    /// Every task, shared (for the snapshot), ordered by creation.
    pub fn shared_tasks(&self) -> Vec<Arc<Task>> {
        let mut tasks: Vec<Arc<Task>> = self.tasks.values().cloned().collect();
        tasks.sort_by(|a, b| (&a.created_at, &a.id.0).cmp(&(&b.created_at, &b.id.0)));
        tasks
    }

    /// The task whose worker is `pane`.
    pub fn task_of_pane(&self, pane: &PaneId) -> Option<&Task> {
        let pane = self.panes.get(pane)?;
        let id = TaskId(pane.task_id.clone()?);
        self.task(&id)
    }

    /// One pane.
    pub fn pane(&self, id: &PaneId) -> Option<&Pane> {
        self.panes.get(id).map(Arc::as_ref)
    }

    /// The reset `id` was last given its continue prompt for.
    pub fn auto_continued(&self, id: &PaneId) -> Option<&signaltty_protocol::Timestamp> {
        self.auto_continued.get(id)
    }

    /// The progress record of a pane's process.
    pub fn progress(&self, id: &PaneId) -> Option<&Progress> {
        self.progress.get(id)
    }

    /// Panes whose attention is not `none`, the one needing a person most first:
    /// highest severity, then most recent activity (docs/objects.md#rankings).
    pub fn attention_ranked(&self) -> Vec<&Pane> {
        let mut panes: Vec<&Pane> = self
            .panes()
            .filter(|p| p.attention != Attention::None)
            .collect();
        panes.sort_by(|a, b| {
            b.attention
                .severity()
                .cmp(&a.attention.severity())
                .then_with(|| b.last_activity_at.cmp(&a.last_activity_at))
                .then_with(|| a.id.0.cmp(&b.id.0))
        });
        panes
    }

    /// The `attention.pending` item of a pane.
    pub fn attention_item(pane: &Pane) -> AttentionItem {
        AttentionItem {
            pane_id: pane.id.clone(),
            workspace_id: pane.workspace_id.clone(),
            tab_id: pane.tab_id.clone(),
            lifecycle: pane.lifecycle,
            attention: pane.attention,
            label: pane.label.clone(),
            task_id: pane.task_id.clone(),
            last_message: pane.last_message.clone(),
            attention_since: pane.attention_since.clone(),
            resets_at: pane.resets_at.clone(),
            pending_decision: pane.pending_decision.as_deref().cloned(),
        }
    }

    /// Number of panes, live and tombstones.
    pub fn pane_count(&self) -> usize {
        self.panes.len()
    }

    /// Number of panes whose process runs.
    pub fn live_pane_count(&self) -> usize {
        self.panes
            .values()
            .filter(|p| p.live == LiveState::Live)
            .count()
    }

    /// The panes reachable from a workspace's tabs, in tab then layout order.
    pub fn panes_of(&self, workspace: &Workspace) -> Vec<Pane> {
        self.tabs_of(workspace)
            .iter()
            .filter_map(|t| t.layout.as_ref())
            .flat_map(layout::leaves)
            .filter_map(|id| self.panes.get(&id).map(|p| Pane::clone(p)))
            .collect()
    }

    /// The tabs of a workspace, in its tab order.
    pub fn tabs_of(&self, workspace: &Workspace) -> Vec<Tab> {
        workspace
            .tabs
            .iter()
            .filter_map(|id| self.tabs.get(id))
            .map(|t| Tab::clone(t))
            .collect()
    }
}

#[cfg(test)]
mod tests;
