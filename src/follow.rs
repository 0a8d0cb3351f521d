//! `signaltty events` (follow the event stream) and `signaltty journal verify`
//! (check the journal files offline).

use crate::Global;
use crate::cli::{fail, resolve_socket};
use crate::client::Client;
use signaltty_actors::Env;
use signaltty_actors::journal::verify::verify as verify_journal;
use signaltty_protocol::subscribe::{ReplayStatus, SubscribeParams, SubscribeResult};
use signaltty_protocol::{Method, ServerLine};
use std::io::Write;
use std::path::PathBuf;

/// Subscribes and prints every event line as it arrives, until the server closes
/// the connection (or the user stops the command).
pub fn events(global: &Global, from_seq: Option<u64>, filters: Vec<String>) -> i32 {
    let mut client = match Client::connect(&resolve_socket(global)) {
        Ok(c) => c,
        Err(e) => return fail(&format!("{}: {}", e.code, e.message)),
    };
    let params = SubscribeParams {
        events: (!filters.is_empty()).then_some(filters),
        from_seq,
        task_ids: None,
    };
    let reply = match client.call(Method::Subscribe(params)) {
        Ok(r) => r,
        Err(e) => return fail(&format!("{}: {}", e.code, e.message)),
    };
    let result: SubscribeResult = match serde_json::from_value(reply) {
        Ok(r) => r,
        Err(e) => return fail(&format!("INTERNAL: unexpected subscribe result: {e}")),
    };
    if let Some(replay) = result
        .replay
        .as_ref()
        .filter(|r| r.status != ReplayStatus::Complete)
    {
        return fail(&format!(
            "cannot replay from seq {}: {} (history is kept after seq {}, the head is {}); run without --from-seq to follow from now",
            replay.requested_after,
            serde_json::to_value(replay.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            replay.retained_after,
            replay.through
        ));
    }
    let mut out = std::io::stdout().lock();
    loop {
        let line = match client.read_line_blocking() {
            Ok(Some(line)) => line,
            Ok(None) => return 0,
            Err(e) => return fail(&format!("{}: {}", e.code, e.message)),
        };
        match ServerLine::parse(&line) {
            Ok(ServerLine::Event(_)) => {
                // A closed stdout ends the command quietly, like any Unix filter.
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    return 0;
                }
            },
            Ok(ServerLine::Response(r)) => {
                if let Some(e) = r.error {
                    return fail(&format!("{}: {}", e.code, e.message));
                }
            },
            Err(e) => return fail(&format!("INTERNAL: unreadable server line: {e}")),
        }
    }
}

/// Checks the journal files of the state directory and reports.
pub fn verify(global: &Global, state_dir: Option<PathBuf>) -> i32 {
    let dir = state_dir.unwrap_or_else(|| Env::from_process().state_dir());
    let report = verify_journal(&dir);
    if global.json {
        say!("{}", serde_json::to_string(&report).unwrap_or_default());
    } else {
        say!("journal in {}", report.dir);
        for fact in &report.facts {
            say!("  {fact}");
        }
        if report.ok() {
            say!("ok: no problems found");
        } else {
            for problem in &report.problems {
                say!("  PROBLEM: {problem}");
            }
        }
    }
    if report.ok() {
        0
    } else {
        crate::cli::EXIT_FAILED
    }
}
