//! `signaltty board --all-hosts` in tmux, over real ssh: every server under
//! its heading with its link state, a remote question answered with the
//! same key as a local one, a host that stops answering marked while the
//! local rows keep working, a host that never answers marked unreachable.

use super::*;
use crate::support::tmux::Tmux;
use crate::support::{DEADLINE, TestEnv};
use std::time::Instant;

fn fleet_board(env: &TestEnv) -> Tmux {
    Tmux::start(env, &["board", "--all-hosts", "--bell=false"], 130, 40)
}

#[test]
fn the_fleet_board_shows_every_host_and_answers_a_remote_question_with_1() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    named_on(&local, "local", "exec sleep 600", "here-pane");
    let far = named_on(&local, "hosta", "exec sleep 600", "far-pane");
    let tmux = fleet_board(local.env());
    let (screen, _) = tmux.wait_for("both hosts connected", REMOTE, |s| {
        s.contains("local  connected") && s.contains("hosta  connected") && s.contains("far-pane")
    });
    // Fleet order: this machine first, then the hosts as configured, each
    // pane under its own heading.
    // The list is the left column: what is left of each line's border.
    let list: String = screen
        .lines()
        .map(|l| l.split(['│', '┬']).next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let at = |t: &str| list.find(t).unwrap_or(usize::MAX);
    assert!(at("local  connected") < at("here-pane"), "{screen}");
    assert!(at("here-pane") < at("hosta  connected"), "{screen}");
    assert!(at("hosta  connected") < at("far-pane"), "{screen}");
    assert!(at("far-pane") < usize::MAX, "{screen}");

    let reporter = remote_reporter(&sshd, "hosta", &far);
    tmux.wait_for("the remote question in the queue", REMOTE, |s| {
        s.contains("hosta:far-pane") && s.contains("Allow once")
    });
    tmux.keys(&["1"]);
    allowed(reporter);
    tmux.keys(&["q"]);
    tmux.wait_exited();
    stop_hosts(&local, &sshd);
}

#[test]
fn a_silent_host_is_marked_within_ten_seconds_and_the_local_rows_keep_working() {
    let mut sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let here = named_on(&local, "local", "exec sleep 600", "here-pane");
    named_on(&local, "hosta", "exec sleep 600", "far-pane");
    let tmux = fleet_board(local.env());
    tmux.wait_for("both hosts connected", REMOTE, |s| {
        s.contains("hosta  connected") && s.contains("far-pane") && s.contains("here-pane")
    });

    sshd.freeze();
    let frozen = Instant::now();
    let (screen, _) = tmux.wait_for("the silent host marked", Duration::from_secs(10), |s| {
        s.contains("hosta  reconnecting since")
    });
    eprintln!(
        "the host was marked {:?} after it stopped answering",
        frozen.elapsed()
    );
    assert!(
        screen.contains("far-pane"),
        "its rows stay listed: {screen}"
    );
    assert!(screen.contains("local  connected"), "{screen}");

    // Meanwhile this machine's question is answered as ever.
    let reporter = local_reporter(&local, &here);
    tmux.wait_for("the local question in the queue", DEADLINE, |s| {
        s.contains("here-pane") && s.contains("Allow once")
    });
    tmux.keys(&["1"]);
    allowed(reporter);

    sshd.thaw();
    tmux.wait_for("the host back", REMOTE, |s| s.contains("hosta  connected"));
    let screen = tmux.screen();
    assert_eq!(
        screen.matches("far-pane").count(),
        1,
        "no row doubled: {screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_exited();
    stop_hosts(&local, &sshd);
}

#[test]
fn a_host_that_never_answers_is_unreachable_and_holds_up_nobody() {
    let mut gone = Sshd::start(&["hostz"]);
    let local = TestServer::start();
    add_hosts(&local, &gone);
    gone.stop();
    named_on(&local, "local", "exec sleep 600", "here-pane");
    let started = Instant::now();
    let tmux = fleet_board(local.env());
    tmux.wait_for("the local rows", DEADLINE, |s| {
        s.contains("local  connected") && s.contains("here-pane")
    });
    let local_after = started.elapsed();
    tmux.wait_for("the host marked unreachable", REMOTE, |s| {
        s.contains("hostz  unreachable")
    });
    assert!(
        local_after < Duration::from_secs(5),
        "the local rows waited for the dead host: {local_after:?}"
    );
    tmux.keys(&["q"]);
    tmux.wait_exited();
    let out = local.cli(&["--host", "hostz", "board", "--all-hosts"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("BAD_PARAMS"), "{err}");
}
