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

/// The live panes check: how many live panes have sent a hook, and the
/// agent panes read from their screens only (no hook yet).
pub fn live_panes(hooked: usize, screen_only: &[String]) -> Check {
    let name = "live panes";
    match (hooked, screen_only.len()) {
        (0, 0) => Check::new(name, Verdict::Skip, "no live agent panes"),
        (n, 0) => Check::new(
            name,
            Verdict::Ok,
            format!("{n} live agent pane(s), all heard from their hooks"),
        ),
        (n, m) => Check::new(
            name,
            Verdict::Ok,
            format!(
                "{} live agent pane(s); {m} read from the screen only (no hook yet): {}",
                n + m,
                screen_only.join(", ")
            ),
        ),
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

/// The socket check: `socket` is `None` when there is no socket file;
/// `dir` is the socket's directory when it is the default one (ours to
/// check; an explicit parent belongs to the user, persistence.md §1).
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

/// The check of a private directory (state or data dir). `missing` is the
/// verdict and detail for an absent one.
pub fn private_dir(name: &str, path: &str, seen: &DirSeen, missing: (Verdict, &str)) -> Check {
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
            if mode != 0o700 {
                return Check::new(
                    name,
                    Verdict::Warn,
                    format!("{path} is {mode:04o}, not 0700: others may read it"),
                )
                .fix(format!("chmod 700 {path}"));
            }
            Check::new(name, Verdict::Ok, format!("{path}: yours, 0700, writable"))
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

// ---- agents ------------------------------------------------------------------

/// What `<exe> --version` gave.
#[derive(Debug, Clone, PartialEq)]
pub enum VersionSeen {
    /// Its first line.
    Line(String),
    /// It printed nothing, or exited unsuccessfully.
    Unknown(String),
    /// It did not finish within the deadline (its process group was killed).
    TimedOut(u64),
}

/// An agent's integration status, as `signaltty integration status` says it.
#[derive(Debug, Clone, PartialEq)]
pub struct IntegrationSeen {
    /// `installed`, `needs repair`, `not installed`, `disabled`, `invalid`.
    pub status: &'static str,
    /// The hook file.
    pub file: String,
    /// Why it is invalid.
    pub error: Option<String>,
}

/// The agent check: `exe` is where its executable was found on `PATH`.
pub fn agent(
    name: &str,
    executable: &str,
    exe: Option<&str>,
    version: Option<&VersionSeen>,
    integration: Result<&IntegrationSeen, &str>,
) -> Check {
    let check = format!("agent {name}");
    let install = format!("signaltty integration install {name}");
    let Some(exe) = exe else {
        return Check::new(check, Verdict::Skip, format!("{executable} is not on PATH"));
    };
    let timed_out = matches!(version, Some(VersionSeen::TimedOut(_)));
    let version = match version {
        Some(VersionSeen::Line(l)) => l.clone(),
        Some(VersionSeen::Unknown(why)) => format!("version unknown ({why})"),
        Some(VersionSeen::TimedOut(ms)) => format!("`--version` gave no answer within {ms} ms"),
        None => "version not asked".to_owned(),
    };
    let head = format!("{version} ({exe})");
    let integration = match integration {
        Ok(i) => i,
        Err(e) => {
            return Check::new(check, Verdict::Fail, format!("{head}; hooks: {e}"));
        },
    };
    let file = &integration.file;
    let (verdict, detail, fix) = match integration.status {
        "installed" => (Verdict::Ok, format!("hooks installed in {file}"), None),
        "needs repair" => (
            Verdict::Fail,
            format!("hooks in {file} need repair (partly removed, stale or edited)"),
            Some(install),
        ),
        "not installed" => (
            Verdict::Warn,
            format!("hooks not installed in {file}: its state comes from the screen only"),
            Some(format!(
                "{install} (panes signaltty starts it in get them at launch; one typed in a shell pane does not)"
            )),
        ),
        "disabled" => (
            Verdict::Warn,
            format!("hooks disabled by {file} (or the agent's own config)"),
            Some(format!("turn the agent's hooks back on, then `{install}`")),
        ),
        _ => (
            Verdict::Fail,
            integration
                .error
                .clone()
                .unwrap_or_else(|| format!("{file} cannot be read")),
            Some(format!("fix or move {file} by hand, then `{install}`")),
        ),
    };
    let verdict = if timed_out {
        verdict.max(Verdict::Warn)
    } else {
        verdict
    };
    let mut c = Check::new(check, verdict, format!("{head}; {detail}"));
    c.fix =
        fix.or_else(|| timed_out.then(|| format!("check that `{exe} --version` runs by itself")));
    c
}

/// The last hook an agent's hooks reported, from the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct LastHook {
    /// `hook:<agent>:<event>`.
    pub source: String,
    /// Seconds ago.
    pub age_s: u64,
}

/// The hooks-firing check of an agent whose hooks are installed (or that
/// reported anyway).
pub fn hooks(name: &str, installed: bool, last: Option<&LastHook>) -> Check {
    let check = format!("hooks {name}");
    match last {
        Some(l) => Check::new(
            check,
            Verdict::Ok,
            format!("last hook {} ago ({})", human_age(l.age_s), l.source),
        ),
        None if installed => Check::new(
            check,
            Verdict::Warn,
            "hooks installed but never fired (no hook event in audit.jsonl or audit.jsonl.1)",
        )
        .fix(if name == "codex" {
            "check Codex trusted them: run `/hooks` in Codex and trust the signaltty hooks".to_owned()
        } else {
            format!(
                "check {name} trusted and loaded them: start it in a signaltty pane and send a prompt"
            )
        }),
        None => Check::new(check, Verdict::Skip, "hooks not installed"),
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
    },
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
        } => {
            let detail = format!("{unit} {enabled}, {active}; signaltty.service {service_active}");
            if service_active == "failed" || active == "failed" {
                Check::new(name, Verdict::Fail, detail).fix(
                    "see why: `systemctl --user status signaltty.service`; then `systemctl --user restart signaltty.socket`",
                )
            } else if enabled != "enabled" || active != "active" {
                Check::new(name, Verdict::Warn, detail)
                    .fix(format!("systemctl --user enable --now {unit}"))
            } else {
                Check::new(name, Verdict::Ok, detail)
            }
        },
    }
}

// ---- text output -------------------------------------------------------------

/// The width of the check-name column.
const NAME_WIDTH: usize = 16;

/// The report as text: one line per check (verdict word, check, detail),
/// wrapped to `width` columns, the fix on an indented line under a problem,
/// then a summary line.
pub fn render(checks: &[Check], width: usize) -> String {
    let indent = 5 + NAME_WIDTH + 1;
    let mut out = String::new();
    for c in checks {
        let head = format!("{:<4} {:<NAME_WIDTH$} ", c.verdict.word(), c.check);
        wrap_into(&mut out, &head, &c.detail, indent, width);
        if let Some(fix) = &c.fix
            && c.verdict >= Verdict::Warn
        {
            wrap_into(&mut out, "     fix: ", fix, 10, width);
        }
    }
    let count = |v| checks.iter().filter(|c| c.verdict == v).count();
    let (fails, warns) = (count(Verdict::Fail), count(Verdict::Warn));
    out.push_str(&match (fails, warns) {
        (0, 0) => "all good\n".to_owned(),
        (0, w) => format!("no problems, {w} warning(s)\n"),
        (f, w) => format!("{f} problem(s), {w} warning(s)\n"),
    });
    out
}

/// Appends `head` + `text` wrapped at word boundaries to `width` columns,
/// continuation lines indented by `indent`. A word longer than a line is
/// cut.
fn wrap_into(out: &mut String, head: &str, text: &str, indent: usize, width: usize) {
    let room = width.saturating_sub(indent).max(20);
    let mut line = head.to_owned();
    let mut line_len = head.chars().count();
    let mut fresh = true;
    for word in text.split_whitespace() {
        let mut word: String = word.to_owned();
        loop {
            let w = word.chars().count();
            let space = usize::from(!fresh);
            if line_len + space + w <= width {
                if !fresh {
                    line.push(' ');
                }
                line.push_str(&word);
                line_len += space + w;
                fresh = false;
                break;
            }
            if fresh && w > room {
                // A word wider than a line: cut it where the line ends.
                let fits = width.saturating_sub(line_len).max(1);
                let cut: String = word.chars().take(fits).collect();
                line.push_str(&cut);
                word = word.chars().skip(fits).collect();
            }
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            line_len = indent;
            fresh = true;
            if word.is_empty() {
                break;
            }
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    #[test]
    fn disk_thresholds_fail_under_100_mib_and_warn_under_1_gib_or_5_percent() {
        let v = |avail, total| disk("disk", "/s", avail, total).verdict;
        assert_eq!(v(99 * MIB, 500 * GIB), Verdict::Fail);
        assert_eq!(v(100 * MIB, 500 * GIB), Verdict::Warn, "under 1 GiB");
        assert_eq!(v(GIB - 1, 500 * GIB), Verdict::Warn);
        assert_eq!(v(10 * GIB, 500 * GIB), Verdict::Warn, "2 %");
        assert_eq!(v(25 * GIB, 500 * GIB), Verdict::Ok, "5 %");
        assert_eq!(v(2 * GIB, 4 * GIB), Verdict::Ok);
        assert_eq!(
            v(2 * GIB, 0),
            Verdict::Ok,
            "an unknown size is no reason to warn"
        );
        let c = disk("disk", "/s", 50 * MIB, 4 * GIB);
        assert!(
            c.detail.contains("50.0 MiB free of 4.0 GiB (1 %)"),
            "{}",
            c.detail
        );
        assert!(c.fix.is_some());
    }

    #[test]
    fn private_dirs_want_ours_0700_and_writable() {
        let present = |mode, ours, writable: Result<(), String>| DirSeen::Present {
            owned: Owned { mode, ours },
            writable,
        };
        let c = |seen: &DirSeen| private_dir("state dir", "/s", seen, (Verdict::Skip, "absent"));
        assert_eq!(c(&present(0o700, true, Ok(()))).verdict, Verdict::Ok);
        let loose = c(&present(0o755, true, Ok(())));
        assert_eq!(loose.verdict, Verdict::Warn);
        assert!(loose.detail.contains("0755"), "{}", loose.detail);
        assert_eq!(loose.fix.as_deref(), Some("chmod 700 /s"));
        let ro = c(&present(0o500, true, Err("Permission denied".into())));
        assert_eq!(ro.verdict, Verdict::Fail);
        assert!(ro.detail.contains("not writable: Permission denied"));
        assert_eq!(c(&present(0o700, false, Ok(()))).verdict, Verdict::Fail);
        assert_eq!(c(&DirSeen::Missing).verdict, Verdict::Skip);
        assert_eq!(
            c(&DirSeen::Unusable("not a directory".into())).verdict,
            Verdict::Fail
        );
    }

    #[test]
    fn the_socket_is_0600_and_ours_and_its_default_dir_0700() {
        let ours = |mode| Owned { mode, ours: true };
        let ok = socket_permissions("/r/s.sock", Some(ours(0o600)), Some(("/r", ours(0o700))));
        assert_eq!(ok.verdict, Verdict::Ok);
        let loose = socket_permissions("/r/s.sock", Some(ours(0o666)), Some(("/r", ours(0o755))));
        assert_eq!(loose.verdict, Verdict::Warn);
        assert!(
            loose.detail.contains("0666") && loose.detail.contains("0755"),
            "{}",
            loose.detail
        );
        assert_eq!(
            loose.fix.as_deref(),
            Some("chmod 600 /r/s.sock and chmod 700 /r")
        );
        // An explicit socket's directory is the user's: not looked at.
        let explicit = socket_permissions("/tmp/s.sock", Some(ours(0o600)), None);
        assert_eq!(explicit.verdict, Verdict::Ok);
        let theirs = Owned {
            mode: 0o600,
            ours: false,
        };
        assert_eq!(
            socket_permissions("/s", Some(theirs), None).verdict,
            Verdict::Fail
        );
        assert_eq!(socket_permissions("/s", None, None).verdict, Verdict::Skip);
    }

    #[test]
    fn the_server_check_names_the_fix_and_warns_on_another_version() {
        let none = server(
            &ServerSeen::NoSocket,
            "/r/s.sock",
            "$XDG_RUNTIME_DIR",
            "0.1.0",
        );
        assert_eq!(none.verdict, Verdict::Fail);
        assert!(
            none.fix
                .as_deref()
                .is_some_and(|f| f.contains("signaltty start"))
        );
        let stale = server(&ServerSeen::Stale, "/r/s.sock", "default", "0.1.0");
        assert!(stale.detail.contains("stale socket"), "{}", stale.detail);
        let silent = server(
            &ServerSeen::Silent { waited_ms: 2000 },
            "/s",
            "--socket",
            "0.1.0",
        );
        assert!(silent.detail.contains("did not answer within 2000 ms"));
        let answered = |version: &str| ServerSeen::Answered {
            version: version.into(),
            uptime_s: 200,
            panes: 3,
            live_panes: 2,
        };
        let same = server(&answered("0.1.0"), "/s", "--socket", "0.1.0");
        assert_eq!(same.verdict, Verdict::Ok);
        assert!(
            same.detail.contains("up 3 min, 3 panes (2 live)"),
            "{}",
            same.detail
        );
        let other = server(&answered("0.2.0"), "/s", "--socket", "0.1.0");
        assert_eq!(other.verdict, Verdict::Warn);
        assert!(other.fix.as_deref().is_some_and(|f| f.contains("restart")));
    }

    #[test]
    fn live_panes_say_which_are_read_from_their_screens_only() {
        assert_eq!(live_panes(0, &[]).verdict, Verdict::Skip);
        assert!(
            live_panes(2, &[])
                .detail
                .contains("2 live agent pane(s), all heard")
        );
        let mixed = live_panes(1, &["pane_a (codex)".to_owned()]);
        assert_eq!(mixed.verdict, Verdict::Ok);
        assert!(
            mixed
                .detail
                .contains("2 live agent pane(s); 1 read from the screen only")
        );
        assert!(mixed.detail.ends_with("pane_a (codex)"), "{}", mixed.detail);
    }

    fn integration(status: &'static str) -> IntegrationSeen {
        IntegrationSeen {
            status,
            file: "/h/.claude/settings.json".into(),
            error: (status == "invalid")
                .then(|| "/h/.claude/settings.json is not valid JSON (x)".into()),
        }
    }

    #[test]
    fn an_agent_is_judged_by_its_integration_and_skipped_when_absent() {
        let v = VersionSeen::Line("2.0.1 (Claude Code)".into());
        let c = |status| {
            agent(
                "claude",
                "claude",
                Some("/bin/claude"),
                Some(&v),
                Ok(&integration(status)),
            )
        };
        assert_eq!(c("installed").verdict, Verdict::Ok);
        assert!(
            c("installed")
                .detail
                .starts_with("2.0.1 (Claude Code) (/bin/claude)")
        );
        let repair = c("needs repair");
        assert_eq!(repair.verdict, Verdict::Fail);
        assert_eq!(
            repair.fix.as_deref(),
            Some("signaltty integration install claude")
        );
        assert_eq!(c("not installed").verdict, Verdict::Warn);
        assert_eq!(c("disabled").verdict, Verdict::Warn);
        let invalid = c("invalid");
        assert_eq!(invalid.verdict, Verdict::Fail);
        assert!(
            invalid.detail.contains("settings.json is not valid JSON"),
            "{}",
            invalid.detail
        );
        let absent = agent("claude", "claude", None, None, Ok(&integration("invalid")));
        assert_eq!(absent.verdict, Verdict::Skip);
        let slow = agent(
            "claude",
            "claude",
            Some("/bin/claude"),
            Some(&VersionSeen::TimedOut(3000)),
            Ok(&integration("installed")),
        );
        assert_eq!(slow.verdict, Verdict::Warn);
        assert!(slow.detail.contains("no answer within 3000 ms"));
    }

    #[test]
    fn hooks_that_never_fired_warn_and_a_recent_one_is_shown() {
        let last = LastHook {
            source: "hook:claude:Stop".into(),
            age_s: 180,
        };
        let fired = hooks("claude", true, Some(&last));
        assert_eq!(fired.verdict, Verdict::Ok);
        assert_eq!(fired.detail, "last hook 3 min ago (hook:claude:Stop)");
        let never = hooks("codex", true, None);
        assert_eq!(never.verdict, Verdict::Warn);
        assert!(never.detail.contains("never fired"));
        assert!(never.fix.as_deref().is_some_and(|f| f.contains("/hooks")));
        assert_eq!(hooks("claude", false, None).verdict, Verdict::Skip);
    }

    #[test]
    fn the_service_is_skipped_unless_installed_and_wants_enabled_and_active() {
        let units = |enabled: &str, active: &str, service: &str| ServiceSeen::Units {
            unit: "signaltty.socket",
            enabled: enabled.into(),
            active: active.into(),
            service_active: service.into(),
        };
        assert_eq!(
            service(&ServiceSeen::NotInstalled { dir: "/c".into() }).verdict,
            Verdict::Skip
        );
        assert_eq!(
            service(&ServiceSeen::NoSystemctl("absent".into())).verdict,
            Verdict::Skip
        );
        assert_eq!(
            service(&units("enabled", "active", "inactive")).verdict,
            Verdict::Ok
        );
        assert_eq!(
            service(&units("disabled", "inactive", "inactive")).verdict,
            Verdict::Warn
        );
        assert_eq!(
            service(&units("enabled", "active", "failed")).verdict,
            Verdict::Fail
        );
    }

    #[test]
    fn the_summary_fails_only_on_a_failure_and_the_text_fits_80_columns() {
        let long = "a detail long enough to need wrapping onto a second line because it names /a/very/long/path/that/keeps/going/and/going/past/the/end/of/any/terminal/line.json";
        let checks = vec![
            Check::new("server", Verdict::Ok, "fine"),
            Check::new("agent claude", Verdict::Warn, long).fix("signaltty integration install claude and then some more words to wrap the fix line too"),
        ];
        assert!(healthy(&checks));
        let text = render(&checks, 80);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?}");
        }
        assert!(text.starts_with("ok   server           fine\n"), "{text}");
        assert!(text.contains("\nWARN agent claude     a detail"), "{text}");
        assert!(
            text.contains("\n     fix: signaltty integration install claude"),
            "{text}"
        );
        assert!(text.ends_with("no problems, 1 warning(s)\n"), "{text}");
        let mut failing = checks.clone();
        failing.push(Check::new("journal", Verdict::Fail, "bad"));
        assert!(!healthy(&failing));
        assert!(render(&failing, 80).ends_with("1 problem(s), 1 warning(s)\n"));
    }

    #[test]
    fn ages_and_sizes_read_naturally() {
        assert_eq!(human_age(5), "5 s");
        assert_eq!(human_age(180), "3 min");
        assert_eq!(human_age(7200), "2 h");
        assert_eq!(human_age(3 * 86_400), "3 days");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 * MIB + MIB / 5), "3.2 MiB");
    }
}
