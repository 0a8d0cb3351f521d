//! `signaltty upgrade`: asks the running server to exec a new binary in its
//! place (server.upgrade, docs/upgrade.md) and prints what was handed over.
//! The answer comes from the binary that took over, on the same connection.

use crate::args::Global;
use crate::cli::{fail_call, fail_with, resolve_socket};
use signaltty_model::client::Client;
use signaltty_protocol::server::{ServerUpgradeParams, UpgradeReport};
use signaltty_protocol::{ErrorCode, Method};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long the whole handover may take before the CLI gives up waiting
/// (the server goes on either way).
const UPGRADE_TIMEOUT: Duration = Duration::from_secs(60);

/// `signaltty upgrade [--binary PATH]`.
pub fn upgrade(global: &Global, binary: Option<PathBuf>) -> i32 {
    // The server resolves a relative path from its own directory: send ours.
    let binary = match binary.map(std::path::absolute).transpose() {
        Ok(b) => b,
        Err(e) => {
            return fail_with(
                ErrorCode::BadParams,
                format!("cannot resolve the binary's path: {e}"),
            );
        },
    };
    let started = Instant::now();
    let outcome = Client::connect(&resolve_socket(global)).and_then(|mut c| {
        c.set_timeout(Some(UPGRADE_TIMEOUT))?;
        c.call(Method::ServerUpgrade(ServerUpgradeParams {
            binary: binary.map(|b| b.display().to_string()),
        }))
    });
    let value = match outcome {
        Ok(v) => v,
        Err(e) => return fail_call(e),
    };
    let took = started.elapsed();
    if global.json {
        say!("{value}");
    }
    let Ok(report) = serde_json::from_value::<UpgradeReport>(value) else {
        return fail_with(ErrorCode::Internal, "unexpected result shape");
    };
    if !global.json {
        show(&report, took);
    }
    match &report.fallback {
        Some(_) => 1,
        None => 0,
    }
}

fn show(r: &UpgradeReport, took: Duration) {
    say!(
        "upgraded signaltty {} -> {} in place (pid {}) in {} ms",
        if r.from_version.is_empty() {
            "?"
        } else {
            &r.from_version
        },
        r.to_version,
        r.pid,
        took.as_millis()
    );
    if let Some(why) = &r.fallback {
        say!("  ! the new binary could not read the handoff record: {why}");
        say!(
            "  ! it restored from the snapshot, as after a restart: the panes' processes were stopped"
        );
        return;
    }
    let live: Vec<_> = r.panes.iter().filter(|p| p.pid.is_some()).collect();
    say!(
        "  handed over {} pane(s), {} with their process; events continue after seq {}",
        r.panes.len(),
        live.len(),
        r.seq
    );
    for p in &r.panes {
        match p.pid {
            Some(pid) => say!(
                "    {}  pid {pid}  output offset {}",
                p.pane_id,
                p.output_offset
            ),
            None => say!("    {}  (no process)", p.pane_id),
        }
    }
    say!(
        "  the longest any terminal went unread: {} ms",
        r.longest_unread_ms
    );
    for problem in &r.problems {
        say!("  ! {problem}");
    }
}
