//! Tests of what is read from `/proc`: the process table, the agent hint,
//! runtime names and the nearest registered ancestor.

use super::*;

#[test]
fn the_table_descends_through_shells_to_the_newest_child() {
    let mut child = std::process::Command::new("sh")
        .args(["-c", "sleep 30 & sleep 31; :"])
        .spawn()
        .expect("sh");
    let pid = child.id();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    // Both children are forked, then exec `sleep`, at their own pace: wait
    // until the newest one shows its command (the scan may run between).
    let found = loop {
        let table = ProcessTable::scan();
        let deepest = table.deepest(pid);
        let newest = cmdline(deepest).is_some_and(|a| a == ["sleep", "31"]);
        if newest || std::time::Instant::now() > deadline {
            break deepest;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let seen = describe(found).expect("the child is there");
    assert_eq!(seen.name, "sleep");
    assert!(
        cmdline(found).is_some_and(|a| a == ["sleep", "31"]),
        "the newest child"
    );
    assert!(seen.cwd.is_some());
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_agent_hint_is_read_from_the_environment() {
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .env("SIGNALTTY_AGENT", " Codex ")
        .spawn()
        .expect("sleep");
    // Until the child has exec'd, /proc shows the environment it inherited.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while cmdline(child.id()).is_none_or(|a| a[0] != "sleep")
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(agent_hint(child.id()).as_deref(), Some("codex"));
    assert_eq!(agent_hint(std::process::id()), None);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn runtimes_are_named_after_their_script() {
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        name_of(&argv(&[
            "/usr/bin/node",
            "--no-warnings",
            "/opt/lib/codex/bin/codex.js"
        ])),
        "codex"
    );
    assert_eq!(name_of(&argv(&["python3.12", "-u", "aider.py"])), "aider");
    assert_eq!(name_of(&argv(&["bun", "run"])), "run");
    assert_eq!(name_of(&argv(&["node"])), "node");
    assert_eq!(
        name_of(&argv(&["/usr/local/bin/claude", "--resume", "x"])),
        "claude"
    );
    assert_eq!(
        name_of(&argv(&["pi"])),
        "pi",
        "process.title rewrites argv[0]"
    );
}

#[test]
fn parse_proc_reads_parent_and_start_time() {
    let line = "42 (my (odd) name) S 7 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 123456 1000 10";
    assert_eq!(
        parse_proc(line),
        Some(Proc {
            ppid: 7,
            start: 123456
        })
    );
}

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
