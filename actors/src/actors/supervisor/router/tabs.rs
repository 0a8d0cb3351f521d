//! Routing of `tab.*` (spec/ipc.md §8.4): resolve ids in the Supervisor's
//! registry, then ask the owning Workspace actor.

use super::Reply;
use super::{Cx, OnHost, Routed, fail, validate_name};
use crate::actors::workspace::{CloseTab, CreateTab, SetLayout, SetRatio, Workspace};
use crate::error::Error;
use crate::ids::random_u128;
use actix::prelude::*;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::tab::{
    TabCloseParams, TabCreateParams, TabResult, TabSetLayoutParams, TabSetRatioParams,
};
use signaltty_protocol::workspace::{ClosedResult, Layout, Tab};
use signaltty_protocol::{PaneRef, TabId, Timestamp};

/// `tab.create`: a new empty tab at the end of the workspace, made active.
pub fn create(cx: &mut Cx<'_>, p: TabCreateParams) -> Routed {
    let title = match p.title.as_deref().map(validate_name).transpose() {
        Ok(t) => t.unwrap_or_else(|| "tab".to_owned()),
        Err(e) => return fail(Err(e)),
    };
    let (workspace_id, addr) = match cx.registry.workspace(&p.workspace_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let tab = registered_tab(cx, workspace_id, title);
    let tab_id = tab.id.clone();
    Box::pin(
        addr.send(CreateTab { tab })
            .on_host()
            .map(move |r, act, _| {
                let result = r.map_err(Error::from).and_then(|inner| inner);
                if result.is_err() {
                    act.cx().registry.remove_tab(&tab_id);
                }
                Reply::of(result.map(|tab| TabResult { tab }))
            }),
    )
}

/// `tab.close`: closes the tab's panes, then the tab.
/// A new empty tab of `workspace_id`, registered (not yet in its workspace).
pub(super) fn registered_tab(
    cx: &mut Cx<'_>,
    workspace_id: signaltty_protocol::WorkspaceId,
    title: String,
) -> Tab {
    let tab = Tab {
        id: TabId::from_random(random_u128()),
        workspace_id: workspace_id.clone(),
        title,
        layout: None,
        active_pane_id: None,
        created_at: Timestamp::now(),
    };
    cx.registry.add_tab(tab.id.clone(), workspace_id);
    tab
}

pub fn close(cx: &mut Cx<'_>, p: TabCloseParams) -> Routed {
    let addr = match cx.registry.tab(&p.tab_id) {
        Ok(addr) => addr,
        Err(e) => return fail(Err(e)),
    };
    let tab_id = p.tab_id;
    let signal = p.signal.unwrap_or(SignalName::Term);
    Box::pin(
        addr.send(CloseTab {
            tab_id: tab_id.clone(),
            signal,
        })
        .on_host()
        .map(move |r, act, _| {
            let result = r.map_err(Error::from).and_then(|inner| inner);
            if result.is_ok() {
                act.cx().registry.remove_tab(&tab_id);
            }
            Reply::of(result.map(|()| ClosedResult { closed: true }))
        }),
    )
}

/// `tab.set_layout`: leaves may name panes; they are resolved to ids first.
pub fn set_layout(cx: &mut Cx<'_>, p: TabSetLayoutParams) -> Routed {
    let addr = match cx.registry.tab(&p.tab_id) {
        Ok(addr) => addr,
        Err(e) => return fail(Err(e)),
    };
    let layout = match resolve_leaves(cx, p.layout) {
        Ok(l) => l,
        Err(e) => return fail(Err(e)),
    };
    ask(
        addr,
        SetLayout {
            tab_id: p.tab_id,
            layout,
        },
    )
}

/// `tab.set_ratio`: one divider, by path.
pub fn set_ratio(cx: &mut Cx<'_>, p: TabSetRatioParams) -> Routed {
    let addr = match cx.registry.tab(&p.tab_id) {
        Ok(addr) => addr,
        Err(e) => return fail(Err(e)),
    };
    ask(
        addr,
        SetRatio {
            tab_id: p.tab_id,
            path: p.path,
            ratio: p.ratio,
        },
    )
}

fn ask<M>(addr: Addr<Workspace>, msg: M) -> Routed
where
    M: Message<Result = Result<Tab, Error>> + Send + 'static,
    Workspace: Handler<M>,
{
    Box::pin(addr.send(msg).on_host().map(|r, _, _| {
        Reply::of(
            r.map_err(Error::from)
                .and_then(|inner| inner)
                .map(|tab| TabResult { tab }),
        )
    }))
}

/// Replaces every leaf's pane reference (id or name) by the pane's id. A
/// layout from a client names its leaves as references: they are parsed into
/// the `PaneId` field of the shared layout type, so they are read back here
/// as what they are.
fn resolve_leaves(cx: &Cx<'_>, layout: Layout) -> Result<Layout, Error> {
    Ok(match layout {
        Layout::Pane { pane_id } => Layout::Pane {
            pane_id: cx.registry.resolve(&PaneRef(pane_id.0))?,
        },
        Layout::Split {
            dir,
            ratio,
            first,
            second,
        } => Layout::Split {
            dir,
            ratio,
            first: Box::new(resolve_leaves(cx, *first)?),
            second: Box::new(resolve_leaves(cx, *second)?),
        },
    })
}
