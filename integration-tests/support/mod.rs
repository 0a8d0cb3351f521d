//! The end-to-end harness: fresh temp XDG dirs and a real `signaltty` process
//! (`TestEnv`, `TestServer`), a blocking JSON-lines client (`Client`), bounded
//! polling helpers, and a real sshd on loopback with throwaway accounts for the
//! remote-host tests (`Sshd`). Nothing here sleeps for a state; every wait has
//! a deadline.

#![allow(dead_code)]

pub mod agents;
pub mod client;
pub mod git;
pub mod life;
pub mod mount;
pub mod process;
pub mod sshd;
pub mod tmux;

pub use client::{Client, RawLine, request_line};
pub use process::{TestEnv, TestServer};

use serde_json::Value;
use signaltty_protocol::{ErrorBody, ErrorCode, Response};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long any single wait of the harness lasts before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// Polls `probe` until it returns `Some`, backing off from 1 ms to 20 ms between
/// tries, and fails with `what` once `deadline` has passed.
pub fn wait_until<T>(what: &str, deadline: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        if start.elapsed() >= deadline {
            panic!("timed out after {deadline:?} waiting for {what}");
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Polls `probe` like `wait_until` but returns `false` at the deadline instead of
/// failing, so the caller can report what it saw last.
pub fn poll_until(deadline: Duration, mut probe: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if probe() {
            return true;
        }
        if start.elapsed() >= deadline {
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The result of a successful response; fails the test with the whole response otherwise.
#[track_caller]
pub fn ok(response: Response) -> Value {
    assert!(response.ok, "expected success, got {response:?}");
    assert!(
        response.error.is_none(),
        "a success carries no error: {response:?}"
    );
    response.result.unwrap_or(Value::Null)
}

/// The error of a failed response; fails the test with the whole response otherwise.
#[track_caller]
pub fn err(response: Response) -> ErrorBody {
    assert!(!response.ok, "expected an error, got {response:?}");
    assert!(
        response.result.is_none(),
        "an error carries no result: {response:?}"
    );
    match response.error {
        Some(e) => e,
        None => panic!("an error response without `error`: {response:?}"),
    }
}

/// Asserts that `response` is an error with `code` and returns the error.
#[track_caller]
pub fn expect_code(response: Response, code: ErrorCode) -> ErrorBody {
    let e = err(response);
    assert_eq!(e.code, code, "unexpected error code: {e:?}");
    e
}

/// The number of open file descriptors of process `pid`.
pub fn fd_count(pid: u32) -> usize {
    match std::fs::read_dir(format!("/proc/{pid}/fd")) {
        Ok(dir) => dir.count(),
        Err(e) => panic!("cannot list /proc/{pid}/fd: {e}"),
    }
}

/// Whether process `pid` no longer runs: gone from `/proc`, or a zombie.
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state letter follows the parenthesised command name, which may itself
        // contain spaces or parentheses, so look after the last ')'.
        Ok(stat) => match stat.rfind(')') {
            Some(end) => matches!(stat[end + 1..].trim_start().chars().next(), Some('Z' | 'X')),
            None => false,
        },
    }
}

/// The permission bits (`mode & 0o7777`) of `path`, not following a final symlink.
pub fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.permissions().mode() & 0o7777,
        Err(e) => panic!("cannot stat {}: {e}", path.display()),
    }
}

/// Whether `text` is a workspace id: `ws_` and 32 lowercase hex digits.
pub fn is_workspace_id(text: &str) -> bool {
    text.strip_prefix("ws_").is_some_and(|hex| {
        hex.len() == 32
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// A string field of a JSON object, failing the test with the object when absent.
#[track_caller]
pub fn str_field<'a>(value: &'a Value, field: &str) -> &'a str {
    match value.get(field).and_then(Value::as_str) {
        Some(s) => s,
        None => panic!("no string field `{field}` in {value}"),
    }
}

/// An unsigned integer field of a JSON object, failing the test with the object when absent.
#[track_caller]
pub fn u64_field(value: &Value, field: &str) -> u64 {
    match value.get(field).and_then(Value::as_u64) {
        Some(n) => n,
        None => panic!("no unsigned integer field `{field}` in {value}"),
    }
}

/// State letter, parent pid, process group and session of process `pid` from
/// `/proc/<pid>/stat`, or `None` once it is gone.
pub fn proc_stat(pid: u32) -> Option<(char, u32, u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is parenthesised and may contain spaces or parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let mut number = || fields.next().and_then(|f| f.parse::<u32>().ok());
    Some((state, number()?, number()?, number()?))
}

/// The pids of the children of process `parent` whose `/proc` state
/// `state` accepts.
fn children_where(parent: u32, state: impl Fn(char) -> bool) -> Vec<u32> {
    let dir = match std::fs::read_dir("/proc") {
        Ok(dir) => dir,
        Err(e) => panic!("cannot list /proc: {e}"),
    };
    dir.filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(
            |&pid| matches!(proc_stat(pid), Some((s, ppid, _, _)) if ppid == parent && state(s)),
        )
        .collect()
}

/// The pids of the zombie children of process `parent` (state `Z`, ppid `parent`).
pub fn zombie_children(parent: u32) -> Vec<u32> {
    children_where(parent, |s| s == 'Z')
}

/// The pids of every child of process `parent`, zombies included.
pub fn children(parent: u32) -> Vec<u32> {
    children_where(parent, |_| true)
}
