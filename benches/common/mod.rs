//! What the benchmark binaries share: error context, the signal handling that lets an
//! interrupted run stop its servers and remove its directories, and the modules below.
//! Each binary includes this tree with `#[path = "../common/mod.rs"] mod common;`.

// Each binary uses a different subset.
#![allow(dead_code)]

pub mod b64;
pub mod client;
pub mod fsync;
pub mod machine;
pub mod procfs;
pub mod server;
pub mod stats;
pub mod tempdir;
pub mod tmux;

use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The binary being built (`signaltty-bench`, …): names it in messages and temp dirs.
pub const WHO: &str = env!("CARGO_BIN_NAME");

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
fn catch_signals() -> Res<()> {
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

/// Runs `cmd` to completion with piped stdout; an error unless it exits 0.
pub fn run_output(cmd: &mut Command) -> Res<String> {
    let desc = format!("{cmd:?}");
    let child = spawn_unmasked(
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .ctx(|| format!("cannot run {desc}"))?;
    let out = child.wait_with_output().ctx(|| desc.clone())?;
    if !out.status.success() {
        return Err(format!(
            "{desc} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Polls `ready(pending)` (1 ms apart), which says for each pending item whether it
/// is ready, until every item is; after `limit`, an error `"{what}: [items left]"`.
pub fn wait_all(
    items: &[String],
    limit: Duration,
    what: &str,
    mut ready: impl FnMut(&[String]) -> Res<Vec<bool>>,
) -> Res<()> {
    let deadline = Instant::now() + limit;
    let mut pending: Vec<String> = items.to_vec();
    while !pending.is_empty() {
        check_interrupted()?;
        let ready = ready(&pending)?;
        let mut i = 0;
        pending.retain(|_| {
            i += 1;
            !ready[i - 1]
        });
        if pending.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("{what}: {pending:?}"));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// The signaltty binary to measure: `--bin`, or `signaltty` next to this executable
/// (i.e. target/release/signaltty); an error when it is not there.
pub fn signaltty_bin(given: Option<&Path>) -> Res<PathBuf> {
    let bin = match given {
        Some(b) => b.to_path_buf(),
        None => {
            let exe = std::env::current_exe().ctx(|| "cannot find this executable".into())?;
            let dir = exe
                .parent()
                .ok_or_else(|| "this executable has no directory".to_owned())?;
            dir.join("signaltty")
        },
    };
    if !bin.is_file() {
        return Err(format!(
            "{} not found: run `cargo build --release` first or pass --bin",
            bin.display()
        ));
    }
    Ok(bin)
}

/// A benchmark's `main`: catches SIGINT/SIGTERM, runs `run` and reports its error.
pub fn main(run: impl FnOnce() -> Res<()>) -> ExitCode {
    if let Err(e) = catch_signals() {
        eprintln!("{WHO}: {e}");
        return ExitCode::FAILURE;
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{WHO}: {e}");
            ExitCode::FAILURE
        },
    }
}
