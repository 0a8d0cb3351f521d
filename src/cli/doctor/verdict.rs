//! The pure half of `signaltty doctor`: what a probe found (plain facts) in,
//! a `Check` with its verdict, detail and fix out; the summary and the text
//! rendering. Nothing here touches the system, so every rule is unit-tested.

use serde::Serialize;

/// How one check came out. Ordered by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing to look at here (not installed, not applicable).
    Skip,
    /// Fine.
    Ok,
    /// Works, but worth a look.
    Warn,
    /// Broken: signaltty (or a part of it) does not work as it should.
    Fail,
}

impl Verdict {
    /// The word shown in the text output.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Skip => "skip",
            Verdict::Ok => "ok",
            Verdict::Warn => "WARN",
            Verdict::Fail => "FAIL",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// What was checked (`server`, `state dir`, `agent claude`, …).
    pub check: String,
    /// How it came out.
    pub verdict: Verdict,
    /// What was found, for people.
    pub detail: String,
    /// What to do about a problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    /// A check without a fix.
    pub fn new(check: impl Into<String>, verdict: Verdict, detail: impl Into<String>) -> Check {
        Check {
            check: check.into(),
            verdict,
            detail: detail.into(),
            fix: None,
        }
    }

    /// The same check with `fix`.
    pub fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// The whole report is fine when no check failed (warnings allowed).
pub fn healthy(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.verdict != Verdict::Fail)
}

// ---- formatting helpers ------------------------------------------------------

/// `3 s`, `4 min`, `2 h`, `5 days`.
pub fn human_age(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86_400 => format!("{} h", secs / 3600),
        _ => format!("{} days", secs / 86_400),
    }
}

/// `512 B`, `3.2 MiB`, `41.0 GiB`.
pub fn human_bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f < KIB {
        format!("{n} B")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else if f < KIB * KIB * KIB {
        format!("{:.1} MiB", f / (KIB * KIB))
    } else {
        format!("{:.1} GiB", f / (KIB * KIB * KIB))
    }
}

// ---- server ------------------------------------------------------------------

/// What the server probe saw.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSeen {
    /// No file at the socket path.
    NoSocket,
    /// A file, but nothing listening on it.
    Stale,
    /// It accepted and did not answer within the deadline.
    Silent { waited_ms: u64 },
    /// Connecting or the call failed otherwise.
    Error(String),
    /// `server.status` answered.
    Answered {
        version: String,
        uptime_s: u64,
        panes: usize,
        live_panes: usize,
    },
}

/// The server check: `socket` is the path, `origin` where it came from,
/// `ours` this CLI's version.
pub fn server(seen: &ServerSeen, socket: &str, origin: &str, ours: &str) -> Check {
    let at = format!("{socket} ({origin})");
    let start = "start it: `signaltty start` (or have systemd do it: `signaltty service install`)";
    match seen {
        ServerSeen::NoSocket => Check::new(
            "server",
            Verdict::Fail,
            format!("not running: no socket at {at}"),
        )
        .fix(start),
        ServerSeen::Stale => Check::new(
            "server",
            Verdict::Fail,
            format!("not running: stale socket file with no listener at {at}"),
        )
        .fix(format!("{start}; it replaces the stale file")),
        ServerSeen::Silent { waited_ms } => Check::new(
            "server",
            Verdict::Fail,
            format!(
                "accepted a connection on {at} but did not answer within {} ms",
                waited_ms
            ),
        )
        .fix("the server looks stuck: end its process, then `signaltty start`"),
        ServerSeen::Error(e) => {
            Check::new("server", Verdict::Fail, format!("{at}: {e}")).fix(start)
        },
        ServerSeen::Answered {
            version,
            uptime_s,
            panes,
            live_panes,
        } => {
            let detail = format!(
                "signaltty {version} on {at}, up {}, {panes} panes ({live_panes} live)",
                human_age(*uptime_s)
            );
            if version == ours {
                Check::new("server", Verdict::Ok, detail)
            } else {
                Check::new(
                    "server",
                    Verdict::Warn,
                    format!("{detail}; this CLI is {ours}"),
                )
                .fix("restart the server to run this version: `signaltty stop`, then `signaltty start`")
            }
        },
    }
}

// ---- permissions -------------------------------------------------------------

/// What `lstat` said about a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owned {
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    /// Owned by the user running doctor.
    pub ours: bool,
}

/// The socket check: `socket` is `None` when there is no socket file; `dir` is
/// the socket's directory when it is the default one (ours to check; an explicit
/// parent belongs to the user, docs/protocol.md#the-socket).
pub fn socket_permissions(path: &str, socket: Option<Owned>, dir: Option<(&str, Owned)>) -> Check {
    let name = "socket perms";
    let Some(socket) = socket else {
        return Check::new(name, Verdict::Skip, "no socket file");
    };
    if !socket.ours {
        return Check::new(
            name,
            Verdict::Fail,
            format!("{path} belongs to another user"),
        )
        .fix(
            "that is another user's server: use your own socket (`--socket` or $SIGNALTTY_SOCKET)",
        );
    }
    let mut problems = Vec::new();
    let mut fixes = Vec::new();
    if socket.mode & 0o777 != 0o600 {
        problems.push(format!("{path} is {:04o}, not 0600", socket.mode & 0o777));
        fixes.push(format!("chmod 600 {path}"));
    }
    if let Some((dir, owned)) = dir {
        if !owned.ours {
            problems.push(format!("{dir} belongs to another user"));
        } else if owned.mode & 0o777 != 0o700 {
            problems.push(format!("{dir} is {:04o}, not 0700", owned.mode & 0o777));
            fixes.push(format!("chmod 700 {dir}"));
        }
    }
    if problems.is_empty() {
        let scope = if dir.is_some() {
            "socket 0600, its directory 0700"
        } else {
            "socket 0600 (its directory is yours to manage)"
        };
        return Check::new(name, Verdict::Ok, scope);
    }
    let mut c = Check::new(name, Verdict::Warn, problems.join("; "));
    if !fixes.is_empty() {
        c = c.fix(fixes.join(" and "));
    }
    c
}

/// What the private-directory probe found.
#[derive(Debug, Clone, PartialEq)]
pub enum DirSeen {
    /// Not there.
    Missing,
    /// Not a directory, or its metadata cannot be read.
    Unusable(String),
    /// A directory: its owner and mode, and whether a probe file could be
    /// created and removed in it.
    Present {
        owned: Owned,
        writable: Result<(), String>,
    },
}

/// How private a directory must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Privacy {
    /// 0700: the state dir holds prompts and session ids (the server
    /// creates it so).
    Private,
    /// Others may read it, never write it: the data dir holds task
    /// checkouts, as readable as the repositories they come from (the
    /// server creates it with the umask's mode, 0755 by default).
    NotWritableByOthers,
}

/// The check of signaltty's own directory (state or data dir). `missing`
/// is the verdict and detail for an absent one.
pub fn private_dir(
    name: &str,
    path: &str,
    seen: &DirSeen,
    missing: (Verdict, &str),
    privacy: Privacy,
) -> Check {
    match seen {
        DirSeen::Missing => Check::new(name, missing.0, format!("{path}: {}", missing.1)),
        DirSeen::Unusable(e) => Check::new(name, Verdict::Fail, format!("{path}: {e}"))
            .fix(format!("move {path} away; the server creates a new one")),
        DirSeen::Present { owned, writable } => {
            if let Err(e) = writable {
                return Check::new(name, Verdict::Fail, format!("{path} is not writable: {e}"))
                    .fix(format!(
                        "chmod 700 {path} (and check the disk is mounted read-write)"
                    ));
            }
            if !owned.ours {
                return Check::new(
                    name,
                    Verdict::Fail,
                    format!("{path} belongs to another user"),
                )
                .fix(format!(
                    "chown $USER {path}, or point $XDG_STATE_HOME / $XDG_DATA_HOME elsewhere"
                ));
            }
            let mode = owned.mode & 0o777;
            match privacy {
                Privacy::Private if mode != 0o700 => Check::new(
                    name,
                    Verdict::Warn,
                    format!("{path} is {mode:04o}, not 0700: others may read it"),
                )
                .fix(format!("chmod 700 {path}")),
                Privacy::NotWritableByOthers if mode & 0o022 != 0 => Check::new(
                    name,
                    Verdict::Warn,
                    format!("{path} is {mode:04o}: others may write in it"),
                )
                .fix(format!("chmod go-w {path}")),
                _ => Check::new(
                    name,
                    Verdict::Ok,
                    format!("{path}: yours, {mode:04o}, writable"),
                ),
            }
        },
    }
}

// ---- disk --------------------------------------------------------------------

/// Below this, a warning.
pub const DISK_WARN_BYTES: u64 = 1 << 30;
/// Below this share of the filesystem, a warning.
pub const DISK_WARN_PERCENT: u64 = 5;
/// Below this, a failure: the journal's appends are about to fail.
pub const DISK_FAIL_BYTES: u64 = 100 << 20;

/// The free-space check of the filesystem holding `path`.
pub fn disk(name: &str, path: &str, available: u64, total: u64) -> Check {
    let percent = available
        .saturating_mul(100)
        .checked_div(total)
        .unwrap_or(100);
    let detail = format!(
        "{} free of {} ({percent} %) under {path}",
        human_bytes(available),
        human_bytes(total)
    );
    let fix = "free some space: the journal and snapshots need it to write";
    if available < DISK_FAIL_BYTES {
        Check::new(name, Verdict::Fail, detail).fix(fix)
    } else if available < DISK_WARN_BYTES || percent < DISK_WARN_PERCENT {
        Check::new(name, Verdict::Warn, detail).fix(fix)
    } else {
        Check::new(name, Verdict::Ok, detail)
    }
}

// ---- service -----------------------------------------------------------------

/// What the systemd probe found.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceSeen {
    /// Neither unit file exists.
    NotInstalled { dir: String },
    /// Unit files exist but `systemctl` is not there or has no user manager.
    NoSystemctl(String),
    /// `systemctl --user is-enabled` / `is-active` of the main unit
    /// (the socket when present, else the service) and the service.
    Units {
        unit: &'static str,
        enabled: String,
        active: String,
        service_active: String,
        /// The web view's unit, when its file is there.
        web: Option<WebSeen>,
    },
}

/// What `systemctl --user` says of `signaltty-web.service`, and where its
/// `ExecStart=` listens.
#[derive(Debug, Clone, PartialEq)]
pub struct WebSeen {
    pub enabled: String,
    pub active: String,
    pub listen: String,
}

/// The service check.
pub fn service(seen: &ServiceSeen) -> Check {
    let name = "service";
    match seen {
        ServiceSeen::NotInstalled { dir } => Check::new(
            name,
            Verdict::Skip,
            format!("no systemd user units in {dir} (optional: `signaltty service install`)"),
        ),
        ServiceSeen::NoSystemctl(why) => Check::new(
            name,
            Verdict::Skip,
            format!("units installed, but systemctl cannot tell: {why}"),
        ),
        ServiceSeen::Units {
            unit,
            enabled,
            active,
            service_active,
            web,
        } => {
            let mut detail =
                format!("{unit} {enabled}, {active}; signaltty.service {service_active}");
            if let Some(w) = web {
                detail.push_str(&format!(
                    "; signaltty-web.service {}, {} on {}",
                    w.enabled, w.active, w.listen
                ));
            }
            if service_active == "failed" || active == "failed" {
                Check::new(name, Verdict::Fail, detail).fix(
                    "see why: `systemctl --user status signaltty.service`; then `systemctl --user restart signaltty.socket`",
                )
            } else if enabled != "enabled" || active != "active" {
                Check::new(name, Verdict::Warn, detail)
                    .fix(format!("systemctl --user enable --now {unit}"))
            } else if web.as_ref().is_some_and(|w| w.active == "failed") {
                Check::new(name, Verdict::Fail, detail).fix(
                    "see why: `journalctl --user -u signaltty-web`; then `systemctl --user restart signaltty-web.service`",
                )
            } else if web
                .as_ref()
                .is_some_and(|w| w.enabled != "enabled" || w.active != "active")
            {
                Check::new(name, Verdict::Warn, detail)
                    .fix("systemctl --user enable --now signaltty-web.service")
            } else {
                Check::new(name, Verdict::Ok, detail)
            }
        },
    }
}

mod agents;
mod capacity;
mod render;
mod storage;
pub use agents::*;
pub use capacity::pane_capacity;
pub use render::render;
pub use storage::storage;

#[cfg(test)]
mod tests;
