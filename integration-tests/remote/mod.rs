//! Remote hosts over a real OpenSSH server (docs/remote.md): throwaway local
//! accounts behind an `sshd` on loopback stand for other machines, each with
//! its own signaltty server started over ssh by the bridge. Through them:
//! `host add/check/list`, commands with `--host` and `HOST:PANE`, a
//! permission question raised on a host and answered here, `--all-hosts`
//! over three servers, a subscriber whose ssh is killed and whose host's
//! server is upgraded in place, and a host that goes away while another
//! keeps answering. The tests are in `hosts.rs` (hosts, commands, the
//! fleet), `streams.rs` (followers across faults) and `terminals.rs`
//! (attach and the board over ssh); this file holds what they share.

mod fleet_board;
mod hosts;
mod streams;
mod terminals;
mod web;

pub use crate::support::sshd::Sshd;
use crate::support::{TestServer, wait_until};
use serde_json::Value;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, Output, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A remote server's first start over ssh, and a new link, take a moment:
/// waits that cross ssh get this long.
pub const REMOTE: Duration = Duration::from_secs(40);

pub fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[track_caller]
pub fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        text(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    text(&out)
}

#[track_caller]
pub fn json(out: Output, what: &str) -> Value {
    let t = ok(out, what);
    serde_json::from_str(t.trim()).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {t}"))
}

/// Adds every account of `sshd` as a host of `local`, named by its label.
pub fn add_hosts(local: &TestServer, sshd: &Sshd) {
    let cfg = sshd.ssh_config_path();
    let bin = sshd.binary_for_accounts();
    for account in sshd.accounts() {
        let label = account.label();
        ok(
            local.cli(&[
                "host",
                "add",
                label,
                sshd.alias(account),
                "--ssh-config",
                &cfg.to_string_lossy(),
                "--remote-bin",
                &bin.to_string_lossy(),
            ]),
            "host add",
        );
    }
}

/// Starts `sh -c SCRIPT` in a new workspace on `host`; its pane id.
pub fn spawn_on(local: &TestServer, host: &str, script: &str) -> String {
    let v = json(
        local.cli(&["--host", host, "--json", "new", "--", "sh", "-c", script]),
        "new on a host",
    );
    v["panes"][0]["id"]
        .as_str()
        .or_else(|| v["pane"]["id"].as_str())
        .unwrap_or_else(|| panic!("no pane id in {v}"))
        .to_owned()
}

/// Stops the hosts' servers (the accounts' processes are killed with the
/// harness anyway; this is the polite way).
pub fn stop_hosts(local: &TestServer, sshd: &Sshd) {
    for account in sshd.accounts() {
        let _ = local.cli(&["--host", account.label(), "stop", "--force"]);
    }
}

/// The permission reporter run on a host, the way an agent's hook runs it there.
pub fn remote_reporter(sshd: &Sshd, host: &str, pane: &str) -> Child {
    let bin = sshd.binary_for_accounts();
    let mut cmd = sshd.ssh_command(host);
    cmd.arg(format!(
        "{} hook-event --agent claude --event PermissionRequest --wait --pane {pane}",
        bin.display()
    ));
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("ssh reporter: {e}"));
    let payload = serde_json::json!({
        "session_id": "6d1f0c2e-remote-session",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Write",
        "tool_input": {"file_path": "remote.txt"},
    });
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(payload.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("payload: {e}"));
    }
    child
}

/// The permission reporter run here, against this machine's server.
pub fn local_reporter(local: &TestServer, pane: &str) -> Child {
    let mut cmd = local.env().command(&[
        "hook-event",
        "--agent",
        "claude",
        "--event",
        "PermissionRequest",
        "--wait",
        "--pane",
        pane,
    ]);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("reporter: {e}"));
    let payload = serde_json::json!({
        "session_id": "1c2d-local-session", "hook_event_name": "PermissionRequest",
        "tool_name": "Write", "tool_input": {"file_path": "here.txt"},
    });
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(payload.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("payload: {e}"));
    }
    child
}

/// The lines a follower prints, as they come.
pub fn lines_of(child: &mut Child) -> Receiver<String> {
    let (tx, rx) = channel();
    let Some(stdout) = child.stdout.take() else {
        panic!("the follower has no stdout");
    };
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Reads `rx` until a line satisfies `done`; every line read, in order.
pub fn read_until(
    rx: &Receiver<String>,
    seen: &mut Vec<Value>,
    what: &str,
    done: impl Fn(&Value) -> bool,
) {
    let deadline = std::time::Instant::now() + REMOTE;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("timed out waiting for {what}; saw {} lines", seen.len()));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let hit = done(&v);
        seen.push(v);
        if hit {
            return;
        }
    }
}

/// The pids of `parent`'s children running `comm`.
pub fn children_named(parent: u32, comm: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …
        let Some((head, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let name = head.split_once(" (").map_or("", |(_, n)| n);
        let ppid: u32 = rest
            .split(' ')
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        if ppid == parent && name == comm {
            out.push(pid);
        }
    }
    out
}

/// Waits for a permission reporter and checks it printed the allow verdict.
#[track_caller]
pub fn allowed(reporter: Child) {
    let out = reporter
        .wait_with_output()
        .unwrap_or_else(|e| panic!("reporter: {e}"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}\n", signaltty_protocol::state::native_verdict_line(true)),
        "the reporter's verdict; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Starts `sh -c SCRIPT` on `host` in a new workspace and names the pane.
pub fn named_on(local: &TestServer, host: &str, script: &str, name: &str) -> String {
    let pane = spawn_on(local, host, script);
    ok(
        local.cli(&["--host", host, "pane", "rename", &pane, name]),
        "rename",
    );
    pane
}

/// `signaltty --host HOST board` in a tmux window.
pub fn host_board(local: &TestServer, host: &str) -> crate::support::tmux::Tmux {
    crate::support::tmux::Tmux::start(
        local.env(),
        &["--host", host, "board", "--bell=false"],
        110,
        32,
    )
}

/// Waits until `pane` on `host` is `cols`×`rows`.
pub fn wait_size(local: &TestServer, host: &str, pane: &str, cols: u16, rows: u16) {
    wait_until("the pane's size", REMOTE, || {
        let v: Value = serde_json::from_str(&text(
            &local.cli(&["--host", host, "--json", "pane", "get", pane]),
        ))
        .ok()?;
        let size = &v["pane"]["pty_size"];
        (size["cols"] == cols && size["rows"] == rows).then_some(())
    });
}
