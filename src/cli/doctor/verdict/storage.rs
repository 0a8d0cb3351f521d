//! The doctor's verdict on the running server's state directory
//! (docs/reliability.md#a-full-disk).

use super::{Check, Verdict, human_bytes};

/// Whether the running server can write its state directory
/// (docs/reliability.md#a-full-disk).
pub fn storage(s: &signaltty_protocol::server::StorageStatus) -> Check {
    let free = s
        .free_bytes
        .map(|n| format!(", {} free", human_bytes(n)))
        .unwrap_or_default();
    if s.state == "ok" {
        return Check::new(
            "server storage",
            Verdict::Ok,
            format!("{} takes writes{free}", s.dir),
        );
    }
    let reason = s.reason.as_deref().unwrap_or("io");
    let fix = match reason {
        "no_space" | "quota" => "free space on that filesystem; the server writes again by itself",
        "read_only" => "make the filesystem writable again; the server writes again by itself",
        "vanished" => "put the state directory back, or `signaltty stop` then `signaltty start`",
        _ => "check the disk (dmesg); the server retries by itself",
    };
    Check::new(
        "server storage",
        Verdict::Fail,
        format!(
            "{} cannot be written since {} ({reason}: {}){free}: changes are refused, the agents keep running, {} event(s) held, {} dropped",
            s.path.as_deref().unwrap_or(&s.dir),
            s.since.as_ref().map(|t| t.as_str()).unwrap_or("now"),
            s.error.as_deref().unwrap_or("write failed"),
            s.held_events,
            s.lost_events
        ),
    )
    .fix(fix)
}
