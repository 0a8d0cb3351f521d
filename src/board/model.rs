//! What the board shows, as plain data: the world as each server last told
//! it (workspaces, tabs, panes with their decisions, tasks), the connections'
//! state, and the person's selection, filter, view and mode. It changes only
//! through `load_from` (a host's fresh state read), `apply_from` (one event
//! of a host) and the selection and filter methods, so it is tested without
//! a terminal or a server. Which host owns what is `hosts.rs`; a board of
//! one server is host 0 alone, and `load` and `apply` mean host 0.

use signaltty_protocol::pane::{Attention, Lifecycle, Pane, RestoreState};
use signaltty_protocol::task::{Task, TaskDiffResult};
#[cfg(test)]
use signaltty_protocol::workspace::WorkspaceGetResult;
use signaltty_protocol::workspace::{Tab, Workspace};
use signaltty_protocol::{Event, EventFrame, PaneId, TabId, TaskId, Timestamp, WorkspaceId};
use std::collections::HashMap;
use std::time::Instant;

/// The connection to the server, as the board presents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conn {
    /// First connect, nothing shown yet.
    Connecting,
    /// Subscribed and current.
    Live,
    /// Lost: what is shown is as of `since`, and says so.
    Reconnecting { since: Instant, why: String },
}

/// A filter by state (`!`, `@`, `#`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFilter {
    Blocked,
    Working,
    Done,
}

impl StateFilter {
    fn keeps(self, pane: &Pane) -> bool {
        match self {
            StateFilter::Blocked => {
                pane.lifecycle == Lifecycle::Blocked
                    || pane.pending_decision.is_some()
                    || matches!(
                        pane.attention,
                        Attention::InputRequired | Attention::PermissionRequired
                    )
            },
            StateFilter::Working => pane.lifecycle == Lifecycle::Working,
            StateFilter::Done => pane.lifecycle == Lifecycle::Done,
        }
    }

    /// Its name in the status line.
    pub fn name(self) -> &'static str {
        match self {
            StateFilter::Blocked => "blocked",
            StateFilter::Working => "working",
            StateFilter::Done => "done",
        }
    }
}

/// What keys mean right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// The key table (`?`).
    Help,
    /// Typing the text filter (`/`).
    Filter,
    /// Typing a prompt for a pane (`s`).
    Prompt {
        pane: PaneId,
        text: String,
    },
    /// Asking before closing a pane (`x`).
    ConfirmClose {
        pane: PaneId,
    },
    /// Asking before merging (`m`) or discarding (`D`) a task.
    ConfirmFinish {
        task: TaskId,
        merge: bool,
    },
}

/// Which list the board shows (`t` toggles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Panes,
    Tasks,
}

/// One line of the pane list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A host's heading (by its index), on a board of several hosts.
    Host(usize),
    Workspace(WorkspaceId),
    Tab(TabId),
    Pane(PaneId),
}

/// Something a person should hear about: a pane started waiting for them or
/// finished with a result they have not seen. One per episode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Episode {
    pub pane: PaneId,
    pub kind: EpisodeKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpisodeKind {
    Blocked,
    Done,
}

/// How many panes are in each state (the status line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub working: usize,
    pub blocked: usize,
    pub done: usize,
    pub idle: usize,
    pub failed: usize,
    pub exited: usize,
    pub unknown: usize,
    pub unread: usize,
}

/// A message after an action (an answer sent, a refusal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    pub text: String,
    pub error: bool,
    pub at: Instant,
}

/// Everything the board draws from.
#[derive(Debug)]
pub struct Board {
    /// Workspaces in creation order.
    pub workspaces: Vec<Workspace>,
    pub tabs: HashMap<TabId, Tab>,
    pub panes: HashMap<PaneId, Pane>,
    /// The socket the board talks to.
    pub socket: String,
    pub conn: Conn,
    /// The state directory takes no writes: changes are refused
    /// (docs/reliability.md#a-full-disk).
    pub storage: Option<signaltty_protocol::server::StorageStatus>,
    /// The seq of the newest event applied (for the replay after a reconnect).
    pub seq: u64,
    pub selected: Option<PaneId>,
    pub filter_text: String,
    pub state_filter: Option<StateFilter>,
    pub mode: Mode,
    pub flash: Option<Flash>,
    /// The panes or the tasks.
    pub view: View,
    /// Tasks, in creation order (`task.list` at connect, then events).
    pub tasks: Vec<Task>,
    pub task_selected: Option<TaskId>,
    /// The last `task.diff` asked for (`d`), shown while its task is selected.
    pub task_diff: Option<TaskDiffResult>,
    /// The conflict radar's collisions (`task.list` at connect, then
    /// `task.conflict`; docs/tasks.md#conflict-radar).
    pub conflicts: Vec<signaltty_protocol::task::conflict::TaskConflict>,
    /// Per pane: whether it is in a blocked or a done+unread episode now.
    episodes: HashMap<PaneId, Option<EpisodeKind>>,
    /// The servers shown and who owns what (`hosts.rs`); the fields above
    /// that name one server (`socket`, `conn`, `storage`, `seq`) are host 0's.
    hosts: Hosts,
}

/// The episode a pane is in: waiting for a person, or done and unseen.
fn episode_of(pane: &Pane) -> Option<EpisodeKind> {
    let waiting = pane.lifecycle == Lifecycle::Blocked
        || pane.pending_decision.as_ref().is_some_and(|d| d.answerable)
        || matches!(
            pane.attention,
            Attention::InputRequired | Attention::PermissionRequired
        );
    if waiting && pane.restore_state == RestoreState::Live {
        Some(EpisodeKind::Blocked)
    } else if pane.lifecycle == Lifecycle::Done && pane.attention == Attention::Unread {
        Some(EpisodeKind::Done)
    } else {
        None
    }
}

impl Board {
    pub fn new(socket: String) -> Board {
        let hosts = Hosts::new(vec![(LOCAL.into(), socket.clone())]);
        Board {
            hosts,
            workspaces: Vec::new(),
            tabs: HashMap::new(),
            panes: HashMap::new(),
            socket,
            conn: Conn::Connecting,
            storage: None,
            seq: 0,
            selected: None,
            filter_text: String::new(),
            state_filter: None,
            mode: Mode::Normal,
            flash: None,
            view: View::Panes,
            tasks: Vec::new(),
            task_selected: None,
            task_diff: None,
            conflicts: Vec::new(),
            episodes: HashMap::new(),
        }
    }

    /// Replaces the world with a fresh read (after a connect): host 0's,
    /// the only one of a single-host board (`load_from`). The board itself
    /// always names the host; the tests are written in this form.
    #[cfg(test)]
    pub fn load(&mut self, world: Vec<WorkspaceGetResult>, seq: u64) -> Vec<Episode> {
        self.load_from(0, world, seq)
    }

    /// Applies one event of host 0 (`apply_from`); returns the episode it
    /// started, if any.
    #[cfg(test)]
    pub fn apply(&mut self, frame: &EventFrame) -> Option<Episode> {
        self.apply_from(0, frame)
    }

    /// Applies one event of `host`'s feed, marking what it brings as the
    /// host's; returns the episode it started, if any.
    pub fn apply_from(&mut self, host: usize, frame: &EventFrame) -> Option<Episode> {
        self.bump_seq(host, frame.seq);
        let value = serde_json::json!({"event": frame.event, "payload": frame.payload});
        // An event this board does not know (a newer server) changes nothing.
        let event: Event = serde_json::from_value(value).ok()?;
        let mut touched = None;
        match event {
            Event::WorkspaceCreated { workspace } | Event::WorkspaceUpdated { workspace } => {
                self.hosts.own_workspace(&workspace.id, host);
                match self.workspaces.iter_mut().find(|w| w.id == workspace.id) {
                    Some(w) => *w = workspace,
                    None => self.workspaces.push(workspace),
                }
            },
            Event::WorkspaceClosed { workspace_id } => {
                self.workspaces.retain(|w| w.id != workspace_id);
                self.tabs.retain(|_, t| t.workspace_id != workspace_id);
                self.panes.retain(|_, p| p.workspace_id != workspace_id);
                self.forget_gone();
            },
            Event::TabCreated { tab } | Event::TabUpdated { tab } => {
                if let Some(w) = self
                    .workspaces
                    .iter_mut()
                    .find(|w| w.id == tab.workspace_id)
                    && !w.tabs.contains(&tab.id)
                {
                    w.tabs.push(tab.id.clone());
                }
                self.hosts.own_tab(&tab.id, host);
                self.tabs.insert(tab.id.clone(), tab);
            },
            Event::TabClosed { tab_id } => {
                self.tabs.remove(&tab_id);
                for w in &mut self.workspaces {
                    w.tabs.retain(|t| *t != tab_id);
                }
                self.panes.retain(|_, p| p.tab_id != tab_id);
                self.forget_gone();
            },
            Event::PaneCreated { pane, .. }
            | Event::PaneUpdated { pane, .. }
            | Event::PaneResized { pane }
            | Event::PaneHibernated { pane, .. } => touched = Some(self.upsert(host, pane)),
            Event::PaneClosed { pane_id } => {
                self.panes.remove(&pane_id);
                self.episodes.remove(&pane_id);
                self.forget_gone();
            },
            Event::TaskCreated { task } | Event::TaskUpdated { task, .. } => {
                self.upsert_task(host, *task);
            },
            Event::TaskConflict {
                repo,
                a,
                b,
                target_branch,
                paths,
                state,
                since,
            } => {
                let conflict = signaltty_protocol::task::conflict::TaskConflict {
                    repo,
                    a,
                    b,
                    target_branch,
                    paths,
                    since,
                };
                self.apply_conflict(conflict, state);
            },
            // A wake's `pane.created` in the same batch carries the pane.
            Event::PaneExited { .. }
            | Event::PaneWoke { .. }
            | Event::WorkspaceTurnStarted { .. } => {},
            Event::PtyData { .. }
            | Event::ServerWillShutdown {}
            | Event::JournalGap { .. }
            | Event::WorktreeChanged { .. } => {},
            other => {
                if let Some(pane) = other.carried_pane() {
                    touched = Some(self.upsert(host, pane.clone()));
                }
            },
        }
        self.keep_selection();
        let id = touched?;
        let now = self.panes.get(&id).and_then(episode_of);
        let before = self.episodes.insert(id.clone(), now);
        match (before.flatten(), now) {
            (before, Some(kind)) if before != Some(kind) => Some(Episode { pane: id, kind }),
            _ => None,
        }
    }

    /// Stores `pane` (a pane of a tab the board does not know yet is kept:
    /// its tab's event may come next).
    fn upsert(&mut self, host: usize, pane: Pane) -> PaneId {
        let id = pane.id.clone();
        self.hosts.own_pane(&id, host);
        self.panes.insert(id.clone(), pane);
        id
    }

    /// Whether `pane` passes the text and state filters.
    fn passes(&self, pane: &Pane) -> bool {
        if let Some(f) = self.state_filter
            && !f.keeps(pane)
        {
            return false;
        }
        let needle = self.filter_text.trim().to_lowercase();
        if needle.is_empty() {
            return true;
        }
        let hay = [
            pane.name.as_deref().unwrap_or_default(),
            &pane.title,
            pane.last_message.as_deref().unwrap_or_default(),
            &pane.cwd,
            &pane.id.0,
            // `/devbox` keeps devbox's panes when several hosts are shown.
            self.host_tag(&pane.id).unwrap_or_default(),
        ];
        hay.iter().any(|h| h.to_lowercase().contains(&needle))
    }

    /// The panes that pass the filters, by tab, each tab's in creation order:
    /// one pass over the panes, however many tabs there are.
    fn panes_by_tab(&self) -> HashMap<&TabId, Vec<&Pane>> {
        let mut by_tab: HashMap<&TabId, Vec<&Pane>> = HashMap::new();
        for p in self.panes.values().filter(|p| self.passes(p)) {
            by_tab.entry(&p.tab_id).or_default().push(p);
        }
        for panes in by_tab.values_mut() {
            panes.sort_by(|a, b| {
                (a.created_at.as_str(), &a.id.0).cmp(&(b.created_at.as_str(), &b.id.0))
            });
        }
        by_tab
    }

    /// The pane list as drawn: each workspace, its tabs (a heading only when it
    /// has several), their panes; with several hosts, each host's heading
    /// before its workspaces, in fleet order (a heading stays while a filter
    /// hides its panes: its link state is worth seeing). Groups without a
    /// pane that passes the filter are left out while a filter is on.
    pub fn rows(&self) -> Vec<Row> {
        let mut by_tab = self.panes_by_tab();
        let mut rows = Vec::with_capacity(self.panes.len() + self.workspaces.len());
        if !self.several_hosts() {
            for w in &self.workspaces {
                self.workspace_rows(w, &mut by_tab, &mut rows);
            }
            return rows;
        }
        for host in 0..self.host_count() {
            rows.push(Row::Host(host));
            for w in &self.workspaces {
                if self.hosts.workspace(&w.id) == host {
                    self.workspace_rows(w, &mut by_tab, &mut rows);
                }
            }
        }
        rows
    }

    /// One workspace's rows, its panes taken out of `by_tab`.
    fn workspace_rows<'a>(
        &'a self,
        w: &'a Workspace,
        by_tab: &mut HashMap<&'a TabId, Vec<&'a Pane>>,
        rows: &mut Vec<Row>,
    ) {
        let filtering = self.filtering();
        let tabs: Vec<&TabId> = w
            .tabs
            .iter()
            .filter(|t| self.tabs.contains_key(*t))
            .collect();
        let mut body = Vec::new();
        for tab in &tabs {
            let panes = by_tab.remove(*tab).unwrap_or_default();
            if panes.is_empty() && filtering {
                continue;
            }
            if tabs.len() > 1 {
                body.push(Row::Tab((*tab).clone()));
            }
            body.extend(panes.into_iter().map(|p| Row::Pane(p.id.clone())));
        }
        if body.is_empty() && filtering {
            return;
        }
        rows.push(Row::Workspace(w.id.clone()));
        rows.extend(body);
    }

    /// Whether a text or state filter is on.
    fn filtering(&self) -> bool {
        self.state_filter.is_some() || !self.filter_text.trim().is_empty()
    }

    /// The pane ids in list order.
    pub fn pane_order(&self) -> Vec<PaneId> {
        self.rows()
            .into_iter()
            .filter_map(|r| match r {
                Row::Pane(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    /// The panes with a question, oldest first: a pending decision, or a
    /// pane blocked on a question only its terminal shows (a screen rule's
    /// `input_required`, Codex's hook trust gate, a hook's question without
    /// a decision). Those have no prompt to show: the entry says so, and the
    /// preview shows the question itself.
    pub fn queue(&self) -> Vec<&Pane> {
        let mut q: Vec<&Pane> = self
            .panes
            .values()
            .filter(|p| p.pending_decision.is_some() || asks_in_terminal(p))
            .collect();
        q.sort_by(|a, b| {
            let at = |p: &Pane| {
                p.pending_decision
                    .as_ref()
                    .map(|d| &d.received_at)
                    .or(p.attention_since.as_ref())
                    .or(p.lifecycle_since.as_ref())
                    .and_then(Timestamp::unix_millis)
                    .unwrap_or(i64::MAX)
            };
            (at(a), &a.id.0).cmp(&(at(b), &b.id.0))
        });
        q
    }

    /// The pane a number key, `y` or `n` answers: the selected pane when it
    /// has a question, else the oldest question the board can answer
    /// (docs/board.md#keys). `None` when nothing waits for an answer here.
    pub fn answer_target(&self) -> Option<&Pane> {
        let selected = self.selected_pane();
        if let Some(p) = selected.filter(|p| p.pending_decision.is_some() || asks_in_terminal(p)) {
            return Some(p);
        }
        self.queue()
            .into_iter()
            .find(|p| p.pending_decision.as_ref().is_some_and(|d| d.answerable))
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for p in self.panes.values() {
            match p.lifecycle {
                Lifecycle::Working => c.working += 1,
                Lifecycle::Blocked => c.blocked += 1,
                Lifecycle::Done => c.done += 1,
                Lifecycle::Idle => c.idle += 1,
                Lifecycle::Failed => c.failed += 1,
                Lifecycle::Exited => c.exited += 1,
                Lifecycle::Unknown => c.unknown += 1,
            }
            if p.attention == Attention::Unread {
                c.unread += 1;
            }
        }
        c
    }

    pub fn selected_pane(&self) -> Option<&Pane> {
        self.selected.as_ref().and_then(|id| self.panes.get(id))
    }

    /// Moves the selection `delta` panes down (negative: up), clamped.
    pub fn move_selection(&mut self, delta: isize) {
        let order = self.pane_order();
        if order.is_empty() {
            self.selected = None;
            return;
        }
        let at = self
            .selected
            .as_ref()
            .and_then(|s| order.iter().position(|id| id == s))
            .unwrap_or(0) as isize;
        let to = (at + delta).clamp(0, order.len() as isize - 1) as usize;
        self.selected = Some(order[to].clone());
    }

    /// Selects `pane` if the list shows it (a filter may hide it: then the
    /// filters are cleared so the person sees where they jumped).
    pub fn select(&mut self, pane: &PaneId) {
        if !self.panes.contains_key(pane) {
            return;
        }
        if !self.pane_order().contains(pane) {
            self.filter_text.clear();
            self.state_filter = None;
        }
        self.selected = Some(pane.clone());
    }

    /// Keeps the selection on a shown pane: the first one when it has none
    /// or its pane went away or was filtered out.
    pub fn keep_selection(&mut self) {
        // Without a filter every pane of a known tab is shown: no list needed.
        if !self.filtering()
            && let Some(p) = self.selected.as_ref().and_then(|s| self.panes.get(s))
            && self.tabs.contains_key(&p.tab_id)
        {
            return;
        }
        let order = self.pane_order();
        let shown = self.selected.as_ref().is_some_and(|s| order.contains(s));
        if !shown {
            self.selected = order.first().cloned();
        }
    }

    /// Shows `text` in the status area.
    pub fn say(&mut self, text: impl Into<String>, error: bool) {
        self.flash = Some(Flash {
            text: text.into(),
            error,
            at: Instant::now(),
        });
    }

    /// The workspace of `id`.
    pub fn workspace(&self, id: &WorkspaceId) -> Option<&Workspace> {
        self.workspaces.iter().find(|w| w.id == *id)
    }
}

pub mod hosts;
mod questions;
pub mod tasks;
use hosts::Hosts;
pub use hosts::LinkState;
pub use questions::{allowing, asks_in_terminal, denying};
use signaltty_model::remote::LOCAL;
pub use tasks::{TaskNote, disposition, task_note};

#[cfg(test)]
pub(crate) mod tests;
