//! Routing of `layout.export` and `layout.apply` (docs/methods.md#layoutexport,
//! docs/methods.md#layoutapply). Export reads the projection. Apply checks the
//! whole launch tree (`launch_tree::plan`), holds its names in the registry,
//! checks the directories (and prepares agents' hooks) on a blocking thread,
//! then asks the Workspace actor to start every pane into a new tab, all or
//! nothing (`workspace::ApplyLayout`).

use super::{Cx, Routed, answer, fail, validate_name};
use crate::actors::directory::LaunchTicket;
use crate::actors::workspace::{Apply, ApplyLeaf};
use crate::domain::launch::{self, PaneRecipe};
use crate::domain::launch_tree::{self, Defaults, PlannedLeaf};
use crate::domain::projection::Projection;
use crate::error::Error;
use crate::ids::random_u128;

use signaltty_protocol::layout::{
    LaunchLeaf, LaunchNode, LayoutApplyParams, LayoutApplyResult, LayoutExportParams,
    LayoutExportResult,
};
use signaltty_protocol::pane::{PaneLaunchResult, PtySize};
use signaltty_protocol::workspace::Layout;
use signaltty_protocol::{PaneId, Timestamp};

/// `layout.export`: the tab's layout with every leaf described as a launch.
pub fn export(cx: &Cx<'_>, p: &LayoutExportParams) -> Result<LayoutExportResult, Error> {
    let projection = cx.events.projection();
    let tab = projection
        .tab(&p.tab_id)
        .ok_or_else(|| Error::NoSuchTab(p.tab_id.clone()))?;
    Ok(LayoutExportResult {
        workspace_id: tab.workspace_id.clone(),
        tab_id: tab.id.clone(),
        title: tab.title.clone(),
        root: tab.layout.as_ref().map(|l| describe(projection, l)),
    })
}

fn describe(projection: &Projection, layout: &Layout) -> LaunchNode {
    match layout {
        Layout::Pane { pane_id } => {
            let pane = projection.pane(pane_id);
            LaunchNode::Pane(LaunchLeaf {
                pane_id: Some(pane_id.clone()),
                argv: pane.map(|p| p.argv.clone()),
                cwd: pane.map(|p| p.cwd.clone()),
                name: pane.and_then(|p| p.name.clone()),
                env: None,
            })
        },
        Layout::Split {
            dir,
            ratio,
            first,
            second,
        } => LaunchNode::Split {
            dir: *dir,
            ratio: *ratio,
            first: Box::new(describe(projection, first)),
            second: Box::new(describe(projection, second)),
        },
    }
}

/// `layout.apply`.
pub fn apply(cx: &mut Cx<'_>, p: LayoutApplyParams) -> Routed {
    let planned = match plan(cx, p) {
        Ok(planned) => planned,
        Err(e) => return fail(Err(e)),
    };
    let Planned {
        workspace_ref,
        title,
        layout,
        leaves,
        names,
    } = planned;
    if let Err(e) = super::spawns::room_for(cx, leaves.len()) {
        return fail(Err(e));
    }
    // The panes and their processes' spawns, built before any check that
    // touches the filesystem; nothing is started yet.
    let workspace_id = match cx.registry.workspace(&workspace_ref) {
        Ok((id, _)) => id,
        Err(e) => return fail(Err(e)),
    };
    let server_env: Vec<(String, String)> = std::env::vars().collect();
    let built: Vec<_> = leaves
        .into_iter()
        .map(|leaf| {
            let PlannedLeaf {
                id,
                argv,
                cwd,
                name,
                env,
            } = leaf;
            let (mut pane, spec) = launch::build_pane(PaneRecipe {
                id,
                workspace: workspace_id.clone(),
                kind: launch::detect_kind(&argv),
                argv,
                cwd,
                size: PtySize::DEFAULT,
                request_env: env,
                parent: None,
                relationship: None,
                label: None,
                task_id: None,
                server_env: server_env.clone(),
                socket: &cx.config.socket,
                now: Timestamp::now(),
            });
            pane.name = name;
            (pane, spec)
        })
        .collect();
    if cx.shutting_down {
        cx.registry.release_names(&names);
        return fail(Err(Error::ShuttingDown));
    }
    let (Some(me), Ok((workspace_id, addr))) =
        (cx.me.clone(), cx.registry.workspace(&workspace_ref))
    else {
        cx.registry.release_names(&names);
        return fail(Err(Error::NoSuchWorkspace(workspace_ref)));
    };
    let tab = super::tabs::new_tab(workspace_id, title);
    let leaves = built
        .into_iter()
        .map(|(pane, spec)| ApplyLeaf {
            pane,
            spec,
            arbiter: cx.arbiters.next_arbiter(),
            tail: signaltty_model::term::TailSlot::default(),
        })
        .collect();
    // Counted from now: a hook of a new process may arrive before it is
    // placed. The Workspace ends the launch, and the names held for the
    // leaves become theirs, when it registers the panes.
    cx.launches.begin();
    let sent = addr.send(Apply {
        tab,
        layout,
        leaves,
        pty_out: cx.events.pty_out(),
        config: cx.config.clone(),
        checkouts: cx.checkouts.clone(),
        ticket: LaunchTicket::new(me.recipient(), names),
    });
    // A workspace whose actor stopped meanwhile was closed: it is gone.
    let gone = Error::NoSuchWorkspace(workspace_ref);
    answer(async move {
        let (tab, panes) = sent.await.map_err(|_| gone)??;
        Ok(LayoutApplyResult {
            tab,
            panes: panes
                .into_iter()
                .map(|(pane, integration)| PaneLaunchResult { pane, integration })
                .collect(),
        })
    })
}

/// An apply whose tree and names passed every check that needs no
/// filesystem; its names are held in the registry until the panes hold them.
struct Planned {
    workspace_ref: signaltty_protocol::WorkspaceRef,
    title: String,
    layout: Layout,
    leaves: Vec<PlannedLeaf>,
    names: Vec<String>,
}

fn plan(cx: &mut Cx<'_>, p: LayoutApplyParams) -> Result<Planned, Error> {
    let (workspace_id, _) = cx.registry.workspace(&p.workspace_id)?;
    let workspace = cx
        .events
        .projection()
        .workspace(&workspace_id)
        .ok_or_else(|| Error::NoSuchWorkspace(p.workspace_id.clone()))?;
    let title = match p.title.as_deref().map(validate_name).transpose()? {
        Some(t) => t,
        None => "tab".to_owned(),
    };
    let shell = super::spawns::user_shell();
    let defaults = Defaults {
        cwd: &workspace.cwd,
        shell: &shell,
        drop_names: p.drop_names.unwrap_or(false),
    };
    let mut new_id = || PaneId::from_random(random_u128());
    let (layout, leaves) =
        launch_tree::plan(p.root, &defaults, &mut new_id).map_err(Error::BadParams)?;
    let names: Vec<String> = leaves.iter().filter_map(|l| l.name.clone()).collect();
    cx.registry.reserve_names(&names)?;
    Ok(Planned {
        workspace_ref: p.workspace_id,
        title,
        layout,
        leaves,
        names,
    })
}
