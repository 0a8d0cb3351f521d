//! What the server reads from `/proc` about processes (spec/pty-terminal.md
//! §10, §11). Blocking file reads: callers run them off the actors' threads.

use crate::pty::reap::parse_stat;
use signaltty_protocol::PaneId;
use std::collections::HashMap;

/// The most parent links followed from a hook's process to its pane.
pub const MAX_ANCESTRY: usize = 64;

/// The parent of `pid`, if it exists and has one.
pub fn parent(pid: u32) -> Option<u32> {
    let line = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ppid = parse_stat(&line)?.ppid;
    u32::try_from(ppid).ok().filter(|&p| p > 0)
}

/// Hook attribution by ancestry (spec/pty-terminal.md §11): walks `/proc`
/// parents from `pid` to the nearest process that a live pane started.
/// `panes` maps those processes' pids to their panes.
pub fn pane_of_process(pid: u32, panes: &HashMap<u32, PaneId>) -> Option<PaneId> {
    let mut current = pid;
    for _ in 0..MAX_ANCESTRY {
        if let Some(pane) = panes.get(&current) {
            return Some(pane.clone());
        }
        current = parent(current)?;
        if current <= 1 {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_finds_the_nearest_registered_ancestor() {
        let me = std::process::id();
        let parent_pid = parent(me).expect("the test runner has a parent");
        let mut panes = HashMap::new();
        panes.insert(parent_pid, PaneId("pane_parent".into()));
        assert_eq!(
            pane_of_process(me, &panes),
            Some(PaneId("pane_parent".into()))
        );
        panes.insert(me, PaneId("pane_self".into()));
        assert_eq!(
            pane_of_process(me, &panes),
            Some(PaneId("pane_self".into()))
        );
        assert_eq!(pane_of_process(me, &HashMap::new()), None);
        assert_eq!(parent(u32::MAX), None);
    }
}
