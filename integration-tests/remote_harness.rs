//! The SSH harness's own checks (`integration-tests/support/sshd.rs`): a real
//! sshd on loopback reaches each throwaway account by its alias and runs the
//! binary under test there, plays a host that stops answering (`freeze`) and
//! one that goes away (`stop`), and leaves no account or process behind.

use crate::support::process::run_with_deadline;
use crate::support::sshd::{Account, SshSession, Sshd, live_pids_of_uid};
use crate::support::{DEADLINE, poll_until, process_gone};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[track_caller]
fn expect_success(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}): {}",
        out.status,
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A client session that prints `up` once it runs on the host, then stays.
fn open_link(sshd: &Sshd, alias: &str, options: &[&str]) -> SshSession {
    let mut cmd = sshd.ssh_command(alias);
    cmd.args(options).arg("echo up; exec sleep 60");
    let mut link = SshSession::spawn(cmd);
    link.wait_line("up", DEADLINE);
    link
}

#[test]
fn each_alias_reaches_its_own_account_and_runs_the_binary_there() {
    let sshd = Sshd::start(&["hosta", "hostb"]);
    for label in ["hosta", "hostb"] {
        let account = sshd.account(label);
        let alias = sshd.alias(account);
        assert_eq!(alias, label);
        let out = sshd.ssh(alias, &["id", "-un"]);
        assert_eq!(expect_success(&out, "id -un").trim(), account.name());
        let out = sshd.ssh(alias, &["id", "-u"]);
        assert_eq!(
            expect_success(&out, "id -u").trim(),
            account.uid().to_string()
        );
    }
    assert_ne!(
        sshd.account("hosta").uid(),
        sshd.account("hostb").uid(),
        "two hosts, two accounts"
    );

    let bin = sshd.binary_for_accounts();
    assert_eq!(sshd.binary_for_accounts(), bin, "made once");
    let out = sshd.ssh("hosta", &[&bin.to_string_lossy(), "--version"]);
    let version = expect_success(&out, "signaltty --version over ssh");
    assert!(version.starts_with("signaltty "), "{version:?}");

    // What a remote signaltty finds: the passwd home and login name, and no
    // XDG_RUNTIME_DIR. With `UsePAM no` nothing opens a login session, so no
    // /run/user/UID is made for the account and nothing sets the variable.
    let account = sshd.account("hosta");
    let env = expect_success(&sshd.ssh("hosta", &["env"]), "env over ssh");
    let var = |key: &str| {
        env.lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_owned)
    };
    assert_eq!(var("XDG_RUNTIME_DIR"), None, "{env}");
    assert_eq!(
        var("HOME").as_deref(),
        Some(&*account.home().to_string_lossy()),
        "{env}"
    );
    assert_eq!(var("USER").as_deref(), Some(account.name()), "{env}");
    let connection = var("SSH_CONNECTION").unwrap_or_default();
    assert!(
        connection.ends_with(&format!("127.0.0.1 {}", sshd.port())),
        "{env}"
    );
}

#[test]
fn a_frozen_sshd_times_out_new_connections_and_keepalives_end_open_ones() {
    let mut sshd = Sshd::start(&["hosta"]);
    // LogLevel INFO: the config's ERROR would hide the keepalive's verdict.
    let mut open = open_link(
        &sshd,
        "hosta",
        &[
            "-o",
            "ServerAliveInterval=1",
            "-o",
            "ServerAliveCountMax=2",
            "-o",
            "LogLevel=INFO",
        ],
    );
    assert!(
        !sshd.connection_pids().is_empty(),
        "the open link has sshd processes"
    );

    sshd.freeze();
    let frozen = Instant::now();
    // The kernel still completes the TCP handshake; the banner never comes.
    let mut fresh = sshd.ssh_command("hosta");
    fresh.args(["-o", "ConnectTimeout=2", "true"]);
    let out = run_with_deadline(&mut fresh, "ssh to a frozen sshd");
    assert!(!out.status.success(), "ssh to a frozen sshd succeeded");
    assert!(
        text(&out.stderr).contains("timed out"),
        "{}",
        text(&out.stderr)
    );

    let status = open.wait_exit(Duration::from_secs(10));
    assert_eq!(status.code(), Some(255), "{status}");
    assert!(
        frozen.elapsed() < Duration::from_secs(10),
        "{:?}",
        frozen.elapsed()
    );
    assert!(
        open.stderr().contains("not responding"),
        "{}",
        open.stderr()
    );

    sshd.thaw();
    expect_success(&sshd.ssh("hosta", &["true"]), "ssh after thaw");
}

#[test]
fn a_stopped_sshd_refuses_and_comes_back_on_the_same_port_and_host_key() {
    let mut sshd = Sshd::start(&["hosta"]);
    let port = sshd.port();
    let account = sshd.account("hosta").clone();
    let mut open = open_link(&sshd, "hosta", &[]);

    sshd.stop();
    assert_eq!(sshd.listener_pid(), None);
    assert!(sshd.connection_pids().is_empty());
    let status = open.wait_exit(DEADLINE);
    assert!(!status.success(), "the open link outlived stop(): {status}");
    // The account's own processes stay, as they do when a host's sshd restarts.
    let sleeper = sshd
        .account_pids(&account)
        .into_iter()
        .any(|pid| comm(pid).as_deref() == Some("sleep"));
    assert!(sleeper, "the remote `sleep 60` died with sshd");
    let out = sshd.ssh("hosta", &["true"]);
    assert!(!out.status.success(), "ssh to a stopped sshd succeeded");
    assert!(
        text(&out.stderr).contains("Connection refused"),
        "{}",
        text(&out.stderr)
    );

    sshd.start_again();
    assert_eq!(sshd.port(), port);
    // StrictHostKeyChecking yes against the same known_hosts: the same key.
    let out = sshd.ssh("hosta", &["id", "-un"]);
    assert_eq!(
        expect_success(&out, "ssh after start_again").trim(),
        account.name()
    );
}

#[test]
fn dropping_the_sshd_deletes_its_accounts_and_kills_their_processes() {
    let mut sshd = Sshd::start(&["hosta", "hostb"]);
    let accounts: Vec<Account> = sshd.accounts().to_vec();
    let root = sshd.root().to_owned();
    // A process that outlives its session, as a server started over SSH
    // does, on each host, and an open link to one of them.
    let _link = open_link(&sshd, "hostb", &[]);
    for account in &accounts {
        let out = sshd.ssh(
            sshd.alias(account),
            &["setsid sleep 600 </dev/null >/dev/null 2>&1 &"],
        );
        expect_success(&out, "a detached sleep over ssh");
    }
    let mut before: Vec<(u32, Vec<u32>)> = Vec::new();
    for account in &accounts {
        let alive = poll_until(DEADLINE, || {
            live_pids_of_uid(account.uid())
                .into_iter()
                .any(|pid| comm(pid).as_deref() == Some("sleep"))
        });
        assert!(alive, "no detached sleep runs as {}", account.name());
        before.push((account.uid(), live_pids_of_uid(account.uid())));
    }
    let connections = sshd.connection_pids();
    assert!(!connections.is_empty(), "the open link has sshd processes");
    let listener = sshd.listener_pid();
    // Dropped frozen: the harness tears down a host that stopped answering too.
    sshd.freeze();

    drop(sshd);

    let left: Vec<u32> = connections
        .iter()
        .copied()
        .chain(listener)
        .filter(|&pid| !process_gone(pid))
        .collect();
    assert!(left.is_empty(), "sshd processes remain: {left:?}");

    for (account, (uid, pids)) in accounts.iter().zip(&before) {
        let getent = Command::new("getent")
            .args(["passwd", account.name()])
            .output()
            .unwrap_or_else(|e| panic!("cannot run getent: {e}"));
        assert!(
            !getent.status.success(),
            "{} is still in passwd: {}",
            account.name(),
            text(&getent.stdout)
        );
        let left: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|&pid| !process_gone(pid))
            .collect();
        assert!(
            left.is_empty(),
            "processes of {} remain: {left:?}",
            account.name()
        );
        // Once deleted, the uid may already belong to a parallel test's account.
        let now = live_pids_of_uid(*uid);
        let reused = Command::new("getent")
            .args(["passwd", &uid.to_string()])
            .output()
            .is_ok_and(|out| out.status.success());
        assert!(
            now.is_empty() || reused,
            "processes of uid {uid} remain: {now:?}"
        );
        assert!(!account.home().exists(), "{}", account.home().display());
    }
    assert!(!root.exists(), "{} remains", root.display());
}

/// The command name of process `pid`.
fn comm(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|c| c.trim().to_owned())
}
