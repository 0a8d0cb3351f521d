//! The managed hook command (docs/integrations.md#the-managed-command): how
//! signaltty's reporter is written into an agent's hook file, and how a command
//! already there is recognised as ours. Pure.

use crate::agents::vocabulary::ReporterMode;
use std::path::Path;

/// Every command signaltty writes ends with this comment: it marks ownership.
pub const MARKER: &str = " # signaltty hook-event (managed)";

/// Quotes `text` for a POSIX shell: single quotes, each `'` as `'"'"'`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\"'\"'"))
}

/// The command an agent's hook runs for `event`: the reporter, quoted, with the
/// payload on stdin, in `mode` (the waiting permission reporter or not).
pub fn managed(reporter: &Path, agent: &str, event: &str, mode: ReporterMode) -> String {
    let wait = match mode {
        ReporterMode::WaitForAnswer => " --wait-for-answer",
        ReporterMode::Report => "",
    };
    format!(
        "{} hook-event --agent {agent} --event {event} --payload-stdin{wait}{MARKER}",
        shell_quote(&reporter.to_string_lossy())
    )
}

/// Whether `command` is one signaltty wrote: it ends with the marker, or it
/// is exactly the unmarked legacy form `<bin> hook-event --agent A --event E
/// --payload-stdin` for one of this agent's `events`, where `<bin>` is
/// `signaltty` or a plain absolute path to a file named `signaltty`. Anything
/// else (compound commands, notes that mention signaltty) is foreign.
pub fn is_owned(command: &str, agent: &str, events: &[&str]) -> bool {
    if command.ends_with(MARKER) {
        return true;
    }
    let tokens: Vec<&str> = command.split(' ').collect();
    let [
        bin,
        "hook-event",
        "--agent",
        a,
        "--event",
        e,
        "--payload-stdin",
    ] = tokens[..]
    else {
        return false;
    };
    let plain_path = bin.starts_with('/')
        && bin
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        && Path::new(bin).file_name().is_some_and(|n| n == "signaltty");
    (bin == "signaltty" || plain_path) && a == agent && events.contains(&e)
}

#[cfg(test)]
mod tests;
