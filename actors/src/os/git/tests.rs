//! The git runner against real git: output, failure, the deadline killing
//! the whole process group, the caps, the environment.

use super::run::*;
use std::fs;
use std::time::{Duration, Instant};

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    Git::new(dir.path()).ok(&["init", "-q"]).unwrap();
    dir
}

#[test]
fn output_is_returned_and_a_failure_carries_gits_message() {
    let dir = repo();
    let git = Git::new(dir.path());
    assert_eq!(
        git.text(&["rev-parse", "--is-inside-work-tree"]).unwrap(),
        "true"
    );
    match git.ok(&["rev-parse", "--verify", "no-such-ref"]) {
        Err(GitError::Failed { stderr, .. }) => {
            assert!(stderr.contains("fatal"), "{stderr}");
        },
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn past_its_deadline_the_whole_process_group_is_killed() {
    let dir = repo();
    let pid_file = dir.path().join("bg.pid");
    // An alias that leaves a background child in git's group and hangs.
    let alias = format!(
        "!sleep 30 & echo $! > {}; sleep 30",
        pid_file.to_string_lossy()
    );
    let git = Git::new(dir.path())
        .config("alias.hang", &alias)
        .deadline(Duration::from_millis(300));
    let started = Instant::now();
    match git.run(&["hang"]) {
        Err(GitError::Timeout(_)) => {},
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(10));
    let pid: i32 = fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Killed with its group: gone, or a zombie until its parent is reaped.
    let gone = || {
        fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| stat.contains(") Z "))
    };
    let until = Instant::now() + Duration::from_secs(10);
    while !gone() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(gone(), "the background child {pid} outlived the deadline");
}

#[test]
fn output_past_the_cap_is_an_error_not_a_stall() {
    let dir = repo();
    let git = Git::new(dir.path())
        .config("alias.big", "!yes 0123456789 | head -c 2000000")
        .stdout_cap(10_000);
    match git.run(&["big"]) {
        Err(GitError::StdoutOver(10_000)) => {},
        other => panic!("expected StdoutOver, got {other:?}"),
    }
    // Under the cap, a large output is read while git runs.
    let git = Git::new(dir.path()).config("alias.big", "!yes 0123456789 | head -c 2000000");
    assert_eq!(git.ok(&["big"]).unwrap().stdout.len(), 2_000_000);
}

#[test]
fn git_runs_without_a_prompt_in_the_c_locale_with_the_env_it_is_given() {
    let dir = repo();
    let git = Git::new(dir.path())
        .config("alias.env", "!echo $GIT_TERMINAL_PROMPT $LC_ALL $EXTRA")
        .env("EXTRA", "given");
    assert_eq!(git.text(&["env"]).unwrap(), "0 C given");
}
