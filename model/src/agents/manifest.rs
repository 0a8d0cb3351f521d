//! Detection manifests (docs/agents.md#manifests): TOML files that add
//! binaries, session keys, resume templates and hook overrides to an agent
//! kind, and carry its screen rules. Parsed and validated whole: any error
//! rejects the file.

use super::screen::{Rule, RuleSpec};
use serde::Deserialize;
use signaltty_protocol::pane::{AgentKind, Attention, Lifecycle};
use std::collections::BTreeMap;

/// A hook override: each field, when present, replaces the builtin's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookOverride {
    pub lifecycle: Option<Lifecycle>,
    pub attention: Option<Attention>,
    pub message: Option<String>,
}

/// A validated manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The file name (`claude.toml`).
    pub file: String,
    pub kind: AgentKind,
    pub display_name: Option<String>,
    /// Extra detection names; an entry ending in `*` matches by prefix.
    pub binaries: Vec<String>,
    /// For a generic program whose hooks are a builtin agent's (Qwen Code's
    /// are Claude Code's): the kind whose hook table reads them.
    pub vocabulary: Option<AgentKind>,
    /// The payload key of the session id.
    pub session_key: Option<String>,
    /// The resume command, `{session_id}` replaced.
    pub resume: Option<Vec<String>>,
    /// Per hook name.
    pub lifecycle: BTreeMap<String, HookOverride>,
    pub screen: Vec<Rule>,
    /// Shipped in the binary rather than read from the agents directory.
    pub bundled: bool,
    /// The npm packages the agent ships as: a package.json of one of these
    /// names beside the running program gives its version.
    pub packages: Vec<String>,
    /// The agent versions the rules were checked on.
    pub checked_versions: Vec<String>,
    /// What auto-continue types once the agent's usage limit resets
    /// (docs/states.md#auto-continue); absent: `continue`.
    pub continue_prompt: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Raw {
    agent: Option<RawAgent>,
    session: Option<RawSession>,
    #[serde(default)]
    lifecycle: BTreeMap<String, RawOverride>,
    #[serde(default)]
    screen: Vec<RuleSpec>,
}

#[derive(Debug, Deserialize)]
struct RawAgent {
    kind: Option<String>,
    display_name: Option<String>,
    #[serde(default)]
    binaries: Vec<String>,
    vocabulary: Option<String>,
    #[serde(default)]
    packages: Vec<String>,
    #[serde(default)]
    checked_versions: Vec<String>,
    continue_prompt: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawSession {
    key: Option<String>,
    resume: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct RawOverride {
    lifecycle: Option<String>,
    attention: Option<String>,
    message: Option<String>,
}

impl Manifest {
    /// Parses and validates `text` (the contents of `file`).
    pub fn parse(file: &str, text: &str, bundled: bool) -> Result<Manifest, String> {
        let raw: Raw = toml::from_str(text).map_err(|e| format!("not valid TOML: {e}"))?;
        let agent = raw.agent.ok_or("missing [agent] table")?;
        let kind_name = agent.kind.ok_or("missing agent.kind")?;
        let kind = AgentKind::parse(&kind_name)
            .ok_or_else(|| format!("unknown agent kind {kind_name:?}"))?;
        if agent.binaries.iter().any(|b| b.is_empty() || b == "*") {
            return Err("agent.binaries must not contain an empty name".into());
        }
        let vocabulary = agent
            .vocabulary
            .as_deref()
            .map(|v| vocabulary_of(kind, &agent.binaries, v))
            .transpose()?;
        let mut lifecycle = BTreeMap::new();
        for (hook, o) in raw.lifecycle {
            let l = o
                .lifecycle
                .as_deref()
                .map(|v| {
                    Lifecycle::parse(v)
                        .ok_or_else(|| format!("[lifecycle.{hook}]: bad lifecycle {v:?}"))
                })
                .transpose()?;
            let a = o
                .attention
                .as_deref()
                .map(|v| {
                    Attention::parse(v)
                        .ok_or_else(|| format!("[lifecycle.{hook}]: bad attention {v:?}"))
                })
                .transpose()?;
            lifecycle.insert(
                hook,
                HookOverride {
                    lifecycle: l,
                    attention: a,
                    message: o.message,
                },
            );
        }
        let screen = raw
            .screen
            .iter()
            .map(Rule::compile)
            .collect::<Result<Vec<_>, _>>()?;
        let checked_versions = super::versions::parse_checked(&agent.checked_versions)?;
        if agent
            .continue_prompt
            .as_deref()
            .is_some_and(|p| p.trim().is_empty() || p.len() > 1024)
        {
            return Err("agent.continue_prompt must be 1 to 1024 bytes of text".into());
        }
        if agent.packages.iter().any(|p| p.trim().is_empty()) {
            return Err("agent.packages must not contain an empty name".into());
        }
        let (session_key, resume) = match raw.session {
            Some(s) => (s.key, s.resume),
            None => (None, None),
        };
        Ok(Manifest {
            file: file.to_owned(),
            kind,
            display_name: agent.display_name,
            binaries: agent.binaries,
            vocabulary,
            session_key,
            resume,
            lifecycle,
            screen,
            bundled,
            packages: agent.packages,
            checked_versions,
            continue_prompt: agent.continue_prompt.map(|p| p.trim().to_owned()),
        })
    }

    /// Whether a process name is one of this manifest's binaries.
    pub fn names(&self, process: &str) -> bool {
        self.binaries.iter().any(|b| match b.strip_suffix('*') {
            Some(prefix) => process.starts_with(prefix),
            None => process == b,
        })
    }

    /// The resume command for `session_id`, if the manifest has a template.
    pub fn resume_for(&self, session_id: &str) -> Option<Vec<String>> {
        self.resume.as_ref().map(|t| {
            t.iter()
                .map(|a| a.replace("{session_id}", session_id))
                .collect()
        })
    }
}

/// Checks `agent.vocabulary`: only a generic manifest scoped to its programs
/// may name one, and only a kind that has a hook table.
fn vocabulary_of(kind: AgentKind, binaries: &[String], name: &str) -> Result<AgentKind, String> {
    if kind != AgentKind::Generic || binaries.is_empty() {
        return Err("agent.vocabulary needs kind = \"generic\" and agent.binaries".into());
    }
    AgentKind::parse(name)
        .filter(|k| !super::vocabulary::hooks(*k).is_empty())
        .ok_or_else(|| format!("agent.vocabulary {name:?} is not an agent with hooks"))
}

#[cfg(test)]
mod tests;
