//! Followers across faults: a killed ssh, an upgrade in place, a host that
//! stops answering. What they print is the journal's events, nothing missed.

use super::*;
use crate::support::DEADLINE;
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

/// `signaltty --host HOST events` from the host's head as it is now:
/// however long its link takes, it replays whatever happened since.
struct Follower {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<Value>,
}

impl Follower {
    fn start(local: &TestServer, host: &str) -> Follower {
        let head = json(local.cli(&["--host", host, "--json", "status"]), "status")["seq"]
            .as_u64()
            .unwrap_or_else(|| panic!("no seq in {host}'s status"))
            .to_string();
        let mut cmd = local
            .env()
            .command(&["--host", host, "events", "--from-seq", &head]);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("events: {e}"));
        let lines = lines_of(&mut child);
        Follower {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads on until `pane`'s `pane.created`.
    fn until_created(&mut self, pane: &str, what: &str) {
        read_until(&self.lines, &mut self.seen, what, |v| {
            v["event"] == "pane.created" && v["payload"]["pane"]["id"] == pane
        });
    }

    /// The pids of the follower's ssh children.
    fn ssh(&self) -> Vec<i32> {
        children_named(self.child.id(), "ssh")
    }

    /// Stops the follower and checks that what it printed is exactly the
    /// host's journal over the same span: rising, nothing missed, nothing
    /// twice.
    fn matches_the_journal(mut self, local: &TestServer, host: &str) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let seqs: Vec<u64> = self.seen.iter().filter_map(|v| v["seq"].as_u64()).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "seqs rise: {seqs:?}");
        let (from, to) = (seqs[0] - 1, seqs[seqs.len() - 1]);
        let from = from.to_string();
        let replay = ok(
            local.cli(&["--host", host, "events", "--from-seq", &from, "--no-follow"]),
            "replay",
        );
        let journal: Vec<u64> = replay
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["seq"].as_u64())
            .filter(|s| *s <= to)
            .collect();
        assert_eq!(seqs, journal, "the follower's stream is the journal's");
    }
}

#[test]
fn a_subscriber_whose_ssh_dies_or_whose_host_upgrades_misses_nothing() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    // The host's server runs before the follower starts.
    spawn_on(&local, "hosta", "exec sleep 600");
    let mut follower = Follower::start(&local, "hosta");
    let a = spawn_on(&local, "hosta", "exec sleep 600");
    follower.until_created(&a, "the first pane.created");

    // Its ssh killed under it: it reconnects and resubscribes.
    let ssh = wait_until("the follower's ssh", DEADLINE, || {
        Some(follower.ssh()).filter(|p| !p.is_empty())
    });
    for pid in ssh {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let b = spawn_on(&local, "hosta", "exec sleep 600");
    follower.until_created(&b, "pane.created after the kill");

    // The host's server replaced in place: a reconnect like any other.
    ok(
        local.cli(&["--host", "hosta", "upgrade"]),
        "upgrade on the host",
    );
    let c = spawn_on(&local, "hosta", "exec sleep 600");
    follower.until_created(&c, "pane.created after the upgrade");
    follower.matches_the_journal(&local, "hosta");
    stop_hosts(&local, &sshd);
}

#[test]
fn a_link_whose_host_stops_answering_is_dropped_within_ten_seconds_and_comes_back() {
    let mut sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    spawn_on(&local, "hosta", "exec sleep 600");
    let mut follower = Follower::start(&local, "hosta");
    let a = spawn_on(&local, "hosta", "exec sleep 600");
    follower.until_created(&a, "a pane.created");
    let ssh = wait_until("the follower's ssh", DEADLINE, || {
        let pids = follower.ssh();
        (pids.len() == 1).then(|| pids[0])
    });

    // The host stops answering; its TCP connection stays up.
    sshd.freeze();
    let frozen = std::time::Instant::now();
    wait_until(
        "the silent link to be dropped",
        Duration::from_secs(10),
        || (!follower.ssh().contains(&ssh)).then_some(()),
    );
    let took = frozen.elapsed();
    eprintln!("the link was dropped {took:?} after the host stopped answering");
    sshd.thaw();

    // Back: the follower resubscribes from its last seq and misses nothing.
    let b = spawn_on(&local, "hosta", "exec sleep 600");
    follower.until_created(&b, "pane.created once the host is back");
    follower.matches_the_journal(&local, "hosta");
    stop_hosts(&local, &sshd);
}

/// `events --all-hosts`: every server's events in one stream, each line
/// with the host it came from first.
#[test]
fn events_of_every_host_come_in_one_stream_each_with_its_host() {
    let sshd = Sshd::start(&["hosta"]);
    let local = TestServer::start();
    add_hosts(&local, &sshd);
    // The host's server runs before the stream starts (its first start
    // would otherwise race the subscription).
    spawn_on(&local, "hosta", "exec sleep 600");
    let mut cmd = local.env().command(&["events", "--all-hosts"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("events: {e}"));
    let lines = lines_of(&mut child);
    let mut seen = Vec::new();
    // Until both followers print: a pane made on each server after each
    // marker shows its creation under the right host.
    let created_on =
        |host: &'static str| move |v: &Value| v["host"] == host && v["event"] == "pane.created";
    let remote = wait_until("the remote follower subscribed", REMOTE, || {
        let pane = spawn_on(&local, "hosta", "exec sleep 600");
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        while let Ok(line) =
            lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
        {
            let v: Value = serde_json::from_str(&line).ok()?;
            let hit = created_on("hosta")(&v) && v["payload"]["pane"]["id"] == pane.as_str();
            seen.push(v);
            if hit {
                return Some(pane);
            }
        }
        None
    });
    let here = spawn_on(&local, "local", "exec sleep 600");
    read_until(&lines, &mut seen, "the local pane.created", |v| {
        created_on("local")(v) && v["payload"]["pane"]["id"] == here.as_str()
    });
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.iter()
            .all(|v| v["host"] == "local" || v["host"] == "hosta"),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .all(|v| v["protocol"] == "signaltty/1" && v["seq"].is_u64())
    );
    assert!(!remote.is_empty());
    stop_hosts(&local, &sshd);
}
