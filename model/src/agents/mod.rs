//! Agent manifests and screen rules (docs/agents.md#manifests,
//! docs/screen-rules.md): the bundled manifests shipped in the binary, the
//! user's from the agents directory, and the rule sets that apply to a pane.
//! The active set (`AgentRules`, held in `Config`) is swapped whole on reload;
//! panes read it at each screen tick.

pub mod manifest;
pub mod programs;
pub mod resets;
pub mod screen;
pub mod versions;
pub mod vocabulary;

use manifest::Manifest;
use parking_lot::RwLock;
use screen::Rule;
use signaltty_protocol::pane::AgentKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The manifests embedded in the binary, from `manifests/`.
/// Embedded with `include_str!`, in file-name order.
const BUNDLED: &[(&str, &str)] = &[
    ("agy.toml", include_str!("../../../manifests/agy.toml")),
    ("amp.toml", include_str!("../../../manifests/amp.toml")),
    (
        "claude.toml",
        include_str!("../../../manifests/claude.toml"),
    ),
    ("codex.toml", include_str!("../../../manifests/codex.toml")),
    (
        "copilot.toml",
        include_str!("../../../manifests/copilot.toml"),
    ),
    (
        "cursor.toml",
        include_str!("../../../manifests/cursor.toml"),
    ),
    ("droid.toml", include_str!("../../../manifests/droid.toml")),
    (
        "gemini.toml",
        include_str!("../../../manifests/gemini.toml"),
    ),
    ("grok.toml", include_str!("../../../manifests/grok.toml")),
    (
        "hermes.toml",
        include_str!("../../../manifests/hermes.toml"),
    ),
    ("kilo.toml", include_str!("../../../manifests/kilo.toml")),
    ("kimi.toml", include_str!("../../../manifests/kimi.toml")),
    ("kiro.toml", include_str!("../../../manifests/kiro.toml")),
    ("muse.toml", include_str!("../../../manifests/muse.toml")),
    (
        "opencode.toml",
        include_str!("../../../manifests/opencode.toml"),
    ),
    ("pi.toml", include_str!("../../../manifests/pi.toml")),
    (
        "qodercli.toml",
        include_str!("../../../manifests/qodercli.toml"),
    ),
    ("qwen.toml", include_str!("../../../manifests/qwen.toml")),
];

/// A manifest file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub file: String,
    pub error: String,
}

/// Which rules apply to a pane, and where they come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    Bundled,
    User,
    None,
}

impl RuleSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleSource::Bundled => "bundled",
            RuleSource::User => "user",
            RuleSource::None => "none",
        }
    }
}

/// The active manifests.
#[derive(Debug, Default)]
pub struct AgentSet {
    /// The agents directory read (or that would be read).
    pub dir: Option<PathBuf>,
    pub bundled: Vec<Manifest>,
    pub user: Vec<Manifest>,
    pub failures: Vec<Failure>,
}

impl AgentSet {
    /// The bundled manifests only. A bundled file that does not parse is a bug;
    /// it is reported like a user file rather than stopping the server.
    pub fn bundled_only() -> AgentSet {
        let mut set = AgentSet::default();
        for (file, text) in BUNDLED {
            match Manifest::parse(file, text, true) {
                Ok(m) => set.bundled.push(m),
                Err(error) => set.failures.push(Failure {
                    file: format!("(bundled) {file}"),
                    error,
                }),
            }
        }
        set
    }

    /// Loads the bundled manifests and every `*.toml` of `dir` in file-name
    /// order. A missing directory means no user manifests; one that cannot be
    /// listed is an error (a reload then keeps the active set).
    pub fn load(dir: Option<&Path>) -> Result<AgentSet, String> {
        let mut set = AgentSet::bundled_only();
        set.dir = dir.map(Path::to_path_buf);
        let Some(dir) = dir else {
            return Ok(set);
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(set),
            Err(e) => return Err(format!("cannot list {}: {e}", dir.display())),
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for path in files {
            let file = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read: {e}"))
                .and_then(|text| Manifest::parse(&file, &text, false));
            match parsed {
                Ok(m) => set.user.push(m),
                Err(error) => {
                    log::warn!("agent manifest {}: {error}; skipped", path.display());
                    set.failures.push(Failure { file, error });
                },
            }
        }
        Ok(set)
    }

    /// The rules for a pane of `kind` running `process`
    /// (docs/screen-rules.md#which-rules-apply-to-a-pane): the user's rules
    /// that apply, else the bundled ones; never both.
    pub fn rules_for(&self, kind: AgentKind, process: &str) -> (RuleSource, Vec<&Rule>) {
        let applies = |m: &&Manifest| {
            m.kind == kind
                && (kind != AgentKind::Generic || m.binaries.is_empty() || m.names(process))
        };
        let user: Vec<&Rule> = self
            .user
            .iter()
            .filter(applies)
            .flat_map(|m| &m.screen)
            .collect();
        if !user.is_empty() {
            return (RuleSource::User, user);
        }
        let bundled: Vec<&Rule> = self
            .bundled
            .iter()
            .filter(applies)
            .flat_map(|m| &m.screen)
            .collect();
        if bundled.is_empty() {
            (RuleSource::None, bundled)
        } else {
            (RuleSource::Bundled, bundled)
        }
    }

    /// What auto-continue types into a pane of `kind` running `process` once
    /// its usage limit resets (docs/states.md#auto-continue): the first
    /// applicable manifest's `continue_prompt`, the user's first, else
    /// `continue`.
    pub fn continue_prompt(&self, kind: AgentKind, process: &str) -> String {
        self.user
            .iter()
            .chain(&self.bundled)
            .filter(|m| {
                m.kind == kind
                    && (kind != AgentKind::Generic || m.binaries.is_empty() || m.names(process))
            })
            .find_map(|m| m.continue_prompt.clone())
            .unwrap_or_else(|| "continue".to_owned())
    }

    /// The manifest that names the versions a pane's rules were checked on
    /// (docs/agents.md#checked-versions): among those that apply to a pane of
    /// `kind` running `process`, the user's first, then the bundled ones.
    pub fn versions_for(&self, kind: AgentKind, process: &str) -> Option<&Manifest> {
        self.user
            .iter()
            .chain(&self.bundled)
            .filter(|m| !m.checked_versions.is_empty())
            .find(|m| {
                m.kind == kind
                    && (kind != AgentKind::Generic || (!m.binaries.is_empty() && m.names(process)))
            })
    }

    /// The kind a process name identifies: manifest binaries first (user, then
    /// bundled), then the builtin names; `None` when nothing does.
    pub fn detect(&self, process: &str) -> Option<AgentKind> {
        self.user
            .iter()
            .chain(&self.bundled)
            .find(|m| m.kind.is_agent() && m.names(process))
            .map(|m| m.kind)
            .or_else(|| {
                let kind = programs::detect_kind(&[process.to_owned()]);
                kind.is_agent().then_some(kind)
            })
    }

    /// The first user overlay of `kind` (hook overrides, session key, resume);
    /// for `generic`, the first one scoped to `process` (or unscoped), else
    /// the bundled manifest of `process` that names the vocabulary its hooks
    /// speak (a bundled file overlays nothing else: it has no hook overrides).
    pub fn overlay(&self, kind: AgentKind, process: &str) -> Option<&Manifest> {
        self.user
            .iter()
            .find(|m| {
                m.kind == kind
                    && (kind != AgentKind::Generic || m.binaries.is_empty() || m.names(process))
            })
            .or_else(|| {
                (kind == AgentKind::Generic).then_some(())?;
                self.bundled
                    .iter()
                    .find(|m| m.kind == kind && m.vocabulary.is_some() && m.names(process))
            })
    }
}

impl AgentSet {
    /// Loads the bundled manifests and those of `dir`; a manifest directory
    /// that cannot be listed leaves the bundled rules only (and says so).
    pub fn load_or_bundled(dir: Option<&Path>) -> AgentSet {
        AgentSet::load(dir).unwrap_or_else(|e| {
            log::warn!("agent manifests: {e}; using the bundled ones only");
            AgentSet::bundled_only()
        })
    }
}

/// The server's active rule set, shared by every pane and swapped whole by
/// `agents.reload`. A handle is cheap to clone: clones share one set. It lives
/// in `Config`, so each server (and each test) has its own, never a
/// process-wide one.
#[derive(Debug, Clone, Default)]
pub struct AgentRules {
    /// The set and how many times it was replaced. Written only by `replace`
    /// (at start and on `agents.reload`); read by every pane at each screen
    /// evaluation and by `agents.list`.
    inner: Arc<RwLock<Installed>>,
}

/// One installed set and its generation.
#[derive(Debug, Default)]
struct Installed {
    set: Arc<AgentSet>,
    generation: u64,
}

impl AgentRules {
    /// A handle holding `set`.
    pub fn new(set: AgentSet) -> AgentRules {
        let rules = AgentRules::default();
        rules.replace(set);
        rules
    }

    /// Loads the bundled manifests and those of `dir`, before the server
    /// takes its first connection: a pane created before its rules exist
    /// would be judged without them (a question it shows meanwhile would go
    /// unseen). It takes about 3 ms (17 ms in a debug build); a manifest
    /// directory that cannot be read leaves the bundled rules only.
    pub fn load_at_start(dir: Option<&Path>) -> AgentRules {
        AgentRules::new(AgentSet::load_or_bundled(dir))
    }

    /// The active set (cheap: a shared pointer).
    pub fn current(&self) -> Arc<AgentSet> {
        self.inner.read().set.clone()
    }

    /// Makes `set` the active set, whole, for every clone of this handle.
    pub fn replace(&self, set: AgentSet) {
        let mut installed = self.inner.write();
        installed.set = Arc::new(set);
        installed.generation += 1;
    }

    /// Counts replacements: a different value means the rules may have changed.
    pub fn generation(&self) -> u64 {
        self.inner.read().generation
    }
}

#[cfg(test)]
mod tests;
