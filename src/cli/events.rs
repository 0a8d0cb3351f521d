//! `signaltty events` (follow the event stream) and `signaltty journal verify`
//! (check the journal files offline).

use crate::args::Global;
use crate::cli::{EXIT_FAILED, fail, fail_call, fail_with, failure};
use signaltty_model::Env;
use signaltty_model::client::{Client, Target};
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
    let socket = match crate::remote::target(global) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut out = std::io::stdout().lock();
    let mut emit = |line: &str| writeln!(out, "{line}").and_then(|()| out.flush()).is_ok();
    match follow(&socket, from_seq, no_follow, &filters, &mut emit) {
        Followed::Ended(_) => 0,
        Followed::Failed(code, _) => code,
    }
}

/// How a follower ended, with the last seq it printed.
enum Followed {
    /// The server stopped, the replay was all asked for, or stdout closed.
    Ended(Option<u64>),
    /// It could not (go on) following: the code it printed.
    Failed(i32, Option<u64>),
}

/// Subscribes on `socket` and hands every event line to `emit` (which says
/// whether to go on), subscribing again from the last one after a
/// connection closed without the server stopping.
fn follow(
    socket: &Target,
    from_seq: Option<u64>,
    no_follow: bool,
    filters: &[String],
    emit: &mut dyn FnMut(&str) -> bool,
) -> Followed {
    let mut client = match Client::open(socket) {
        Ok(c) => c,
        Err(e) => return Followed::Failed(fail_call(e), from_seq),
    };
    let mut from = from_seq;
    let mut again = false;
    loop {
        let (head, mut replayed) = match subscribe(&mut client, from, filters) {
            Ok(head) => head,
            // A server that stops while this reconnects is the end.
            Err(_) if again => return Followed::Ended(from),
            Err(why) => return Followed::Failed(fail(&why), from),
        };
        // Following from now: a later subscription goes on from this head.
        let mut last = from.unwrap_or(head);
        let mut stopping = false;
        loop {
            if no_follow && replayed == 0 {
                return Followed::Ended(Some(last));
            }
            let line = match client.read_line_blocking() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) if matches!(socket, Target::Host(_)) => {
                    // The link was lost: a reconnect replays from `last`.
                    let _ = e;
                    break;
                },
                Err(e) => return Followed::Failed(fail_call(e), Some(last)),
            };
            match ServerLine::parse(&line) {
                Ok(ServerLine::Event(e)) => {
                    last = last.max(e.seq);
                    stopping |= e.event == "server.will_shutdown";
                    replayed = replayed.saturating_sub(1);
                    // A closed stdout ends the command quietly, like any Unix filter.
                    if !emit(&line) {
                        return Followed::Ended(Some(last));
                    }
                },
                Ok(ServerLine::Response(r)) => {
                    if let Some(e) = r.error {
                        return Followed::Failed(fail_with(e.code, e.message), Some(last));
                    }
                },
                Err(e) => {
                    let code =
                        fail_with(ErrorCode::Internal, format!("unreadable server line: {e}"));
                    return Followed::Failed(code, Some(last));
                },
            }
        }
        if stopping {
            return Followed::Ended(Some(last));
        }
        match reconnect(socket) {
            Some(c) => {
                client = c;
                from = Some(last);
                again = true;
            },
            None => return Followed::Ended(Some(last)),
        }
    }
}

/// `signaltty events --all-hosts`: every server's events as they come, each
/// line with its `"host"` first. A host that cannot be reached or goes away
/// is tried again with a growing pause and, once back, replays from the
/// last seq printed for it: nothing is missed or printed twice.
pub fn all_hosts(global: &Global, no_follow: bool, filters: Vec<String>) -> i32 {
    if let Err(code) = crate::remote::fleet::check(global) {
        return code;
    }
    let out = std::sync::Mutex::new(std::io::stdout());
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for name in crate::remote::fleet::names() {
            let g = crate::remote::fleet::aimed(global, &name);
            let (out, done, filters) = (&out, &done, &filters);
            s.spawn(move || {
                let Ok(target) = crate::remote::target(&g) else {
                    return;
                };
                let mut emit = |line: &str| {
                    let tagged = crate::remote::fleet::tag_line(line, &name);
                    let Ok(mut o) = out.lock() else {
                        return false;
                    };
                    let ok = writeln!(o, "{tagged}").and_then(|()| o.flush()).is_ok();
                    if !ok {
                        done.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    ok
                };
                let mut from = None;
                let mut pause = std::time::Duration::from_millis(200);
                loop {
                    let ended = follow(&target, from, no_follow, filters, &mut emit);
                    let (Followed::Ended(last) | Followed::Failed(_, last)) = ended;
                    from = last.or(from);
                    let local = matches!(target, Target::Socket(_));
                    if done.load(std::sync::atomic::Ordering::Relaxed) || no_follow || local {
                        // The local server stopping ends its part; a host's
                        // server is reached again when it comes back.
                        return;
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_secs(5));
                }
            });
        }
    });
    0
}

/// How long `events` tries to subscribe again after its connection closed.
const RESUBSCRIBE_FOR: std::time::Duration = std::time::Duration::from_secs(5);
/// The same for a host: its link may need a reconnect (docs/remote.md).
const RESUBSCRIBE_REMOTE_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// A new connection to `socket` within `RESUBSCRIBE_FOR`; `None` once the
/// socket is gone or nothing answers.
fn reconnect(socket: &Target) -> Option<Client> {
    let within = match socket {
        Target::Socket(_) => RESUBSCRIBE_FOR,
        Target::Host(_) => RESUBSCRIBE_REMOTE_FOR,
    };
    let deadline = std::time::Instant::now() + within;
    let mut pause = std::time::Duration::from_millis(50);
    while std::time::Instant::now() < deadline {
        if let Target::Socket(path) = socket
            && !path.exists()
        {
            return None;
        }
        if let Ok(c) = Client::open(socket) {
            return Some(c);
        }
        std::thread::sleep(pause);
        if matches!(socket, Target::Host(_)) {
            pause = (pause * 2).min(std::time::Duration::from_secs(2));
        }
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
