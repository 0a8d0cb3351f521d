//! Tests of finding the panes and processes inside a checkout, and not beside
//! it.

use super::*;
use std::time::{Duration, Instant};

#[test]
fn occupants_are_panes_and_processes_inside_not_beside_the_checkout() {
    let t = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(t.path()).unwrap();
    let wt = root.join("proj");
    let other = root.join("proj-other");
    std::fs::create_dir_all(wt.join("src")).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::os::unix::fs::symlink(&wt, root.join("alias")).unwrap();
    let me = std::process::id();
    let pane = |id: &str, cwd: &Path| LivePane {
        id: PaneId(id.into()),
        pid: me,
        cwd: cwd.to_string_lossy().into_owned(),
    };
    let panes = vec![
        pane("p_inside", &wt.join("src")),
        pane("p_sibling", &other),
        pane("p_symlink", &root.join("alias")),
    ];
    let found: Vec<String> = inside(&wt, &panes, None, Depth::PaneCwd)
        .into_iter()
        .map(|o| o.pane.0)
        .collect();
    assert_eq!(found, ["p_inside", "p_symlink"]);
    let excluded = inside(
        &wt,
        &panes,
        Some(&PaneId("p_inside".into())),
        Depth::PaneCwd,
    );
    assert_eq!(excluded.len(), 1);

    // A child process of a pane's process, working inside the checkout.
    let mut shell = std::process::Command::new("sh")
        .args(["-c", "cd \"$1\" && sleep 30", "sh"])
        .arg(wt.join("src"))
        .current_dir(&other)
        .spawn()
        .unwrap();
    let parent = LivePane {
        id: PaneId("p_parent".into()),
        pid: me,
        cwd: other.to_string_lossy().into_owned(),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let found = loop {
        let found = inside(&wt, std::slice::from_ref(&parent), None, Depth::Processes);
        if !found.is_empty() || Instant::now() > deadline {
            break found;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(found.len(), 1, "the descendant's /proc cwd is inside");
    assert!(found[0].pid.is_some());
    assert!(inside(&wt, std::slice::from_ref(&parent), None, Depth::PaneCwd).is_empty());
    let _ = shell.kill();
    let _ = shell.wait();
}
