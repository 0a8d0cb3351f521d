//! Spawning a child: the environment, descriptors, session and signal
//! dispositions it starts with, how a spawn fails, and how the program is
//! located.

use super::*;
use nix::sys::signal::{SigHandler, signal};
use std::collections::BTreeSet;

#[test]
fn the_child_gets_exactly_the_given_environment() {
    let _serial = SERIAL.lock();
    let mut spec = spec(&["env"]);
    spec.env = vec![
        ("PATH".into(), "/usr/bin:/bin".into()),
        ("SIGNALTTY_PANE".into(), "pane_x".into()),
    ];
    let mut pane = Pane::spawn(&spec).unwrap();
    assert_eq!(pane.wait_finished(), Some(0));
    let lines: BTreeSet<String> = pane.lines().into_iter().filter(|l| !l.is_empty()).collect();
    let expected: BTreeSet<String> = ["PATH=/usr/bin:/bin", "SIGNALTTY_PANE=pane_x"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn children_inherit_only_their_terminal() {
    let _serial = SERIAL.lock();
    // An inheritable descriptor in the server (dup clears close-on-exec) must not
    // reach the child either.
    let devnull = fs::File::open("/dev/null").unwrap();
    let leak = nix::unistd::dup(&devnull).unwrap();
    let mut other = Pane::start(&["cat"]);
    let mut pane = Pane::start(&["ls", "-l", "/proc/self/fd"]);
    assert_eq!(pane.wait_finished(), Some(0));
    drop(leak);
    let mut fds = BTreeSet::new();
    for line in pane.lines() {
        let Some((left, target)) = line.split_once(" -> ") else {
            continue;
        };
        let fd: u32 = left.split_whitespace().last().unwrap().parse().unwrap();
        fds.insert(fd);
        match fd {
            0..=2 => assert!(target.starts_with("/dev/pts/"), "{line}"),
            // ls's own handle on the directory it lists.
            _ => assert!(target.starts_with("/proc/"), "{line}"),
        }
    }
    assert!(
        fds.is_subset(&BTreeSet::from([0, 1, 2, 3])),
        "{fds:?}\n{}",
        pane.text()
    );
    assert!(fds.is_superset(&BTreeSet::from([0, 1, 2])), "{fds:?}");
    other.pty().close_with_grace(Signal::SIGHUP, Duration::ZERO);
    other.wait_exit();
}

#[test]
fn the_child_is_a_session_leader_with_a_controlling_tty() {
    let _serial = SERIAL.lock();
    let mut pane = Pane::start(&["sh", "-c", "tty; cat /proc/$$/stat"]);
    assert_eq!(pane.wait_finished(), Some(0));
    let pid = pane.pty().pid().cast_signed();
    let lines = pane.lines();
    assert!(lines[0].starts_with("/dev/pts/"), "{lines:?}");
    let stat = lines
        .iter()
        .filter_map(|l| parse_stat(l))
        .find(|s| s.pid == pid)
        .unwrap_or_else(|| panic!("no stat line for {pid}: {lines:?}"));
    assert_eq!(stat.session, pid, "session leader");
    assert_eq!(stat.pgrp, pid, "process group leader");
    assert_ne!(stat.tty_nr, 0, "has a controlling tty");
    assert_eq!(stat.tpgid, pid, "is the foreground process group");
}

#[test]
fn the_child_has_no_ignored_or_blocked_signals() {
    // Rust ignores SIGPIPE in this process; ignoring SIGUSR2 too
    // shows that any ignored disposition is reset, not only the ones std resets.
    let _serial = SERIAL.lock();
    // SAFETY: SIG_IGN installs no handler code; nothing in the test binary relies on
    // SIGUSR2, and the default is restored below.
    unsafe { signal(Signal::SIGUSR2, SigHandler::SigIgn) }.unwrap();
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let mut pane = Pane::start(&["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"]);
    let code = pane.wait_finished();
    // SAFETY: as above; SIG_DFL installs no handler code.
    unsafe { signal(Signal::SIGUSR2, SigHandler::SigDfl) }.unwrap();
    assert_eq!(code, Some(0));
    let ours = status.lines().find(|l| l.starts_with("SigIgn:")).unwrap();
    assert!(
        !ours.ends_with("0000000000000000"),
        "the test process ignores signals: {ours}"
    );
    let lines = pane.lines();
    for key in ["SigIgn:", "SigBlk:"] {
        let line = lines
            .iter()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in {lines:?}"));
        assert!(line.ends_with("0000000000000000"), "{line}");
    }
}

#[test]
fn spawn_failures_are_synchronous_and_leak_nothing() {
    let _serial = SERIAL.lock();
    let baseline = pty_fd_count();
    let cases: [(SpawnSpec, &str); 5] = [
        (
            spec(&["/nonexistent/prog"]),
            "failed to spawn \"/nonexistent/prog\": not found",
        ),
        (
            spec(&["no-such-program-signaltty"]),
            "failed to spawn \"no-such-program-signaltty\": not found",
        ),
        (
            spec(&["/etc/passwd"]),
            "failed to spawn \"/etc/passwd\": permission denied",
        ),
        (
            SpawnSpec {
                cwd: PathBuf::from("/nonexistent/dir"),
                ..spec(&["sh"])
            },
            "failed to spawn \"sh\": no such directory /nonexistent/dir",
        ),
        (spec(&[]), "failed to spawn \"\": empty argv"),
    ];
    for round in 0..4 {
        for (spec, message) in &cases {
            let error = Pane::spawn(spec)
                .err()
                .unwrap_or_else(|| panic!("{spec:?} spawned"));
            if round == 0 {
                assert_eq!(error.to_string(), *message);
            }
        }
    }
    assert_fds_back_to(baseline);
}

#[test]
fn fifty_spawn_exit_cycles_leave_no_zombie_and_no_descriptor() {
    let _serial = SERIAL.lock();
    let baseline = pty_fd_count();
    let mut pids = Vec::new();
    for _ in 0..50 {
        let mut pane = Pane::start(&["true"]);
        assert_eq!(pane.wait_finished(), Some(0));
        pids.push(pane.pty().pid().cast_signed());
    }
    for pid in pids {
        assert_not_our_zombie(pid);
    }
    assert_fds_back_to(baseline);
}

#[test]
fn a_program_is_located_as_the_exec_would_find_it() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tool = bin.join("tool");
    std::fs::write(&tool, "#!/bin/sh\n").unwrap();
    let plain = bin.join("plain");
    std::fs::write(&plain, "data\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = |argv: &str| SpawnSpec {
        argv: vec![argv.to_owned()],
        cwd: dir.path().to_path_buf(),
        env: vec![("PATH".into(), bin.to_string_lossy().into_owned())],
        rows: 24,
        cols: 80,
    };
    assert!(locate(&spec("tool")).is_ok(), "found on the child's PATH");
    assert!(
        locate(&spec("./bin/tool")).is_ok(),
        "a path relative to the cwd"
    );
    let missing = locate(&spec("nope")).unwrap_err();
    assert_eq!(missing.to_string(), "failed to spawn \"nope\": not found");
    let denied = locate(&spec("plain")).unwrap_err();
    assert_eq!(
        denied.to_string(),
        "failed to spawn \"plain\": permission denied"
    );
    assert!(locate(&spec("./bin/plain")).is_err());
}
