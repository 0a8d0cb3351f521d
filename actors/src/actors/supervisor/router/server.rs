//! Routing of `server.*` and `agents.*`: the status and the restore report
//! read from the Supervisor's own state, the shutdown (which publishes the
//! Supervisor's own `server.will_shutdown`), and the agent manifests.

use super::{Cx, Routed, answer, fail};
use crate::actors::services::{RulesReplaced, Shutdown};
use crate::error::Error;
use actix::prelude::*;
use signaltty_protocol::PROTOCOL;
use signaltty_protocol::server::{ServerShutdownParams, ServerShutdownResult, ServerStatusResult};

pub(super) fn status(cx: &Cx<'_>) -> ServerStatusResult {
    ServerStatusResult {
        version: cx.config.version.clone(),
        protocol: PROTOCOL.to_owned(),
        uptime_s: cx.started.elapsed().as_secs(),
        workspaces: cx.events.projection().workspace_count(),
        tabs: cx.events.projection().tab_count(),
        panes: cx.events.projection().pane_count(),
        live_panes: cx.events.projection().live_pane_count(),
        seq: cx.events.head().0,
        restore: Some(restore_status(cx)),
        config_file: cx
            .config
            .settings
            .file
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        config_problems: cx.config.settings.problems.clone(),
        pid: Some(std::process::id()),
        socket_activated: Some(crate::os::activation::socket_activated()),
        upgrades: None,
        last_upgrade: None,
        storage: Some(cx.events.health().status()),
        pane_capacity: Some(pane_capacity()),
    }
}

/// How many live panes the open-file limit allows now
/// (docs/panes.md#how-many-panes).
pub(super) fn pane_capacity() -> signaltty_protocol::server::PaneCapacity {
    use crate::os::limits;
    let open_file_limit = limits::nofile().map_or(0, |(soft, _)| soft);
    signaltty_protocol::server::PaneCapacity {
        max_live_panes: limits::pane_capacity(open_file_limit),
        open_file_limit,
        fds_per_pane: limits::FDS_PER_PANE,
        reserved_fds: limits::RESERVED_FDS,
    }
}

/// The restore report with the panes still waiting for a resume, counted now.
fn restore_status(cx: &Cx<'_>) -> signaltty_protocol::server::RestoreStatus {
    use signaltty_protocol::pane::RestoreState;
    let count = |state: RestoreState| cx.events.projection().count_restore_state(state);
    let report = cx.restore;
    let problem = [
        report
            .moved_aside
            .as_ref()
            .map(|(why, to)| format!("{why}: moved to {}", to.display())),
        report.unproven.clone(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>();
    signaltty_protocol::server::RestoreStatus {
        restored: count(RestoreState::Restored),
        resumable: count(RestoreState::Resumable),
        snapshot_seq: report.snapshot_seq.map(|s| s.0),
        journal_events: report.journal_events,
        problem: (!problem.is_empty()).then(|| problem.join("; ")),
        set_aside: report
            .set_aside
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    }
}

pub(super) fn shutdown(cx: &mut Cx<'_>, p: ServerShutdownParams) -> Routed {
    let live = status(cx).live_panes;
    if live > 0 && !p.force.unwrap_or(false) {
        return fail(Err(Error::PanesAlive { live }));
    }
    let Some(me) = cx.me.clone() else {
        return fail(Err(Error::Internal("the Supervisor is not running".into())));
    };
    answer(async move {
        me.send(Shutdown).await??;
        Ok(ServerShutdownResult { stopped: true })
    })
}

/// The `agents.list` / `agents.reload` answer for `set`.
pub(super) fn agents_result(
    set: &signaltty_model::agents::AgentSet,
) -> signaltty_protocol::state::AgentsResult {
    use signaltty_protocol::state::{AgentsResult, ManifestFailure, ManifestInfo};
    AgentsResult {
        dir: set.dir.as_ref().map(|d| d.to_string_lossy().into_owned()),
        manifests: set
            .bundled
            .iter()
            .chain(&set.user)
            .map(|m| ManifestInfo {
                file: m.file.clone(),
                kind: m.kind,
                screen_rules: m.screen.len(),
                bundled: m.bundled,
                binaries: m.binaries.clone(),
                display_name: m.display_name.clone(),
            })
            .collect(),
        failures: set
            .failures
            .iter()
            .map(|f| ManifestFailure {
                file: f.file.clone(),
                error: f.error.clone(),
            })
            .collect(),
    }
}

/// `agents.reload`: reads the directory on a blocking thread, then swaps the
/// whole set; a directory that cannot be listed keeps the active one.
pub(super) fn agents_reload(cx: &mut Cx<'_>) -> Routed {
    let dir = cx.config.agents_dir.clone();
    let load = actix_rt::task::spawn_blocking(move || {
        signaltty_model::agents::AgentSet::load(dir.as_deref())
    });
    let rules = cx.config.agents.clone();
    let panes = cx.me.clone().map(Addr::recipient::<RulesReplaced>);
    answer(async move {
        match load.await {
            Ok(Ok(set)) => {
                let result = agents_result(&set);
                rules.replace(set);
                if let Some(panes) = panes {
                    panes.do_send(RulesReplaced);
                }
                Ok(result)
            },
            Ok(Err(e)) => Err(Error::Io {
                what: "reloading agent manifests".into(),
                source: std::io::Error::other(e),
            }),
            Err(e) => Err(Error::Io {
                what: "reloading agent manifests".into(),
                source: std::io::Error::other(e.to_string()),
            }),
        }
    })
}
