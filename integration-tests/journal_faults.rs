//! Journal I/O failure (docs/persistence.md): with the state directory on a tiny
//! tmpfs, the journal eventually hits ENOSPC. The server must then stop with a
//! non-zero status, never publish or acknowledge the event it could not write, and
//! keep everything it did acknowledge.

use crate::support::{TestEnv, TestServer, wait_until};
use nix::unistd::Uid;
use serde_json::{Value, json};
use signaltty_protocol::ServerLine;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A tmpfs mounted for one test and unmounted when dropped.
struct TinyTmpfs {
    path: PathBuf,
}

impl TinyTmpfs {
    /// Mounts a tmpfs of `size` at `path`; `None` when this machine will not let us.
    fn mount(path: &Path, size: &str) -> Option<TinyTmpfs> {
        if !Uid::current().is_root() {
            return None;
        }
        std::fs::create_dir_all(path).ok()?;
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(path)
            .status()
            .ok()?;
        status.success().then(|| TinyTmpfs {
            path: path.to_owned(),
        })
    }
}

impl Drop for TinyTmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}

#[test]
fn a_full_disk_stops_the_server_without_publishing_the_event_it_could_not_write() {
    let mut env = TestEnv::new();
    let state_home = env.root().join("tiny");
    let Some(_tmpfs) = TinyTmpfs::mount(&state_home, "96k") else {
        eprintln!("skipped: needs root and a mountable tmpfs to fill the state directory");
        return;
    };
    env.set_var("XDG_STATE_HOME", &state_home);
    let mut server = TestServer::start_in(env);

    let mut subscriber = server.client();
    assert_eq!(
        subscriber.call_ok("subscribe", json!({"events": ["workspace.*"]}))["subscribed"],
        true
    );
    let mut producer = server.client();
    let ws = producer.call_ok("workspace.create", json!({"name": "full"}));
    let id = ws["workspace"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    // Rename with long (but valid, ≤ 256 bytes) names until the journal cannot take another record.
    let padding = "x".repeat(240);
    let mut acknowledged = HashSet::new();
    let mut failure = None;
    for i in 0..1000 {
        let name = format!("{i}-{padding}");
        producer.send_raw(
            crate::support::request_line(
                &format!("r{i}"),
                "workspace.rename",
                json!({"workspace_id": id, "name": name}),
            )
            .as_bytes(),
        );
        match producer.read_server_line() {
            Some(ServerLine::Response(r)) if r.ok => {
                acknowledged.insert(name);
            },
            Some(ServerLine::Response(r)) => {
                failure = Some(format!("error reply {:?}", r.error));
                break;
            },
            Some(ServerLine::Event(_)) => {
                panic!("the producer did not subscribe, yet got an event")
            },
            None => {
                failure = Some("connection closed".to_owned());
                break;
            },
        }
    }
    assert!(
        failure.is_some(),
        "96 KiB never filled up after {} renames",
        acknowledged.len()
    );
    assert!(
        !acknowledged.is_empty(),
        "some renames fit before the disk filled"
    );

    let status = server.process().wait_exit();
    assert_eq!(
        status.code(),
        Some(1),
        "a journal failure exits with status 1: {status:?}"
    );
    let log = server.stderr();
    assert!(
        log.contains("event journal failed"),
        "the log says why: {log}"
    );

    // Everything acknowledged is in the journal; nothing was published that is not.
    let journal =
        std::fs::read_to_string(state_home.join("signaltty/audit.jsonl")).unwrap_or_default();
    let mut journaled_names = HashSet::new();
    let mut journaled_seqs = HashSet::new();
    for line in journal.lines() {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        journaled_seqs.insert(record["seq"].as_u64().unwrap_or_default());
        if let Some(name) = record["payload"]["workspace"]["name"].as_str() {
            journaled_names.insert(name.to_owned());
        }
    }
    let missing: Vec<_> = acknowledged
        .difference(&journaled_names)
        .map(|n| &n[..n.len().min(12)])
        .collect();
    assert!(
        missing.is_empty(),
        "acknowledged but not journaled: {missing:?}"
    );
    let seen: Vec<u64> = std::iter::from_fn(|| match subscriber.read_server_line() {
        Some(ServerLine::Event(e)) => Some(e.seq),
        _ => None,
    })
    .collect();
    let unproven: Vec<_> = seen
        .iter()
        .filter(|s| !journaled_seqs.contains(s))
        .collect();
    assert!(
        unproven.is_empty(),
        "published without being journaled: {unproven:?}"
    );
    assert!(
        seen.len() >= acknowledged.len(),
        "the subscriber saw every acknowledged rename"
    );

    // With room again, the server starts, cuts any torn tail, and numbers above everything.
    let max_seen = journaled_seqs.iter().copied().max().unwrap_or_default();
    let mut env = TestEnv::new();
    let roomy = env.root().join("roomy");
    let copied = Command::new("cp")
        .arg("-a")
        .arg(&state_home)
        .arg(&roomy)
        .status();
    assert!(copied.is_ok_and(|s| s.success()), "copy the full state dir");
    env.set_var("XDG_STATE_HOME", &roomy);
    let restarted = TestServer::start_in(env);
    let mut client = restarted.client();
    let head = wait_until(
        "the restarted server's status",
        Duration::from_secs(10),
        || client.call_ok("server.status", json!({}))["seq"].as_u64(),
    );
    assert!(
        head >= max_seen,
        "numbering continues above every journaled seq ({head} < {max_seen})"
    );
}
