//! Routing of `tab.*` (docs/methods.md#tabs-and-layouts): resolve ids in the
//! Supervisor's registry, then ask the owning Workspace actor.

use super::{Cx, Routed, answer, ask, fail, validate_name};
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

/// `tab.create`: a new empty tab at the end of the workspace, made active;
/// the workspace's actor registers it.
pub fn create(cx: &mut Cx<'_>, p: TabCreateParams) -> Routed {
    let title = match p.title.as_deref().map(validate_name).transpose() {
        Ok(t) => t.unwrap_or_else(|| "tab".to_owned()),
        Err(e) => return fail(Err(e)),
    };
    let (workspace_id, addr) = match cx.registry.workspace(&p.workspace_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let created = ask(
        addr,
        CreateTab {
            tab: new_tab(workspace_id, title),
        },
    );
    answer(async move { created.await.map(|tab| TabResult { tab }) })
}

/// A new empty tab of `workspace_id` (not yet in its workspace).
pub(super) fn new_tab(workspace_id: signaltty_protocol::WorkspaceId, title: String) -> Tab {
    Tab {
        id: TabId::from_random(random_u128()),
        workspace_id,
        title,
        layout: None,
        active_pane_id: None,
        created_at: Timestamp::now(),
    }
}

/// `tab.close`: closes the tab's panes, then the tab; the workspace's actor
/// forgets them in the registry.
pub fn close(cx: &mut Cx<'_>, p: TabCloseParams) -> Routed {
    let (tab_id, addr) = match cx.registry.tab(&p.tab_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let signal = p.signal.unwrap_or(SignalName::Term);
    let closed = ask(addr, CloseTab { tab_id, signal });
    answer(async move { closed.await.map(|()| ClosedResult { closed: true }) })
}

/// `tab.set_layout`: leaves may name panes; they are resolved to ids first.
pub fn set_layout(cx: &mut Cx<'_>, p: TabSetLayoutParams) -> Routed {
    let (tab_id, addr) = match cx.registry.tab(&p.tab_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    let layout = match resolve_leaves(cx, p.layout) {
        Ok(l) => l,
        Err(e) => return fail(Err(e)),
    };
    ask_tab(addr, SetLayout { tab_id, layout })
}

/// `tab.set_ratio`: one divider, by path.
pub fn set_ratio(cx: &mut Cx<'_>, p: TabSetRatioParams) -> Routed {
    let (tab_id, addr) = match cx.registry.tab(&p.tab_id) {
        Ok(found) => found,
        Err(e) => return fail(Err(e)),
    };
    ask_tab(
        addr,
        SetRatio {
            tab_id,
            path: p.path,
            ratio: p.ratio,
        },
    )
}

/// A change to one tab, asked of its workspace's actor.
fn ask_tab<M>(addr: Addr<Workspace>, msg: M) -> Routed
where
    M: Message<Result = Result<Tab, Error>> + Send + 'static,
    Workspace: Handler<M>,
{
    let changed = ask(addr, msg);
    answer(async move { changed.await.map(|tab| TabResult { tab }) })
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
