//! The Workspace actor's half of `layout.apply` (docs/methods.md#layoutapply):
//! every pane of a launch tree is started into a new tab, all or nothing. The
//! processes are started on one blocking thread while the workspace's mailbox
//! waits (`AtomicResponse`, as for `SpawnPane`), and nothing is published until
//! all of them run: when one fails, the ones already started are killed and the
//! tab never existed, so no event announces it.

use super::Workspace;
use crate::actors::directory::LaunchTicket;
use crate::actors::pane::{Pane, PaneSink};
use crate::actors::publish::Publish;
use crate::domain::registry::PaneEntry;
use crate::error::Error;
use crate::os::pty::PtyHandle;
use crate::os::pty::SpawnSpec;
use crate::os::seams::{FileKind, Spawner};
use actix::prelude::*;
use nix::sys::signal::Signal;
use signaltty_protocol::Event;
use signaltty_protocol::WorkspaceRef;
use signaltty_protocol::pane::{Integration, Pane as PaneState};
use signaltty_protocol::workspace::{Layout, Tab};

/// One pane of a launch tree, built and checked by the router.
pub struct ApplyLeaf {
    /// The pane object (its `tab_id` is filled in here).
    pub pane: PaneState,
    /// What to run.
    pub spec: SpawnSpec,
    /// Where its actor runs.
    pub arbiter: ArbiterHandle,
    /// Where it leaves its ring for the snapshot's tail.
    pub tail: signaltty_model::term::TailSlot,
}

/// Starts every leaf into a new tab `tab` arranged as `layout` (whose leaves
/// are the leaves' pane ids), made the workspace's active tab; its active
/// pane is the first leaf's. Replies after `tab.created`, one `pane.created`
/// per pane and `tab.updated` (the whole tree) are published, with the tab
/// and each pane, its actor and pid in leaf order. `SPAWN_FAILED` when a
/// process cannot be started: the started ones are killed, nothing is
/// published and the workspace is as it was.
#[derive(Message)]
#[rtype(result = "Result<(Tab, Vec<(PaneState, Addr<Pane>, u32)>), Error>")]
pub struct ApplyLayout {
    /// The new tab (empty layout, no active pane).
    pub tab: Tab,
    /// Its arrangement.
    pub layout: Layout,
    /// The panes, in leaf order.
    pub leaves: Vec<ApplyLeaf>,
    /// How the panes number their `pty.data` (the shared seq clock).
    pub pty_out: crate::actors::publish::PtyOut,
    /// The server's configuration, for the pane actors.
    pub config: std::sync::Arc<crate::config::Config>,
    /// The launch under way, holding the leaves' names: ended when the panes
    /// are registered, or when this message is dropped.
    pub ticket: LaunchTicket,
}

/// A launch tree to start into a new tab, checked whole and built into panes
/// (docs/layouts.md): the directories are checked, entered and the agents'
/// hooks prepared off the event loop, then every pane is started at once
/// ([`ApplyLayout`]). Replies as [`ApplyLayout`] does, with each pane's
/// integration report; `BAD_PARAMS` naming the first leaf whose cwd is not a
/// directory.
#[derive(Message)]
#[rtype(result = "Result<Applied, Error>")]
pub struct Apply {
    /// The new tab (empty layout, no active pane).
    pub tab: Tab,
    /// Its arrangement.
    pub layout: Layout,
    /// The panes, in leaf order (their specs before the hook setup).
    pub leaves: Vec<ApplyLeaf>,
    /// How the panes number their `pty.data` (the shared seq clock).
    pub pty_out: crate::actors::publish::PtyOut,
    /// The server's configuration (seams, agent rules).
    pub config: std::sync::Arc<crate::config::Config>,
    /// Checkout reservations: each leaf's directory is entered until the
    /// panes are registered.
    pub checkouts: crate::domain::worktrees::Checkouts,
    /// The launch under way, holding the leaves' names.
    pub ticket: LaunchTicket,
}

/// A launch tree started: its tab and each pane with its integration report.
pub type Applied = (Tab, Vec<(PaneState, Option<Integration>)>);

impl Handler<Apply> for Workspace {
    type Result = ResponseFuture<Result<Applied, Error>>;

    fn handle(&mut self, msg: Apply, ctx: &mut Self::Context) -> Self::Result {
        let Apply {
            tab,
            layout,
            mut leaves,
            pty_out,
            config,
            checkouts,
            mut ticket,
        } = msg;
        let me = ctx.address();
        let probes: Vec<_> = leaves
            .iter()
            .map(|l| {
                let config_env = l.pane.agent.config_env.clone().unwrap_or_default();
                (l.spec.clone(), config_env)
            })
            .collect();
        let os = config.os.clone();
        Box::pin(async move {
            let check = actix_rt::task::spawn_blocking(move || -> Result<Prepared, Error> {
                let mut out = Vec::with_capacity(probes.len());
                for (i, (spec, _)) in probes.iter().enumerate() {
                    if !matches!(os.files.kind(&spec.cwd), Ok(FileKind::Dir)) {
                        return Err(Error::BadParams(format!(
                            "leaf {}: cwd {} is not a directory",
                            i + 1,
                            spec.cwd.display()
                        )));
                    }
                }
                for (spec, config_env) in &probes {
                    let entering = checkouts.enter_dir(&spec.cwd)?;
                    let prepared = os
                        .hooks
                        .prepare(&spec.argv, config_env, &spec.cwd, &spec.env);
                    out.push((entering, prepared.exec_argv, prepared.integration));
                }
                Ok(out)
            })
            .await;
            let prepared = match check {
                Ok(r) => r?,
                Err(e) => {
                    return Err(Error::Io {
                        what: "layout cwd check".into(),
                        source: std::io::Error::other(e.to_string()),
                    });
                },
            };
            let mut integrations = Vec::with_capacity(leaves.len());
            for (leaf, (entering, exec_argv, integration)) in leaves.iter_mut().zip(prepared) {
                if let Some(argv) = exec_argv {
                    leaf.spec.argv = argv;
                }
                // Each leaf's directory stays entered until the panes are registered.
                if let Some(entering) = entering {
                    ticket.hold(entering);
                }
                integrations.push(integration);
            }
            let workspace = tab.workspace_id.clone();
            let placed = me
                .send(ApplyLayout {
                    tab,
                    layout,
                    leaves,
                    pty_out,
                    config,
                    ticket,
                })
                .await
                // The workspace's actor stopped meanwhile: it was closed.
                .map_err(|_| Error::NoSuchWorkspace(WorkspaceRef(workspace.0)))??;
            let (tab, placed) = placed;
            let panes = placed
                .into_iter()
                .zip(integrations)
                .map(|((pane, _, _), integration)| (pane, integration))
                .collect();
            Ok((tab, panes))
        })
    }
}

/// What the blocking step found for each leaf: the entering reference of its
/// directory and its agent's hook setup (the argv to execute, the report).
type Prepared = Vec<(
    Option<crate::domain::worktrees::Reservation>,
    Option<Vec<String>>,
    Option<Integration>,
)>;

/// Started processes, with the channel each one's PTY threads wait on.
type Started = Vec<(Box<dyn PtyHandle>, crate::actors::pane::PaneAddr)>;

/// Starts each spec in order; on the first failure kills what was started.
fn start_all(spawner: &dyn Spawner, specs: Vec<SpawnSpec>) -> Result<Started, Error> {
    let mut started: Started = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let (sink, addr_tx) = PaneSink::new();
        match spawner.spawn(spec, Box::new(sink)) {
            Ok(pty) => started.push((pty, addr_tx)),
            Err(e) => {
                for (pty, _) in &started {
                    pty.close(Signal::SIGKILL);
                }
                return Err(Error::SpawnFailed(format!(
                    "leaf {} of the layout: {e}",
                    i + 1
                )));
            },
        }
    }
    Ok(started)
}

impl Handler<ApplyLayout> for Workspace {
    type Result = AtomicResponse<Self, Result<(Tab, Vec<(PaneState, Addr<Pane>, u32)>), Error>>;

    fn handle(&mut self, msg: ApplyLayout, _ctx: &mut Self::Context) -> Self::Result {
        if self.closing {
            let e = self.gone();
            return AtomicResponse::new(Box::pin(actix::fut::ready(Err(e))));
        }
        let ApplyLayout {
            mut tab,
            layout,
            leaves,
            pty_out,
            config,
            ticket,
        } = msg;
        let specs: Vec<SpawnSpec> = leaves.iter().map(|l| l.spec.clone()).collect();
        let spawner = config.os.spawner.clone();
        let launch = actix_rt::task::spawn_blocking(move || start_all(&*spawner, specs));
        AtomicResponse::new(Box::pin(launch.into_actor(self).then(
            move |launched, act, _ctx| {
                let started = match launched {
                    Ok(r) => r,
                    Err(join) => Err(Error::SpawnFailed(format!("launch task failed: {join}"))),
                };
                let result = started.map(|started| {
                    let created_tab = tab.clone();
                    let mut placed = Vec::with_capacity(leaves.len());
                    let mut entries = Vec::with_capacity(leaves.len());
                    let mut senders = Vec::with_capacity(leaves.len());
                    let mut events = vec![Event::TabCreated { tab: created_tab }];
                    for (leaf, (pty, addr_tx)) in leaves.into_iter().zip(started) {
                        let mut pane = leaf.pane;
                        pane.tab_id = tab.id.clone();
                        let pid = pty.pid();
                        let state = pane.clone();
                        let (events_to, out, cfg, slot) = (
                            act.events.clone(),
                            pty_out.clone(),
                            config.clone(),
                            leaf.tail,
                        );
                        let tail = slot.clone();
                        let addr = Pane::start_in_arbiter(&leaf.arbiter, move |_| {
                            Pane::new(state, pty, events_to, out, &cfg).with_tail_slot(&slot)
                        });
                        entries.push((
                            PaneEntry {
                                id: pane.id.clone(),
                                addr: addr.clone(),
                                workspace: act.state.id.clone(),
                                tab: tab.id.clone(),
                                pid,
                                tail,
                            },
                            pane.name.clone(),
                        ));
                        act.panes.insert(pane.id.clone(), addr.clone());
                        events.push(Event::PaneCreated {
                            pane: pane.clone(),
                            resumed: None,
                        });
                        senders.push((addr_tx, addr.clone()));
                        placed.push((pane, addr, pid));
                    }
                    tab.active_pane_id = placed.first().map(|(p, _, _)| p.id.clone());
                    tab.layout = Some(layout);
                    act.state.tabs.push(tab.id.clone());
                    act.state.active_tab_id = Some(tab.id.clone());
                    act.tabs.push(tab.clone());
                    events.push(Event::TabUpdated { tab: tab.clone() });
                    (events, tab, placed, entries, senders)
                });
                let sender = act.events.clone();
                // Published inside the atomic section, as a spawn is: nothing
                // else reaches the workspace until the panes are public.
                async move {
                    let (events, tab, placed, entries, senders) = result?;
                    sender.send(Publish::new(events)).await??;
                    // Public: the panes, their tab and names are registered.
                    ticket.launched(entries);
                    // The sinks hold output and the exit until their pane's
                    // address comes, so no `pane.exited` precedes its
                    // `pane.created`.
                    for (tx, addr) in senders {
                        tx.send(addr);
                    }
                    Ok((tab, placed))
                }
                .into_actor(act)
            },
        )))
    }
}
