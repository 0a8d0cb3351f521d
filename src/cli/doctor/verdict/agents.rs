//! The doctor's verdicts on the agents: the live panes and how they report,
//! the agent versions the screen rules were checked on, each agent's
//! executable and hook integration, and its last hook.

use super::{Check, Verdict, human_age};

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

/// The live agent panes whose version is known: those their rules were
/// checked on, and the unverified ones with what was checked.
#[derive(Debug, Default)]
pub struct Versions {
    /// How many run a checked version.
    pub checked: usize,
    /// `front (claude 9.0.0; checked up to 2.1.332)` per unverified pane.
    pub unverified: Vec<String>,
}

impl Versions {
    /// One pane's version, with what `pane.explain` says about it.
    pub fn note(
        &mut self,
        label: &str,
        explained: &signaltty_protocol::state::PaneExplainResult,
        version: &str,
        fidelity: Option<signaltty_protocol::pane::Fidelity>,
    ) {
        use signaltty_protocol::pane::Fidelity;
        match fidelity {
            Some(Fidelity::Unverified) => {
                let checked: Vec<String> = explained
                    .version
                    .as_ref()
                    .and_then(|v| serde_json::from_value(v["checked"].clone()).ok())
                    .unwrap_or_default();
                let newest = signaltty_model::agents::versions::newest(&checked).unwrap_or("?");
                self.unverified.push(format!(
                    "{label} ({} {version}; checked up to {newest})",
                    explained.kind.name()
                ));
            },
            Some(Fidelity::Checked) => self.checked += 1,
            None => {},
        }
    }
}

/// The agent versions check (docs/agents.md#checked-versions): a live pane
/// whose agent is newer than every version its rules were checked on shows
/// an unverified reading.
pub fn agent_versions(v: &Versions) -> Check {
    let name = "agent versions";
    match (v.checked, v.unverified.len()) {
        (0, 0) => Check::new(name, Verdict::Skip, "no live agent pane of a known version"),
        (n, 0) => Check::new(
            name,
            Verdict::Ok,
            format!("{n} live agent pane(s), each a version its rules were checked on"),
        ),
        (_, m) => Check::new(
            name,
            Verdict::Warn,
            format!(
                "{m} pane(s) run an agent newer than its rules were checked on, so their states are unverified readings: {}",
                v.unverified.join(", ")
            ),
        )
        .fix("check the rules on the new version: record its screens (docs/real-agents.md) and add it to the manifest's agent.checked_versions"),
    }
}

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
        let hooks = match integration {
            Ok(i) if i.status != "not installed" => {
                format!(" (its hook file {}: {})", i.file, i.status)
            },
            _ => String::new(),
        };
        return Check::new(
            check,
            Verdict::Skip,
            format!("{executable} is not on PATH{hooks}"),
        );
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
/// reported anyway). Hooks of an agent that is not on PATH cannot have
/// fired: that is information, not a warning (`integration install --all`
/// writes every agent's).
pub fn hooks(name: &str, installed: bool, on_path: bool, last: Option<&LastHook>) -> Check {
    let check = format!("hooks {name}");
    match last {
        None if installed && !on_path => Check::new(
            check,
            Verdict::Skip,
            format!("installed; they fire once {name} is installed and runs in a signaltty pane"),
        ),
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
