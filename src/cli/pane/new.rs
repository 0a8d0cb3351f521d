//! `signaltty new`: a workspace (or a tab in one) made for the pane, the
//! pane spawned in it, and what was made closed again when the spawn fails,
//! so a failed `new` leaves nothing behind.

use super::*;

/// `signaltty new [--workspace W] [--name N] [--cwd DIR] [--tab T] [--env K=V…] [-- ARGV…]`.
pub fn new(
    global: &Global,
    workspace: Option<String>,
    name: Option<String>,
    tab: Option<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    argv: Vec<String>,
) -> i32 {
    match run_new(global, workspace, name, tab, cwd, env, argv) {
        Ok(code) | Err(code) => code,
    }
}

fn run_new(
    global: &Global,
    workspace: Option<String>,
    name: Option<String>,
    tab: Option<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    argv: Vec<String>,
) -> Result<i32, i32> {
    let cwd = absolute_cwd(cwd)?;
    let mut client = connect(global)?;
    // A new workspace gets its first tab from the spawn; an existing one gets a new
    // tab, since a spawn needs an empty one. Whichever this made is closed
    // again when the spawn fails: a failed `new` leaves nothing behind.
    let (workspace, made) = match workspace {
        Some(w) => {
            let created: TabResult = fetch(
                &mut client,
                Method::TabCreate(TabCreateParams {
                    workspace_id: WorkspaceRef(w.clone()),
                    title: tab,
                }),
            )?;
            (WorkspaceRef(w), Made::Tab(created.tab.id))
        },
        None => {
            let created: WorkspaceResult = fetch(
                &mut client,
                Method::WorkspaceCreate(WorkspaceCreateParams {
                    name,
                    cwd: cwd.clone(),
                }),
            )?;
            let ws = created.workspace;
            (
                WorkspaceRef(ws.id.0.clone()),
                Made::Workspace(ws.handle, ws.id),
            )
        },
    };
    let argv = if argv.is_empty() {
        vec![user_shell()]
    } else {
        argv
    };
    let params = PaneSpawnParams {
        tab_id: match &made {
            Made::Tab(id) => Some(id.clone()),
            Made::Workspace(..) => None,
        },
        cwd,
        env: env_param(env),
        ..PaneSpawnParams::new(workspace, argv)
    };
    let value = match client.call(Method::PaneSpawn(params)) {
        Ok(value) => value,
        Err(e) => {
            let code = fail_call(e);
            // Best effort: the spawn's error is the one to report.
            let _ = client.call(match made {
                Made::Tab(tab_id) => Method::TabClose(TabCloseParams {
                    tab_id,
                    signal: None,
                }),
                Made::Workspace(_, id) => Method::WorkspaceClose(WorkspaceCloseParams {
                    workspace_id: WorkspaceRef(id.0),
                    signal: None,
                }),
            });
            return Err(code);
        },
    };
    if global.json {
        say!("{value}");
    } else {
        if let Made::Workspace(handle, id) = &made {
            say!("workspace {handle}  ({id})");
        }
        print_launched(&typed::<PaneLaunchResult>(value)?);
    }
    Ok(0)
}

/// What `new` made before its spawn.
enum Made {
    /// A tab in the workspace it was given.
    Tab(TabId),
    /// A workspace of its own: its handle and id.
    Workspace(String, WorkspaceId),
}

/// A launched pane, and what its agent's hook setup says.
pub(super) fn print_launched(r: &PaneLaunchResult) {
    print_pane(&r.pane);
    if let Some(i) = &r.integration {
        say!("  hooks: {} {}", i.agent, i.status);
        if let Some(n) = &i.notice {
            eprintln!("signaltty: {n}");
        }
    }
}
