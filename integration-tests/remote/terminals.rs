//! `attach` and the board on a host, in tmux.

use super::*;

#[test]
fn attach_over_ssh_types_resizes_and_detaches() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let pane = spawn_on(&local, "hosta", "exec cat");
    let tmux = crate::support::tmux::Tmux::start(
        local.env(),
        &["--host", "hosta", "attach", &pane],
        100,
        30,
    );
    // The pane takes the attaching terminal's size.
    wait_size(&local, "hosta", &pane, 100, 30);
    tmux.type_text("typed over ssh");
    tmux.keys(&["Enter"]);
    // cat echoes the line back: the keys went there and the output came here.
    tmux.wait_for("the echo", REMOTE, |s| {
        s.matches("typed over ssh").count() >= 2
    });
    let read = ok(
        local.cli(&["pane", "read", &format!("hosta:{pane}")]),
        "pane read",
    );
    assert!(read.contains("typed over ssh"), "{read}");
    // The terminal resized: the remote pane follows.
    tmux.resize(90, 25);
    wait_size(&local, "hosta", &pane, 90, 25);
    tmux.keys(&["C-\\"]);
    tmux.wait_exited();
    stop_hosts(&local, &sshd);
}

#[test]
fn a_hosts_board_answers_its_question_with_the_same_key() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let pane = named_on(&local, "hosta", "exec sleep 600", "far-asker");
    let tmux = host_board(&local, "hosta");
    tmux.wait_for("the host's pane on its board", REMOTE, |s| {
        s.contains("far-asker")
    });
    let reporter = remote_reporter(&sshd, "hosta", &pane);
    tmux.wait_for("the question in the queue", REMOTE, |s| {
        s.contains("Allow once") && s.contains("Deny")
    });
    tmux.keys(&["1"]);
    allowed(reporter);
    tmux.keys(&["q"]);
    tmux.wait_exited();
    stop_hosts(&local, &sshd);
}

/// The host's server replaced in place while its board watches: the board
/// says it is reconnecting, comes back live on its own, and shows what the
/// new server does.
#[test]
fn a_hosts_board_rides_through_an_upgrade_in_place() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    let pane = named_on(&local, "hosta", "exec sleep 600", "before-upgrade");
    let tmux = host_board(&local, "hosta");
    tmux.wait_for("the pane on the board", REMOTE, |s| {
        s.contains("before-upgrade") && s.contains("live")
    });
    ok(
        local.cli(&["--host", "hosta", "upgrade"]),
        "upgrade on the host",
    );
    let after = spawn_on(&local, "hosta", "exec sleep 600");
    ok(
        local.cli(&["--host", "hosta", "pane", "rename", &after, "after-upgrade"]),
        "rename",
    );
    tmux.wait_for("the new server's pane on the board", REMOTE, |s| {
        s.contains("after-upgrade") && s.contains("before-upgrade")
    });
    // The same processes: an in-place upgrade keeps the panes' agents.
    let listed = text(&local.cli(&["--host", "hosta", "pane", "list"]));
    assert!(
        listed.contains(&pane) && listed.contains("[live]"),
        "{listed}"
    );
    tmux.keys(&["q"]);
    tmux.wait_exited();
    stop_hosts(&local, &sshd);
}
