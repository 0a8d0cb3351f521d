//! The throwaway local accounts that stand for remote hosts: made with
//! `useradd`, emptied of processes and removed with `userdel` when the test
//! ends. Tests running in parallel take the lock on `/etc/passwd` in turn, so
//! every account command is retried while it fails on that lock.

use super::procs;
use crate::support::DEADLINE;
use nix::sys::signal::Signal;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The lowest uid an account of the harness may have: a lookup that went
/// wrong must never make the harness kill the processes of a system user.
const MIN_UID: u32 = 1000;

/// Numbers the accounts of this test process, so names are unique across
/// the tests of one run.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// One local account standing for a host: the `Sshd` that made it logs it in
/// as `User` of the alias `label`.
#[derive(Clone, Debug)]
pub struct Account {
    label: String,
    name: String,
    uid: u32,
    home: PathBuf,
}

impl Account {
    /// The login name, `stt<label>-<pid>-<n>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The account's uid.
    pub fn uid(&self) -> u32 {
        self.uid
    }

    /// The home directory, `<sshd temp dir>/home-<label>`.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The label it was made for, which is also its host alias.
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// Fails unless `label` is 1 to 12 lower-case letters and digits (it goes
/// into a login name, which may have 32 characters).
pub fn check_label(label: &str) -> Result<(), String> {
    let fine = (1..=12).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if fine {
        Ok(())
    } else {
        Err(format!(
            "the account label {label:?} is not 1 to 12 lower-case letters and digits"
        ))
    }
}

/// Makes the account for `label` with its home `<root>/home-<label>`, a login
/// shell, and the password `*` (no password login, but not locked: with
/// `UsePAM no`, sshd refuses every login to a locked account, key or not).
pub fn create(root: &Path, label: &str) -> Result<Account, String> {
    check_label(label)?;
    let home = root.join(format!("home-{label}"));
    let start = Instant::now();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("stt{label}-{}-{n}", std::process::id());
        if name.len() > 32 {
            return Err(format!(
                "the login name {name} is longer than 32 characters"
            ));
        }
        let home_arg = home.to_string_lossy().into_owned();
        let out = admin(&[
            "useradd",
            "-m",
            "-d",
            &home_arg,
            "-s",
            "/bin/sh",
            "-p",
            "*",
            "-c",
            "signaltty test account",
            &name,
        ])?;
        match out.status.code() {
            Some(0) => return lookup(label, &name, home),
            // The name is taken (by a run killed before its clean-up): try the next one.
            Some(9) if start.elapsed() < DEADLINE => continue,
            _ => return Err(failed("useradd", &name, &out)),
        }
    }
}

/// The account `name` just made, with its uid.
fn lookup(label: &str, name: &str, home: PathBuf) -> Result<Account, String> {
    let uid = match nix::unistd::User::from_name(name) {
        Ok(Some(user)) => user.uid.as_raw(),
        Ok(None) => {
            return Err(format!(
                "useradd {name} succeeded but getpwnam finds no {name}"
            ));
        },
        Err(e) => return Err(format!("getpwnam {name}: {e}")),
    };
    let account = Account {
        label: label.to_owned(),
        name: name.to_owned(),
        uid,
        home,
    };
    if uid < MIN_UID {
        // Deleting it is safe (it is ours); killing its uid's processes is not.
        let _ = userdel(&account);
        return Err(format!("useradd gave {name} the system uid {uid}"));
    }
    Ok(account)
}

/// Kills every process running as the account (a server started over SSH
/// outlives its session), until none is left, then deletes the account and
/// its home.
pub fn delete(account: &Account) -> Result<(), String> {
    let killed = kill_all(account);
    let deleted = userdel(account);
    killed.and(deleted)
}

/// SIGKILLs the processes of the account's uid until none runs (zombies
/// excluded: they run nothing and only their parent can remove them).
fn kill_all(account: &Account) -> Result<(), String> {
    if account.uid < MIN_UID {
        return Err(format!(
            "refusing to kill the processes of uid {}",
            account.uid
        ));
    }
    let start = Instant::now();
    loop {
        let left = procs::of_uid(account.uid);
        if left.is_empty() {
            return Ok(());
        }
        if start.elapsed() >= DEADLINE {
            return Err(format!(
                "processes of {} (uid {}) outlived SIGKILL for {DEADLINE:?}: {left:?}",
                account.name, account.uid
            ));
        }
        for p in &left {
            procs::signal(p, Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `userdel -r -f`: the account, its group and its home; an account already
/// gone is fine.
fn userdel(account: &Account) -> Result<(), String> {
    let out = admin(&["userdel", "-r", "-f", &account.name])?;
    match out.status.code() {
        Some(0 | 6) => Ok(()),
        _ => Err(failed("userdel", &account.name, &out)),
    }
}

/// Runs an account command (`useradd`, `userdel`) and returns its output,
/// running it again while it fails on the lock of the account files.
fn admin(args: &[&str]) -> Result<Output, String> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        let out = Command::new(args[0])
            .args(&args[1..])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {} (the SSH tests need root): {e}", args[0]))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let locked = stderr.contains("cannot lock") || stderr.contains("try again later");
        if out.status.success() || !locked {
            return Ok(out);
        }
        if start.elapsed() >= DEADLINE {
            return Err(format!(
                "{args:?} kept failing on a lock for {DEADLINE:?}: {}",
                stderr.trim()
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

fn failed(program: &str, name: &str, out: &Output) -> String {
    format!(
        "{program} {name} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    )
}
