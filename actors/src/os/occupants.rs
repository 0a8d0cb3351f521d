//! Panes still living inside a checkout (docs/tasks.md#checks-before-finishing,
//! docs/worktrees.md#removing-a-checkout): a live pane whose canonical cwd is
//! the checkout or inside it (a symlink to the checkout counts, a sibling
//! `…/proj-other` does not), and, for `worktree.remove`, any process descending
//! from a live pane's child whose `/proc` cwd is inside. Blocking
//! (canonicalisation, `/proc`): run it on a blocking thread.

use crate::domain::worktrees::is_within;
use crate::os::procfs::ProcessTable;
use signaltty_protocol::PaneId;
use std::path::Path;

/// A live pane as the check needs it: its id, its child's pid and its cwd.
#[derive(Debug, Clone)]
pub struct LivePane {
    /// The pane.
    pub id: PaneId,
    /// The pid of the process it started.
    pub pid: u32,
    /// Its cwd as recorded (launch directory, or as the process refresh saw it).
    pub cwd: String,
}

/// How far the check looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Only each pane's recorded cwd (`task.finish`).
    PaneCwd,
    /// Also the `/proc` cwd of the pane's child and every process below it
    /// (`worktree.remove`).
    Processes,
}

/// Why a pane counts as inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occupant {
    /// The pane.
    pub pane: PaneId,
    /// The process found inside (`None`: the pane's own cwd is inside).
    pub pid: Option<u32>,
}

impl std::fmt::Display for Occupant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pid {
            None => write!(f, "pane {} runs there", self.pane),
            Some(pid) => write!(f, "process {pid} of pane {} works there", self.pane),
        }
    }
}

/// The panes of `panes` (all live) found inside `checkout` (canonical), except
/// `exclude` (a task's own worker), one entry per pane, in the given order.
pub fn inside(
    checkout: &Path,
    panes: &[LivePane],
    exclude: Option<&PaneId>,
    depth: Depth,
) -> Vec<Occupant> {
    let table = match depth {
        Depth::Processes => Some(ProcessTable::scan()),
        Depth::PaneCwd => None,
    };
    let mut found = Vec::new();
    for pane in panes.iter().filter(|p| Some(&p.id) != exclude) {
        if cwd_inside(Path::new(&pane.cwd), checkout) {
            found.push(Occupant {
                pane: pane.id.clone(),
                pid: None,
            });
            continue;
        }
        let Some(table) = &table else { continue };
        let mut pids = vec![pane.pid];
        pids.extend(table.descendants(pane.pid));
        if let Some(pid) = pids.into_iter().find(|pid| proc_cwd_inside(*pid, checkout)) {
            found.push(Occupant {
                pane: pane.id.clone(),
                pid: Some(pid),
            });
        }
    }
    found
}

/// Is `cwd`, resolved through symlinks, inside `checkout`?
fn cwd_inside(cwd: &Path, checkout: &Path) -> bool {
    std::fs::canonicalize(cwd).is_ok_and(|c| is_within(&c, checkout))
}

/// Is the working directory of process `pid` inside `checkout`? The kernel's
/// link is already resolved; a process gone meanwhile is not inside.
fn proc_cwd_inside(pid: u32, checkout: &Path) -> bool {
    std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|c| is_within(&c, checkout))
}

#[cfg(test)]
mod tests;
