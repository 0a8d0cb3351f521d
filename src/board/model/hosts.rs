//! The servers a board shows (`signaltty board --all-hosts`,
//! docs/board.md#several-hosts): each one's name and link, and which of them
//! each workspace, tab, pane and task belongs to. Ids are random and unique
//! across servers, so the board keeps one namespace of them and only
//! remembers whose each is: a fresh world read from one host replaces that
//! host's part and leaves the others' alone, and an event applies as on a
//! single server, marking what it brings as its host's.
//!
//! Host 0's link is the board's own `conn`, `seq` and `storage` fields, the
//! single-host API the rest of the board (and its tests) is written
//! against; the other hosts' links are kept here. Every host-aware caller
//! goes through the methods below, so the difference never shows.

use super::{Board, Conn, Episode, EpisodeKind, Row, episode_of};
use signaltty_protocol::server::StorageStatus;
use signaltty_protocol::workspace::WorkspaceGetResult;
use signaltty_protocol::{PaneId, TabId, TaskId, WorkspaceId};
use std::collections::HashMap;
use std::time::Instant;

/// One server of the board.
#[derive(Debug, Clone)]
pub struct Host {
    /// `local` or the configured host's name.
    pub name: String,
    /// Where it is, for the status line: the socket, or `host NAME (DEST)`.
    pub label: String,
    /// Whether its feed was ever live (a host that fails before is
    /// "unreachable", one that fails after "reconnecting").
    live_once: bool,
}

/// A link of a host after the first (host 0's is the board's own fields).
#[derive(Debug)]
struct Link {
    conn: Conn,
    seq: u64,
    storage: Option<StorageStatus>,
}

/// A host's link as a person reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState<'a> {
    Connecting,
    Connected,
    /// It was live; lost at `since`.
    Reconnecting {
        since: Instant,
        why: &'a str,
    },
    /// It failed before it was ever live.
    Unreachable {
        why: &'a str,
    },
}

/// The hosts, in fleet order (host 0 first), and who owns what.
#[derive(Debug)]
pub struct Hosts {
    hosts: Vec<Host>,
    /// The links of hosts 1, 2, …
    others: Vec<Link>,
    workspaces: HashMap<WorkspaceId, usize>,
    tabs: HashMap<TabId, usize>,
    panes: HashMap<PaneId, usize>,
    pub(super) tasks: HashMap<TaskId, usize>,
}

/// The link of a host index the board does not have: never connected.
const NO_CONN: &Conn = &Conn::Connecting;

impl Hosts {
    /// `(name, label)` of each host, in fleet order; at least one.
    pub(super) fn new(named: Vec<(String, String)>) -> Hosts {
        let mut hosts: Vec<Host> = named
            .into_iter()
            .map(|(name, label)| Host {
                name,
                label,
                live_once: false,
            })
            .collect();
        if hosts.is_empty() {
            hosts.push(Host {
                name: signaltty_model::remote::LOCAL.into(),
                label: String::new(),
                live_once: false,
            });
        }
        let others = (1..hosts.len())
            .map(|_| Link {
                conn: Conn::Connecting,
                seq: 0,
                storage: None,
            })
            .collect();
        Hosts {
            hosts,
            others,
            workspaces: HashMap::new(),
            tabs: HashMap::new(),
            panes: HashMap::new(),
            tasks: HashMap::new(),
        }
    }

    /// The host of an id the board has seen; host 0 for one it has not (a
    /// single-host board never records anything else).
    fn of<K: std::hash::Hash + Eq>(map: &HashMap<K, usize>, id: &K) -> usize {
        map.get(id).copied().unwrap_or(0)
    }

    pub fn pane(&self, id: &PaneId) -> usize {
        Hosts::of(&self.panes, id)
    }

    pub fn tab(&self, id: &TabId) -> usize {
        Hosts::of(&self.tabs, id)
    }

    pub fn workspace(&self, id: &WorkspaceId) -> usize {
        Hosts::of(&self.workspaces, id)
    }

    pub fn task(&self, id: &TaskId) -> usize {
        Hosts::of(&self.tasks, id)
    }

    pub(super) fn own_pane(&mut self, id: &PaneId, host: usize) {
        self.panes.insert(id.clone(), host);
    }

    pub(super) fn own_tab(&mut self, id: &TabId, host: usize) {
        self.tabs.insert(id.clone(), host);
    }

    pub(super) fn own_workspace(&mut self, id: &WorkspaceId, host: usize) {
        self.workspaces.insert(id.clone(), host);
    }

    /// Forgets everything `host` owned (before its fresh world is stored).
    fn forget_host(&mut self, host: usize) {
        self.workspaces.retain(|_, h| *h != host);
        self.tabs.retain(|_, h| *h != host);
        self.panes.retain(|_, h| *h != host);
    }
}

impl Board {
    /// A board over several servers: `(name, label)` of each, in fleet
    /// order (`local` first). With one, it is the single-host board.
    pub fn fleet(named: Vec<(String, String)>) -> Board {
        let label = named.first().map(|(_, l)| l.clone()).unwrap_or_default();
        let mut board = Board::new(label);
        board.hosts = Hosts::new(named);
        board
    }

    pub fn host_count(&self) -> usize {
        self.hosts.hosts.len()
    }

    /// Whether the board shows more than one server (and so their headings).
    pub fn several_hosts(&self) -> bool {
        self.host_count() > 1
    }

    /// The host's name (`local`, `devbox`); "" for a host it does not have.
    pub fn host_name(&self, host: usize) -> &str {
        self.hosts.hosts.get(host).map_or("", |h| h.name.as_str())
    }

    /// Where the host is: its socket, or `host NAME (DEST)`.
    pub fn host_label(&self, host: usize) -> &str {
        match host {
            0 => &self.socket,
            h => self.hosts.hosts.get(h).map_or("", |h| h.label.as_str()),
        }
    }

    /// The pane's host's name when the board shows several, for the places
    /// that name a pane (the queue, the prompts, the preview's title).
    pub fn host_tag(&self, pane: &PaneId) -> Option<&str> {
        self.several_hosts()
            .then(|| self.host_name(self.host_of_pane(pane)))
    }

    pub fn host_of_pane(&self, pane: &PaneId) -> usize {
        self.hosts.pane(pane)
    }

    pub fn host_of_workspace(&self, ws: &WorkspaceId) -> usize {
        self.hosts.workspace(ws)
    }

    pub fn host_of_task(&self, task: &TaskId) -> usize {
        self.hosts.task(task)
    }

    /// The host a list row belongs to.
    pub fn host_of_row(&self, row: &Row) -> usize {
        match row {
            Row::Host(h) => *h,
            Row::Workspace(id) => self.hosts.workspace(id),
            Row::Tab(id) => self.hosts.tab(id),
            Row::Pane(id) => self.hosts.pane(id),
        }
    }

    /// The selected pane's host (host 0 with nothing selected).
    pub fn selected_host(&self) -> usize {
        self.selected.as_ref().map_or(0, |p| self.host_of_pane(p))
    }

    pub fn conn_of(&self, host: usize) -> &Conn {
        match host {
            0 => &self.conn,
            h => self.others(h).map_or(NO_CONN, |l| &l.conn),
        }
    }

    /// Whether the host's feed is live.
    pub fn is_live(&self, host: usize) -> bool {
        *self.conn_of(host) == Conn::Live
    }

    /// The newest seq applied from the host (where its next feed resumes).
    pub fn seq_of(&self, host: usize) -> u64 {
        match host {
            0 => self.seq,
            h => self.others(h).map_or(0, |l| l.seq),
        }
    }

    /// The host's state directory takes no writes (`None`: it does).
    pub fn storage_of(&self, host: usize) -> Option<&StorageStatus> {
        match host {
            0 => self.storage.as_ref(),
            h => self.others(h).and_then(|l| l.storage.as_ref()),
        }
    }

    pub fn set_storage(&mut self, host: usize, storage: Option<StorageStatus>) {
        match host {
            0 => self.storage = storage,
            h => {
                if let Some(l) = self.others_mut(h) {
                    l.storage = storage;
                }
            },
        }
    }

    fn set_conn(&mut self, host: usize, conn: Conn) {
        if conn == Conn::Live
            && let Some(h) = self.hosts.hosts.get_mut(host)
        {
            h.live_once = true;
        }
        match host {
            0 => self.conn = conn,
            h => {
                if let Some(l) = self.others_mut(h) {
                    l.conn = conn;
                }
            },
        }
    }

    /// The host's feed is down: what is shown of it is as of now (a host
    /// already down keeps the time and the reason it went down with).
    pub fn lose(&mut self, host: usize, why: String) {
        if !matches!(self.conn_of(host), Conn::Reconnecting { .. }) {
            let since = Instant::now();
            self.set_conn(host, Conn::Reconnecting { since, why });
        }
    }

    /// The host's link as a person reads it.
    pub fn link(&self, host: usize) -> LinkState<'_> {
        let live_once = self.hosts.hosts.get(host).is_some_and(|h| h.live_once);
        match self.conn_of(host) {
            Conn::Connecting => LinkState::Connecting,
            Conn::Live => LinkState::Connected,
            Conn::Reconnecting { since, why } if live_once => {
                LinkState::Reconnecting { since: *since, why }
            },
            Conn::Reconnecting { why, .. } => LinkState::Unreachable { why },
        }
    }

    pub(super) fn bump_seq(&mut self, host: usize, seq: u64) {
        match host {
            0 => self.seq = self.seq.max(seq),
            h => {
                if let Some(l) = self.others_mut(h) {
                    l.seq = l.seq.max(seq);
                }
            },
        }
    }

    fn others(&self, host: usize) -> Option<&Link> {
        self.hosts.others.get(host.checked_sub(1)?)
    }

    fn others_mut(&mut self, host: usize) -> Option<&mut Link> {
        self.hosts.others.get_mut(host.checked_sub(1)?)
    }

    /// Replaces `host`'s part of the world with a fresh read (after a
    /// connect); the other hosts' stay as they are. Returns the episodes
    /// that began on it while the board was not connected to it (none at its
    /// first load: what was already waiting is not news). The selection
    /// stays on its pane if that pane still exists.
    pub fn load_from(
        &mut self,
        host: usize,
        world: Vec<WorkspaceGetResult>,
        seq: u64,
    ) -> Vec<Episode> {
        let first = *self.conn_of(host) == Conn::Connecting;
        let before = self.drop_host(host);
        let mut ids = Vec::new();
        for got in world {
            self.hosts.own_workspace(&got.workspace.id, host);
            self.workspaces.push(got.workspace);
            for tab in got.tabs {
                self.hosts.own_tab(&tab.id, host);
                self.tabs.insert(tab.id.clone(), tab);
            }
            for pane in got.panes {
                self.hosts.own_pane(&pane.id, host);
                ids.push(pane.id.clone());
                self.panes.insert(pane.id.clone(), pane);
            }
        }
        ids.sort();
        let mut began = Vec::new();
        for id in ids {
            let now = self.panes.get(&id).and_then(episode_of);
            let was = before.get(&id).copied().flatten();
            if let Some(kind) = now
                && was != now
                && !first
            {
                began.push(Episode {
                    pane: id.clone(),
                    kind,
                });
            }
            self.episodes.insert(id, now);
        }
        self.bump_seq(host, seq);
        self.set_conn(host, Conn::Live);
        self.keep_selection();
        began
    }

    /// Takes `host`'s workspaces, tabs and panes out; returns the episodes
    /// its panes were in.
    fn drop_host(&mut self, host: usize) -> HashMap<PaneId, Option<EpisodeKind>> {
        let owners = &self.hosts;
        self.workspaces.retain(|w| owners.workspace(&w.id) != host);
        self.tabs.retain(|id, _| owners.tab(id) != host);
        self.panes.retain(|id, _| owners.pane(id) != host);
        let before = self
            .episodes
            .extract_if(|id, _| owners.pane(id) == host)
            .collect();
        self.hosts.forget_host(host);
        before
    }

    /// Forgets the owners of what is gone (after a close event).
    pub(super) fn forget_gone(&mut self) {
        let Board {
            hosts,
            workspaces,
            tabs,
            panes,
            ..
        } = self;
        hosts
            .workspaces
            .retain(|id, _| workspaces.iter().any(|w| w.id == *id));
        hosts.tabs.retain(|id, _| tabs.contains_key(id));
        hosts.panes.retain(|id, _| panes.contains_key(id));
    }
}

#[cfg(test)]
pub(super) mod tests;
