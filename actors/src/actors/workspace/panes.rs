//! The Workspace actor's pane placement: spawning a pane into a tab and removing
//! one. Placement is atomic with respect to `tab.close` and `workspace.close`: the
//! spawn runs while the workspace's mailbox waits (`AtomicResponse`), so nobody can
//! remove the target tab between the check, the launch and the publication.

use super::Workspace;
use crate::actors::directory::{Directory, LaunchTicket};
use crate::actors::pane::{ClosePane, Pane, PaneSink, SetTab};
use crate::actors::publish::Publish;
use crate::domain::registry::PaneEntry;
use crate::error::Error;
use crate::ids::random_u128;
use crate::os::pty::SpawnSpec;
use actix::prelude::*;
use signaltty_protocol::pane::Pane as PaneState;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::workspace::{Layout, SplitDir, Tab};
use signaltty_protocol::{Event, PaneId, TabId, Timestamp};

/// Launches a process and places its pane in an empty tab: `tab` if given, else
/// the active tab, else a new `agents` tab (created only if the launch works).
/// Replies with the pane and its actor after `tab.created` (if any) and
/// `pane.created` are published. `BAD_PARAMS` for a tab that already has panes,
/// `NO_SUCH_TAB` for a tab gone meanwhile, `SPAWN_FAILED` when the launch fails.
#[derive(Message)]
#[rtype(result = "Result<(PaneState, Addr<Pane>, u32), Error>")]
pub struct SpawnPane {
    /// The pane object to publish (its `tab_id` is filled in here).
    pub pane: PaneState,
    /// An explicit tab of this workspace.
    pub tab: Option<TabId>,
    /// What to run.
    pub spec: SpawnSpec,
    /// Where the pane actor runs.
    pub arbiter: ArbiterHandle,
    /// Where the pane sends `pty.data` to be numbered.
    pub pty_out: crate::actors::publish::PtyOut,
    /// Where the pane leaves its ring for the snapshot's tail.
    pub tail: signaltty_model::term::TailSlot,
    /// `pane.split`: the pane to split and the direction, instead of an empty tab.
    pub split: Option<(PaneId, SplitDir)>,
    /// The server's configuration: the pane reads its agent rules and limits.
    pub config: std::sync::Arc<crate::config::Config>,
    /// The launch under way: ended when the pane is registered, or when this
    /// message is dropped.
    pub ticket: LaunchTicket,
}

/// Removes a closed pane from its tab's layout and publishes `pane.closed`.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), Error>")]
pub struct RemovePane {
    /// The pane.
    pub pane_id: PaneId,
    /// The signal its child gets.
    pub signal: SignalName,
}

impl Workspace {
    /// Picks the tab a spawn goes to, or stages a new one.
    fn target_tab(&self, explicit: Option<&TabId>) -> Result<(Tab, bool), Error> {
        let chosen = explicit.or(self.state.active_tab_id.as_ref());
        match chosen {
            Some(id) => {
                let tab = self
                    .tabs
                    .iter()
                    .find(|t| t.id == *id)
                    .ok_or_else(|| Error::NoSuchTab(id.clone()))?;
                if tab.layout.is_some() {
                    return Err(Error::BadParams(format!(
                        "tab {id} already has panes; use pane.split"
                    )));
                }
                Ok((tab.clone(), false))
            },
            None => Ok((
                Tab {
                    id: TabId::from_random(random_u128()),
                    workspace_id: self.state.id.clone(),
                    title: "agents".to_owned(),
                    layout: None,
                    active_pane_id: None,
                    created_at: Timestamp::now(),
                },
                true,
            )),
        }
    }

    /// The tab whose layout shows `pane`; `BAD_PARAMS` when none does.
    fn tab_holding(&self, pane: &PaneId) -> Result<Tab, Error> {
        self.tabs
            .iter()
            .find(|t| {
                t.layout
                    .as_ref()
                    .is_some_and(|l| crate::domain::layout::leaves(l).contains(pane))
            })
            .cloned()
            .ok_or_else(|| Error::BadParams(format!("pane {pane} is not in its tab's layout")))
    }

    /// Closes every pane of `tab` (their children get `signal`) and returns the
    /// `pane.closed` events, in layout order.
    pub(super) fn close_panes_of(&mut self, tab: &Tab, signal: SignalName) -> Vec<Event> {
        let ids = tab
            .layout
            .as_ref()
            .map(crate::domain::layout::leaves)
            .unwrap_or_default();
        ids.into_iter()
            .map(|id| {
                if let Some(addr) = self.panes.remove(&id) {
                    addr.do_send(ClosePane { signal });
                }
                Event::PaneClosed { pane_id: id }
            })
            .collect()
    }
}

impl Handler<SpawnPane> for Workspace {
    type Result = AtomicResponse<Self, Result<(PaneState, Addr<Pane>, u32), Error>>;

    fn handle(&mut self, msg: SpawnPane, _ctx: &mut Self::Context) -> Self::Result {
        let SpawnPane {
            mut pane,
            tab,
            spec,
            arbiter,
            pty_out,
            split,
            config,
            tail,
            ticket,
        } = msg;
        let target = if self.closing {
            Err(self.gone())
        } else if let Some((source, _)) = &split {
            self.tab_holding(source).map(|t| (t, false))
        } else {
            self.target_tab(tab.as_ref())
        };
        let (tab, staged) = match target {
            Ok(t) => t,
            Err(e) => return AtomicResponse::new(Box::pin(actix::fut::ready(Err(e)))),
        };
        pane.tab_id = tab.id.clone();
        let (sink, addr_tx) = PaneSink::new();
        let spawner = config.os.spawner.clone();
        let launch = actix_rt::task::spawn_blocking(move || {
            spawner
                .spawn(&spec, Box::new(sink))
                .map(|pty| (pty, addr_tx))
        });
        AtomicResponse::new(Box::pin(launch.into_actor(self).then(
            move |launched, act, _ctx| {
                let started = match launched {
                    Ok(Ok(started)) => Ok(started),
                    Ok(Err(e)) => Err(Error::SpawnFailed(e.to_string())),
                    Err(join) => Err(Error::SpawnFailed(format!("launch task failed: {join}"))),
                };
                let result = started.map(|(pty, addr_tx)| {
                    let pid = pty.pid();
                    let events = act.events.clone();
                    let state = pane.clone();
                    let slot = tail.clone();
                    let addr = Pane::start_in_arbiter(&arbiter, move |_| {
                        Pane::new(state, pty, events, pty_out, &config).with_tail_slot(&slot)
                    });
                    act.panes.insert(pane.id.clone(), addr.clone());
                    let mut published = Vec::new();
                    if staged {
                        act.state.tabs.push(tab.id.clone());
                        act.state.active_tab_id = Some(tab.id.clone());
                        act.tabs.push(tab.clone());
                        published.push(Event::TabCreated { tab: tab.clone() });
                    }
                    if let Some(t) = act.tabs.iter_mut().find(|t| t.id == tab.id) {
                        match &split {
                            Some((source, dir)) => {
                                let current = t.layout.take();
                                t.layout = match crate::domain::layout::split(
                                    current.clone(),
                                    Some(source),
                                    *dir,
                                    pane.id.clone(),
                                ) {
                                    Ok(l) => Some(l),
                                    // Checked before the launch; keep the tree whole regardless.
                                    Err(_) => current,
                                };
                                t.active_pane_id = Some(pane.id.clone());
                                published.push(Event::TabUpdated { tab: t.clone() });
                            },
                            None => {
                                t.layout = Some(Layout::Pane {
                                    pane_id: pane.id.clone(),
                                });
                                t.active_pane_id = Some(pane.id.clone());
                            },
                        }
                    }
                    published.push(Event::PaneCreated {
                        pane: pane.clone(),
                        resumed: None,
                    });
                    (published, pane, addr, addr_tx, pid)
                });
                let sender = act.events.clone();
                let workspace = act.state.id.clone();
                // Publication is awaited inside the atomic section: the workspace answers
                // nothing else until the pane is public.
                async move {
                    let (published, pane, addr, addr_tx, pid) = result?;
                    sender.send(Publish::new(published)).await??;
                    // Public: hooks of its process find it from now on.
                    ticket.launched(vec![(
                        PaneEntry {
                            id: pane.id.clone(),
                            addr: addr.clone(),
                            workspace,
                            tab: pane.tab_id.clone(),
                            pid,
                            tail,
                        },
                        None,
                    )]);
                    // The PTY threads wait for this address before delivering output
                    // or the exit, so `pane.exited` can never be published before
                    // `pane.created`.
                    addr_tx.send(addr.clone());
                    Ok((pane, addr, pid))
                }
                .into_actor(act)
            },
        )))
    }
}

impl Handler<RemovePane> for Workspace {
    type Result = ResponseFuture<Result<(), Error>>;

    fn handle(&mut self, msg: RemovePane, _ctx: &mut Self::Context) -> Self::Result {
        let Some(addr) = self.panes.remove(&msg.pane_id) else {
            let e = Error::NoSuchPane(msg.pane_id.0.clone());
            return Box::pin(async move { Err(e) });
        };
        addr.do_send(ClosePane { signal: msg.signal });
        for tab in &mut self.tabs {
            let holds = tab
                .layout
                .as_ref()
                .is_some_and(|l| crate::domain::layout::leaves(l).contains(&msg.pane_id));
            if holds {
                tab.layout = tab
                    .layout
                    .take()
                    .and_then(|l| crate::domain::layout::remove(l, &msg.pane_id));
                if tab.active_pane_id.as_ref() == Some(&msg.pane_id) {
                    tab.active_pane_id = tab
                        .layout
                        .as_ref()
                        .and_then(|l| crate::domain::layout::leaves(l).into_iter().next());
                }
            }
        }
        let sent = self.events.send(Publish::new(vec![Event::PaneClosed {
            pane_id: msg.pane_id.clone(),
        }]));
        let directory = self.directory.clone();
        Box::pin(async move {
            sent.await??;
            directory.do_send(Directory::PaneClosed(msg.pane_id));
            Ok(())
        })
    }
}

/// How to rearrange panes without touching their processes.
#[derive(Debug, Clone)]
pub enum Arrangement {
    /// Two panes trade places (shape and ratios stay).
    Swap(PaneId, PaneId),
    /// A pane leaves its place (its parent split collapses) and splits `target`.
    Move {
        /// The pane to move.
        pane: PaneId,
        /// The pane it goes next to.
        target: PaneId,
        /// The split direction.
        dir: SplitDir,
    },
}

/// What a rearrangement did: the touched tabs, and each pane that changed tab with
/// its new tab.
pub type Rearranged = (Vec<Tab>, Vec<(PaneId, TabId)>);

/// Rearranges panes of this workspace. Replies with the touched tabs after
/// `tab.updated` for each and `pane.updated` for each pane that changed tab.
/// `BAD_PARAMS` when a pane is not in a layout or both are the same.
#[derive(Debug, Message)]
#[rtype(result = "Result<Rearranged, Error>")]
pub struct Rearrange {
    /// What to do.
    pub arrangement: Arrangement,
}

impl Workspace {
    fn tab_index_of(&self, pane: &PaneId) -> Result<usize, Error> {
        self.tabs
            .iter()
            .position(|t| {
                t.layout
                    .as_ref()
                    .is_some_and(|l| crate::domain::layout::leaves(l).contains(pane))
            })
            .ok_or_else(|| {
                Error::BadParams(format!(
                    "pane {pane} is not in a tab layout of this workspace"
                ))
            })
    }

    /// Computes the new tabs; nothing changes on error.
    fn arrange(&self, arrangement: &Arrangement) -> Result<Rearranged, Error> {
        let (a, b) = match arrangement {
            Arrangement::Swap(a, b) => (a, b),
            Arrangement::Move { pane, target, .. } => (pane, target),
        };
        if a == b {
            return Err(Error::BadParams(
                "a pane cannot be rearranged with itself".into(),
            ));
        }
        let (ia, ib) = (self.tab_index_of(a)?, self.tab_index_of(b)?);
        let mut tabs = self.tabs.clone();
        let mut moved = Vec::new();
        match arrangement {
            Arrangement::Swap(a, b) => {
                for i in [ia, ib] {
                    if let Some(l) = tabs[i].layout.as_mut() {
                        crate::domain::layout::swap(l, a, b);
                    }
                    // The tab's focus stays on its slot: it follows the incoming pane.
                    let t = &mut tabs[i];
                    if ia != ib {
                        if t.active_pane_id.as_ref() == Some(a) {
                            t.active_pane_id = Some(b.clone());
                        } else if t.active_pane_id.as_ref() == Some(b) {
                            t.active_pane_id = Some(a.clone());
                        }
                    }
                    if ia == ib {
                        break;
                    }
                }
                if ia != ib {
                    moved.push((a.clone(), tabs[ib].id.clone()));
                    moved.push((b.clone(), tabs[ia].id.clone()));
                }
            },
            Arrangement::Move { pane, target, dir } => {
                let source = &mut tabs[ia];
                source.layout = source
                    .layout
                    .take()
                    .and_then(|l| crate::domain::layout::remove(l, pane));
                if source.active_pane_id.as_ref() == Some(pane) {
                    source.active_pane_id = source
                        .layout
                        .as_ref()
                        .and_then(|l| crate::domain::layout::leaves(l).into_iter().next());
                }
                let dest = &mut tabs[ib];
                let layout = crate::domain::layout::split(
                    dest.layout.take(),
                    Some(target),
                    *dir,
                    pane.clone(),
                )
                .map_err(Error::BadParams)?;
                dest.layout = Some(layout);
                dest.active_pane_id = Some(pane.clone());
                if ia != ib {
                    moved.push((pane.clone(), tabs[ib].id.clone()));
                }
            },
        }
        let touched: Vec<Tab> = if ia == ib {
            vec![tabs[ia].clone()]
        } else {
            vec![tabs[ia].clone(), tabs[ib].clone()]
        };
        Ok((touched, moved))
    }
}

impl Handler<Rearrange> for Workspace {
    type Result = ResponseActFuture<Self, Result<Rearranged, Error>>;

    fn handle(&mut self, msg: Rearrange, _ctx: &mut Self::Context) -> Self::Result {
        if self.closing {
            let e = self.gone();
            return Box::pin(actix::fut::ready(Err(e)));
        }
        let (touched, moved) = match self.arrange(&msg.arrangement) {
            Ok(r) => r,
            Err(e) => return Box::pin(actix::fut::ready(Err(e))),
        };
        for tab in &touched {
            if let Some(t) = self.tabs.iter_mut().find(|t| t.id == tab.id) {
                *t = tab.clone();
            }
        }
        // Panes that changed tab learn it, then every change is published at once.
        let moves: Vec<_> = moved
            .iter()
            .filter_map(|(id, tab)| {
                self.panes.get(id).map(|addr| {
                    addr.send(SetTab {
                        tab_id: tab.clone(),
                    })
                })
            })
            .collect();
        let sender = self.events.clone();
        let directory = self.directory.clone();
        let tabs_events: Vec<Event> = touched
            .iter()
            .map(|t| Event::TabUpdated { tab: t.clone() })
            .collect();
        let reply = (touched, moved);
        Box::pin(
            async move {
                let mut events = tabs_events;
                for m in moves {
                    let pane = m.await?;
                    events.push(Event::PaneUpdated {
                        pane_id: pane.id.clone(),
                        pane,
                    });
                }
                sender.send(Publish::new(events)).await??;
                for (pane, tab) in &reply.1 {
                    directory.do_send(Directory::PaneMoved {
                        pane: pane.clone(),
                        tab: tab.clone(),
                    });
                }
                Ok(reply)
            }
            .into_actor(self),
        )
    }
}
