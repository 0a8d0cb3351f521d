//! Routing of `tab.*` (spec/ipc.md §8.4): resolve ids in the Supervisor's
//! registry, then ask the owning Workspace actor.

use super::{Routed, ready, validate_name};
use crate::error::Error;
use crate::ids::random_u128;
use crate::supervisor::{Reply, Supervisor};
use crate::workspace::{CloseTab, CreateTab, SetLayout, SetRatio, Workspace};
use actix::prelude::*;
use signaltty_protocol::signal::SignalName;
use signaltty_protocol::tab::{
    TabCloseParams, TabCreateParams, TabResult, TabSetLayoutParams, TabSetRatioParams,
};
use signaltty_protocol::workspace::{ClosedResult, Layout, Tab};
use signaltty_protocol::{TabId, Timestamp};

/// `tab.create`: a new empty tab at the end of the workspace, made active.
pub fn create(sup: &mut Supervisor, p: TabCreateParams) -> Routed {
    let title = match p.title.as_deref().map(validate_name).transpose() {
        Ok(t) => t.unwrap_or_else(|| "tab".to_owned()),
        Err(e) => return ready::<TabResult>(Err(e)),
    };
    let (workspace_id, addr) = match sup.resolve_workspace(&p.workspace_id) {
        Ok(found) => found,
        Err(e) => return ready::<TabResult>(Err(e)),
    };
    let tab = Tab {
        id: TabId::from_random(random_u128()),
        workspace_id: workspace_id.clone(),
        title,
        layout: None,
        active_pane_id: None,
        created_at: Timestamp::now(),
    };
    let tab_id = tab.id.clone();
    sup.tabs.insert(tab_id.clone(), workspace_id);
    Box::pin(
        addr.send(CreateTab { tab })
            .into_actor(sup)
            .map(move |r, act, _| {
                let result = r.map_err(Error::from).and_then(|inner| inner);
                if result.is_err() {
                    act.tabs.remove(&tab_id);
                }
                Reply::of(result.map(|tab| TabResult { tab }))
            }),
    )
}

/// `tab.close`: closes the tab's panes, then the tab.
pub fn close(sup: &mut Supervisor, p: TabCloseParams) -> Routed {
    let addr = match sup.resolve_tab(&p.tab_id) {
        Ok(addr) => addr,
        Err(e) => return ready::<ClosedResult>(Err(e)),
    };
    let tab_id = p.tab_id;
    let signal = p.signal.unwrap_or(SignalName::Term);
    Box::pin(
        addr.send(CloseTab {
            tab_id: tab_id.clone(),
            signal,
        })
        .into_actor(sup)
        .map(move |r, act, _| {
            let result = r.map_err(Error::from).and_then(|inner| inner);
            if result.is_ok() {
                act.tabs.remove(&tab_id);
                act.panes.retain(|_, entry| entry.tab != tab_id);
                act.forget_closed_names();
            }
            Reply::of(result.map(|()| ClosedResult { closed: true }))
        }),
    )
}

/// `tab.set_layout`: leaves may name panes; they are resolved to ids first.
pub fn set_layout(sup: &mut Supervisor, p: TabSetLayoutParams) -> Routed {
    let addr = match sup.resolve_tab(&p.tab_id) {
        Ok(addr) => addr,
        Err(e) => return ready::<TabResult>(Err(e)),
    };
    let layout = match resolve_leaves(sup, p.layout) {
        Ok(l) => l,
        Err(e) => return ready::<TabResult>(Err(e)),
    };
    ask(
        sup,
        addr,
        SetLayout {
            tab_id: p.tab_id,
            layout,
        },
    )
}

/// `tab.set_ratio`: one divider, by path.
pub fn set_ratio(sup: &mut Supervisor, p: TabSetRatioParams) -> Routed {
    let addr = match sup.resolve_tab(&p.tab_id) {
        Ok(addr) => addr,
        Err(e) => return ready::<TabResult>(Err(e)),
    };
    ask(
        sup,
        addr,
        SetRatio {
            tab_id: p.tab_id,
            path: p.path,
            ratio: p.ratio,
        },
    )
}

fn ask<M>(sup: &mut Supervisor, addr: Addr<Workspace>, msg: M) -> Routed
where
    M: Message<Result = Result<Tab, Error>> + Send + 'static,
    Workspace: Handler<M>,
{
    Box::pin(addr.send(msg).into_actor(sup).map(|r, _, _| {
        Reply::of(
            r.map_err(Error::from)
                .and_then(|inner| inner)
                .map(|tab| TabResult { tab }),
        )
    }))
}

/// Replaces every leaf's pane reference (id or name) by the pane's id.
fn resolve_leaves(sup: &Supervisor, layout: Layout) -> Result<Layout, Error> {
    Ok(match layout {
        Layout::Pane { pane_id } => Layout::Pane {
            pane_id: sup.resolve_pane_ref(&pane_id)?,
        },
        Layout::Split {
            dir,
            ratio,
            first,
            second,
        } => Layout::Split {
            dir,
            ratio,
            first: Box::new(resolve_leaves(sup, *first)?),
            second: Box::new(resolve_leaves(sup, *second)?),
        },
    })
}
