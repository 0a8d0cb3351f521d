//! `signaltty events` (follow the event stream) and `signaltty journal verify`
//! (check the journal files offline).

use crate::args::Global;
use crate::cli::{EXIT_FAILED, fail, fail_call, fail_with, failure, resolve_socket};
use signaltty_model::Env;
use signaltty_model::client::Client;
use signaltty_model::journal::verify::verify as verify_journal;
use signaltty_protocol::subscribe::{ReplayStatus, SubscribeParams, SubscribeResult};
use signaltty_protocol::{ErrorCode, Method, ServerLine};
use std::io::Write;
use std::path::PathBuf;

/// `signaltty events`: subscribes and prints every event line as it arrives, until the server
/// stops (or the user stops the command). A connection closed without the
/// server stopping (an in-place upgrade closes every one, docs/upgrade.md)
/// is subscribed again from the last event printed: nothing is missed or
/// printed twice.
///
/// With `no_follow`, it stops after the replayed events (the count the
/// reply's `replay.returned` gives, docs/protocol.md#event-sequence-and-replay).
pub fn events(
    global: &Global,
    from_seq: Option<u64>,
    no_follow: bool,
    filters: Vec<String>,
) -> i32 {
    let socket = resolve_socket(global);
    let mut client = match Client::connect(&socket) {
        Ok(c) => c,
        Err(e) => return fail_call(e),
    };
    let mut from = from_seq;
    let mut out = std::io::stdout().lock();
    let mut again = false;
    loop {
        let (head, mut replayed) = match subscribe(&mut client, from, &filters) {
            Ok(head) => head,
            // A server that stops while this reconnects is the end.
            Err(_) if again => return 0,
            Err(why) => return fail(&why),
        };
        // Following from now: a later subscription goes on from this head.
        let mut last = from.unwrap_or(head);
        let mut stopping = false;
        loop {
            if no_follow && replayed == 0 {
                return 0;
            }
            let line = match client.read_line_blocking() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => return fail_call(e),
            };
            match ServerLine::parse(&line) {
                Ok(ServerLine::Event(e)) => {
                    last = last.max(e.seq);
                    stopping |= e.event == "server.will_shutdown";
                    replayed = replayed.saturating_sub(1);
                    // A closed stdout ends the command quietly, like any Unix filter.
                    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                        return 0;
                    }
                },
                Ok(ServerLine::Response(r)) => {
                    if let Some(e) = r.error {
                        return fail_with(e.code, e.message);
                    }
                },
                Err(e) => {
                    return fail_with(ErrorCode::Internal, format!("unreadable server line: {e}"));
                },
            }
        }
        if stopping {
            return 0;
        }
        match reconnect(&socket) {
            Some(c) => {
                client = c;
                from = Some(last);
                again = true;
            },
            None => return 0,
        }
    }
}

/// How long `events` tries to subscribe again after its connection closed.
const RESUBSCRIBE_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// A new connection to `socket` within `RESUBSCRIBE_FOR`; `None` once the
/// socket is gone or nothing answers.
fn reconnect(socket: &std::path::Path) -> Option<Client> {
    let deadline = std::time::Instant::now() + RESUBSCRIBE_FOR;
    while std::time::Instant::now() < deadline && socket.exists() {
        if let Ok(c) = Client::connect(socket) {
            return Some(c);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    None
}

/// Subscribes from `from_seq`; returns the head and how many replayed
/// events follow, or why not (the replay cannot be complete, or the call
/// failed).
fn subscribe(
    client: &mut Client,
    from_seq: Option<u64>,
    filters: &[String],
) -> Result<(u64, usize), String> {
    let params = SubscribeParams {
        events: (!filters.is_empty()).then(|| filters.to_vec()),
        from_seq,
        task_ids: None,
    };
    let reply = client
        .call(Method::Subscribe(params))
        .map_err(|e| failure(e.code, e.message))?;
    let result: SubscribeResult = serde_json::from_value(reply).map_err(|e| {
        failure(
            ErrorCode::Internal,
            format!("unexpected subscribe result: {e}"),
        )
    })?;
    if let Some(replay) = result
        .replay
        .as_ref()
        .filter(|r| r.status != ReplayStatus::Complete)
    {
        return Err(format!(
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
    Ok((result.seq, result.replay.map_or(0, |r| r.returned)))
}

/// `signaltty journal verify`: checks the journal files of the state
/// directory and reports.
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
    if report.ok() { 0 } else { EXIT_FAILED }
}
