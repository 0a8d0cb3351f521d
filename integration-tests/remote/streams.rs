//! Followers across faults: a killed ssh, an upgrade in place, a host that
//! stops answering. What they print is the journal's events, nothing missed.

use super::*;
use crate::support::DEADLINE;
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

#[test]
fn a_subscriber_whose_ssh_dies_or_whose_host_upgrades_misses_nothing() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    // The host's server runs before the follower starts.
    let first = spawn_on(&local, "hosta", "exec sleep 600");

    // From the head as it is now: however long its link takes, the follower
    // replays whatever happened since.
    let head = json(
        local.cli(&["--host", "hosta", "--json", "status"]),
        "status",
    )["seq"]
        .as_u64()
        .unwrap_or_else(|| panic!("no seq in the host's status"));
    let head = head.to_string();
    let mut cmd = local
        .env()
        .command(&["--host", "hosta", "events", "--from-seq", &head]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut follower = cmd.spawn().unwrap_or_else(|e| panic!("events: {e}"));
    let rx = lines_of(&mut follower);
    let mut seen = Vec::new();

    let created = |pane: String| {
        move |v: &Value| v["event"] == "pane.created" && v["payload"]["pane"]["id"] == pane.as_str()
    };
    let a = spawn_on(&local, "hosta", "exec sleep 600");
    read_until(&rx, &mut seen, "the first pane.created", created(a));

    // Its ssh killed under it: it reconnects and resubscribes.
    let ssh = wait_until("the follower's ssh", DEADLINE, || {
        let pids = children_named(follower.id(), "ssh");
        (!pids.is_empty()).then_some(pids)
    });
    for pid in ssh {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let b = spawn_on(&local, "hosta", "exec sleep 600");
    read_until(&rx, &mut seen, "pane.created after the kill", created(b));

    // The host's server replaced in place: a reconnect like any other.
    ok(
        local.cli(&["--host", "hosta", "upgrade"]),
        "upgrade on the host",
    );
    let c = spawn_on(&local, "hosta", "exec sleep 600");
    read_until(&rx, &mut seen, "pane.created after the upgrade", created(c));
    let _ = follower.kill();
    let _ = follower.wait();

    // What it printed is exactly the journal's events over the same span:
    // nothing missed, nothing twice.
    let seqs: Vec<u64> = seen.iter().filter_map(|v| v["seq"].as_u64()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "seqs rise: {seqs:?}");
    let (from, to) = (seqs[0] - 1, seqs[seqs.len() - 1]);
    let replay = ok(
        local.cli(&[
            "--host",
            "hosta",
            "events",
            "--from-seq",
            &from.to_string(),
            "--no-follow",
        ]),
        "replay",
    );
    let journal: Vec<u64> = replay
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["seq"].as_u64())
        .filter(|s| *s <= to)
        .collect();
    assert_eq!(seqs, journal, "the follower's stream is the journal's");
    assert!(!first.is_empty());
    stop_hosts(&local, &sshd);
}

#[test]
fn a_link_whose_host_stops_answering_is_dropped_within_ten_seconds_and_comes_back() {
    let mut sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    spawn_on(&local, "hosta", "exec sleep 600");
    let head = json(
        local.cli(&["--host", "hosta", "--json", "status"]),
        "status",
    )["seq"]
        .as_u64()
        .unwrap_or_default()
        .to_string();
    let mut cmd = local
        .env()
        .command(&["--host", "hosta", "events", "--from-seq", &head]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut follower = cmd.spawn().unwrap_or_else(|e| panic!("events: {e}"));
    let rx = lines_of(&mut follower);
    let mut seen = Vec::new();
    let created = |pane: String| {
        move |v: &Value| v["event"] == "pane.created" && v["payload"]["pane"]["id"] == pane.as_str()
    };
    let a = spawn_on(&local, "hosta", "exec sleep 600");
    read_until(&rx, &mut seen, "a pane.created", created(a));
    let ssh = wait_until("the follower's ssh", DEADLINE, || {
        let pids = children_named(follower.id(), "ssh");
        (pids.len() == 1).then(|| pids[0])
    });

    // The host stops answering; its TCP connection stays up.
    sshd.freeze();
    let frozen = std::time::Instant::now();
    wait_until(
        "the silent link to be dropped",
        Duration::from_secs(10),
        || (!children_named(follower.id(), "ssh").contains(&ssh)).then_some(()),
    );
    let took = frozen.elapsed();
    eprintln!("the link was dropped {took:?} after the host stopped answering");
    sshd.thaw();

    // Back: the follower resubscribes from its last seq and misses nothing.
    let b = spawn_on(&local, "hosta", "exec sleep 600");
    read_until(
        &rx,
        &mut seen,
        "pane.created once the host is back",
        created(b),
    );
    let _ = follower.kill();
    let _ = follower.wait();
    let seqs: Vec<u64> = seen.iter().filter_map(|v| v["seq"].as_u64()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "seqs rise: {seqs:?}");
    let from = seqs[0] - 1;
    let to = seqs[seqs.len() - 1];
    let replay = ok(
        local.cli(&[
            "--host",
            "hosta",
            "events",
            "--from-seq",
            &from.to_string(),
            "--no-follow",
        ]),
        "replay",
    );
    let journal: Vec<u64> = replay
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["seq"].as_u64())
        .filter(|s| *s <= to)
        .collect();
    assert_eq!(seqs, journal, "nothing missed while the host was silent");
    stop_hosts(&local, &sshd);
}
