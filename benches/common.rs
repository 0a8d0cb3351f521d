//! What both benchmark binaries share: error context, and signal handling that lets
//! an interrupted run stop its servers and remove its directories.

// Each binary uses a different subset.
#![allow(dead_code)]

use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};

/// A benchmark step's result; the error says what failed.
pub type Res<T> = Result<T, String>;

/// Adds context to an error.
pub trait Context<T> {
    /// Maps the error to "what: error".
    fn ctx(self, what: impl FnOnce() -> String) -> Res<T>;
}

impl<T, E: std::fmt::Display> Context<T> for Result<T, E> {
    fn ctx(self, what: impl FnOnce() -> String) -> Res<T> {
        self.map_err(|e| format!("{}: {e}", what()))
    }
}

/// Set by the signal thread on SIGINT/SIGTERM; every measuring loop checks it.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Fails once the run was interrupted.
pub fn check_interrupted() -> Res<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

fn caught_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    set.add(Signal::SIGTERM);
    set
}

/// Blocks SIGINT and SIGTERM in this thread (and so in every thread spawned later)
/// and waits for them on a dedicated thread (no signal handler, hence no `unsafe`).
pub fn catch_signals() -> Res<()> {
    let set = caught_signals();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None).ctx(|| "sigprocmask".into())?;
    std::thread::spawn(move || {
        while set.wait().is_ok() {
            INTERRUPTED.store(true, Ordering::Relaxed);
        }
    });
    Ok(())
}

/// Spawns a child with SIGINT and SIGTERM unblocked: std's `Command` (posix_spawn
/// path) passes the parent thread's signal mask on to the child, so without this a
/// server would ignore our SIGTERM.
pub fn spawn_unmasked(cmd: &mut Command) -> std::io::Result<Child> {
    let set = caught_signals();
    pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&set), None)?;
    let child = cmd.spawn();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None)?;
    child
}
