//! Hook integration (docs/integrations.md): writing the managed hooks that call
//! `signaltty hook-event` into each agent's own config, removing them, and
//! saying what the files hold. One library for the CLI (`signaltty integration
//! …`) and the server (automatic setup at launch, `launch.rs`).
//!
//! | agent | file | shape |
//! |---|---|---|
//! | claude | `<claude root>/settings.json` | grouped JSON |
//! | codex | `<codex root>/hooks.json` | grouped JSON |
//! | cursor | `<home>/.cursor/hooks.json` | flat JSON |
//! | opencode | `<opencode root>/plugins/signaltty.js` | whole file |
//! | gemini | `<home>/.gemini/settings.json` | grouped JSON (timeouts in ms) |
//! | pi | `<pi agent dir>/extensions/signaltty.ts` | whole file |
//!
//! Generic agents whose hooks are a builtin agent's (Qwen Code, Kilo Code)
//! are configured by `program.rs`; `agent.rs` names either kind of agent as
//! the CLI chooses them.

pub mod agent;
pub mod command;
pub mod file;
pub mod hooks_json;
pub mod launch;
pub mod mcp;
pub mod opencode;
pub mod pi;
pub mod program;

use crate::agents::vocabulary::{self, Install};
use file::Edit;
use hooks_json::{Entry, Holding, Plan, Shape};
use serde_json::Value;
use signaltty_protocol::pane::AgentKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The agents signaltty can configure, in the order `all` installs them.
/// Every other kind (`generic`, `none`) has no hook file: installing,
/// removing or reading it fails with `unsupported`'s error.
pub const INSTALLABLE: [AgentKind; 6] = [
    AgentKind::Codex,
    AgentKind::Claude,
    AgentKind::Opencode,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::Pi,
];

/// Parses an agent argument of `signaltty integration`: an installable
/// kind's name.
pub fn parse_installable(name: &str) -> Option<AgentKind> {
    INSTALLABLE.into_iter().find(|k| k.name() == name)
}

/// The error for a kind signaltty cannot install.
fn unsupported(kind: AgentKind) -> String {
    format!(
        "signaltty has no hook integration for {} (only claude, codex, opencode, cursor, gemini and pi)",
        kind.name()
    )
}

/// How signaltty configures an installable agent.
enum Target {
    /// Managed commands merged into the agent's JSON hook file.
    Json(Plan),
    /// A whole file of ours: its header line and its text.
    Owned(&'static str, String),
}

/// How `kind` is configured with `reporter` as the hooks' command; an error for
/// a kind that is not installable.
fn target(kind: AgentKind, reporter: &Path) -> Result<Target, String> {
    let r = reporter.to_string_lossy();
    let shape = match kind {
        AgentKind::Claude | AgentKind::Codex | AgentKind::Gemini => Shape::Grouped,
        AgentKind::Cursor => Shape::Flat,
        AgentKind::Opencode => return Ok(Target::Owned(opencode::HEADER, opencode::plugin(&r))),
        AgentKind::Pi => return Ok(Target::Owned(pi::HEADER, pi::extension(&r))),
        AgentKind::Generic | AgentKind::None => return Err(unsupported(kind)),
    };
    Ok(Target::Json(plan(kind, kind.name(), shape, reporter)))
}

/// What a JSON hook file should hold: a managed command reporting as `agent`
/// for each hook `kind`'s vocabulary installs as a command
/// (docs/integrations.md#per-agent).
fn plan(kind: AgentKind, agent: &'static str, shape: Shape, reporter: &Path) -> Plan {
    let entries = vocabulary::installed(kind)
        .filter_map(|hook| match hook.install {
            Install::Command { timeout, mode } => Some(Entry {
                event: hook.name,
                command: command::managed(reporter, agent, hook.name, mode),
                timeout,
            }),
            Install::Shim | Install::No => None,
        })
        .collect();
    Plan {
        agent,
        shape,
        entries,
    }
}

/// Where each agent keeps its config (docs/integrations.md#per-agent).
#[derive(Debug, Clone, PartialEq)]
pub struct Roots {
    pub home: PathBuf,
    pub claude: PathBuf,
    /// Claude Code's own state file, which holds its user-scope MCP servers:
    /// `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`.
    pub claude_state: PathBuf,
    pub codex: PathBuf,
    pub opencode: PathBuf,
    /// Pi's agent directory (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`).
    pub pi: PathBuf,
    /// Qwen Code's directory (`$QWEN_HOME`, else `~/.qwen`).
    pub qwen: PathBuf,
    /// Kilo Code's config directory (`$KILO_CONFIG_DIR`, else `<config>/kilo`).
    pub kilo: PathBuf,
}

impl Roots {
    /// The roots for `home` (an explicit home isolates the provider variables)
    /// or `$HOME`, read through `env`.
    pub fn new(
        explicit_home: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Roots, String> {
        let var = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = match explicit_home {
            Some(h) => h.to_path_buf(),
            None => var("HOME").ok_or("HOME is not set: pass --home")?,
        };
        let config = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
        let provider = |key: &str| {
            if explicit_home.is_none() {
                var(key)
            } else {
                None
            }
        };
        let claude_dir = provider("CLAUDE_CONFIG_DIR");
        Ok(Roots {
            claude_state: claude_dir
                .as_ref()
                .map_or_else(|| home.join(".claude.json"), |d| d.join(".claude.json")),
            claude: claude_dir.unwrap_or_else(|| home.join(".claude")),
            codex: provider("CODEX_HOME").unwrap_or_else(|| home.join(".codex")),
            opencode: provider("OPENCODE_CONFIG_DIR").unwrap_or_else(|| config.join("opencode")),
            pi: provider("PI_CODING_AGENT_DIR").unwrap_or_else(|| home.join(".pi").join("agent")),
            qwen: provider("QWEN_HOME").unwrap_or_else(|| home.join(".qwen")),
            kilo: provider("KILO_CONFIG_DIR").unwrap_or_else(|| config.join("kilo")),
            home,
        })
    }

    /// The roots a launch uses: its own `CLAUDE_CONFIG_DIR`, `CODEX_HOME` and
    /// `OPENCODE_CONFIG_DIR` win, relative ones taken from `cwd`.
    pub fn for_launch(mut self, env: &BTreeMap<String, String>, cwd: &Path) -> Roots {
        let dir = |key: &str| env.get(key).filter(|v| !v.is_empty()).map(|v| cwd.join(v));
        if let Some(d) = dir("CLAUDE_CONFIG_DIR") {
            self.claude_state = d.join(".claude.json");
            self.claude = d;
        }
        if let Some(d) = dir("CODEX_HOME") {
            self.codex = d;
        }
        if let Some(d) = dir("OPENCODE_CONFIG_DIR") {
            self.opencode = d;
        }
        self
    }

    /// The file an agent's hooks live in; an error for a kind that is not
    /// installable.
    pub fn file(&self, agent: AgentKind) -> Result<PathBuf, String> {
        Ok(match agent {
            AgentKind::Claude => self.claude.join("settings.json"),
            AgentKind::Codex => self.codex.join("hooks.json"),
            AgentKind::Cursor => self.home.join(".cursor").join("hooks.json"),
            AgentKind::Opencode => self.opencode.join("plugins").join("signaltty.js"),
            AgentKind::Gemini => self.home.join(".gemini").join("settings.json"),
            AgentKind::Pi => self.pi.join("extensions").join("signaltty.ts"),
            AgentKind::Generic | AgentKind::None => return Err(unsupported(agent)),
        })
    }
}

/// What an install or uninstall did.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub agent: AgentKind,
    pub file: PathBuf,
    pub changed: bool,
    pub notice: Option<String>,
}

/// What an agent's file holds now.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Every managed hook, current.
    Installed,
    /// Managed hooks partly removed, stale or edited by hand: install again.
    NeedsRepair,
    NotInstalled,
    /// The file turns hooks off (Claude's `disableAllHooks`).
    Disabled,
    /// The file cannot be read or parsed; nothing will touch it.
    Invalid(String),
}

impl Status {
    /// The status word of the CLI and JSON output.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Installed => "installed",
            Status::NeedsRepair => "needs repair",
            Status::NotInstalled => "not installed",
            Status::Disabled => "disabled",
            Status::Invalid(_) => "invalid",
        }
    }
}

/// The reporter hooks run: this very binary, which must be an absolute path
/// to an executable regular file.
pub fn reporter() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("signaltty hook reporter is unavailable: {e}"))?;
    check_reporter(&exe)?;
    Ok(exe)
}

fn check_reporter(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let ok = path.is_absolute()
        && std::fs::metadata(path)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "signaltty hook reporter is unavailable: {} is not an executable file",
            path.display()
        ))
    }
}

/// Parses a JSON hook file strictly (an absent or empty file is `{}`).
fn parse(bytes: Option<&[u8]>, plan: &Plan, path: &Path) -> Result<Value, String> {
    let value = match bytes {
        None => Value::Object(Default::default()),
        Some(b) if b.iter().all(u8::is_ascii_whitespace) => Value::Object(Default::default()),
        Some(b) => serde_json::from_slice(b)
            .map_err(|e| format!("{} is not valid JSON ({e}); left unchanged", path.display()))?,
    };
    hooks_json::check(&value, plan)
        .map_err(|e| format!("{}: {e}; left unchanged", path.display()))?;
    Ok(value)
}

fn to_bytes(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

const CODEX_NOTICE: &str = "Codex: review and trust the signaltty hooks in /hooks before status events can arrive. In an ordinary shell, launch codex --no-daemon so hooks belong to this terminal.";

/// Installs (merges) the agent's managed hooks with `reporter` as their
/// command. Repeating it changes nothing; a stale reporter path is refreshed.
pub fn install(agent: AgentKind, roots: &Roots, reporter: &Path) -> Result<Report, String> {
    check_reporter(reporter)?;
    let (file, changed) = write(target(agent, reporter)?, &roots.file(agent)?)?;
    let notice = (agent == AgentKind::Codex && changed).then(|| CODEX_NOTICE.to_owned());
    Ok(Report {
        agent,
        file,
        changed,
        notice,
    })
}

/// Brings `path` to what `target` says it holds: the file and whether it
/// changed.
fn write(target: Target, path: &Path) -> Result<(PathBuf, bool), String> {
    match target {
        Target::Json(plan) => file::update(path, |bytes| {
            let mut value = parse(bytes, &plan, path)?;
            let before = value.clone();
            hooks_json::merge(&mut value, &plan);
            Ok(if value == before && bytes.is_some() {
                Edit::Keep
            } else {
                Edit::Write(to_bytes(&value))
            })
        }),
        Target::Owned(header, text) => file::update(path, |bytes| {
            if let Some(b) = bytes
                && !b.starts_with(header.as_bytes())
            {
                return Err(format!(
                    "{} is not signaltty's file; left unchanged",
                    path.display()
                ));
            }
            Ok(Edit::Write(text.into_bytes()))
        }),
    }
}

/// Removes the agent's managed hooks, and only those.
pub fn uninstall(agent: AgentKind, roots: &Roots) -> Result<Report, String> {
    let target = target(agent, Path::new("/signaltty"))?;
    let (file, changed) = remove(target, &roots.file(agent)?)?;
    Ok(Report {
        agent,
        file,
        changed,
        notice: None,
    })
}

/// Takes what `target` writes out of `path` again.
fn remove(target: Target, path: &Path) -> Result<(PathBuf, bool), String> {
    match target {
        Target::Json(plan) => file::update(path, |bytes| {
            if bytes.is_none() {
                return Ok(Edit::Keep);
            }
            let mut value = parse(bytes, &plan, path)?;
            Ok(if hooks_json::prune(&mut value, &plan) {
                Edit::Write(to_bytes(&value))
            } else {
                Edit::Keep
            })
        }),
        Target::Owned(header, _) => file::update(path, |bytes| {
            Ok(match bytes {
                Some(b) if b.starts_with(header.as_bytes()) => Edit::Remove,
                _ => Edit::Keep,
            })
        }),
    }
}

/// What the agent's file holds, read from the file (never from memory); an
/// error for a kind that is not installable.
pub fn status(
    agent: AgentKind,
    roots: &Roots,
    reporter: &Path,
) -> Result<(PathBuf, Status), String> {
    let path = roots.file(agent)?;
    let codex_off = agent == AgentKind::Codex && codex_hooks_off(&roots.codex);
    let status = read_status(target(agent, reporter)?, &path, codex_off);
    Ok((path, status))
}

/// What `path` holds of `target`; `off`: the agent's own config turns the
/// hooks off.
fn read_status(target: Target, path: &Path, off: bool) -> Status {
    let bytes = match file::read(path) {
        Ok(b) => b,
        Err(e) => return Status::Invalid(e),
    };
    match target {
        Target::Owned(header, text) => match bytes {
            None => Status::NotInstalled,
            Some(b) if !b.starts_with(header.as_bytes()) => Status::NotInstalled,
            Some(b) if b == text.as_bytes() => Status::Installed,
            Some(_) => Status::NeedsRepair,
        },
        Target::Json(plan) => match parse(bytes.as_deref(), &plan, path) {
            Err(e) => Status::Invalid(e),
            Ok(value) => match hooks_json::holding(&value, &plan) {
                _ if value.get("disableAllHooks") == Some(&Value::Bool(true)) => Status::Disabled,
                _ if off => Status::Disabled,
                Holding::Installed => Status::Installed,
                Holding::NeedsRepair => Status::NeedsRepair,
                Holding::NotInstalled => Status::NotInstalled,
            },
        },
    }
}

/// Codex's `config.toml` turns hooks off (`[features] hooks = false`).
fn codex_hooks_off(root: &Path) -> bool {
    let Ok(Some(bytes)) = file::read(&root.join("config.toml")) else {
        return false;
    };
    let Ok(config) = toml::from_str::<toml::Table>(&String::from_utf8_lossy(&bytes)) else {
        return false;
    };
    config
        .get("features")
        .and_then(|f| f.get("hooks"))
        .and_then(toml::Value::as_bool)
        == Some(false)
}

/// The hooks a file `install` wrote subscribes `agent` to: a JSON settings
/// file's event keys, or a plugin shim's `report("…"` calls and forwarded set.
pub fn installed_hooks(agent: AgentKind, text: &str) -> Vec<String> {
    if agent == AgentKind::Opencode || agent == AgentKind::Pi {
        let mut events: Vec<String> = text
            .split("report(\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .map(str::to_owned)
            .collect();
        if let Some(set) = text
            .split("new Set([")
            .nth(1)
            .and_then(|s| s.split("])").next())
        {
            events.extend(set.split('"').skip(1).step_by(2).map(str::to_owned));
        }
        return events;
    }
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    v["hooks"]
        .as_object()
        .map(|h| h.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
