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
    let mut client = connect(global)?;
    let (made, value) = crate::cli::launch(&mut client, workspace, name, tab, cwd, env, argv)?;
    if global.json {
        say!("{value}");
    } else {
        if let crate::cli::Made::Workspace(handle, id) = &made {
            say!("workspace {handle}  ({id})");
        }
        print_launched(&typed::<PaneLaunchResult>(value)?);
    }
    Ok(0)
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
