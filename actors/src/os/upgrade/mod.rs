//! The in-place upgrade (docs/upgrade.md): the server hands its terminals,
//! children and socket to a new binary by `execve` in the same process, so
//! every child stays its child and no agent is interrupted.
//!
//! ```text
//!   server.upgrade ─▶ preflight (binary.rs: file, machine; `upgrade-probe`: record versions)
//!     quiesce: accept paused, new requests held, in-flight replies finish
//!     every Pane: HandOver (reader stopped, terminal exported, master duplicated)
//!     journal settled ─▶ snapshot ─▶ record.rs (upgrade.json + envelope)
//!     fds.rs: exec, keeping exactly listener + asking connection + masters
//!        │ fails: every pane takes its master back, requests released, error
//!        ▼
//!   new binary: takeover.rs ─▶ claim fds ─▶ read record ─▶ adopt PTYs
//!     restore (handed panes stay live) ─▶ answer the asking connection
//! ```
//!
//! The Supervisor's side is `supervisor/upgrade.rs`; the Pane's,
//! `pane/handoff.rs`.

pub mod binary;
pub mod fds;
pub mod record;
pub mod takeover;

use crate::error::Error;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How this server process was started, for the exec: the binary's path
/// (as it was then: a newly installed file at the same path is the usual
/// upgrade), its arguments, and the service manager's notify socket.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The binary's path when the process started.
    pub exe: PathBuf,
    /// `argv`, the program name first.
    pub args: Vec<OsString>,
    /// `NOTIFY_SOCKET` as it was given.
    pub notify_socket: Option<OsString>,
}

static ORIGIN: OnceLock<Origin> = OnceLock::new();

/// Remembers how the process started; call it first thing in the server
/// process (before the environment is cleaned). Only the first call counts.
pub fn remember_origin() {
    let args: Vec<OsString> = std::env::args_os().collect();
    let exe = std::env::current_exe()
        .ok()
        .or_else(|| args.first().map(PathBuf::from))
        .unwrap_or_default();
    let _ = ORIGIN.set(Origin {
        exe,
        args,
        notify_socket: std::env::var_os("NOTIFY_SOCKET"),
    });
}

/// How the process started, when it is a server process.
pub fn origin() -> Option<&'static Origin> {
    ORIGIN.get()
}

/// How long the new binary's `upgrade-probe` may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The hidden command that says which records a binary reads.
pub const PROBE_COMMAND: &str = "upgrade-probe";

/// What `signaltty upgrade-probe` prints, one JSON line.
pub fn probe_line() -> String {
    serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "records": [record::VERSION],
    })
    .to_string()
}

/// Everything that can be known before the server stops anything: the
/// binary is one this machine runs (`binary::check`), it answers
/// `upgrade-probe` within `PROBE_TIMEOUT`, and it reads this binary's record
/// version. Blocking: run it on a blocking thread. Returns the checked path
/// and the new binary's version.
pub fn preflight(path: &Path) -> Result<(PathBuf, String), Error> {
    let path = binary::check(path, binary::this_machine()?)?;
    let cannot = |why: String| {
        Error::BadParams(format!(
            "{} cannot take over this server: {why}",
            path.display()
        ))
    };
    let mut child = std::process::Command::new(&path)
        .arg(PROBE_COMMAND)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| cannot(format!("it does not start ({e})")))?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(cannot(format!(
                    "`{PROBE_COMMAND}` did not answer within {} s",
                    PROBE_TIMEOUT.as_secs()
                )));
            },
            Err(e) => return Err(cannot(format!("cannot wait for it: {e}"))),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.read_to_string(&mut out);
    }
    let answer: serde_json::Value = serde_json::from_str(out.trim()).map_err(|_| {
        cannot(format!(
            "`{PROBE_COMMAND}` exited {status} without saying which records it reads \
             (a signaltty older than in-place upgrades?); stop and start the server instead"
        ))
    })?;
    let reads = answer
        .get("records")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|v| {
            v.iter()
                .any(|n| n.as_u64() == Some(u64::from(record::VERSION)))
        });
    if !reads {
        return Err(cannot(format!(
            "it does not read handoff records of version {} (it reads {})",
            record::VERSION,
            answer
                .get("records")
                .map_or_else(|| "none".into(), ToString::to_string)
        )));
    }
    let version = answer
        .get("version")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    Ok((path, version))
}
