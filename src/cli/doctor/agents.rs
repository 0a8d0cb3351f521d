//! Probes of the agents: each one `signaltty integration` configures, its
//! executable on `PATH`, `<exe> --version` under a deadline, its hooks'
//! status (the integration library's own `status`), and from the journal the
//! last hook event each agent's hooks reported.

use super::verdict::{IntegrationSeen, LastHook, VersionSeen};
use crate::systemd::command::{self, Ran};
use serde_json::Value;
use signaltty_model::agents::AgentSet;
use signaltty_model::integration::Roots;
use signaltty_model::integration::agent::Agent;
use signaltty_protocol::Timestamp;
use signaltty_protocol::pane::AgentKind;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long `<exe> --version` may take.
pub const VERSION_DEADLINE: Duration = Duration::from_secs(3);

/// At most this much of each journal file is read, from its end.
const JOURNAL_TAIL_BYTES: u64 = 4 << 20;

/// Everything found about one agent.
#[derive(Debug)]
pub struct AgentFacts {
    /// The executable names it runs as (the first is shown when none is found).
    pub executables: Vec<String>,
    pub exe: Option<PathBuf>,
    pub version: Option<VersionSeen>,
    pub integration: Result<IntegrationSeen, String>,
}

/// The agents signaltty configures, in `signaltty integration status` order,
/// with the executable names each runs as: a kind's built-in name, a
/// program's bundled manifest binaries.
pub fn list() -> Vec<(Agent, Vec<String>)> {
    let set = AgentSet::bundled_only();
    signaltty_model::integration::agent::named(None, false)
        .unwrap_or_default()
        .into_iter()
        .map(|agent| {
            let names = match agent {
                Agent::Kind(k) => signaltty_model::agents::programs::executable(k)
                    .map(|e| vec![e.to_owned()])
                    .unwrap_or_default(),
                Agent::Program(p) => {
                    let bins = set
                        .overlay(AgentKind::Generic, p.name)
                        .map(|m| m.binaries.clone())
                        .unwrap_or_default();
                    if bins.is_empty() {
                        vec![p.name.to_owned()]
                    } else {
                        bins
                    }
                },
            };
            (agent, names)
        })
        .collect()
}

/// Probes one agent: blocking (the version run has its own deadline).
pub fn probe(
    agent: Agent,
    executables: Vec<String>,
    roots: &Roots,
    path: Option<&OsStr>,
) -> AgentFacts {
    let exe = executables.iter().find_map(|e| which(e, path));
    let version = exe.as_deref().map(version);
    let reporter =
        signaltty_model::integration::reporter().unwrap_or_else(|_| PathBuf::from("signaltty"));
    let integration = agent.status(roots, &reporter).map(|(file, status)| {
        let error = match &status {
            signaltty_model::integration::Status::Invalid(e) => Some(e.clone()),
            _ => None,
        };
        IntegrationSeen {
            status: status.as_str(),
            file: file.display().to_string(),
            error,
        }
    });
    AgentFacts {
        executables,
        exe,
        version,
        integration,
    }
}

/// The first executable regular file called `name` in `path`'s directories.
fn which(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `<exe> --version`'s first line.
fn version(exe: &Path) -> VersionSeen {
    match command::run(exe.as_os_str(), &["--version"], VERSION_DEADLINE) {
        Ran::Exited { status, stdout } => {
            let line = stdout.lines().map(str::trim).find(|l| !l.is_empty());
            match line {
                Some(l) if status.success() => VersionSeen::Line(l.chars().take(80).collect()),
                Some(_) | None if !status.success() => VersionSeen::Unknown(format!("{status}")),
                _ => VersionSeen::Unknown("it printed nothing".to_owned()),
            }
        },
        Ran::NotStarted(e) => VersionSeen::Unknown(format!("cannot run it: {e}")),
        Ran::TimedOut => VersionSeen::TimedOut(VERSION_DEADLINE.as_millis() as u64),
    }
}

/// The newest hook-sourced record of each agent in the journal: `agent.*`
/// events carry their evidence `source`, `notification.created` its
/// notification's. A generic agent's hooks (`hook:generic:…`) are credited
/// to the program the pane runs. `None` when there is no journal at all.
pub fn last_hooks(
    state_dir: &Path,
    programs: &[(&'static str, Vec<String>)],
    now: &Timestamp,
) -> Option<BTreeMap<String, LastHook>> {
    let mut found: BTreeMap<String, LastHook> = BTreeMap::new();
    let mut any = false;
    for name in ["audit.jsonl", "audit.jsonl.1"] {
        let Some(text) = read_tail(&state_dir.join(name)) else {
            continue;
        };
        any = true;
        for line in text.lines().rev() {
            if !line.contains("\"hook:") {
                continue;
            }
            let Some((agent, source, at)) = hook_of(line, programs) else {
                continue;
            };
            if found.contains_key(&agent) {
                continue;
            }
            let age_s = match (now.unix_millis(), at.unix_millis()) {
                (Some(n), Some(a)) => u64::try_from((n - a).max(0) / 1000).unwrap_or(0),
                _ => 0,
            };
            found.insert(agent, LastHook { source, age_s });
        }
    }
    any.then_some(found)
}

/// The last `JOURNAL_TAIL_BYTES` of `path`, starting at a whole line.
fn read_tail(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(JOURNAL_TAIL_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.take(JOURNAL_TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let start = if from == 0 {
        0
    } else {
        bytes
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |i| i + 1)
    };
    Some(String::from_utf8_lossy(&bytes[start..]).into_owned())
}

/// The agent, source and time of one journal line, when a hook caused it.
fn hook_of(
    line: &str,
    programs: &[(&'static str, Vec<String>)],
) -> Option<(String, String, Timestamp)> {
    let record: Value = serde_json::from_str(line).ok()?;
    let event = record.get("event")?.as_str()?;
    let payload = record.get("payload")?;
    let source = if event.starts_with("agent.") {
        payload.get("source")?.as_str()?
    } else if event == "notification.created" {
        payload.get("notification")?.get("source")?.as_str()?
    } else {
        return None;
    };
    let mut parts = source.splitn(3, ':');
    if parts.next() != Some("hook") {
        return None;
    }
    let kind = parts.next()?;
    let agent = if kind == AgentKind::Generic.name() {
        let program = payload
            .get("pane")
            .and_then(|p| p.get("argv"))
            .and_then(|a| a.get(0))
            .and_then(Value::as_str)
            .and_then(|p| Path::new(p).file_name())
            .and_then(|n| n.to_str())?;
        programs
            .iter()
            .find(|(_, bins)| bins.iter().any(|b| b == program))
            .map(|(name, _)| (*name).to_owned())?
    } else {
        kind.to_owned()
    };
    let at = Timestamp(record.get("at")?.as_str()?.to_owned());
    Some((agent, source.to_owned(), at))
}

#[cfg(test)]
mod tests;
