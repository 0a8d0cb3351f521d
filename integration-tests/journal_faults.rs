//! Journal I/O failure (docs/persistence.md#writing-the-journal): with the
//! state directory on a tiny tmpfs and no free-space reserve, the journal's own
//! appends fill it until one hits ENOSPC. The server must then go on running,
//! never publish or acknowledge the event it could not write, hold the change
//! that met the full disk and answer it once the filesystem grows, refuse new
//! changes meanwhile, and keep everything it did acknowledge
//! (docs/reliability.md#a-full-disk). Runs as root (as CI does).

use crate::support::mount::Mount;
use crate::support::{TestEnv, TestServer, wait_until};
use serde_json::{Value, json};
use signaltty_protocol::{ErrorCode, ServerLine};
use std::collections::HashSet;
use std::process::Command;
use std::time::Duration;

#[test]
fn a_full_disk_holds_the_change_that_met_it_refuses_the_next_and_loses_nothing() {
    let mut env = TestEnv::new();
    let state_home = env.root().join("tiny");
    let mount = Mount::tmpfs(&state_home, "size=96k,mode=0700");
    env.set_var("XDG_STATE_HOME", &state_home);
    let config = env.root().join("config/signaltty");
    std::fs::create_dir_all(&config).unwrap_or_else(|e| panic!("{e}"));
    // No reserve: the journal's own write is what meets the full disk.
    std::fs::write(config.join("config.toml"), "[journal]\nreserve_bytes = 0\n")
        .unwrap_or_else(|e| panic!("{e}"));
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
    let mut watcher = server.client();
    let degraded = |watcher: &mut crate::support::Client| {
        watcher.call_ok("server.status", json!({}))["storage"]["state"] == "degraded"
    };

    // Rename with long (but valid, ≤ 256 bytes) names until one is not
    // answered because the journal could not write it. The producer's lines
    // are read on a thread, so the test can wait for an answer or the stall.
    let mut writer = producer
        .stream()
        .try_clone()
        .unwrap_or_else(|e| panic!("{e}"));
    let answers = {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            while let Some(line) = producer.read_server_line() {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        rx
    };
    let padding = "x".repeat(240);
    let mut acknowledged = HashSet::new();
    let mut held = None;
    for i in 0..1000 {
        let name = format!("{i}-{padding}");
        let line = crate::support::request_line(
            &format!("r{i}"),
            "workspace.rename",
            json!({"workspace_id": id, "name": name}),
        );
        std::io::Write::write_all(&mut writer, line.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let answered = wait_until(
            "the rename's answer or the stall",
            Duration::from_secs(10),
            || match answers.recv_timeout(Duration::from_millis(10)) {
                Ok(line) => Some(Some(line)),
                Err(_) if degraded(&mut watcher) => Some(None),
                Err(_) => None,
            },
        );
        match answered {
            Some(ServerLine::Response(r)) if r.ok => {
                acknowledged.insert(name);
            },
            Some(other) => panic!("a rename got {other:?}"),
            None => {
                held = Some(name);
                break;
            },
        }
    }
    let held = held.unwrap_or_else(|| {
        panic!(
            "96 KiB never filled up after {} renames",
            acknowledged.len()
        )
    });
    assert!(
        !acknowledged.is_empty(),
        "some renames fit before the disk filled"
    );
    assert!(
        answers.try_recv().is_err(),
        "the rename that met the full disk is not answered"
    );

    // The server runs on and refuses a new change before it does anything.
    let refused = watcher.call("workspace.create", json!({"name": "refused"}));
    let e = refused
        .error
        .unwrap_or_else(|| panic!("a change was taken on a full disk"));
    assert_eq!(e.code, ErrorCode::IoError, "{e:?}");
    assert_eq!(e.details.unwrap_or_default()["reason"], "no_space");

    // The filesystem grows: the held rename is written and answered.
    mount.remount("size=1m");
    match answers.recv_timeout(Duration::from_secs(20)) {
        Ok(ServerLine::Response(r)) if r.ok => {
            acknowledged.insert(held);
        },
        other => panic!("the held rename was not answered: {other:?}"),
    }
    wait_until("writes to succeed again", Duration::from_secs(20), || {
        (!degraded(&mut watcher)).then_some(())
    });
    watcher.call_ok("workspace.create", json!({"name": "after"}));
    watcher.call_ok("server.shutdown", json!({"force": true}));
    let status = server.process().wait_exit();
    assert_eq!(
        status.code(),
        Some(0),
        "a clean stop after the disk filled: {status:?}"
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
